/// \file
/// Projection of a kernel: every layout the enumerator emits, characterized
/// (GROPHECY eq. 1-17) and timed by the performance model, ranked fastest first.
#pragma once

#include "skelcast/layout/Characterize.h"
#include "skelcast/layout/Enumerate.h"
#include "skelcast/model/HongKim.h"
#include "skelcast/model/Launches.h"
#include "skelcast/model/Model.h"
#include "skelcast/model/ModelSpec.h"
#include "skelcast/model/ModernTerms.h"
#include "skelcast/model/Roofline.h"

#include <optional>
#include <string>
#include <vector>

namespace skelcast::model {

/// How a kernel is projected: the model (parsed once, ModelSpec.h) and how many
/// layouts to keep.
struct ModelOptions {
  ModelSpec model;
  /// Layouts projectKernel keeps per kernel, best first; 0 keeps all. With N > 0
  /// only a bounded set of the N best is held while enumerating: the ranking
  /// and the counts are those of keeping all and truncating.
  size_t keepTop = 0;
};

struct LayoutProjection {
  layout::Layout layout;
  std::string layoutString;
  layout::Characterization characterization;
  HongKimResult result;  ///< timeMs includes every enabled term (launch too)
  TermEffects effects;
  RooflineResult roofline;
  ModelKind model = ModelKind::Skelcast; ///< the model that produced it
  /// A kernel of an indexed repeat: its time summed over the representative
  /// launches (RepeatedLaunches::ranking, weighted), the ranking's key; the
  /// other fields describe the launch at RepeatedLaunches::characterizedAt.
  std::optional<double> launchesMs;
  /// Where the `registers` term's registers per thread came from, when the
  /// layout was re-ranked with ptxas's (Rerank.h); absent otherwise.
  struct RegisterSource {
    bool ptxas = false; ///< ptxas's count; else the estimate, because of `why`
    std::string why;    ///< with the estimate: the emitter's or the compiler's reason
  };
  std::optional<RegisterSource> registers;
};

struct KernelProjection {
  std::string kernel;
  int64_t layoutsExplored = 0;
  int64_t layoutsPruned = 0;
  std::vector<LayoutProjection> layouts; ///< best first
  std::optional<RepeatedLaunches> launches; ///< in an indexed repeat: the best layout's launches
};

/// Project one layout.
LayoutProjection projectLayout(const layout::KernelInfo &ki, const layout::Layout &l,
                               const hw::HwSpec &hw, const ModelOptions &mo);

/// Project one layout with a characterizer of `ki` (built with the same `hw`):
/// what it computed for earlier layouts (the kernel's whole footprints, each
/// block's tile) is not computed again. The same projection as the overload
/// above, for many layouts of one kernel at the cost of one.
LayoutProjection projectLayout(layout::Characterizer &z, const layout::KernelInfo &ki,
                               const layout::Layout &l, const hw::HwSpec &hw, const ModelOptions &mo);

/// A projected time as the ranking compares it: to 12 significant digits, so
/// that layouts held at one floor, which differ only by rounding, tie.
double rankTime(double ms);

/// The ranking: the faster first (rankTime; launchesMs when both have it); on equal times (layouts held at
/// the same bound) the one whose DRAM, departure, L1 and L2 floors sum lower (the most headroom
/// on the shared resources), then the one whose Hong-Kim core time is lower, then the layout
/// string (docs/model.md, section 2, "Ties").
bool rankedBefore(const LayoutProjection &a, const LayoutProjection &b);

/// When `arrays` (name, bytes) exceed the spec's device memory
/// (`mem_capacity_bytes`; never when the spec does not give it), what they need
/// against what it has: "needs 120 GB of device memory for its arrays (A 40 GB,
/// ...); h100 has 85.02 GB (mem_capacity_bytes)". projectKernel throws it as an
/// InputError; projectProgram makes it the verdict's reason.
std::optional<std::string> deviceMemoryShortfall(
    const hw::HwSpec &hw, const std::vector<std::pair<std::string, double>> &arrays);

/// A layout given by name (`--layout`) must hold its shared-memory tiles:
/// throws InputError at "--layout" naming the bytes a block needs and what
/// the spec allows, as projectKernel and `emit` refuse it.
void requireSharedMemoryFits(const layout::KernelInfo &ki, const layout::Layout &l,
                             const hw::HwSpec &hw);

/// Enumerate, project and rank (rankedBefore); `only` restricts to one given
/// layout. Keeps the `mo.keepTop` best (all when 0). A kernel the spec cannot
/// run (FP64 without FP64 units, arrays beyond its memory) is an InputError.
KernelProjection projectKernel(const layout::KernelInfo &ki, const hw::HwSpec &hw,
                               const layout::EnumerateOptions &eo, const ModelOptions &mo,
                               const std::optional<layout::Layout> &only = std::nullopt);

} // namespace skelcast::model
