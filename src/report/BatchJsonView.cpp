// report.json of `skelcast batch`: every number of the BatchReport.
#include "skelcast/report/Batch.h"

#include "JsonFields.h"

#include <nlohmann/json.hpp>

#include <cmath>

namespace skelcast::report {
namespace {

using nlohmann::json;

/// The shared layout fields plus what batch adds: the cycle split, the memory
/// share, occupancy, the cache effects and the roofline.
json batchLayoutJson(size_t rank, const model::LayoutProjection &l, double clockGHz) {
  const auto &r = l.result;
  json j = layoutJson(rank, l);
  j["mem_cycles"] = finiteJson(r.memCycles);
  j["comp_cycles"] = finiteJson(r.compCycles);
  j["memory_share"] = finiteJson(memoryShare(l, clockGHz));
  j["active_sms"] = countJson(r.activeSMs);
  j["active_blocks_per_sm"] = countJson(r.activeBlocksPerSM);
  j["compulsory_bytes"] = countJson(l.characterization.compulsoryBytes);
  j["launch_ms"] = finiteJson(l.effects.launchMs);
  j["l1_hit_fraction"] = finiteJson(l.effects.l1HitFraction);
  j["l2_hit_fraction"] = finiteJson(l.effects.l2HitFraction);
  j["roofline_ms"] = finiteJson(l.roofline.timeMs);
  return j;
}

} // namespace

std::string renderBatchJson(const BatchReport &r) {
  json root;
  root["schema_version"] = 1;
  root["skelcast_version"] = r.version;
  root["model"] = {{"name", r.model}};
  root["suite"] = r.suite;
  json gpus = json::array();
  for (const auto &g : r.gpus) {
    gpus.push_back({{"name", g.name},
                    {"description", g.description},
                    {"content_hash", g.contentHash},
                    {"clock_ghz", finiteJson(g.clockGHz)}});
    if (!g.overrides.empty())
      gpus.back()["overrides"] = g.overrides;
  }
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
          layouts.push_back(batchLayoutJson(i + 1, kg.layouts[i], r.gpus[g].clockGHz));
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
