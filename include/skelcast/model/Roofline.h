/// \file
/// The baseline every projection must beat: a plain roofline. Time is the
/// larger of the compulsory DRAM bytes over the bandwidth and the warp
/// instructions over the SMs' issue rate, plus the launch overhead
/// (docs/model.md, section 8).
#pragma once

#include "skelcast/layout/Characterize.h"
#include "skelcast/hw/HwSpec.h"

namespace skelcast::model {

struct RooflineResult {
  double memoryMs = 0, computeMs = 0, launchMs = 0, timeMs = 0;
};

RooflineResult roofline(const layout::Characterization &c, const hw::HwSpec &hw);

} // namespace skelcast::model
