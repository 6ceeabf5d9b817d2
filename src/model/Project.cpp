#include "skelcast/model/Project.h"

#include "skelcast/support/Diagnostic.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace skelcast::model {
namespace {

/// Times layouts of one kernel with the model of the options (Model.h), and
/// makes LayoutProjections of them.
class Evaluator {
public:
  Evaluator(const layout::KernelInfo &ki, const hw::HwSpec &hw, const ModelOptions &mo)
      : ki_(ki), model_(makeModel(mo.model, ki, hw)) {}

  /// Projects `l`; timeMs(), effects() and projection() then describe it.
  void evaluate(const layout::Layout &l, const layout::Characterization &c) { model_->evaluate(l, c, ev_); }

  double timeMs() const { return ev_.result.timeMs; }
  const TermEffects &effects() const { return ev_.effects; }

  /// The last evaluated layout as a LayoutProjection.
  LayoutProjection projection(const layout::Layout &l, const layout::Characterization &c) const {
    LayoutProjection p;
    p.layout = l;
    p.layoutString = layout::layoutString(ki_, l);
    p.characterization = c;
    p.result = ev_.result;
    p.effects = ev_.effects;
    p.roofline = ev_.roofline;
    p.model = model_->kind();
    return p;
  }

private:
  const layout::KernelInfo &ki_;
  std::unique_ptr<Model> model_;
  Evaluation ev_;
};

} // namespace

double rankTime(double ms) {
  if (!(ms > 0) || !std::isfinite(ms))
    return ms;
  double scale = std::pow(10.0, 11.0 - std::floor(std::log10(ms)));
  return std::round(ms * scale) / scale;
}

namespace {

/// Where a layout stands in the ranking, before its layout string.
struct RankKey {
  double time = 0;   ///< rankTime of the projected time
  double floors = 0; ///< rankTime of the sum of the shared resources' floors
  double core = 0;   ///< the Hong-Kim core's time
};

/// The DRAM, departure, L1 and L2 floors summed: at one projected time, the
/// layout that leaves the most headroom on the resources its warps and the
/// other SMs contend for runs fastest (resources near saturation together slow
/// each other; docs/model.md, section 2, "Ties").
RankKey rankKey(double timeMs, const TermEffects &e) {
  return {rankTime(timeMs),
          rankTime(e.dramFloorMs + e.departureFloorMs + e.lsuFloorMs + e.l2FloorMs), e.coreMs};
}

/// -1 when `a` ranks before `b`, 1 after, 0 when only the layout string decides.
int compareKeys(const RankKey &a, const RankKey &b) {
  if (a.time != b.time)
    return a.time < b.time ? -1 : 1;
  if (a.floors != b.floors)
    return a.floors < b.floors ? -1 : 1;
  if (a.core != b.core)
    return a.core < b.core ? -1 : 1;
  return 0;
}

} // namespace

bool rankedBefore(const LayoutProjection &a, const LayoutProjection &b) {
  bool summed = a.launchesMs && b.launchesMs;
  int c = compareKeys(rankKey(summed ? *a.launchesMs : a.result.timeMs, a.effects),
                      rankKey(summed ? *b.launchesMs : b.result.timeMs, b.effects));
  if (c != 0)
    return c < 0;
  return a.layoutString < b.layoutString;
}

LayoutProjection projectLayout(const layout::KernelInfo &ki, const layout::Layout &l,
                               const hw::HwSpec &hw, const ModelOptions &mo) {
  layout::Characterizer z(ki, hw);
  return projectLayout(z, ki, l, hw, mo);
}

LayoutProjection projectLayout(layout::Characterizer &z, const layout::KernelInfo &ki,
                               const layout::Layout &l, const hw::HwSpec &hw, const ModelOptions &mo) {
  z.setShape(l.block, l.fold);
  layout::Characterization c;
  z.characterize(l, c);
  Evaluator ev(ki, hw, mo);
  ev.evaluate(l, c);
  return ev.projection(l, c);
}

std::optional<std::string> deviceMemoryShortfall(
    const hw::HwSpec &hw, const std::vector<std::pair<std::string, double>> &arrays) {
  if (hw.memCapacityBytes <= 0)
    return std::nullopt;
  double total = 0;
  std::string list;
  for (const auto &[name, bytes] : arrays) {
    total += bytes;
    list += fmt::format("{}{} {:.4g} GB", list.empty() ? "" : ", ", name, bytes / 1e9);
  }
  if (total <= static_cast<double>(hw.memCapacityBytes))
    return std::nullopt;
  return fmt::format("needs {:.4g} GB of device memory for its arrays ({}); {} has {:.4g} GB "
                     "(mem_capacity_bytes)",
                     total / 1e9, list, hw.name, static_cast<double>(hw.memCapacityBytes) / 1e9);
}

