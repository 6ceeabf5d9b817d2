// The derived quantities of a BatchReport that every renderer shares.
#include "skelcast/report/Batch.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace skelcast::report {

std::optional<double> KernelGpuResult::timeMs() const {
  if (!ok())
    return std::nullopt;
  return layouts.front().result.timeMs;
}

std::optional<double> benchmarkTimeMs(const BenchmarkResult &b, size_t gpu) {
  if (!b.error.empty() || b.kernels.empty())
    return std::nullopt;
  double sum = 0;
  for (const auto &k : b.kernels) {
    if (gpu >= k.gpus.size())
      return std::nullopt;
    std::optional<double> t = k.gpus[gpu].timeMs();
    if (!t)
      return std::nullopt;
    sum += *t;
  }
  return sum;
}

std::optional<double> programTimeMs(const BenchmarkResult &b, size_t gpu) {
  if (gpu >= b.programs.size() || !b.programs[gpu])
    return std::nullopt;
  return b.programs[gpu]->totalMs;
}

std::optional<double> transferShare(const BenchmarkResult &b, size_t gpu) {
  std::optional<double> t = programTimeMs(b, gpu);
  if (!t || !(*t > 0))
    return std::nullopt;
  return (b.programs[gpu]->h2dMs + b.programs[gpu]->d2hMs) / *t;
}

std::optional<double> speedup(const BenchmarkResult &b, size_t gpu) {
  std::optional<double> t = programTimeMs(b, gpu);
  if (!b.cpuMs || !t || !(*t > 0))
    return std::nullopt;
  return *b.cpuMs / *t;
}

std::optional<double> kernelSpeedup(const BenchmarkResult &b, size_t gpu) {
  std::optional<double> t = benchmarkTimeMs(b, gpu);
  if (!b.cpuMs || !t || !(*t > 0))
    return std::nullopt;
  return *b.cpuMs / *t;
}

std::vector<BatchFailure> batchFailures(const BatchReport &r) {
  std::vector<BatchFailure> fs;
  for (const auto &b : r.benchmarks) {
    if (!b.error.empty()) {
      fs.push_back({b.name, b.input, "", "", b.error});
      continue;
    }
    for (const auto &k : b.kernels)
      for (size_t g = 0; g < k.gpus.size() && g < r.gpus.size(); ++g)
        if (!k.gpus[g].ok())
          fs.push_back({b.name, b.input, k.name, r.gpus[g].name,
                        k.gpus[g].error.empty() ? "no projection" : k.gpus[g].error});
  }
  return fs;
}

size_t kernelCount(const BatchReport &r) {
  size_t n = 0;
  for (const auto &b : r.benchmarks)
    n += b.kernels.size();
  return n;
}

size_t projectionCount(const BatchReport &r) {
  size_t n = 0;
  for (const auto &b : r.benchmarks)
    for (const auto &k : b.kernels)
      for (const auto &g : k.gpus)
        n += g.ok() ? 1 : 0;
  return n;
}

double memoryShare(const model::LayoutProjection &p, double clockGHz) {
  const auto &r = p.result;
  double mem = 0, comp = 0;
  if (p.model == model::ModelKind::Roofline) {
    mem = p.roofline.memoryMs;
    comp = p.roofline.computeMs;
  } else {
    // Per SM, Hong-Kim: the memory periods of the N active warps served MWP at
    // a time, against the instructions of the N warps through the issue port.
    // The memory cycles are those CWP_full is made of, (CWP_full - 1) x
    // Comp_cycles (Mem_cycles in the paper), so that memory's share is above
    // one half exactly when MWP < CWP_full - 1.
    double memSide = std::isfinite(r.cwpFull) && r.compCycles > 0 ? (r.cwpFull - 1.0) * r.compCycles
                                                                  : r.memCycles;
    mem = r.mwp > 0 ? memSide * r.n / r.mwp : 0;
    comp = r.compCycles * r.n;
    // A floor that raised the time above Hong-Kim's (cycles per SM and Rep, as
    // above). The tail term stretches a latency- or compute-bound core's time
    // as a whole, its shares as they are, before the floors: above that is a
    // floor's.
    double coreCycles = (r.timeMs - p.effects.launchMs) * clockGHz * 1e6;
    // A floor under the time (term `overlap`'s smooth maximum) lengthens it a
    // little without taking its bound: the core's shares stand.
    std::string core = model::coreBound(r);
    double tail = p.effects.tailFactor > 1 && core != "memory" ? p.effects.tailFactor : 1.0;
    bool floorBound = r.bound != core || r.bound == "memory";
    if (clockGHz > 0 && r.rep > 0 && floorBound && coreCycles > r.totalCycles * tail * (1 + 1e-9))
      mem = std::max(mem, coreCycles / r.rep);
  }
  if (!std::isfinite(mem) || !std::isfinite(comp) || mem < 0 || comp < 0 || mem + comp <= 0)
    return r.bound == "memory" ? 1.0 : 0.0;
  return mem / (mem + comp);
}

RooflinePoint rooflinePoint(const model::LayoutProjection &l) {
  const auto &c = l.characterization;
  double threads = c.workload.threadsPerBlock * c.workload.blocks;
  return {c.funcInsts * threads, c.fp64Insts * threads, c.compulsoryBytes, l.result.timeMs};
}

} // namespace skelcast::report
