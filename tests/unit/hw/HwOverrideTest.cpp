// `--set FIELD=VALUE` (issue 20, item 3): overrideHwSpec validates a value
// exactly as the loader validates the field, and names close fields for an
// unknown one.
#include "skelcast/hw/HwSpec.h"
#include "skelcast/support/Diagnostic.h"

#include "../support/TempDir.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

using namespace skelcast;
using namespace skelcast::hw;

namespace {

const std::string kSpecs = std::string(SKELCAST_SOURCE_DIR) + "/hwspecs";

HwSpec h100() { return loadHwSpec(kSpecs + "/h100.json"); }

std::string errorOf(const std::vector<FieldOverride> &sets, const HwSpec &base = h100()) {
  try {
    overrideHwSpec(base, sets);
  } catch (const InputError &e) {
    return e.what();
  }
  return "(no error)";
}

} // namespace

TEST(HwOverride, SetsANumberAndRecordsIt) {
  HwSpec base = h100();
  HwSpec h = overrideHwSpec(base, {{"mem_bandwidth_gbps", "8000"}});
  EXPECT_EQ(h.memBandwidthGBps, 8000);
  EXPECT_EQ(h.smCount, base.smCount);
  EXPECT_EQ(h.path, base.path);
  EXPECT_EQ(h.contentHash, base.contentHash); // the file's; the overrides say the rest
  EXPECT_EQ(h.overrides, std::vector<std::string>{"mem_bandwidth_gbps=8000"});
  EXPECT_EQ(h.sources.at("mem_bandwidth_gbps"), "--set on the command line");
}

TEST(HwOverride, SetsAHostLinkFieldAndLaterOnesWin) {
  HwSpec h = overrideHwSpec(h100(), {{"host_link.h2d_pinned_gbps", "64"}, {"host_link.h2d_pinned_gbps", "32"}});
  ASSERT_TRUE(h.hostLink);
  EXPECT_EQ(h.hostLink->h2dPinnedGBps, 32);
  EXPECT_EQ(h.overrides.size(), 2u);
}

TEST(HwOverride, NoOverridesIsTheSpec) {
  HwSpec base = h100();
  HwSpec h = overrideHwSpec(base, {});
  EXPECT_EQ(h.memBandwidthGBps, base.memBandwidthGBps);
  EXPECT_TRUE(h.overrides.empty());
}

TEST(HwOverride, StringFieldsTakeTheTextAsIs) {
  HwSpec h = overrideHwSpec(h100(), {{"compute_capability", "8.0"}});
  EXPECT_EQ(h.ccMajor, 8);
  EXPECT_EQ(h.ccMinor, 0);
  EXPECT_EQ(errorOf({{"compute_capability", "eight"}}),
            "--set: error: field 'compute_capability': 'eight' is not of the form MAJOR.MINOR");
}

TEST(HwOverride, ValuesAreValidatedAsTheLoaderDoes) {
  EXPECT_EQ(errorOf({{"mem_bandwidth_gbps", "1e7"}}),
            "--set: error: field 'mem_bandwidth_gbps': 10000000 is out of range [0.1, 1000000]");
  EXPECT_EQ(errorOf({{"mem_bandwidth_gbps", "fast"}}),
            "--set: error: field 'mem_bandwidth_gbps': must be a number, is string");
  EXPECT_EQ(errorOf({{"sm_count", "13.5"}}), "--set: error: field 'sm_count': must be an integer, is a fraction");
  // A bound from another field, as the loader states it.
  EXPECT_EQ(errorOf({{"shared_mem_per_block_bytes", "999999999"}}),
            "--set: error: field 'shared_mem_per_block_bytes': 999999999 is out of range [0, 233472] (at "
            "most shared_mem_per_sm_bytes, which is 233472)");
  EXPECT_EQ(errorOf({{"host_link.h2d_pinned_gbps", "0"}}),
            "--set: error: field 'host_link.h2d_pinned_gbps': 0 is out of range [0.01, 10000]");
  EXPECT_EQ(errorOf({{"l2_thrash_bytes", "0"}}),
            "--set: error: field 'l2_thrash_bytes': 0 is out of range [1, 209715200]");
  // a resident capacity set past the spec's thrash bytes is no error (a step there)
  EXPECT_EQ(errorOf({{"l2_resident_bytes", "50000000"}}), "(no error)");
}

