#include "skelcast/report/Report.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>

namespace skelcast::report {
namespace {

/// JSON has no NaN or infinity: such a value becomes null (never expected).
nlohmann::json finite(double v) {
  if (!std::isfinite(v))
    return nullptr;
  return v;
}

} // namespace

std::string renderJson(const Report &r) {
  using nlohmann::json;
  json root;
  root["skelcast_version"] = r.version;
  root["hw"] = {{"name", r.hwName}, {"description", r.hwDescription}, {"content_hash", r.hwHash}};
  root["model"] = {{"name", r.model}};
  json kernels = json::array();
  for (const auto &k : r.kernels) {
    const auto &p = k.projection;
    json kj;
    kj["name"] = p.kernel;
    kj["file"] = k.file;
    kj["layouts_explored"] = p.layoutsExplored;
    kj["layouts_pruned"] = p.layoutsPruned;
    json layouts = json::array();
    size_t n = std::min(r.top, p.layouts.size());
    for (size_t i = 0; i < n; ++i) {
      const auto &l = p.layouts[i];
      const auto &w = l.characterization.workload;
      layouts.push_back({
          {"rank", i + 1},
          {"layout", l.layoutString},
          {"time_ms", finite(l.result.timeMs)},
          {"cycles", finite(l.result.totalCycles)},
          {"bound", l.result.bound},
          {"mwp", finite(l.result.mwp)},
          {"cwp", finite(l.result.cwp)},
          {"active_warps", finite(l.result.n)},
          {"exec_case", l.result.execCase},
          {"threads_per_block", finite(w.threadsPerBlock)},
          {"blocks", finite(w.blocks)},
          {"shared_mem_bytes_per_block", finite(w.sharedMemBytesPerBlock)},
          {"comp_insts", finite(w.compInsts)},
          {"coal_mem_insts", finite(w.coalMemInsts)},
          {"uncoal_mem_insts", finite(w.uncoalMemInsts)},
          {"synch_insts", finite(w.synchInsts)},
      });
    }
    kj["layouts"] = std::move(layouts);
    kernels.push_back(std::move(kj));
  }
  root["kernels"] = std::move(kernels);
  json programs = json::array();
  for (const auto &pr : r.programs) {
    const auto &p = pr.program;
    json pj;
    pj["file"] = pr.file;
    pj["h2d_ms"] = finite(p.h2dMs);
    pj["d2h_ms"] = finite(p.d2hMs);
    pj["kernels_ms"] = finite(p.kernelsMs);
    pj["kernels_unfused_ms"] = finite(p.kernelsUnfusedMs);
    pj["launch_ms"] = finite(p.launchMs);
    pj["total_ms"] = finite(p.totalMs);
    pj["transfer_share"] = finite(p.totalMs > 0 ? (p.h2dMs + p.d2hMs) / p.totalMs : 0.0);
    pj["cpu_ms"] = p.cpuMs ? finite(*p.cpuMs) : json(nullptr);
    if (p.cpuMs && !p.cpuSource.empty()) {
      pj["cpu_source"] = p.cpuSource;
      if (p.cpuThreads > 0) // measured only
        pj["cpu_threads"] = p.cpuThreads;
    }
    pj["speedup"] = p.speedup ? finite(*p.speedup) : json(nullptr);
    pj["break_even_repeats"] = p.breakEvenRepeats ? finite(*p.breakEvenRepeats) : json(nullptr);
    pj["verdict"] = p.verdict;
    pj["reason"] = p.reason;
    json tr = json::array();
    for (const auto &t : p.h2d)
      tr.push_back({{"array", t.array}, {"direction", "h2d"}, {"bytes", t.bytes}, {"ms", finite(t.ms)}});
    for (const auto &t : p.d2h)
      tr.push_back({{"array", t.array}, {"direction", "d2h"}, {"bytes", t.bytes}, {"ms", finite(t.ms)}});
    pj["transfers"] = tr;
    json ks = json::array();
    for (const auto &k : p.kernels)
      ks.push_back({{"kernel", k.kernel}, {"launches", k.count}, {"time_ms", finite(k.timeMs)},
                    {"layout", k.layout}});
    pj["kernels"] = ks;
    json fu = json::array();
    for (const auto &g : p.fusion)
      fu.push_back({{"kernels", g.kernels}, {"unfused_ms", finite(g.unfusedMs)},
                    {"fused_ms", finite(g.fusedMs)}, {"fused_layout", g.fusedLayout},
                    {"winner", g.winner}, {"bytes_saved", finite(g.bytesSaved)},
                    {"launches_saved", g.launchesSaved}, {"why", g.why}});
    pj["fusion"] = fu;
    programs.push_back(std::move(pj));
  }
  if (!programs.empty())
    root["program"] = programs.front();
  root["programs"] = std::move(programs);
  // File names come from the command line and need not be UTF-8: replace what is not.
  return root.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

} // namespace skelcast::report
