#include "skelcast/model/Roofline.h"

#include "skelcast/model/Model.h"

#include <algorithm>
#include <cmath>

namespace skelcast::model {

RooflineResult roofline(const layout::Characterization &c, const hw::HwSpec &hw) {
  const hw::Workload &w = c.workload;
  RooflineResult r;
  r.memoryMs = c.compulsoryBytes / (hw.memBandwidthGBps * 1e6);
  double warps = w.blocks * std::ceil(w.threadsPerBlock / hw.warpSize);
  double warpInsts = warps * w.totalInsts();
  double issuePerCycle = hw.smCount * hw.schedulersPerSM / hw.issueCycles;
  r.computeMs = warpInsts / issuePerCycle / (hw.clockGHz * 1e6);
  r.launchMs = hw.launchOverheadUs / 1000.0;
  r.timeMs = std::max(r.memoryMs, r.computeMs) + r.launchMs;
  return r;
}

// The `roofline` model: its time ranks the layouts; the MWP/CWP quantities
// are still reported, and the bound is the larger of its two sides.
void RooflineModel::evaluate(const layout::Layout &, const layout::Characterization &c, Evaluation &out) {
  out.roofline = roofline(c, hw_);
  out.result = hongKim(c.workload, hw_);
  out.result.timeMs = out.roofline.timeMs;
  out.result.bound = out.roofline.memoryMs >= out.roofline.computeMs ? "memory" : "compute";
  out.effects = TermEffects{};
}

} // namespace skelcast::model
