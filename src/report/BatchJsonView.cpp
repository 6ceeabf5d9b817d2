// report.json of `skelcast batch`: every number of the BatchReport.
#include "skelcast/report/Batch.h"

#include "JsonFields.h"

#include <nlohmann/json.hpp>

#include <cmath>

namespace skelcast::report {
namespace {

using nlohmann::json;

json layoutJson(size_t rank, const model::LayoutProjection &l, const std::string &modelLabel,
                double clockGHz) {
  const auto &w = l.characterization.workload;
  const auto &r = l.result;
  return {
      {"rank", rank},
      {"layout", l.layoutString},
      {"time_ms", finiteJson(r.timeMs)},
      {"cycles", finiteJson(r.totalCycles)},
      {"bound", r.bound},
      {"mwp", finiteJson(r.mwp)},
      {"cwp", finiteJson(r.cwp)},
      {"active_warps", finiteJson(r.n)},
      {"exec_case", r.execCase},
      {"mem_cycles", finiteJson(r.memCycles)},
      {"comp_cycles", finiteJson(r.compCycles)},
      {"memory_share", finiteJson(memoryShare(l, modelLabel, clockGHz))},
      {"active_sms", finiteJson(r.activeSMs)},
      {"active_blocks_per_sm", finiteJson(r.activeBlocksPerSM)},
      {"threads_per_block", finiteJson(w.threadsPerBlock)},
      {"blocks", finiteJson(w.blocks)},
      {"shared_mem_bytes_per_block", finiteJson(w.sharedMemBytesPerBlock)},
      {"comp_insts", finiteJson(w.compInsts)},
      {"coal_mem_insts", finiteJson(w.coalMemInsts)},
      {"uncoal_mem_insts", finiteJson(w.uncoalMemInsts)},
      {"synch_insts", finiteJson(w.synchInsts)},
      {"compulsory_bytes", finiteJson(l.characterization.compulsoryBytes)},
      {"launch_ms", finiteJson(l.effects.launchMs)},
      {"l1_hit_fraction", finiteJson(l.effects.l1HitFraction)},
      {"l2_hit_fraction", finiteJson(l.effects.l2HitFraction)},
      {"roofline_ms", finiteJson(l.roofline.timeMs)},
  };
}

} // namespace

std::string renderBatchJson(const BatchReport &r) {
  json root;
  root["schema_version"] = 1;
  root["skelcast_version"] = r.version;
  root["model"] = {{"name", r.model}};
  root["suite"] = r.suite;
  json gpus = json::array();
  for (const auto &g : r.gpus)
    gpus.push_back({{"name", g.name},
                    {"description", g.description},
                    {"content_hash", g.contentHash},
                    {"clock_ghz", finiteJson(g.clockGHz)}});
  root["gpus"] = std::move(gpus);
  root["top"] = r.top;
  root["summary"] = {{"benchmarks", r.benchmarks.size()},
                     {"kernels", kernelCount(r)},
                     {"projections", projectionCount(r)},
                     {"failures", batchFailures(r).size()}};
  json benchmarks = json::array();
  for (const auto &b : r.benchmarks) {
    json bj;
    bj["name"] = b.name;
    bj["input"] = b.input;
    bj["cpu_ms"] = optionalJson(b.cpuMs);
    bj["error"] = b.error.empty() ? json(nullptr) : json(b.error);
    bj["warnings"] = b.warnings;
    json perGpu = json::array();
    for (size_t g = 0; g < r.gpus.size(); ++g)
      perGpu.push_back({{"gpu", r.gpus[g].name},
                        {"time_ms", optionalJson(benchmarkTimeMs(b, g))},
                        {"program_ms", optionalJson(programTimeMs(b, g))},
                        {"transfer_share", optionalJson(transferShare(b, g))},
                        {"speedup", optionalJson(speedup(b, g))},
                        {"program", g < b.programs.size() && b.programs[g] ? programJson(*b.programs[g])
                                                                            : json(nullptr)}});
    bj["gpus"] = std::move(perGpu);
    json kernels = json::array();
    for (const auto &k : b.kernels) {
      json projections = json::array();
      for (size_t g = 0; g < k.gpus.size() && g < r.gpus.size(); ++g) {
        const auto &kg = k.gpus[g];
        json layouts = json::array();
        for (size_t i = 0; i < kg.layouts.size(); ++i)
          layouts.push_back(layoutJson(i + 1, kg.layouts[i], r.model, r.gpus[g].clockGHz));
        projections.push_back({{"gpu", r.gpus[g].name},
                               {"layouts_explored", kg.layoutsExplored},
                               {"layouts_pruned", kg.layoutsPruned},
                               {"error", kg.error.empty() ? json(nullptr) : json(kg.error)},
                               {"layouts", std::move(layouts)}});
      }
      kernels.push_back({{"name", k.name}, {"projections", std::move(projections)}});
    }
    bj["kernels"] = std::move(kernels);
    benchmarks.push_back(std::move(bj));
  }
  root["benchmarks"] = std::move(benchmarks);
  return root.dump(2) + "\n";
}

} // namespace skelcast::report
