// Step 4 of a program's projection: the total against the CPU's time, the
// break-even and the verdict (docs/model.md, section 9, "Verdict").
#include "ProgramSteps.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace skelcast::model::program {

void judge(const Shape &s, const Dataflow &df, const std::vector<KernelProjection> &kps,
           const TransferTimes &transfers, double firstLaunchExtraMs, const hw::HwSpec &hw,
           const ProgramOptions &po, ProgramProjection &pp) {
  pp.totalMs = pp.h2dMs + pp.kernelsMs + pp.d2hMs;
  pp.cpuMs = po.cpuMs;
  if (po.cpuMs) {
    pp.cpuSource = po.cpuSource;
    pp.cpuThreads = po.cpuThreads;
    pp.cpuRuns = po.cpuRuns;
  }
  if (df.memoryShortfall) {
    // Each kernel fits alone, the program's arrays together do not: as written
    // it cannot run on this GPU, whatever the speedup would be.
    if (po.cpuMs)
      pp.speedup = *po.cpuMs / pp.totalMs;
    pp.verdict = "do not port";
    pp.reason = "the program " + *df.memoryShortfall;
    return;
  }
  if (!po.cpuMs) {
    pp.verdict = "unknown";
    pp.reason = "no CPU time: give --cpu-ms";
    return;
  }
  pp.speedup = *po.cpuMs / pp.totalMs;
  // The repeat count from which the port pays off, when the CPU wins this one.
  if (pp.repeats > 1) {
    double perRepeatGpu = transfers.eachRepeatMs, once = transfers.onceMs + firstLaunchExtraMs;
    for (size_t k = 0; k < s.file.kernels.size(); ++k)
      if (pp.kernels[k].launches) // an indexed repeat's launches: no time step
        once += pp.kernels[k].count * pp.kernels[k].timeMs;
      else
        (s.scope[k] >= 0 ? perRepeatGpu : once) += pp.kernels[k].timeMs;
    double perRepeatCpu = *po.cpuMs / pp.repeats;
    if (*pp.speedup < 1 && perRepeatCpu > perRepeatGpu)
      pp.breakEvenRepeats = std::ceil(once / (perRepeatCpu - perRepeatGpu));
  }
  if (*pp.speedup >= po.minSpeedup) {
    pp.verdict = "port";
    return;
  }
  pp.verdict = "do not port";
  double linkMs = pp.h2dMs + pp.d2hMs;
  double tasks = 0;
  for (const auto &kp : kps)
    if (!kp.layouts.empty())
      tasks = std::max(tasks, kp.layouts.front().characterization.workload.blocks *
                                  kp.layouts.front().characterization.workload.threadsPerBlock);
  double fill = static_cast<double>(hw.smCount) * hw.maxWarpsPerSM * hw.warpSize / 4.0;
  if (linkMs >= 0.5 * pp.totalMs)
    pp.reason = fmt::format("transfers dominate ({:.0f}% of the GPU time)", 100 * linkMs / pp.totalMs);
  else if (pp.launchMs >= 0.5 * pp.kernelsMs)
    pp.reason = fmt::format("launches dominate ({:.0f}% of the kernel time)", 100 * pp.launchMs / pp.kernelsMs);
  else if (tasks < fill)
    pp.reason = fmt::format("too little parallelism to fill the GPU ({:.0f} threads at most, a "
                            "quarter of its {} resident threads is {:.0f})",
                            tasks, hw.name, fill);
  else
    pp.reason = "the CPU is simply faster";
}

} // namespace skelcast::model::program
