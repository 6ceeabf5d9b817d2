// Every numeric option of every command is a finite number in a stated range,
// or a usage error (exit 2) naming the option (issue 17, item 6). `--cpu-ms nan`
// used to give exit 0 and "do not port", `--cpu-ms 1e308` a null speedup and
// "port", `--top 0` a 309-digit range.
#include "../support/CliRun.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace {

using skelcast::testsupport::CliRun;
using skelcast::testsupport::run;

const std::string kSrc = SKELCAST_SOURCE_DIR;

struct BadOption {
  std::vector<std::string> args;
  std::string option; ///< must be named on stderr
};

class NumericOptions : public ::testing::TestWithParam<BadOption> {};

TEST_P(NumericOptions, OutOfRangeIsAUsageErrorNamingTheOption) {
  std::filesystem::current_path(kSrc);
  const BadOption &b = GetParam();
  CliRun r = run(b.args);
  std::string cmd;
  for (const auto &a : b.args)
    cmd += a + " ";
  EXPECT_EQ(r.rc, 2) << cmd << "\n" << r.out << r.err;
  EXPECT_EQ(r.out, "") << cmd;
  EXPECT_NE(r.err.find(b.option + ": "), std::string::npos) << cmd << "\n" << r.err;
  // a range a person can read, not DBL_MAX spelled out
  EXPECT_LT(r.err.size(), 400u) << cmd << "\n" << r.err;
  EXPECT_EQ(r.err.find("000000000000000000"), std::string::npos) << r.err;
}

const std::string kSkel = "skeletons/matmul.skel";

INSTANTIATE_TEST_SUITE_P(
    EveryCommand, NumericOptions,
    ::testing::Values(
        BadOption{{"project", kSkel, "--cpu-ms", "nan"}, "--cpu-ms"},
        BadOption{{"project", kSkel, "--cpu-ms", "inf"}, "--cpu-ms"},
        BadOption{{"project", kSkel, "--cpu-ms", "1e308"}, "--cpu-ms"},
        BadOption{{"project", kSkel, "--cpu-ms", "0"}, "--cpu-ms"},
        BadOption{{"project", kSkel, "--cpu-ms", "5", "--min-speedup", "nan"}, "--min-speedup"},
        BadOption{{"project", kSkel, "--cpu-ms", "5", "--min-speedup", "-1"}, "--min-speedup"},
        BadOption{{"project", kSkel, "--cpu-ms", "5", "--min-speedup", "1e300"}, "--min-speedup"},
        BadOption{{"project", kSkel, "--top", "0"}, "--top"},
        BadOption{{"project", kSkel, "--top", "nan"}, "--top"},
        BadOption{{"project", kSkel, "--top", "99999999999999999999999"}, "--top"},
        BadOption{{"project", kSkel, "--cpu-repeats", "0"}, "--cpu-repeats"},
        BadOption{{"project", kSkel, "--cpu-repeats", "nan"}, "--cpu-repeats"},
        BadOption{{"batch", "skeletons", "--out", "/tmp/skelcast-numeric", "-j", "0"}, "--jobs"},
        BadOption{{"batch", "skeletons", "--out", "/tmp/skelcast-numeric", "-j", "nan"}, "--jobs"},
        BadOption{{"batch", "skeletons", "--out", "/tmp/skelcast-numeric", "-j", "100000"}, "--jobs"},
        BadOption{{"batch", "skeletons", "--out", "/tmp/skelcast-numeric", "--top", "0"}, "--top"},
        BadOption{{"check", "skeletons", "--baseline", "bench/baseline.json", "--top", "-3"}, "--top"},
        BadOption{{"check", "skeletons", "--baseline", "bench/baseline.json", "--tolerance", "nan"},
                  "--tolerance"},
        BadOption{{"check", "skeletons", "--baseline", "bench/baseline.json", "--tolerance", "inf%"},
                  "--tolerance"},
        BadOption{{"check", "skeletons", "--baseline", "bench/baseline.json", "--tolerance", "1e300%"},
                  "--tolerance"},
        BadOption{{"validate", "validation/results/h100_kernels.json", "--max-error", "nan"},
                  "--max-error"},
        BadOption{{"validate", "validation/results/h100_kernels.json", "--max-error", "-5"},
                  "--max-error"}));

// The checks let ordinary values through.
TEST(NumericOptionsOk, OrdinaryValuesPass) {
  std::filesystem::current_path(kSrc);
  CliRun r = run({"project", kSkel, "--cpu-ms", "1e3", "--min-speedup", "1.5", "--top", "3"});
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("speedup"), std::string::npos) << r.out;
}

// JSON numbers: a manifest's cpu_ms, a measurement's time_ms, a baseline's
// time_ms and speedup are finite and in their stated range too.
TEST(NumericOptionsOk, JsonNumbersOutOfRangeNameTheField) {
  auto dir = std::filesystem::temp_directory_path() / "skelcast-numeric-json";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  std::filesystem::current_path(kSrc);
  std::string suite = (dir / "suite.json").string();
  std::ofstream(suite) << R"({"schema_version": 1, "benchmarks": [
    {"name": "mm", "input": ")" << kSrc << R"(/skeletons/matmul.skel", "cpu_ms": 1e308}]})";
  CliRun r = run({"batch", suite, "--out", (dir / "out").string()});
  EXPECT_EQ(r.rc, 1) << r.err;
  EXPECT_NE(r.err.find("field 'benchmarks[0].cpu_ms': 1e+308 is out of range (0, 1e+09]"),
            std::string::npos)
      << r.err;

  std::string meas = (dir / "m.json").string();
  std::ofstream(meas) << R"({"schema_version": 1, "skeleton_root": ")" << kSrc << R"(", "cases": [
    {"kernel": "matmul", "size": "800", "skeleton": "validation/skeletons/matmul_800.skel",
     "layout": "block=i:16,j:16", "time_ms": 1e300}]})";
  r = run({"validate", meas});
  EXPECT_EQ(r.rc, 1) << r.err;
  EXPECT_NE(r.err.find("field 'cases[0].time_ms': 1e+300 is out of range (0, 1e+09]"),
            std::string::npos)
      << r.err;

  std::string base = (dir / "b.json").string();
  std::ofstream(base) << R"({"schema_version": 1, "skelcast_version": "x", "model": "skelcast",
    "entries": [{"benchmark": "a", "kernel": "k", "gpu": "h100", "time_ms": 1e300, "speedup": null}]})";
  r = run({"check", "skeletons", "--baseline", base, "--hw", "h100"});
  EXPECT_EQ(r.rc, 1) << r.err;
  EXPECT_NE(r.err.find("field 'entries[0].time_ms': 1e+300 is out of range (0, 1e+15]"),
            std::string::npos)
      << r.err;
  std::filesystem::remove_all(dir);
}

} // namespace
