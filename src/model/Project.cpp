#include "skelcast/model/Project.h"

#include "skelcast/support/Diagnostic.h"

#include <fmt/format.h>

#include <algorithm>

namespace skelcast::model {
namespace {

LayoutProjection make(const layout::KernelInfo &ki, const layout::Layout &l,
                      layout::Characterization c, const HwSpec &hw, const ModelOptions &mo) {
  LayoutProjection p;
  p.layout = l;
  p.layoutString = layout::layoutString(ki, l);
  p.roofline = roofline(c, hw);
  if (mo.model == "hong-kim") {
    p.result = hongKim(c.workload, hw);
  } else if (mo.model == "skelcast") {
    AdjustedInputs a = applyModernTerms(c, ki, l, hw, mo.enabledTerms());
    p.result = hongKim(a.workload, a.hw);
    double floor = std::max(a.effects.dramFloorMs, a.effects.departureFloorMs);
    if (floor > p.result.timeMs) {
      p.result.timeMs = floor;
      p.result.bound = "memory";
    }
    p.result.timeMs += a.effects.launchMs;
    p.effects = a.effects;
  } else if (mo.model == "roofline") {
    p.result = hongKim(c.workload, hw); // MWP/CWP still reported
    p.result.timeMs = p.roofline.timeMs;
    p.result.bound = p.roofline.memoryMs >= p.roofline.computeMs ? "memory" : "compute";
  } else {
    throw InputError({"--model", 0, 0},
                     fmt::format("unknown model '{}' (known: skelcast, hong-kim, roofline)", mo.model));
  }
  p.characterization = std::move(c);
  return p;
}

} // namespace

const std::vector<std::string> &modelNames() {
  static const std::vector<std::string> names{"skelcast", "hong-kim", "roofline"};
  return names;
}

std::set<std::string> ModelOptions::enabledTerms() const {
  std::set<std::string> on;
  for (const auto &t : modernTermNames())
    if (!disabledTerms.count(t))
      on.insert(t);
  return on;
}

LayoutProjection projectLayout(const layout::KernelInfo &ki, const layout::Layout &l,
                               const HwSpec &hw, const ModelOptions &mo) {
  return make(ki, l, layout::characterize(ki, l, hw), hw, mo);
}

KernelProjection projectKernel(const layout::KernelInfo &ki, const HwSpec &hw,
                               const layout::EnumerateOptions &eo, const ModelOptions &mo,
                               const std::optional<layout::Layout> &only) {
  KernelProjection kp;
  kp.kernel = ki.name;
  if (only) {
    layout::Characterization c = layout::characterize(ki, *only, hw);
    if (!c.fits)
      throw InputError({"--layout", 0, 0},
                       fmt::format("layout '{}' needs {} bytes of shared memory per block; {} "
                                   "allows {}",
                                   layout::layoutString(ki, *only), c.workload.sharedMemBytesPerBlock,
                                   hw.name, hw.sharedMemPerBlockBytes));
    kp.layoutsExplored = 1;
    kp.layouts.push_back(make(ki, *only, std::move(c), hw, mo));
    return kp;
  }
  layout::EnumerationStats st = layout::enumerateLayouts(
      ki, hw, eo, [&](const layout::Layout &l, const layout::Characterization &c) {
        kp.layouts.push_back(make(ki, l, c, hw, mo));
      });
  kp.layoutsExplored = st.explored;
  kp.layoutsPruned = st.pruned;
  std::sort(kp.layouts.begin(), kp.layouts.end(),
            [](const LayoutProjection &a, const LayoutProjection &b) {
              if (a.result.timeMs != b.result.timeMs)
                return a.result.timeMs < b.result.timeMs;
              return a.layoutString < b.layoutString;
            });
  return kp;
}

} // namespace skelcast::model
