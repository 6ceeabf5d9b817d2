// Regression tests of the JSON loaders (hwspecs, validation measurements):
// each input once escaped as an nlohmann exception (std::terminate, exit code
// 134) or was accepted with a wrong value; now it is an InputError naming the
// file and, where there is one, the field.
#include "skelcast/hw/HwSpec.h"
#include "skelcast/model/Validation.h"
#include "skelcast/support/Diagnostic.h"
#include "skelcast/support/JsonText.h"

#include "../support/TempDir.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

using namespace skelcast;

namespace {

const std::string kSrc = SKELCAST_SOURCE_DIR;

std::string readAll(const std::string &path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}


template <class F> std::string errorOf(F &&f) {
  try {
    f();
  } catch (const InputError &e) {
    return e.what();
  }
  return "(no error)";
}

std::string h100WithValue(const std::string &field, const std::string &valueJson) {
  std::string text = readAll(kSrc + "/hwspecs/h100.json");
  auto j = nlohmann::json::parse(text);
  j[field]["value"] = nlohmann::json::parse(valueJson, nullptr, true, false);
  return j.dump(1);
}

} // namespace

TEST(JsonText, MessagesCarryPositionsAndNoRawBytes) {
  EXPECT_EQ(errorOf([] { parseJsonText("", "x.json"); }), "x.json:1:1: error: empty file");
  EXPECT_EQ(errorOf([] { parseJsonText("\n  \n", "x.json"); }), "x.json:1:1: error: empty file");
  EXPECT_EQ(errorOf([] { parseJsonText("{\"a\": 1,\n \"b\": \xff\xfe}", "x.json"); }),
            "x.json:2:7: error: invalid JSON: syntax error while parsing value - invalid literal");
  EXPECT_EQ(errorOf([] { parseJsonText("{\"a\": [1, 2", "x.json"); }),
            "x.json:1:12: error: invalid JSON: syntax error while parsing array - unexpected end of "
            "input; expected ']'");
}

// nlohmann::json::out_of_range escaped parseHwSpec (it caught parse_error only).
TEST(HwSpecHardening, NumberBeyondDoubleIsAnError) {
  std::string text = readAll(kSrc + "/hwspecs/h100.json");
  auto at = text.find("\"value\": 132");
  ASSERT_NE(at, std::string::npos);
  text.replace(at, 12, "\"value\": 1e400");
  EXPECT_EQ(errorOf([&] { hw::parseHwSpec(text, "s.json"); }),
            "s.json: error: invalid JSON: number overflow parsing '1e400'");
}

// An integer above INT64_MAX wrapped to a negative number in the message.
TEST(HwSpecHardening, HugeUnsignedIntegerIsNamedAsWritten) {
  EXPECT_EQ(errorOf([] { hw::parseHwSpec(h100WithValue("sm_count", "18446744073709551615"), "s.json"); }),
            "s.json: error: field 'sm_count': 18446744073709551615 is out of range [1, 4096]");
}

// sscanf's %d overflowed (undefined behaviour) on long digit runs.
TEST(HwSpecHardening, ComputeCapabilityIsStrict) {
  for (const char *cc : {"\"99999999999999999999.0\"", "\"9.0abc\"", "\"9\"", "\".5\"", "\"9.\""})
    EXPECT_EQ(errorOf([&] { hw::parseHwSpec(h100WithValue("compute_capability", cc), "s.json"); }),
              std::string("s.json: error: field 'compute_capability': '") +
                  nlohmann::json::parse(cc).get<std::string>() + "' is not of the form MAJOR.MINOR")
        << cc;
  EXPECT_EQ(hw::parseHwSpec(h100WithValue("compute_capability", "\"12.1\""), "s.json").ccMajor, 12);
}

