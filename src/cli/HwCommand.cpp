// `skelcast hw list` and `skelcast hw show NAME|FILE`.
#include "Commands.h"
#include "skelcast/cli/Cli.h"
#include "skelcast/hw/HwSpec.h"

#include <fmt/format.h>

#include <ostream>

namespace skelcast::cli {

void registerHw(CLI::App &app, Context &ctx) {
  auto *hw = app.add_subcommand("hw", "List and show the bundled GPU specs");
  hw->require_subcommand(1);
  auto *list = hw->add_subcommand("list", "One line per bundled spec");
  list->callback([&ctx] {
    ctx.action = [&ctx] {
      return guarded(ctx, [&] {
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
  show->callback([&ctx, name] {
    ctx.action = [&ctx, name] {
      return guarded(ctx, [&] {
        hw::HwSpec h = hw::resolveHwSpec(*name, ctx.specDir);
        ctx.out << fmt::format("{} ({})\nfile {}\ncoalescing rule: {}\n\n", h.name, h.description,
                               h.path, hw::coalescingRuleName(h.coalescing()));
        auto field = [&](const std::string &k, const std::string &v) {
          auto s = h.sources.find(k);
          ctx.out << fmt::format("  {:<28} {:>14}  {}\n", k, v,
                                 s == h.sources.end() ? "" : s->second);
        };
        field("compute_capability", h.computeCapability);
        field("sm_count", std::to_string(h.smCount));
        field("clock_ghz", fmt::format("{}", h.clockGHz));
        field("warp_size", std::to_string(h.warpSize));
        field("max_threads_per_block", std::to_string(h.maxThreadsPerBlock));
        field("max_warps_per_sm", std::to_string(h.maxWarpsPerSM));
        field("max_blocks_per_sm", std::to_string(h.maxBlocksPerSM));
        field("shared_mem_per_sm_bytes", std::to_string(h.sharedMemPerSMBytes));
        field("shared_mem_per_block_bytes", std::to_string(h.sharedMemPerBlockBytes));
        field("registers_per_sm", std::to_string(h.registersPerSM));
        field("max_registers_per_thread", std::to_string(h.maxRegistersPerThread));
        field("schedulers_per_sm", std::to_string(h.schedulersPerSM));
        field("issue_cycles", fmt::format("{}", h.issueCycles));
        field("mem_bandwidth_gbps", fmt::format("{}", h.memBandwidthGBps));
        if (h.memCapacityBytes > 0)
          field("mem_capacity_bytes", std::to_string(h.memCapacityBytes));
        field("dram_latency_cycles", fmt::format("{}", h.dramLatencyCycles));
        field("departure_del_coal_cycles", fmt::format("{}", h.departureDelCoalCycles));
        field("departure_del_uncoal_cycles", fmt::format("{}", h.departureDelUncoalCycles));
        field("l1_cache_bytes", std::to_string(h.l1CacheBytes));
        field("l2_cache_bytes", std::to_string(h.l2CacheBytes));
        field("l1_latency_cycles", fmt::format("{}", h.l1LatencyCycles));
        field("l2_latency_cycles", fmt::format("{}", h.l2LatencyCycles));
        field("peak_sp_gflops", fmt::format("{}", h.peakSpGflops));
        field("peak_dp_gflops", fmt::format("{}", h.peakDpGflops));
        if (h.l1WavefrontsPerCycle > 0)
          field("l1_wavefronts_per_cycle", fmt::format("{}", h.l1WavefrontsPerCycle));
        field("launch_overhead_us", fmt::format("{}", h.launchOverheadUs));
        if (h.sources.count("launch_back_to_back_us"))
          field("launch_back_to_back_us", fmt::format("{}", h.launchBackToBackUs));
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
