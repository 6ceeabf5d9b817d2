#include "JsonFields.h"

#include <cmath>

namespace skelcast::report {

nlohmann::json finiteJson(double v) {
  if (!std::isfinite(v))
    return nullptr;
  return v;
}

nlohmann::json optionalJson(const std::optional<double> &v) { return v ? finiteJson(*v) : nlohmann::json(nullptr); }

nlohmann::json countJson(double v) {
  if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 9.0e15) // exact in a double
    return static_cast<int64_t>(v);
  return finiteJson(v);
}

nlohmann::json layoutJson(size_t rank, const model::LayoutProjection &l) {
  const auto &w = l.characterization.workload;
  const auto &r = l.result;
  nlohmann::json j = {
      {"rank", rank},
      {"layout", l.layoutString},
      {"time_ms", finiteJson(r.timeMs)},
      {"cycles", finiteJson(r.totalCycles)},
      {"bound", r.bound},
      {"mwp", finiteJson(r.mwp)},
      {"cwp", finiteJson(r.cwp)},
      {"active_warps", countJson(r.n)},
      {"exec_case", r.execCase},
      {"threads_per_block", countJson(w.threadsPerBlock)},
      {"blocks", countJson(w.blocks)},
      {"shared_mem_bytes_per_block", countJson(w.sharedMemBytesPerBlock)},
      {"comp_insts", countJson(w.compInsts)},
      {"coal_mem_insts", countJson(w.coalMemInsts)},
      {"uncoal_mem_insts", countJson(w.uncoalMemInsts)},
      {"synch_insts", countJson(w.synchInsts)},
  };
  if (l.launchesMs) // an indexed repeat's kernel: the ranking's summed time
    j["launches_ms"] = finiteJson(*l.launchesMs);
  if (l.registers) { // re-ranked with ptxas's registers (docs/model.md, "Registers from ptxas")
    j["registers"] = {{"per_thread", countJson(l.effects.registersPerThread)},
                      {"source", l.registers->ptxas ? "ptxas" : "estimate"}};
    if (!l.registers->ptxas)
      j["registers"]["why"] = l.registers->why;
  }
  return j;
}

nlohmann::json launchesJson(const model::RepeatedLaunches &l) {
  using nlohmann::json;
  auto samples = [](const std::vector<model::LaunchSample> &v) {
    json a = json::array();
    for (const auto &s : v)
      a.push_back({{"value", s.value}, {"weight", finiteJson(s.weight)}, {"threads", s.threads},
                   {"time_ms", finiteJson(s.timeMs)}});
    return a;
  };
  return {{"index", l.index},
          {"first", l.first},
          {"step", l.step},
          {"iterations", l.iterations},
          {"launches", l.launches},
          {"skipped", l.iterations - l.launches},
          {"characterized_at", l.characterizedAt},
          {"ranked_on", samples(l.ranking)},
          {"exact", l.exact},
          {"summed_points", l.exact ? l.launches : static_cast<int64_t>(l.summed.size())},
          {"total_ms", finiteJson(l.totalMs)},
          {"error_bound_ms", finiteJson(l.errorBoundMs)}};
}

nlohmann::json programJson(const model::ProgramProjection &p) {
  using nlohmann::json;
  json pj;
  pj["h2d_ms"] = finiteJson(p.h2dMs);
  pj["d2h_ms"] = finiteJson(p.d2hMs);
  pj["kernels_ms"] = finiteJson(p.kernelsMs);
  pj["kernels_unfused_ms"] = finiteJson(p.kernelsUnfusedMs);
  pj["launch_ms"] = finiteJson(p.launchMs);
  pj["total_ms"] = finiteJson(p.totalMs);
  pj["transfer_share"] = finiteJson(p.totalMs > 0 ? (p.h2dMs + p.d2hMs) / p.totalMs : 0.0);
  pj["cpu_ms"] = p.cpuMs ? finiteJson(*p.cpuMs) : json(nullptr);
  if (p.cpuMs && !p.cpuSource.empty()) {
    pj["cpu_source"] = p.cpuSource;
    if (p.cpuThreads > 0) // measured only
      pj["cpu_threads"] = p.cpuThreads;
  }
  pj["speedup"] = p.speedup ? finiteJson(*p.speedup) : json(nullptr);
  pj["break_even_repeats"] = p.breakEvenRepeats ? finiteJson(*p.breakEvenRepeats) : json(nullptr);
  pj["verdict"] = p.verdict;
  pj["reason"] = p.reason;
  json tr = json::array();
  // ms: one copy; count: the copies over the program (h2d_ms/d2h_ms sum ms x count).
  auto transfer = [](const model::Transfer &t, const char *direction) {
    return json{{"array", t.array},       {"direction", direction},  {"bytes", countJson(t.bytes)},
                {"ms", finiteJson(t.ms)}, {"count", countJson(t.count)},        {"host_step", t.byHost},
                {"each_repeat", t.eachRepeat}};
  };
  for (const auto &t : p.h2d)
    tr.push_back(transfer(t, "h2d"));
  for (const auto &t : p.d2h)
    tr.push_back(transfer(t, "d2h"));
  pj["transfers"] = tr;
  json ks = json::array();
  for (const auto &k : p.kernels) {
    json kj{{"kernel", k.kernel}, {"launches", countJson(k.count)}, {"time_ms", finiteJson(k.timeMs)},
            {"layout", k.layout}};
    if (k.launches) // an indexed repeat: time_ms is the mean launch
      kj["repeat"] = launchesJson(*k.launches);
    ks.push_back(std::move(kj));
  }
  pj["kernels"] = ks;
  json fu = json::array();
  for (const auto &g : p.fusion)
    fu.push_back({{"kernels", g.kernels}, {"unfused_ms", finiteJson(g.unfusedMs)},
                  {"fused_ms", finiteJson(g.fusedMs)}, {"fused_layout", g.fusedLayout},
                  {"winner", g.winner}, {"bytes_saved", countJson(g.bytesSaved)},
                  {"launches_saved", g.launchesSaved}, {"why", g.why}});
  pj["fusion"] = fu;
  return pj;
}

} // namespace skelcast::report