// nlohmann::json::type_error escaped loadMeasurements and validatePrograms.
TEST(MeasurementsHardening, WrongTypesAreErrors) {
  testsupport::TempDir tmp("skelcast-loader-test");
  struct Case {
    const char *text, *message;
  };
  const Case kernels[] = {
      {R"({"schema_version": 1, "gpu": {"name": 7}, "cases": []})", "field 'gpu.name': not a string"},
      {R"({"schema_version": 1, "skeleton_root": 3, "cases": []})", "field 'skeleton_root': not a string"},
      {R"({"schema_version": 2, "cases": []})",
       "field 'schema_version': this skelcast reads version 1, the file has 2"},
      {R"([1, 2])", "a measurement file must be a JSON object"},
      {R"({"schema_version": 1, "cases": {"a": 1}})", "field 'cases': missing or not an array"},
  };
  for (const auto &c : kernels) {
    std::string path = tmp.write("kernels.json", c.text);
    EXPECT_EQ(errorOf([&] { model::loadMeasurements(path); }), path + ": error: " + c.message) << c.text;
  }
  hw::HwSpec hw = hw::loadHwSpec(kSrc + "/hwspecs/h100.json");
  const Case programs[] = {
      {R"({"schema_version": 1, "fusion": [1, 2]})", "field 'fusion.cases': missing or not an array"},
      {R"({"schema_version": 1, "fusion": {"cases": 3}})", "field 'fusion.cases': missing or not an array"},
      {R"({"schema_version": 1, "fusion": {"cases": [4]}})", "field 'fusion.cases[0]': not an object"},
      {R"({"schema_version": 1, "hotspot_steps": {"cases": [{"size": "1", "steps": "x"}]}})",
       "field 'hotspot_steps.cases[0].steps': not an integer"},
      {R"({"schema_version": 1, "fusion": {"cases": [{"n": 4, "variant": "half", "time_ms": 1}]}})",
       "field 'fusion.cases[0].variant': must be \"unfused\" or \"fused\", is \"half\""},
      {R"({"schema_version": 1, "cases": []})",
       "field 'fusion': missing; a program measurement file has 'fusion' or 'hotspot_steps'"},
  };
  for (const auto &c : programs) {
    std::string path = tmp.write("programs.json", c.text);
    EXPECT_EQ(errorOf([&] { model::validatePrograms({path}, hw, {}, "skelcast"); }),
              path + ": error: " + c.message)
        << c.text;
  }
}

// How the launches were timed: the file's "timing", a case's own overriding
// it; "alone" when absent; anything else an error naming the field.
TEST(MeasurementsHardening, TimingOfTheFileAndOfACase) {
  testsupport::TempDir tmp("skelcast-loader-test");
  tmp.write("k.skel", "#define N 1024\nfloat a[N]\nparallel_for(N) : i {\n  st a[i]\n}\n");
  auto load = [&](const std::string &top, const std::string &caseField) {
    return model::loadMeasurements(tmp.write("kernels.json", R"({"schema_version": 1, )" + top + R"("cases": [
      {"kernel": "k", "size": "1", "skeleton": "k.skel", "layout": "block=i:32", "time_ms": 1.5)" +
                                               caseField + R"(},
      {"kernel": "k", "size": "1", "skeleton": "k.skel", "layout": "block=i:64", "time_ms": 1.5}]})"));
  };
  auto m = load("", "");
  EXPECT_EQ(m.cases[0].timing, layout::LaunchTiming::RepeatedAlone);
  m = load(R"("timing": "back_to_back", )", R"(, "timing": "once")");
  EXPECT_EQ(m.cases[0].timing, layout::LaunchTiming::Once);
  EXPECT_EQ(m.cases[1].timing, layout::LaunchTiming::BackToBack);
  std::string path = tmp.file("kernels.json");
  EXPECT_EQ(errorOf([&] { load("", R"(, "timing": "queued")"); }),
            path + ": error: field 'cases[0].timing': expected \"alone\", \"back_to_back\" or \"once\", got \"queued\"");
  EXPECT_EQ(errorOf([&] { load(R"("timing": 3, )", ""); }),
            path + ": error: field 'timing': expected \"alone\", \"back_to_back\" or \"once\", got 3");
}

// A missing skeleton was reported only by its resolved path, without the
// measurement file or the case; now the field is named when the file is read.
TEST(MeasurementsHardening, MissingSkeletonNamesTheField) {
  testsupport::TempDir tmp("skelcast-loader-test");
  std::string path = tmp.write("kernels.json", R"({"schema_version": 1, "cases": [
    {"kernel": "k", "size": "1", "skeleton": "no/such.skel", "layout": "block=i:1", "time_ms": 1.5}]})");
  std::string dir = std::filesystem::path(path).parent_path().string();
  EXPECT_EQ(errorOf([&] { model::loadMeasurements(path); }),
            path + ": error: field 'cases[0].skeleton': no such skeleton file '" + dir + "/no/such.skel'");
}
