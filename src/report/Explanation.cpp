// explain's quantities of one layout's projection, in the order of docs/model.md:
// the one list that the text (ExplainView.cpp) and the JSON (ExplainJsonView.cpp)
// of `skelcast explain` both print.
#include "Format.h"
#include "skelcast/report/Report.h"

namespace skelcast::report {
namespace {

void section(Explanation &out, const std::string &title) { out.sections.push_back({title, {}}); }

void row(Explanation &out, const std::string &name, double value, int digits, const std::string &where) {
  out.sections.back().rows.push_back({name, value, digits, "", where});
}

/// A whole number (a dimension's size, a stage size, the case): printed as is.
void whole(Explanation &out, const std::string &name, int64_t value, const std::string &where) {
  out.sections.back().rows.push_back({name, static_cast<double>(value), 0, "", where});
}

void text(Explanation &out, const std::string &name, const std::string &value, const std::string &where) {
  out.sections.back().rows.push_back({name, std::nullopt, 0, value, where});
}

} // namespace

Explanation explainProjection(const layout::KernelInfo &ki, const model::LayoutProjection &p,
                              const hw::HwSpec &hw, const std::string &modelLabel) {
  const auto &c = p.characterization;
  const auto &w = c.workload;
  const auto &r = p.result;
  Explanation out;
  out.kernel = ki.name;
  out.file = ki.file;
  out.gpu = hw.name;
  out.model = modelLabel;
  out.layout = p.layoutString;
  out.timeMs = r.timeMs;
  out.bound = r.bound;
  section(out, "loop space");
  for (size_t d = 0; d < ki.dimNames.size(); ++d)
    whole(out, fmt::format("{} (dimension {})", ki.dimNames[d], d + 1), ki.dimSize[d],
        fmt::format("from {}", ki.dimLo[d]));
  row(out, "size(loop space)", ki.loopSpace, 8, "tasks");
  for (const auto &lp : ki.loops)
    row(out, fmt::format("{} loop '{}' trip", lp.isStream ? "stream" : "for", lp.index),
        lp.trip, 6, lp.constTrip ? "constant" : "average (hint or mean bounds)");

  section(out, "data (GROPHECY eq. 1, 5, 6, 9, 12)");
  for (const auto &a : c.arrays) {
    const auto &arr = ki.arrays[static_cast<size_t>(a.array)];
    row(out, fmt::format("ShrDegree({})", arr.name), a.shrDegree, 6,
        a.cacheable ? "eq. 1; cacheable (> 1)" : "eq. 1");
    if (a.cached) {
      row(out, fmt::format("  sum_k size(ShMem({}, k))", arr.name), a.shMemElems, 8,
          "eq. 5, elements");
      row(out, fmt::format("  ShMemAlloc({})", arr.name), a.shMemBytes, 8, "eq. 6, bytes");
      row(out, fmt::format("  caching_mem_insts({})", arr.name), a.cachingInsts, 8,
          fmt::format("eq. 12; {} ({} transactions)",
                      a.cachingPattern.coalesced ? "coalesced" : "uncoalesced",
                      num(a.cachingPattern.transactions, 4)));
    }
    row(out, fmt::format("  data_reqs({})", arr.name), a.dataReqs, 8, "eq. 9, elements");
  }
  for (const auto &s : c.stages) {
    whole(out, fmt::format("StageSize({})", ki.loops[static_cast<size_t>(s.loop)].index),
        s.stageSize, "eq. 3");
    row(out, fmt::format("NumStages({})", ki.loops[static_cast<size_t>(s.loop)].index),
        s.numStages, 8, "eq. 4");
  }

  section(out, "accesses (eq. 13; coalescing by the " +
                   std::string(hw::coalescingRuleName(hw.coalescing())) + " rule)");
  for (const auto &u : c.accesses) {
    const auto &a = ki.accesses[static_cast<size_t>(u.access)];
    std::string what = fmt::format("{} {} ({}:{})", a.isStore ? "st" : "ld",
                                   ki.arrays[static_cast<size_t>(a.array)].name, a.loc.line, a.loc.col);
    std::string how = u.viaShared ? (u.sharedVectorElems > 1
                                         ? fmt::format("shared-memory reads per thread, {} elements a read (LDS.128)",
                                                       u.sharedVectorElems)
                                         : std::string("shared-memory reads per thread"))
                                  : fmt::format("{} per thread, {} transactions/warp",
                                                u.pattern.coalesced ? "coalesced" : "uncoalesced",
                                                num(u.pattern.transactions, 4));
    row(out, what, u.insts, 8, how);
  }

  section(out, "instructions per thread (Table 2)");
  row(out, "Func_insts", c.funcInsts, 8, "eq. 17: F x sum(Ins_i x LP_i)");
  row(out, "loop control", c.loopControlInsts, 8,
      fmt::format("{} per iteration / unroll factor", layout::kLoopControlInsts));
  if (c.literalMoveInsts > 0)
    row(out, "64-bit literal moves", c.literalMoveInsts, 8,
        fmt::format("{} per literal (lit64): each iteration of a rolled loop, each entry of an unrolled one",
                    layout::kLiteralMoveInsts));
  row(out, "shared-memory reads", c.sharedReadInsts, 8,
      "1 (+1 address if rolled, -1 global address) per read");
  row(out, "caching stores", c.cachingCompInsts, 8, "2 per caching load");
  row(out, "Comp_insts", w.compInsts, 8, c.literalMoveInsts > 0 ? "sum of the five above" : "sum of the four above");
  row(out, "Coal_Mem_insts", w.coalMemInsts, 8, "eq. 14");
  row(out, "Uncoal_Mem_insts", w.uncoalMemInsts, 8, "eq. 15");
  row(out, "Uncoal_per_mw", w.uncoalPerMw, 6, "eq. 16");
  row(out, "Synch_insts", w.synchInsts, 8, "2 per stage, 1 per unstaged fill");
  row(out, "Avg_elem_bytes", c.avgElemBytes, 6, "eq. 10");
  row(out, "Load_bytes_per_warp", w.loadBytesPerWarp, 6, "eq. 11");
  row(out, "Thread_per_block", w.threadsPerBlock, 8, "size(B)");
  row(out, "Blocks", w.blocks, 10, "size(loop space) / (size(B) x F)");
  row(out, "SharedMem_bytes_per_block", w.sharedMemBytesPerBlock, 8, "eq. 7");

  const auto &e = p.effects;
  if (p.model == model::ModelKind::Skelcast) {
    section(out, "modern terms (docs/model.md section 7; inputs of the Hong-Kim core below)");
    for (const auto &t : model::skelcastTerms()) // each term's rows, in table order
      if (t.explain)
        for (const auto &x : t.explain(e))
          row(out, x.name, x.value, x.digits, x.where);
  }
  row(out, "compulsory bytes", c.compulsoryBytes, 8, "every element touched, once");
  row(out, "roofline time (ms)", p.roofline.timeMs, 6,
      fmt::format("max({} ms memory, {} ms compute) + launch", num(p.roofline.memoryMs, 4),
                  num(p.roofline.computeMs, 4)));
  section(out, "Hong-Kim model (ISCA'09 section 3), cycles per SM");
  row(out, "Active_SMs", r.activeSMs, 6, "min(SMs, Blocks)");
  row(out, "warps_per_block", r.warpsPerBlock, 6, "ceil(Thread_per_block / warp_size)");
  row(out, "Active_blocks_per_SM", r.activeBlocksPerSM, 6, "GROPHECY eq. 8");
  row(out, "N (active warps per SM)", r.n, 6, "Active_blocks_per_SM x warps_per_block");
  row(out, "Mem_L_Coal", r.memLCoal, 6, "Mem_LD");
  row(out, "Mem_L_Uncoal", r.memLUncoal, 6, "Mem_LD + (Uncoal_per_mw - 1) x Departure_del_uncoal");
  row(out, "Weight_uncoal", r.weightUncoal, 6, "Uncoal / (Uncoal + Coal)");
  row(out, "Mem_L", r.memL, 6, "weighted latency");
  row(out, "Departure_delay", r.departureDelay, 6, "weighted departure delay");
  row(out, "MWP_Without_BW", r.mwpWithoutBW, 6, "Mem_L / Departure_delay");
  row(out, "BW_per_warp (GB/s)", r.bwPerWarp, 6, "Freq x Load_bytes_per_warp / Mem_L");
  row(out, "MWP_peak_BW", r.mwpPeakBW, 6, "Mem_Bandwidth / (BW_per_warp x Active_SMs)");
  row(out, "MWP", r.mwp, 6, "min(MWP_Without_BW, MWP_peak_BW, N)");
  row(out, "Comp_cycles", r.compCycles, 8, "Issue_cycles x Total_insts");
  row(out, "Mem_cycles", r.memCycles, 8, "Mem_L_Uncoal x Uncoal + Mem_L_Coal x Coal");
  row(out, "CWP_full", r.cwpFull, 6, "(Mem_cycles + Comp_cycles) / Comp_cycles");
  row(out, "CWP", r.cwp, 6, "min(CWP_full, N)");
  row(out, "Rep", r.rep, 6, "Blocks / (Active_blocks_per_SM x Active_SMs)");
  whole(out, "case", r.execCase,
      r.execCase == 1   ? "MWP = N = CWP: not enough warps"
      : r.execCase == 2 ? "CWP >= MWP or Comp > Mem"
                        : "MWP > CWP");
  row(out, "Exec_cycles", r.execCycles, 8, "per the case");
  row(out, "Synch_cost", r.synchCost, 8,
      "Departure_delay x (MWP - 1) x Synch_insts x Active_blocks x Rep");
  row(out, "total cycles", r.totalCycles, 8, "Exec_cycles + Synch_cost");
  row(out, "time (ms)", r.timeMs, 6, fmt::format("cycles / {} GHz (+ launch)", hw.clockGHz));
  text(out, "bound", r.bound, "latency: N below MWP and CWP; memory: MWP < CWP - 1, or the DRAM, departure, L2 or same-address atomics floor; l1: the L1/shared floor; blocks: the block start floor; chain: the dependent chain of a division or square root");
  return out;
}

} // namespace skelcast::report
