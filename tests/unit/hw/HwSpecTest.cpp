#include "skelcast/hw/HwSpec.h"
#include "skelcast/support/Diagnostic.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <functional>
#include <sstream>

using namespace skelcast;
using namespace skelcast::hw;

namespace {

const std::string kSpecs = std::string(SKELCAST_SOURCE_DIR) + "/hwspecs";

std::string h100Text() {
  std::ifstream in(kSpecs + "/h100.json");
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// Expect parsing `text` to fail with a message containing `want`.
void expectError(const std::string &text, const std::string &want) {
  try {
    hw::parseHwSpec(text, "spec.json");
    FAIL() << "expected an error containing: " << want;
  } catch (const InputError &e) {
    EXPECT_EQ(e.loc().file, "spec.json");
    EXPECT_NE(std::string(e.what()).find(want), std::string::npos)
        << "expected '" << want << "' in '" << e.what() << "'";
  }
}

std::string edited(const std::function<void(nlohmann::json &)> &edit) {
  auto j = nlohmann::json::parse(h100Text());
  edit(j);
  return j.dump();
}

} // namespace

TEST(HwSpec, EveryBundledSpecLoadsWithSources) {
  auto names = hw::listHwSpecs(kSpecs);
  for (const char *n : {"fx5600", "c1060", "v100", "a100", "h100", "h200"})
    EXPECT_NE(std::find(names.begin(), names.end(), n), names.end()) << n;
  for (const auto &n : names) {
    hw::HwSpec h = hw::resolveHwSpec(n, kSpecs);
    EXPECT_EQ(h.name, n);
    EXPECT_GE(h.sources.size(), 25u) << n;
    for (const auto &[field, src] : h.sources)
      EXPECT_FALSE(src.empty()) << n << ": " << field;
  }
}

TEST(HwSpec, PaperTable5Values) {
  hw::HwSpec fx = hw::resolveHwSpec("fx5600", kSpecs);
  EXPECT_EQ(fx.smCount, 16);
  EXPECT_DOUBLE_EQ(fx.clockGHz, 1.35);
  EXPECT_DOUBLE_EQ(fx.memBandwidthGBps, 76.8);
  EXPECT_DOUBLE_EQ(fx.dramLatencyCycles, 420);
  EXPECT_DOUBLE_EQ(fx.departureDelUncoalCycles, 10);
  EXPECT_DOUBLE_EQ(fx.departureDelCoalCycles, 4);
  EXPECT_EQ(fx.maxWarpsPerSM, 24);
  EXPECT_EQ(fx.coalescing(), hw::CoalescingRule::HalfWarp);
  hw::HwSpec c = hw::resolveHwSpec("c1060", kSpecs);
  EXPECT_EQ(c.smCount, 30);
  EXPECT_EQ(c.maxWarpsPerSM, 32);
  EXPECT_DOUBLE_EQ(c.departureDelUncoalCycles, 40);
  EXPECT_EQ(c.coalescing(), hw::CoalescingRule::Segment);
  EXPECT_EQ(hw::resolveHwSpec("h100", kSpecs).coalescing(), hw::CoalescingRule::Sector);
}

TEST(HwSpec, UnknownNameListsKnownOnes) {
  try {
    hw::resolveHwSpec("gtx9999", kSpecs);
    FAIL();
  } catch (const InputError &e) {
    EXPECT_NE(std::string(e.what()).find("unknown GPU spec 'gtx9999' (known: a100, c1060"),
              std::string::npos)
        << e.what();
  }
}

TEST(HwSpec, BadInputsNameTheField) {
  expectError("", "empty file");
  expectError("{\"schema_version\": 1, \"name\": \"x\", ", "invalid JSON");
  expectError("[1, 2]", "a hardware spec must be a JSON object");
  expectError(edited([](auto &j) { j["schema_version"] = 7; }),
              "field 'schema_version': this skelcast reads version 1, the file has 7");
  expectError(edited([](auto &j) { j.erase("sm_count"); }), "field 'sm_count': missing");
  expectError(edited([](auto &j) { j["warp_size"]["value"] = "32"; }),
              "field 'warp_size': must be an integer, is string");
  expectError(edited([](auto &j) { j["warp_size"]["value"] = 0; }),
              "field 'warp_size': 0 is out of range");
  expectError(edited([](auto &j) { j["sm_count"]["value"] = 1000000000; }),
              "field 'sm_count': 1000000000 is out of range");
  expectError(edited([](auto &j) { j["clock_ghz"]["value"] = -1.5; }),
              "field 'clock_ghz': -1.5 is out of range");
  expectError(edited([](auto &j) { j["mem_bandwidth_gbps"]["source"] = ""; }),
              "field 'mem_bandwidth_gbps': missing 'source'");
  expectError(edited([](auto &j) { j["clock_gz"] = j["clock_ghz"]; }),
              "field 'clock_gz': unknown field");
  expectError(edited([](auto &j) { j["warp_size"]["value"] = 24; }),
              "field 'warp_size': 24 is not a power of two");
  expectError(edited([](auto &j) { j["compute_capability"]["value"] = "nine"; }),
              "field 'compute_capability': 'nine' is not of the form MAJOR.MINOR");
  expectError(edited([](auto &j) { j["host_link"]["value"].erase("latency_us"); }),
              "field 'host_link.latency_us': missing");
  expectError(std::string("{\"a\": \x01}"), "invalid JSON");
}

TEST(HwSpec, PageableCurvesAreCheckedPointByPoint) {
  auto with = [](nlohmann::json pts) {
    return edited([&](auto &j) { j["host_link"]["value"]["h2d_pageable_ms_by_bytes"] = pts; });
  };
  hw::HwSpec h = hw::parseHwSpec(with(nlohmann::json::parse("[[4096, 0.01], [1048576, 0.1]]")), "x.json");
  ASSERT_EQ(h.hostLink->h2dPageableCurve.size(), 2u);
  EXPECT_DOUBLE_EQ(h.hostLink->h2dPageableCurve[1].first, 1048576);
  expectError(with(nlohmann::json::parse("[[4096, 0.01]]")),
              "field 'host_link.h2d_pageable_ms_by_bytes': must be a list of two or more [bytes, ms] points");
  expectError(with(nlohmann::json::parse("[[4096, 0.01], [4096, 0.02]]")),
              "field 'host_link.h2d_pageable_ms_by_bytes[1]': sizes must increase");
  expectError(with(nlohmann::json::parse("[[4096, 0.01], [8192, 0.005]]")),
              "field 'host_link.h2d_pageable_ms_by_bytes[1]': a larger copy cannot take less time");
  expectError(with(nlohmann::json::parse("[[4096, 0.01], [8192, \"x\"]]")),
              "field 'host_link.h2d_pageable_ms_by_bytes[1]': must be a [bytes, ms] pair of numbers");
  expectError(with(nlohmann::json::parse("[[4096, 0.01], [8192, -1]]")),
              "field 'host_link.h2d_pageable_ms_by_bytes[1][1]': -1 is out of range");
}

TEST(HwSpec, AWarpsWaitByRequestsIsOptionalAndCheckedPointByPoint) {
  EXPECT_TRUE(hw::parseHwSpec(h100Text(), "h100.json").dramWarpWaitCyclesByRequests.empty());
  EXPECT_EQ(hw::parseHwSpec(h100Text(), "h100.json").dramWarpWaitCycles(4), 0); // absent
  auto with = [](const char *pts) {
    return edited([&](auto &j) {
      j["dram_warp_wait_cycles_by_requests"] = {{"value", nlohmann::json::parse(pts)}, {"source", "test"}};
    });
  };
  hw::HwSpec h = hw::parseHwSpec(with("[[1, 700], [4, 1000]]"), "x.json");
  ASSERT_EQ(h.dramWarpWaitCyclesByRequests.size(), 2u);
  EXPECT_DOUBLE_EQ(h.dramWarpWaitCycles(2), 800);   // linear between the points
  EXPECT_DOUBLE_EQ(h.dramWarpWaitCycles(0.5), 700); // below the first: the first's
  EXPECT_DOUBLE_EQ(h.dramWarpWaitCycles(8), 1400);  // past the last: 100 cycles a request more
  expectError(with("[[1, 700]]"),
              "field 'dram_warp_wait_cycles_by_requests': must be a list of two or more [requests, cycles] points");
  expectError(with("[[1, 700], [1, 800]]"),
              "field 'dram_warp_wait_cycles_by_requests[1]': the first numbers must increase");
  expectError(with("[[1, 700], [2, 600]]"),
              "field 'dram_warp_wait_cycles_by_requests[1]': the second numbers cannot decrease");
  expectError(with("[[0, 700], [2, 800]]"), "field 'dram_warp_wait_cycles_by_requests[0][0]': 0 is out of range");
  expectError(with("[[1, 700], [2, \"x\"]]"),
              "field 'dram_warp_wait_cycles_by_requests[1]': must be a [requests, cycles] pair of numbers");
}

TEST(HwSpec, TheBandwidthByBytesInFlightIsOptionalAndCheckedPointByPoint) {
  EXPECT_TRUE(hw::parseHwSpec(h100Text(), "h100.json").dramGBpsByBytesInFlight.empty());
  EXPECT_EQ(hw::parseHwSpec(h100Text(), "h100.json").dramGBpsAt(4096), 0); // absent: nothing drawn from it
  auto with = [](const char *pts) {
    return edited([&](auto &j) {
      j["dram_gbps_by_bytes_in_flight"] = {{"value", nlohmann::json::parse(pts)}, {"source", "test"}};
    });
  };
  hw::HwSpec h = hw::parseHwSpec(with("[[1024, 300], [8192, 1800]]"), "x.json");
  ASSERT_EQ(h.dramGBpsByBytesInFlight.size(), 2u);
  EXPECT_DOUBLE_EQ(h.dramGBpsAt(4608), 1050); // half way
  expectError(with("[[1024, 300]]"),
              "field 'dram_gbps_by_bytes_in_flight': must be a list of two or more [bytes per SM, GB/s] points");
  expectError(with("[[1024, 300], [1024, 400]]"),
              "field 'dram_gbps_by_bytes_in_flight[1]': the first numbers must increase");
  expectError(with("[[1024, 300], [2048, 200]]"),
              "field 'dram_gbps_by_bytes_in_flight[1]': the second numbers cannot decrease");
  expectError(with("[[1024, 300], [2048, 4000]]"),
              "field 'dram_gbps_by_bytes_in_flight[1][1]': 4000 is out of range [0.001, 3030.4] (at most "
              "mem_bandwidth_gbps, which is 3030.4)");
  expectError(with("[[0, 300], [2048, 400]]"), "field 'dram_gbps_by_bytes_in_flight[0][0]': 0 is out of range");
  expectError(with("[[1024, 300], [2048, \"x\"]]"),
              "field 'dram_gbps_by_bytes_in_flight[1]': must be a [bytes per SM, GB/s] pair of numbers");
}

TEST(HwSpec, L1WavefrontRateIsOptional) {
  EXPECT_DOUBLE_EQ(hw::parseHwSpec(h100Text(), "h100.json").l1WavefrontsPerCycle, 1);
  hw::HwSpec without = hw::parseHwSpec(edited([](auto &j) { j.erase("l1_wavefronts_per_cycle"); }), "x.json");
  EXPECT_DOUBLE_EQ(without.l1WavefrontsPerCycle, 0); // the lsu term then does nothing
  expectError(edited([](auto &j) { j["l1_wavefronts_per_cycle"]["value"] = 0; }),
              "field 'l1_wavefronts_per_cycle': 0 is out of range [0.01, 64]");
}

TEST(HwSpec, BlockStartRateIsOptional) {
  EXPECT_DOUBLE_EQ(hw::parseHwSpec(h100Text(), "h100.json").blockStartsPerUs, 1664);
  hw::HwSpec without = hw::parseHwSpec(edited([](auto &j) { j.erase("block_starts_per_us"); }), "x.json");
  EXPECT_DOUBLE_EQ(without.blockStartsPerUs, 0); // `blocks` then sets no floor
  expectError(edited([](auto &j) { j["block_starts_per_us"]["value"] = 0; }),
              "field 'block_starts_per_us': 0 is out of range [1, 1000000]");
}

/// An optional store rate of L2 (`field`, read into `rate`): absent in the
/// H100 spec, read where given, in range, and only beside l2_bandwidth_gbps.
static void expectOptionalL2StoreRate(const char *field, double hw::HwSpec::*rate, double value,
                                      double outOfRange) {
  EXPECT_DOUBLE_EQ(hw::parseHwSpec(h100Text(), "h100.json").*rate, 0) << field;
  auto with = [&](auto &j) { j[field] = {{"value", value}, {"source", "measured"}}; };
  EXPECT_DOUBLE_EQ(hw::parseHwSpec(edited(with), "x.json").*rate, value) << field;
  expectError(edited([&](auto &j) {
                with(j);
                j[field]["value"] = outOfRange;
              }),
              fmt::format("field '{}': {} is out of range [0.1, 10000000]", field, outOfRange));
  expectError(edited([&](auto &j) {
                with(j);
                j.erase("l2_bandwidth_gbps");
              }),
              fmt::format("field '{}': needs l2_bandwidth_gbps beside it", field));
}

TEST(HwSpec, L2StoreBandwidthIsOptionalAndNeedsTheL2Bandwidth) {
  // absent: the stores count at l2_bandwidth_gbps
  expectOptionalL2StoreRate("l2_store_bandwidth_gbps", &hw::HwSpec::l2StoreBandwidthGBps, 4311, 0);
}

TEST(HwSpec, L2StoreMissBandwidthIsOptionalAndNeedsTheL2Bandwidth) {
  // absent: no floor for stores past L2
  expectOptionalL2StoreRate("l2_store_miss_bandwidth_gbps", &hw::HwSpec::l2StoreMissBandwidthGBps, 2009, -3);
}


TEST(HwSpec, BoundOverlapExponentIsOptionalAndAtLeastOne) {
  EXPECT_DOUBLE_EQ(hw::parseHwSpec(h100Text(), "h100.json").boundOverlapExponent, 0); // the larger bound
  auto with = [](auto &j) { j["bound_overlap_exponent"] = {{"value", 6.0}, {"source", "measured"}}; };
  EXPECT_DOUBLE_EQ(hw::parseHwSpec(edited(with), "x.json").boundOverlapExponent, 6.0);
  expectError(edited([&](auto &j) {
                with(j);
                j["bound_overlap_exponent"]["value"] = 0.5;
              }),
              "field 'bound_overlap_exponent': 0.5 is out of range [1, 1000]");
}

TEST(HwSpec, L1LineLatencyIsOptional) {
  EXPECT_DOUBLE_EQ(hw::parseHwSpec(h100Text(), "h100.json").l1LineLatencyCycles, 2.22);
  hw::HwSpec without = hw::parseHwSpec(edited([](auto &j) { j.erase("l1_line_latency_cycles"); }), "x.json");
  EXPECT_DOUBLE_EQ(without.l1LineLatencyCycles, 0); // `lines` then waits 1 / l1_wavefronts_per_cycle a line
  expectError(edited([](auto &j) { j["l1_line_latency_cycles"]["value"] = -1; }),
              "field 'l1_line_latency_cycles': -1 is out of range [0.01, 64]");
}

TEST(HwSpec, BackToBackLaunchIsOptionalAndAtMostTheLaunchAlone) {
  hw::HwSpec h = hw::parseHwSpec(h100Text(), "h100.json");
  EXPECT_DOUBLE_EQ(h.launchOverheadUs, 5.54);
  EXPECT_DOUBLE_EQ(h.launchBackToBackUs, 4.16);
  hw::HwSpec without = hw::parseHwSpec(edited([](auto &j) { j.erase("launch_back_to_back_us"); }), "x.json");
  EXPECT_DOUBLE_EQ(without.launchBackToBackUs, without.launchOverheadUs);
  expectError(edited([](auto &j) { j["launch_back_to_back_us"]["value"] = 9.0; }),
              "field 'launch_back_to_back_us': 9 is out of range [0, 5.54]");
}

TEST(HwSpec, BandwidthPerWarpIsOptionalAndAtMostTheBandwidth) {
  EXPECT_DOUBLE_EQ(hw::parseHwSpec(h100Text(), "h100.json").dramBwPerWarpGBps, 3.449);
  hw::HwSpec without = hw::parseHwSpec(edited([](auto &j) { j.erase("dram_bw_per_warp_gbps"); }), "x.json");
  EXPECT_DOUBLE_EQ(without.dramBwPerWarpGBps, 0); // the occupancy term then does nothing
  expectError(edited([](auto &j) { j["dram_bw_per_warp_gbps"]["value"] = 4000; }),
              "field 'dram_bw_per_warp_gbps': 4000 is out of range [0.001, 3030.4] (at most "
              "mem_bandwidth_gbps, which is 3030.4)");
  expectError(edited([](auto &j) { j["dram_bw_per_warp_gbps"]["value"] = 0; }),
              "field 'dram_bw_per_warp_gbps': 0 is out of range [0.001, 3030.4]");
}

// The register file's sub-partitions, worked by hand on the H100's fields
// (65,536 registers, 4 schedulers: 16,384 a sub-partition, 255 a thread).
TEST(HwSpec, WarpsAndLaunchBoundFromTheRegisterFilesSubPartitions) {
  HwSpec h = parseHwSpec(h100Text(), "h100.json");
  ASSERT_EQ(h.registersPerSM, 65536);
  ASSERT_EQ(h.schedulersPerSM, 4);
  // 40 registers a thread: 1,280 a warp, floor(16,384 / 1,280) = 12 a
  // sub-partition, 48 an SM (the whole file would hold 51)
  EXPECT_DOUBLE_EQ(h.warpsByRegisters(40), 48);
  // 77 rounds up to 80: 2,560 a warp, 6 a sub-partition, 24 an SM
  EXPECT_DOUBLE_EQ(h.warpsByRegisters(77), 24);
  // 255 rounds up to 256: 8,192 a warp, 2 a sub-partition, 8 an SM
  EXPECT_DOUBLE_EQ(h.warpsByRegisters(255), 8);
  // one block of 32 warps (1,024 threads): 8 warps a sub-partition, 16,384 /
  // 256 threads = 64 registers; of 16 warps 128; of 25 warps 7 a sub-partition
  // at most: 16,384 / 224 = 73.1, 72 in units of 8; of 2 warps the cap, 255
  EXPECT_DOUBLE_EQ(h.registersForOneBlock(32), 64);
  EXPECT_DOUBLE_EQ(h.registersForOneBlock(16), 128);
  EXPECT_DOUBLE_EQ(h.registersForOneBlock(25), 72);
  EXPECT_DOUBLE_EQ(h.registersForOneBlock(2), 255);
  // 0 registers (ptxas's "Used 0 registers"): no register bound, the SM's
  // warps; so too a spec without the register file, whose threads then have
  // only the per-thread cap
  EXPECT_DOUBLE_EQ(h.warpsByRegisters(0), h.maxWarpsPerSM);
  h.registersPerSM = 0;
  EXPECT_DOUBLE_EQ(h.registersForOneBlock(32), h.maxRegistersPerThread);
  EXPECT_DOUBLE_EQ(h.warpsByRegisters(40), h.maxWarpsPerSM);
}

// What one block may hold of shared memory, by hand: its own limit, or the
// SM's less the driver's reserve where that is less.
TEST(HwSpec, SharedMemoryABlockMayHoldIsTheLesserLimit) {
  HwSpec h;
  h.sharedMemPerBlockBytes = 232448;
  h.sharedMemPerSMBytes = 233472;
  h.reservedSharedMemPerBlockBytes = 1024;
  EXPECT_EQ(h.sharedMemBlockMayHold(), 232448) << "227 KiB a block, 228 an SM less 1 reserved";
  h.sharedMemPerBlockBytes = 233472; // the two limits equal: the reserve decides
  EXPECT_EQ(h.sharedMemBlockMayHold(), 232448);
  h.reservedSharedMemPerBlockBytes = 0;
  EXPECT_EQ(h.sharedMemBlockMayHold(), 233472);
}