namespace {
void requireFits(const layout::KernelInfo &ki, const layout::Layout &l, const layout::Characterization &c,
                 const hw::HwSpec &hw) {
  if (!c.fits)
    throw InputError({"--layout", 0, 0},
                     fmt::format("layout '{}' needs {} bytes of shared memory per block; {} "
                                 "allows {}",
                                 layout::layoutString(ki, l), c.workload.sharedMemBytesPerBlock, hw.name,
                                 hw.sharedMemBlockMayHold()));
}
} // namespace

void requireSharedMemoryFits(const layout::KernelInfo &ki, const layout::Layout &l, const hw::HwSpec &hw) {
  requireFits(ki, l, layout::characterize(ki, l, hw), hw);
}

KernelProjection projectKernel(const layout::KernelInfo &ki, const hw::HwSpec &hw,
                               const layout::EnumerateOptions &eo, const ModelOptions &mo,
                               const std::optional<layout::Layout> &only) {
  KernelProjection kp;
  kp.kernel = ki.name;
  // A GPU without FP64 units cannot run double arithmetic at all (every model).
  if (hw.peakDpGflops <= 0)
    for (const auto &c : ki.comps)
      if (c.fp64 > 0)
        throw InputError({"--hw", 0, 0},
                         fmt::format("kernel '{}' executes FP64 instructions, but {} has no FP64 "
                                     "units (peak_dp_gflops 0)",
                                     ki.name, hw.name));
  {
    std::vector<bool> touched(ki.arrays.size(), false);
    for (const auto &a : ki.accesses)
      touched[static_cast<size_t>(a.array)] = true;
    std::vector<std::pair<std::string, double>> arrays;
    for (size_t a = 0; a < ki.arrays.size(); ++a)
      if (touched[a])
        arrays.emplace_back(ki.arrays[a].name, ki.arrays[a].elements * ki.arrays[a].elemBytes);
    if (auto shortfall = deviceMemoryShortfall(hw, arrays))
      throw InputError({ki.file, 0, 0}, fmt::format("kernel '{}' {}", ki.name, *shortfall));
  }
  Evaluator ev(ki, hw, mo);
  if (only) {
    layout::Characterization c = layout::characterize(ki, *only, hw);
    requireFits(ki, *only, c, hw);
    kp.layoutsExplored = 1;
    ev.evaluate(*only, c);
    kp.layouts.push_back(ev.projection(*only, c));
    return kp;
  }
  // With keepTop = N, kp.layouts is a max-heap under `rankedBefore` (its front
  // the worst kept) until the end: a layout that does not beat the front is
  // dropped after its rank key (then, on a tie, its string) is compared,
  // without building a LayoutProjection.
  const size_t keep = mo.keepTop;
  std::string tieString;
  layout::EnumerationStats st = layout::enumerateLayouts(
      ki, hw, eo, [&](const layout::Layout &l, const layout::Characterization &c) {
        ev.evaluate(l, c);
        if (keep == 0) {
          kp.layouts.push_back(ev.projection(l, c));
          return;
        }
        if (kp.layouts.size() < keep) {
          kp.layouts.push_back(ev.projection(l, c));
          std::push_heap(kp.layouts.begin(), kp.layouts.end(), rankedBefore);
          return;
        }
        const LayoutProjection &worst = kp.layouts.front();
        int order = compareKeys(rankKey(ev.timeMs(), ev.effects()),
                                rankKey(worst.result.timeMs, worst.effects));
        if (order > 0)
          return;
        if (order == 0) {
          tieString.clear();
          layout::appendLayoutString(tieString, ki, l);
          if (!(tieString < worst.layoutString))
            return;
        }
        std::pop_heap(kp.layouts.begin(), kp.layouts.end(), rankedBefore);
        kp.layouts.back() = ev.projection(l, c);
        std::push_heap(kp.layouts.begin(), kp.layouts.end(), rankedBefore);
      });
  kp.layoutsExplored = st.explored;
  kp.layoutsPruned = st.pruned;
  std::sort(kp.layouts.begin(), kp.layouts.end(), rankedBefore);
  return kp;
}

} // namespace skelcast::model
