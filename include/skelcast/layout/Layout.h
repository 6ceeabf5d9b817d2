/// \file
/// A code layout {B, F, S, O, cached data, L} (GROPHECY §6, Table 1) and its
/// canonical string (ARCHITECTURE.md): `block=i:16,j:16 fold=i:2 stage=k:16
/// cache=A,B unroll=k:16`. Omitted parts take the defaults: fold 1, nothing
/// staged, nothing cached, no unrolling. Staged loops are staged in their
/// nesting order (O is the loop order).
#pragma once

#include "skelcast/layout/KernelInfo.h"
#include "skelcast/hw/HwSpec.h"

#include <string>
#include <optional>
#include <vector>

namespace skelcast::layout {

struct Layout {
  std::vector<int64_t> block; ///< B, per parallel dimension
  std::vector<int64_t> fold;  ///< F, per parallel dimension
  std::vector<std::pair<int, int64_t>> stages; ///< S: (loop, StageSize), outermost first
  std::vector<int> cached;    ///< arrays read through shared memory, declaration order
  std::vector<std::pair<int, int64_t>> unroll; ///< L: (loop, factor > 1), pre-order
  /// Not part of the layout's identity: ptxas's registers per thread for this
  /// layout's emitted kernel, where the toolchain stage compiled it
  /// (docs/model.md, "Registers from ptxas"); the model's estimate when absent.
  std::optional<int> compiledRegisters;
  /// With compiledRegisters: ptxas's stack frame per thread, the bytes of the
  /// spill stores and loads in the kernel's code, and of those the stores'
  /// (term `spills`).
  int64_t compiledStackBytes = 0, compiledSpillBytes = 0, compiledSpillStoreBytes = 0;
  /// Where the layout's SASS was read (`--load-groups sass`): the registers its
  /// global loads fill per wait in the compiled code, which bound a group of
  /// loads in term `mlp` instead of layout::loadRegistersPerWait's estimate.
  std::optional<double> compiledRegistersPerWait;

  int64_t threadsPerBlock() const;
  int64_t foldProduct() const;
  int64_t stageSize(int loop) const; ///< 0 when not staged
  int64_t unrollFactor(int loop) const; ///< 1 when not unrolled
  bool isCached(int array) const;
  bool operator==(const Layout &o) const {
    return block == o.block && fold == o.fold && stages == o.stages && cached == o.cached &&
           unroll == o.unroll;
  }
};

/// The canonical string.
std::string layoutString(const KernelInfo &ki, const Layout &l);
/// Appends the canonical string to `out` (no allocation when it has room).
void appendLayoutString(std::string &out, const KernelInfo &ki, const Layout &l);

/// Parse a layout string against a kernel. Unknown indices, loops or arrays, a
/// block of 0 or above the spec's limit, a fold below 1, a stage of a loop that
/// is not a stageable streaming loop, are InputErrors naming the `--layout` part.
/// The largest fold of parallel dimension d for blocks of `block` along it: the
/// space's bound, block x fold within the dimension's size rounded up to a power
/// of two (Enumerate), and never below the tiles the dimension needs. It also
/// keeps block x fold far from 64-bit overflow.
int64_t maxFold(const KernelInfo &ki, size_t d, int64_t block);

/// The dimension's size rounded up to a power of two (capped at 2^40).
int64_t nextPow2(int64_t x);

Layout parseLayout(const KernelInfo &ki, const std::string &text, const hw::HwSpec &hw);

} // namespace skelcast::layout
