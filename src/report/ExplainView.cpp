#include "Format.h"
#include "skelcast/report/Report.h"

namespace skelcast::report {
namespace {

void row(std::string &out, const std::string &name, const std::string &value,
         const std::string &where) {
  out += fmt::format("  {:<34} {:>14}   {}\n", name, value, where);
}

} // namespace

std::string renderExplain(const layout::KernelInfo &ki, const model::LayoutProjection &p,
                          const hw::HwSpec &hw, const std::string &modelLabel) {
  const auto &c = p.characterization;
  const auto &w = c.workload;
  const auto &r = p.result;
  std::string out;
  out += fmt::format("kernel {} ({}) on {}, model {}\nlayout {}\n\n", ki.name, ki.file, hw.name,
                     modelLabel, p.layoutString);
  out += "loop space\n";
  for (size_t d = 0; d < ki.dimNames.size(); ++d)
    row(out, fmt::format("{} (dimension {})", ki.dimNames[d], d + 1), std::to_string(ki.dimSize[d]),
        fmt::format("from {}", ki.dimLo[d]));
  row(out, "size(loop space)", num(ki.loopSpace, 8), "tasks");
  for (const auto &lp : ki.loops)
    row(out, fmt::format("{} loop '{}' trip", lp.isStream ? "stream" : "for", lp.index),
        num(lp.trip, 6), lp.constTrip ? "constant" : "average (hint or mean bounds)");

  out += "\ndata (GROPHECY eq. 1, 5, 6, 9, 12)\n";
  for (const auto &a : c.arrays) {
    const auto &arr = ki.arrays[static_cast<size_t>(a.array)];
    row(out, fmt::format("ShrDegree({})", arr.name), num(a.shrDegree, 6),
        a.cacheable ? "eq. 1; cacheable (> 1)" : "eq. 1");
    if (a.cached) {
      row(out, fmt::format("  sum_k size(ShMem({}, k))", arr.name), num(a.shMemElems, 8),
          "eq. 5, elements");
      row(out, fmt::format("  ShMemAlloc({})", arr.name), num(a.shMemBytes, 8), "eq. 6, bytes");
      row(out, fmt::format("  caching_mem_insts({})", arr.name), num(a.cachingInsts, 8),
          fmt::format("eq. 12; {} ({} transactions)",
                      a.cachingPattern.coalesced ? "coalesced" : "uncoalesced",
                      num(a.cachingPattern.transactions, 4)));
    }
    row(out, fmt::format("  data_reqs({})", arr.name), num(a.dataReqs, 8), "eq. 9, elements");
  }
  for (const auto &s : c.stages) {
    row(out, fmt::format("StageSize({})", ki.loops[static_cast<size_t>(s.loop)].index),
        std::to_string(s.stageSize), "eq. 3");
    row(out, fmt::format("NumStages({})", ki.loops[static_cast<size_t>(s.loop)].index),
        num(s.numStages, 8), "eq. 4");
  }

  out += "\naccesses (eq. 13; coalescing by the " +
         std::string(hw::coalescingRuleName(hw.coalescing())) + " rule)\n";
  for (const auto &u : c.accesses) {
    const auto &a = ki.accesses[static_cast<size_t>(u.access)];
    std::string what = fmt::format("{} {} ({}:{})", a.isStore ? "st" : "ld",
                                   ki.arrays[static_cast<size_t>(a.array)].name, a.loc.line, a.loc.col);
    std::string how = u.viaShared ? "shared-memory reads per thread"
                                  : fmt::format("{} per thread, {} transactions/warp",
                                                u.pattern.coalesced ? "coalesced" : "uncoalesced",
                                                num(u.pattern.transactions, 4));
    row(out, what, num(u.insts, 8), how);
  }

  out += "\ninstructions per thread (Table 2)\n";
  row(out, "Func_insts", num(c.funcInsts, 8), "eq. 17: F x sum(Ins_i x LP_i)");
  row(out, "loop control", num(c.loopControlInsts, 8),
      fmt::format("{} per iteration / unroll factor", layout::kLoopControlInsts));
  row(out, "shared-memory reads", num(c.sharedReadInsts, 8),
      "1 (+1 address if rolled, -1 global address) per read");
  row(out, "caching stores", num(c.cachingCompInsts, 8), "2 per caching load");
  row(out, "Comp_insts", num(w.compInsts, 8), "sum of the four above");
  row(out, "Coal_Mem_insts", num(w.coalMemInsts, 8), "eq. 14");
  row(out, "Uncoal_Mem_insts", num(w.uncoalMemInsts, 8), "eq. 15");
  row(out, "Uncoal_per_mw", num(w.uncoalPerMw, 6), "eq. 16");
  row(out, "Synch_insts", num(w.synchInsts, 8), "2 per stage, 1 per unstaged fill");
  row(out, "Avg_elem_bytes", num(c.avgElemBytes, 6), "eq. 10");
  row(out, "Load_bytes_per_warp", num(w.loadBytesPerWarp, 6), "eq. 11");
  row(out, "Thread_per_block", num(w.threadsPerBlock, 8), "size(B)");
  row(out, "Blocks", num(w.blocks, 10), "size(loop space) / (size(B) x F)");
  row(out, "SharedMem_bytes_per_block", num(w.sharedMemBytesPerBlock, 8), "eq. 7");

  const auto &e = p.effects;
  if (p.model == model::ModelKind::Skelcast) {
    out += "\nmodern terms (docs/model.md section 7; inputs of the Hong-Kim core below)\n";
    for (const auto &t : model::skelcastTerms()) // each term's rows, in table order
      if (t.explain)
        for (const auto &x : t.explain(e))
          row(out, x.name, num(x.value, x.digits), x.where);
  }
  row(out, "compulsory bytes", num(c.compulsoryBytes, 8), "every element touched, once");
  row(out, "roofline time (ms)", num(p.roofline.timeMs, 6),
      fmt::format("max({} ms memory, {} ms compute) + launch", num(p.roofline.memoryMs, 4),
                  num(p.roofline.computeMs, 4)));
  out += "\nHong-Kim model (ISCA'09 section 3), cycles per SM\n";
  row(out, "Active_SMs", num(r.activeSMs, 6), "min(SMs, Blocks)");
  row(out, "warps_per_block", num(r.warpsPerBlock, 6), "ceil(Thread_per_block / warp_size)");
  row(out, "Active_blocks_per_SM", num(r.activeBlocksPerSM, 6), "GROPHECY eq. 8");
  row(out, "N (active warps per SM)", num(r.n, 6), "Active_blocks_per_SM x warps_per_block");
  row(out, "Mem_L_Coal", num(r.memLCoal, 6), "Mem_LD");
  row(out, "Mem_L_Uncoal", num(r.memLUncoal, 6), "Mem_LD + (Uncoal_per_mw - 1) x Departure_del_uncoal");
  row(out, "Weight_uncoal", num(r.weightUncoal, 6), "Uncoal / (Uncoal + Coal)");
  row(out, "Mem_L", num(r.memL, 6), "weighted latency");
  row(out, "Departure_delay", num(r.departureDelay, 6), "weighted departure delay");
  row(out, "MWP_Without_BW", num(r.mwpWithoutBW, 6), "Mem_L / Departure_delay");
  row(out, "BW_per_warp (GB/s)", num(r.bwPerWarp, 6), "Freq x Load_bytes_per_warp / Mem_L");
  row(out, "MWP_peak_BW", num(r.mwpPeakBW, 6), "Mem_Bandwidth / (BW_per_warp x Active_SMs)");
  row(out, "MWP", num(r.mwp, 6), "min(MWP_Without_BW, MWP_peak_BW, N)");
  row(out, "Comp_cycles", num(r.compCycles, 8), "Issue_cycles x Total_insts");
  row(out, "Mem_cycles", num(r.memCycles, 8), "Mem_L_Uncoal x Uncoal + Mem_L_Coal x Coal");
  row(out, "CWP_full", num(r.cwpFull, 6), "(Mem_cycles + Comp_cycles) / Comp_cycles");
  row(out, "CWP", num(r.cwp, 6), "min(CWP_full, N)");
  row(out, "Rep", num(r.rep, 6), "Blocks / (Active_blocks_per_SM x Active_SMs)");
  row(out, "case", std::to_string(r.execCase),
      r.execCase == 1   ? "MWP = N = CWP: not enough warps"
      : r.execCase == 2 ? "CWP >= MWP or Comp > Mem"
                        : "MWP > CWP");
  row(out, "Exec_cycles", num(r.execCycles, 8), "per the case");
  row(out, "Synch_cost", num(r.synchCost, 8),
      "Departure_delay x (MWP - 1) x Synch_insts x Active_blocks x Rep");
  row(out, "total cycles", num(r.totalCycles, 8), "Exec_cycles + Synch_cost");
  row(out, "time (ms)", num(r.timeMs, 6), fmt::format("cycles / {} GHz (+ launch)", hw.clockGHz));
  row(out, "bound", r.bound, "latency: N below MWP and CWP; memory: MWP < CWP - 1 or a DRAM/departure floor; l1: the L1/shared floor");
  return out;
}

std::string renderLaunches(const model::RepeatedLaunches &l) {
  std::string out = fmt::format(
      "\nlaunches of the indexed repeat (docs/model.md, section 9)\n");
  row(out, fmt::format("values of '{}'", l.index),
      fmt::format("{}..{}", l.first, l.first + (l.iterations - 1) * l.step),
      fmt::format("step {}, {} iterations", l.step, l.iterations));
  row(out, "launches", std::to_string(l.launches),
      fmt::format("{} with an empty loop space skipped", l.iterations - l.launches));
  row(out, "quantities above at", fmt::format("{} = {}", l.index, l.characterizedAt),
      "the largest launch (first, middle, last)");
  out += "  representative iterations (the layouts are ranked on their weighted sum)\n";
  out += fmt::format("  {:>14} {:>10} {:>14} {:>14}\n", l.index, "weight", "threads", "time (ms)");
  for (const auto &s : l.ranking)
    out += fmt::format("  {:>14} {:>10} {:>14} {:>14}\n", s.value, num(s.weight, 6), s.threads,
                       num(s.timeMs, 6));
  if (l.exact)
    row(out, "sum over the launches (ms)", num(l.totalMs, 6), "every launch projected");
  else {
    row(out, "sum over the launches (ms)", num(l.totalMs, 6),
        fmt::format("piecewise linear between {} evenly spaced launches", l.summed.size()));
    row(out, "error bound (ms)", num(l.errorBoundMs, 4),
        "sum of (launches between samples) x |time difference|: time monotone between samples");
  }
  return out;
}

} // namespace skelcast::report
