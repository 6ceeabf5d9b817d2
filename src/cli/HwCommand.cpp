// `skelcast hw list` and `skelcast hw show NAME|FILE`.
#include "Commands.h"
#include "skelcast/cli/Cli.h"
#include "skelcast/hw/HwSpec.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <ostream>
#include <string>
#include <utility>
#include <vector>

namespace skelcast::cli {
namespace {

/// `hw list --format json` and `hw show --format json` (docs/schema/hw-list.schema.json,
/// hw-show.schema.json): the version of their shape first; integers as integers.
constexpr int kHwSchemaVersion = 1;

nlohmann::ordered_json specSummary(const hw::HwSpec &h) {
  return {{"name", h.name},
          {"sm_count", h.smCount},
          {"clock_ghz", h.clockGHz},
          {"mem_bandwidth_gbps", h.memBandwidthGBps},
          {"description", h.description}};
}

std::string csvField(const std::string &s) {
  if (s.find_first_of(",\"\n") == std::string::npos)
    return s;
  std::string q = "\"";
  for (char c : s)
    q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

/// Every field of a spec that `hw show` prints, in the file's order: the
/// optional ones only where the spec has them. One table for both formats.
std::vector<std::pair<std::string, nlohmann::ordered_json>> specFields(const hw::HwSpec &h) {
  std::vector<std::pair<std::string, nlohmann::ordered_json>> f;
  auto field = [&](const std::string &k, const nlohmann::ordered_json &v) { f.emplace_back(k, v); };
  field("compute_capability", h.computeCapability);
  field("sm_count", h.smCount);
  field("clock_ghz", h.clockGHz);
  field("warp_size", h.warpSize);
  field("max_threads_per_block", h.maxThreadsPerBlock);
  field("max_warps_per_sm", h.maxWarpsPerSM);
  field("max_blocks_per_sm", h.maxBlocksPerSM);
  field("shared_mem_per_sm_bytes", h.sharedMemPerSMBytes);
  field("shared_mem_per_block_bytes", h.sharedMemPerBlockBytes);
  if (h.reservedSharedMemPerBlockBytes > 0)
    field("reserved_shared_mem_per_block_bytes", h.reservedSharedMemPerBlockBytes);
  field("registers_per_sm", h.registersPerSM);
  field("max_registers_per_thread", h.maxRegistersPerThread);
  field("schedulers_per_sm", h.schedulersPerSM);
  field("issue_cycles", h.issueCycles);
  field("mem_bandwidth_gbps", h.memBandwidthGBps);
  if (h.memCapacityBytes > 0)
    field("mem_capacity_bytes", h.memCapacityBytes);
  field("dram_latency_cycles", h.dramLatencyCycles);
  field("departure_del_coal_cycles", h.departureDelCoalCycles);
  field("departure_del_uncoal_cycles", h.departureDelUncoalCycles);
  field("l1_cache_bytes", h.l1CacheBytes);
  field("l2_cache_bytes", h.l2CacheBytes);
  field("l1_latency_cycles", h.l1LatencyCycles);
  field("l2_latency_cycles", h.l2LatencyCycles);
  field("peak_sp_gflops", h.peakSpGflops);
  field("peak_dp_gflops", h.peakDpGflops);
  if (h.l1WavefrontsPerCycle > 0)
    field("l1_wavefronts_per_cycle", h.l1WavefrontsPerCycle);
  if (h.sharedMemBanks > 0)
    field("shared_mem_banks", h.sharedMemBanks);
  if (h.l1LineLatencyCycles > 0)
    field("l1_line_latency_cycles", h.l1LineLatencyCycles);
  if (h.blockStartsPerUs > 0)
    field("block_starts_per_us", h.blockStartsPerUs);
  if (h.dramBwPerWarpGBps > 0)
    field("dram_bw_per_warp_gbps", h.dramBwPerWarpGBps);
  // A curve's points print as [x, y] pairs (nlohmann writes a std::pair as one).
  if (!h.dramGBpsByBytesInFlight.empty())
    field("dram_gbps_by_bytes_in_flight", h.dramGBpsByBytesInFlight);
  if (!h.dramWarpWaitCyclesByRequests.empty())
    field("dram_warp_wait_cycles_by_requests", h.dramWarpWaitCyclesByRequests);
  field("launch_overhead_us", h.launchOverheadUs);
  if (h.sources.count("launch_back_to_back_us"))
    field("launch_back_to_back_us", h.launchBackToBackUs);
  if (h.launchGapUs > 0)
    field("launch_gap_us", h.launchGapUs);
  if (h.l2BandwidthGBps > 0)
    field("l2_bandwidth_gbps", h.l2BandwidthGBps);
  if (h.l2StoreBandwidthGBps > 0)
    field("l2_store_bandwidth_gbps", h.l2StoreBandwidthGBps);
  if (h.l2StoreMissBandwidthGBps > 0)
    field("l2_store_miss_bandwidth_gbps", h.l2StoreMissBandwidthGBps);
  if (h.l2ResidentBytes > 0)
    field("l2_resident_bytes", h.l2ResidentBytes);
  if (h.l2ThrashBytes > 0)
    field("l2_thrash_bytes", h.l2ThrashBytes);
  if (h.atomicSameAddressNs > 0)
    field("atomic_same_address_ns", h.atomicSameAddressNs);
  if (h.boundOverlapExponent > 0)
    field("bound_overlap_exponent", h.boundOverlapExponent);
  return f;
}

/// A field's value as `hw show` prints it: integers and strings as they
/// are, other numbers in their shortest form.
std::string fieldText(const nlohmann::ordered_json &v) {
  if (v.is_string())
    return v.get<std::string>();
  if (v.is_number_float())
    return fmt::format("{}", v.get<double>());
  return v.dump();
}

nlohmann::ordered_json specJson(const hw::HwSpec &h) {
  nlohmann::ordered_json fields = nlohmann::ordered_json::object();
  for (const auto &[k, v] : specFields(h)) {
    auto s = h.sources.find(k);
    fields[k] = {{"value", v}, {"source", s == h.sources.end() ? "" : s->second}};
  }
  nlohmann::ordered_json link = nullptr;
  if (h.hostLink) {
    const hw::HostLink &l = *h.hostLink;
    auto s = h.sources.find("host_link");
    link = {{"kind", l.kind},
            {"h2d_pinned_gbps", l.h2dPinnedGBps},
            {"d2h_pinned_gbps", l.d2hPinnedGBps},
            {"h2d_pageable_gbps", l.h2dPageableGBps},
            {"d2h_pageable_gbps", l.d2hPageableGBps},
            {"latency_us", l.latencyUs},
            {"h2d_pageable_curve_points", l.h2dPageableCurve.size()},
            {"d2h_pageable_curve_points", l.d2hPageableCurve.size()},
            {"source", s == h.sources.end() ? "" : s->second}};
  }
  return {{"schema_version", kHwSchemaVersion},
          {"name", h.name},
          {"description", h.description},
          {"file", h.path},
          {"content_hash", h.contentHash},
          {"coalescing_rule", hw::coalescingRuleName(h.coalescing())},
          {"fields", fields},
          {"host_link", link}};
}

} // namespace

void registerHw(CLI::App &app, Context &ctx) {
  auto *hw = app.add_subcommand("hw", "List and show the bundled GPU specs");
  hw->require_subcommand(1);
  auto *list = hw->add_subcommand("list", "One line per bundled spec");
  auto listFormat = std::make_shared<std::string>("table");
  list->add_option("--format", *listFormat, "Output format")
      ->check(CLI::IsMember({"table", "json", "csv"}))
      ->capture_default_str();
  list->callback([&ctx, listFormat] {
    ctx.action = [&ctx, listFormat] {
      return guarded(ctx, [&] {
        if (*listFormat != "table") {
          std::vector<hw::HwSpec> specs;
          for (const auto &n : hw::listHwSpecs(ctx.specDir))
            specs.push_back(hw::resolveHwSpec(n, ctx.specDir));
          if (*listFormat == "json") {
            nlohmann::ordered_json j = {{"schema_version", kHwSchemaVersion},
                                        {"specs", nlohmann::ordered_json::array()}};
            for (const auto &h : specs)
              j["specs"].push_back(specSummary(h));
            ctx.out << j.dump(2) << '\n';
          } else {
            ctx.out << "name,sm_count,clock_ghz,mem_bandwidth_gbps,description\n";
            for (const auto &h : specs)
              ctx.out << fmt::format("{},{},{},{},{}\n", csvField(h.name), h.smCount, h.clockGHz,
                                     h.memBandwidthGBps, csvField(h.description));
          }
          return static_cast<int>(Success);
        }
        ctx.out << fmt::format("{:<8} {:>5} {:>9} {:>10}  {}\n", "name", "SMs", "clock_GHz",
                               "mem_GB/s", "description");
        for (const auto &n : hw::listHwSpecs(ctx.specDir)) {
          hw::HwSpec h = hw::resolveHwSpec(n, ctx.specDir);
          ctx.out << fmt::format("{:<8} {:>5} {:>9} {:>10}  {}\n", h.name, h.smCount, h.clockGHz,
                                 h.memBandwidthGBps, h.description);
        }
        return static_cast<int>(Success);
      });
    };
  });
  auto *show = hw->add_subcommand("show", "Every field of a spec with its value and source");
  auto name = std::make_shared<std::string>();
  show->add_option("spec", *name, "A bundled name or a JSON file")->required();
  auto showFormat = std::make_shared<std::string>("text");
  show->add_option("--format", *showFormat, "Output format")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();
  show->callback([&ctx, name, showFormat] {
    ctx.action = [&ctx, name, showFormat] {
      return guarded(ctx, [&] {
        hw::HwSpec h = hw::resolveHwSpec(*name, ctx.specDir);
        if (*showFormat == "json") {
          ctx.out << specJson(h).dump(2) << '\n';
          return static_cast<int>(Success);
        }
        ctx.out << fmt::format("{} ({})\nfile {}\ncoalescing rule: {}\n\n", h.name, h.description,
                               h.path, hw::coalescingRuleName(h.coalescing()));
        auto field = [&](const std::string &k, const std::string &v) {
          auto s = h.sources.find(k);
          ctx.out << fmt::format("  {:<28} {:>14}  {}\n", k, v,
                                 s == h.sources.end() ? "" : s->second);
        };
        for (const auto &[k, v] : specFields(h))
          field(k, fieldText(v));
        if (h.hostLink) {
          const hw::HostLink &l = *h.hostLink;
          field("host_link", fmt::format("{} {}/{} GB/s", l.kind, l.h2dPinnedGBps, l.d2hPinnedGBps));
          ctx.out << fmt::format("  {:<28} {:>14}  pageable {}/{} GB/s, latency {} us{}\n", "", "",
                                 l.h2dPageableGBps, l.d2hPageableGBps, l.latencyUs,
                                 l.h2dPageableCurve.empty() && l.d2hPageableCurve.empty()
                                     ? ""
                                     : fmt::format("; pageable times per size: {} h2d and {} d2h points",
                                                   l.h2dPageableCurve.size(), l.d2hPageableCurve.size()));
        }
        return static_cast<int>(Success);
      });
    };
  });
}

} // namespace skelcast::cli
