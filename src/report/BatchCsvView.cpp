// report.csv of `skelcast batch`: one row per benchmark, kernel, GPU and layout
// rank, every number in its own column, then the program on that GPU (its transfers in
// and out, speedup, verdict and reason); a failure is one row with `error` set.
#include "Csv.h"
#include "Format.h"
#include "skelcast/report/Batch.h"

namespace skelcast::report {
namespace {

std::string opt(const std::optional<double> &v, int prec) { return v ? num(*v, prec) : ""; }

/// transfer_in_ms, transfer_out_ms, verdict, reason of the program on GPU `g`,
/// each followed by a comma (empty without a program projection), like Advisor's
/// offload report: what the data costs each way and why the port pays or not.
std::string programColumns(const BenchmarkResult &b, size_t g) {
  if (g >= b.programs.size() || !b.programs[g])
    return ",,,,";
  const auto &p = *b.programs[g];
  return num(p.h2dMs, 8) + "," + num(p.d2hMs, 8) + "," + csvField(p.verdict) + "," + csvField(p.reason) + ",";
}

} // namespace

std::string renderBatchCsv(const BatchReport &r) {
  std::string out =
      "benchmark,input,kernel,gpu,rank,layout,time_ms,cycles,bound,mwp,cwp,active_warps,exec_case,"
      "mem_cycles,comp_cycles,memory_share,threads_per_block,blocks,shared_mem_bytes_per_block,"
      "comp_insts,coal_mem_insts,uncoal_mem_insts,synch_insts,compulsory_bytes,roofline_ms,"
      "layouts_explored,layouts_pruned,cpu_ms,benchmark_time_ms,program_ms,transfer_share,speedup,"
      "transfer_in_ms,transfer_out_ms,verdict,reason,error\n";
  for (const auto &b : r.benchmarks) {
    std::string head = csvField(b.name) + "," + csvField(b.input) + ",";
    if (!b.error.empty()) {
      // kernel, gpu, the 21 layout columns, layouts_explored, layouts_pruned: empty
      out += head + std::string(25, ',') + opt(b.cpuMs, 8) + ",,,,,,,,," + csvField(b.error) + "\n";
      continue;
    }
    for (const auto &k : b.kernels) {
      for (size_t g = 0; g < k.gpus.size() && g < r.gpus.size(); ++g) {
        const auto &kg = k.gpus[g];
        std::string tail = fmt::format("{},{},{},{},{},{},{},{}", kg.layoutsExplored, kg.layoutsPruned,
                                       opt(b.cpuMs, 8), opt(benchmarkTimeMs(b, g), 8),
                                       opt(programTimeMs(b, g), 8), opt(transferShare(b, g), 4),
                                       opt(speedup(b, g), 6),
                                       programColumns(b, g));
        std::string kgHead = head + csvField(k.name) + "," + csvField(r.gpus[g].name) + ",";
        if (!kg.ok()) {
          out += kgHead + std::string(21, ',') + tail + csvField(kg.error) + "\n"; // no layout columns
          continue;
        }
        for (size_t i = 0; i < kg.layouts.size(); ++i) {
          const auto &l = kg.layouts[i];
          const auto &w = l.characterization.workload;
          out += kgHead + fmt::format(
                              "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},", i + 1,
                              csvField(l.layoutString), num(l.result.timeMs, 8),
                              num(l.result.totalCycles, 10), l.result.bound, num(l.result.mwp, 6),
                              num(l.result.cwp, 6), num(l.result.n, 6), l.result.execCase,
                              num(l.result.memCycles, 10), num(l.result.compCycles, 10),
                              num(memoryShare(l, r.gpus[g].clockGHz), 4), num(w.threadsPerBlock, 10), num(w.blocks, 10),
                              num(w.sharedMemBytesPerBlock, 10), num(w.compInsts, 10),
                              num(w.coalMemInsts, 10), num(w.uncoalMemInsts, 10),
                              num(w.synchInsts, 10), num(l.characterization.compulsoryBytes, 12),
                              num(l.roofline.timeMs, 8)) +
                 tail + "\n";
        }
      }
    }
  }
  return out;
}

} // namespace skelcast::report
