#include "skelcast/model/Rerank.h"

#include "skelcast/model/ModernTerms.h"

#include <algorithm>
#include <numeric>

namespace skelcast::model {

size_t rerankCandidates(size_t shown) { return std::max<size_t>(2 * shown, 10); }

bool CompiledCounts::applyTo(layout::Layout &l) const {
  if (registersPerWait)
    l.compiledRegistersPerWait = registersPerWait;
  if (!registers)
    return false;
  l.compiledRegisters = registers;
  l.compiledStackBytes = stackBytes;
  l.compiledSpillBytes = spillBytes;
  l.compiledSpillStoreBytes = spillStoreBytes;
  return true;
}

bool readsRegisters(const ModelOptions &mo) {
  return mo.model.kind == ModelKind::Skelcast &&
         (mo.model.enabledTerms() & termBit(TermId::Registers)) != 0;
}

bool readsLoadGroups(const ModelOptions &mo) {
  return mo.model.kind == ModelKind::Skelcast && (mo.model.enabledTerms() & termBit(TermId::Mlp)) != 0;
}

std::optional<LayoutProjection::RegisterSource> applyCompiled(const CompiledCounts *c,
                                                            layout::Layout &l) {
  LayoutProjection::RegisterSource src;
  if (!c) {
    src.why = "not built";
    return src;
  }
  if (c->applyTo(l)) {
    src.ptxas = true;
    return src;
  }
  if (c->why.empty())
    return std::nullopt;
  src.why = c->why;
  return src;
}

KernelProjection rerankWithCompiled(const ProgramAnalysis &analysis, size_t k, const hw::HwSpec &hw,
                                     const layout::EnumerateOptions &eo, const ModelOptions &mo,
                                     KernelProjection kp,
                                     const std::vector<CompiledCounts> &counts, size_t keep) {
  ModelOptions one = mo;
  one.keepTop = 0;
  // Every layout is projected again, with or without ptxas's count: in an
  // indexed repeat each projection carries its own launches, and the new best's
  // are the kernel's.
  std::vector<std::optional<RepeatedLaunches>> launches(kp.layouts.size());
  for (size_t i = 0; i < kp.layouts.size(); ++i) {
    LayoutProjection &p = kp.layouts[i];
    layout::Layout l = p.layout;
    std::optional<LayoutProjection::RegisterSource> src = applyCompiled(i < counts.size() ? &counts[i] : nullptr, l);
    KernelProjection again = projectProgramKernel(analysis, k, hw, eo, one, l);
    if (!again.layouts.empty()) {
      p = std::move(again.layouts.front());
      launches[i] = std::move(again.launches);
    }
    p.registers = src;
  }
  std::vector<size_t> order(kp.layouts.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return rankedBefore(kp.layouts[a], kp.layouts[b]); });
  if (keep > 0 && order.size() > keep)
    order.resize(keep);
  std::vector<LayoutProjection> ranked;
  for (size_t i : order)
    ranked.push_back(std::move(kp.layouts[i]));
  if (kp.launches && !order.empty())
    kp.launches = launches[order.front()];
  kp.layouts = std::move(ranked);
  return kp;
}

} // namespace skelcast::model