TEST(HwOverride, UnknownFieldsListCloseNames) {
  EXPECT_EQ(errorOf({{"mem_bandwith_gbps", "8000"}}),
            "--set: error: unknown field 'mem_bandwith_gbps' (close names: mem_bandwidth_gbps, l2_bandwidth_gbps)");
  std::string e = errorOf({{"host_link.h2d_gbps", "8"}});
  EXPECT_NE(e.find("close names: "), std::string::npos) << e;
  EXPECT_NE(e.find("host_link.h2d_pinned_gbps"), std::string::npos) << e;
  EXPECT_EQ(errorOf({{"zzzz", "1"}}),
            "--set: error: unknown field 'zzzz' (the fields: docs/hwspecs.md, or `skelcast hw show h100`)");
  EXPECT_EQ(errorOf({{"name", "x"}}).rfind("--set: error: unknown field 'name'", 0), 0u);
}

TEST(HwOverride, MalformedAssignments) {
  for (const char *bad : {"mem_bandwidth_gbps", "=8", "mem_bandwidth_gbps="}) {
    try {
      parseFieldOverride(bad);
      ADD_FAILURE() << bad;
    } catch (const InputError &e) {
      EXPECT_EQ(std::string(e.what()),
                fmt::format("--set: error: '{}' is not FIELD=VALUE (e.g. --set mem_bandwidth_gbps=8000)", bad));
    }
  }
  FieldOverride f = parseFieldOverride("host_link.kind=nvlink=c2c");
  EXPECT_EQ(f.field, "host_link.kind");
  EXPECT_EQ(f.value, "nvlink=c2c");
}

TEST(HwOverride, TheFieldTableIsTheLoadersFields) {
  // Every field of every bundled spec is in the table, and each field of the
  // table that h100 has takes its own value back unchanged.
  const auto &names = hwSpecFieldNames();
  for (const auto &e : std::filesystem::directory_iterator(kSpecs)) {
    std::ifstream in(e.path());
    nlohmann::json j = nlohmann::json::parse(in);
    for (auto &[k, v] : j.items()) {
      if (k == "schema_version" || k == "name" || k == "description" || k == "note")
        continue;
      if (k == "host_link") {
        for (auto &[hk, _] : v["value"].items()) {
          if (hk != "note") {
            EXPECT_NE(std::find(names.begin(), names.end(), "host_link." + hk), names.end()) << hk;
          }
        }
        continue;
      }
      EXPECT_NE(std::find(names.begin(), names.end(), k), names.end()) << e.path() << ": " << k;
    }
  }
  std::ifstream in(kSpecs + "/h100.json");
  nlohmann::json j = nlohmann::json::parse(in);
  for (const auto &n : names) {
    size_t dot = n.find('.');
    const nlohmann::json *v = nullptr;
    if (dot == std::string::npos) {
      if (j.contains(n))
        v = &j[n]["value"];
    } else if (j["host_link"]["value"].contains(n.substr(dot + 1))) {
      v = &j["host_link"]["value"][n.substr(dot + 1)];
    }
    if (!v)
      continue;
    std::string text = v->is_string() ? v->get<std::string>() : v->dump();
    EXPECT_NO_THROW(overrideHwSpec(h100(), {{n, text}})) << n << "=" << text;
  }
}

TEST(HwOverride, ASpecWithoutHostLinkSaysSo) {
  // A copy of h100 without its host link.
  std::ifstream in(kSpecs + "/h100.json");
  nlohmann::json j = nlohmann::json::parse(in);
  j.erase("host_link");
  testsupport::TempDir dir;
  HwSpec nolink = loadHwSpec(dir.write("no_link.json", j.dump(2)));
  EXPECT_EQ(errorOf({{"host_link.latency_us", "5"}}, nolink),
            "--set: error: field 'host_link.latency_us': the spec 'h100' has no host_link to change");
}
