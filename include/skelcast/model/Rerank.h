/// \file
/// The ranking redone with what the compiler made of the layouts (docs/model.md,
/// "Registers from ptxas", "Load groups from the SASS"): the enumerator ranks every layout with the register estimate; the
/// best few by the estimate are then re-projected with the registers per thread
/// ptxas gave their emitted code (Layout::compiledRegisters, read by the
/// `registers` term) and ranked again. The model starts no program: the counts
/// come in as values (the cli reads them with emit::compiledResources), with
/// `--load-groups sass` the registers of loads a wait of their SASS too.
#pragma once

#include "skelcast/model/Program.h"
#include "skelcast/model/Project.h"

#include <optional>
#include <string>
#include <vector>

namespace skelcast::model {

/// How many of the estimate's best layouts are re-projected when `shown` are
/// reported: max(2 × shown, 10), so that a layout the compiler's count moves up
/// from just below the shown ones can enter them.
size_t rerankCandidates(size_t shown);

/// Whether ptxas's count can change `mo`'s ranking: the skelcast model with its
/// `registers` term on (the other models and terms do not read registers).
bool readsRegisters(const ModelOptions &mo);
/// Whether the SASS's load groups can change `mo`'s ranking: the skelcast model
/// with its `mlp` term on.
bool readsLoadGroups(const ModelOptions &mo);

/// What the compiler made of one layout: ptxas's registers per thread and its
/// SASS's registers of loads a wait, each where asked for and read, or why the
/// estimate stays.
struct CompiledCounts {
  std::optional<int> registers;
  int64_t stackBytes = 0; ///< ptxas's stack frame per thread (local memory)
  int64_t spillBytes = 0; ///< bytes of its spill stores and loads in the code
  int64_t spillStoreBytes = 0; ///< of spillBytes, the stores'
  /// The registers of global loads in flight per wait in its SASS (term `mlp`),
  /// where they were asked for and cuobjdump read them.
  std::optional<double> registersPerWait;
  /// Asked for and not read: why (empty where read, or where no load waits).
  std::string whyNoGroups;
  std::string why; ///< without registers: the emitter's or the compiler's reason
  /// `l` with ptxas's count (Layout::compiledRegisters, compiledStackBytes,
  /// compiledSpillBytes) when there is one, and the SASS's registers per wait
  /// (Layout::compiledRegistersPerWait) when there are; true when the
  /// registers were set.
  bool applyTo(layout::Layout &l) const;
};

/// `c` applied to `l` (CompiledCounts::applyTo), and the mark of `l`'s
/// registers (LayoutProjection::registers): ptxas's, or the estimate and why
/// (`c` null: "not built"); nullopt where registers were not asked for (no
/// count and no reason: `--load-groups sass` alone).
std::optional<LayoutProjection::RegisterSource> applyCompiled(const CompiledCounts *c, layout::Layout &l);

/// `kp`'s layouts (best first by the estimate) with `counts[i]` for
/// kp.layouts[i] (missing entries keep the estimate): each re-projected as
/// kernel `k` of its program (projectProgramKernel with `only`), marked
/// (LayoutProjection::registers), ranked again with rankedBefore and cut to
/// `keep` (0 keeps all). In an indexed repeat the launches are those of the new
/// best. The counts of explored and pruned layouts stay those of `kp`.
KernelProjection rerankWithCompiled(const ProgramAnalysis &analysis, size_t k, const hw::HwSpec &hw,
                                     const layout::EnumerateOptions &eo, const ModelOptions &mo,
                                     KernelProjection kp,
                                     const std::vector<CompiledCounts> &counts, size_t keep);

} // namespace skelcast::model
