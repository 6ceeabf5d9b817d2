/// \file
/// How many memory transactions one warp-wide instruction needs, and whether it
/// counts as coalesced (GROPHECY §7.2; Hong & Kim §3.2), by the spec's rule:
/// - half-warp (cc 1.0/1.1): a half-warp is coalesced only when thread k reads
///   word k of an aligned 16-word block; otherwise one transaction per thread.
/// - segment (cc 1.2/1.3): one transaction per 32/64/128-byte segment (element
///   size 1/2/4+) that a half-warp touches; coalesced when each half needs one.
/// - sector (cc >= 2.0): one transaction per 32-byte sector the warp touches;
///   coalesced when the warp reads at most 4 contiguous runs and needs no more
///   sectors than their bytes plus one (misalignment) per run.
/// The representative warp is the first warp of the first block, with every
/// sequential loop at its first iteration.
#pragma once

#include "skelcast/layout/Footprint.h"
#include "skelcast/layout/Layout.h"
#include "skelcast/hw/HwSpec.h"

#include <optional>
#include <vector>

namespace skelcast::layout {

struct WarpAccess {
  bool coalesced = true;
  double transactions = 1; ///< Mem_trans of one warp instruction
  double distinct = 1;     ///< distinct elements the warp instruction reads or writes
  /// Distinct 128-byte lines the warp instruction touches (unknown addresses
  /// one each), summed over its 128-byte passes (half-warps for 8-byte
  /// elements, quarter-warps for 16-byte ones): the L1's wavefronts for it
  /// (docs/model.md, term `lines`).
  double lines = 1;
};

/// Byte addresses of one warp's active threads; nullopt marks a thread whose
/// address is unknown (data without a sample): it is assumed to need its own
/// transaction.
WarpAccess classifyWarp(const std::vector<std::optional<int64_t>> &addrs, int elemBytes,
                        hw::CoalescingRule rule);
WarpAccess classifyWarp(const std::optional<int64_t> *addrs, size_t n, int elemBytes,
                        hw::CoalescingRule rule);

/// A direct global access of the representative warp.
WarpAccess directAccessPattern(const KernelInfo &ki, const AccessInfo &a, const Layout &l,
                               const hw::HwSpec &hw);

/// Byte addresses the representative warp's threads touch with access `a`, at
/// iteration `innerIteration` of its innermost loop (the others at their first).
std::vector<std::optional<int64_t>> warpAddresses(const KernelInfo &ki, const AccessInfo &a,
                                                  const Layout &l, const hw::HwSpec &hw,
                                                  int64_t innerIteration);

/// 32-byte sectors the representative warp moves for all of `accesses` (one
/// array, over the first 4 iterations of their innermost loops, or for a load
/// walking its row s < 32 bytes an iteration the 32 / s that use its sector)
/// over the bytes it uses: 1 when dense, up to 32 / element size when every
/// element sits in its own sector. For `loads`, the sectors the thread's next
/// task along each folded dimension uses count as used too (L1 holds them); a
/// store's do not.
double sectorInflation(const KernelInfo &ki, const std::vector<const AccessInfo *> &accesses,
                       const Layout &l, const hw::HwSpec &hw, bool loads);

/// A variable a tile's subscript moves with at run time: a parallel index
/// over the block's B x F tasks, or the staged loop's index over one stage.
struct TileVar {
  int var = -1;      ///< KernelInfo::vars
  int64_t coef = 0;  ///< its coefficient in the subscript (not 0)
  int64_t count = 0; ///< the values it takes in one tile: B x F, or the stage size
  int64_t span = 0;  ///< (count - 1) x its step
};

/// A cached array's shared-memory tile, as emit writes it (Emitter::planTiles
/// builds its code from this): per array dimension its extent (the block's
/// B x F range of each parallel index and the stage's of the staged loop,
/// unclipped, and every other loop's whole trip) and the subscript of its
/// first element in the layout's first block. Empty, with `refusal` saying
/// why, when a subscript is not affine or the reads move differently with a
/// runtime variable (emit then does not cache the array), and with
/// `constantTrips` (emit's tile, whose extents are constants) when a loop
/// around a read has no constant trip count; the refusals in the order of
/// the subscripts, the reads and the variables.
struct SharedTile {
  std::vector<int64_t> extent, base;
  /// Per dimension: the least subscript over every loop but the runtime variables.
  std::vector<int64_t> lo;
  /// Per dimension: the runtime variables its subscripts move with.
  std::vector<std::vector<TileVar>> vars;
  std::string refusal;
};
SharedTile sharedTile(const KernelInfo &ki, const std::vector<const AccessInfo *> &reads, const Layout &l,
                      int stagedLoop, bool constantTrips = false);

/// Wavefronts one shared-memory read of the representative warp takes from
/// `tile` (row-major, unpadded): per pass of the warp (32 lanes of 4-byte or
/// smaller elements, 16 of 8-byte, 8 of 16-byte) the most distinct 4-byte
/// words any one of the spec's banks holds, summed (threads reading one word
/// share it); at least the warp's dense bytes / 128. Without
/// `shared_mem_banks`, an empty tile or an address it cannot place, the
/// dense count. With `vectorElems` > 1 (sharedVectorElems) each lane reads
/// that many consecutive elements in one instruction, passes sized by the
/// bytes a lane reads.
double sharedWavefronts(const KernelInfo &ki, const AccessInfo &a, const Layout &l,
                        const hw::HwSpec &hw, const SharedTile &tile, int64_t vectorElems = 1);

/// The elements of `tile` one shared-memory read instruction of `a` loads a
/// lane: 16 / ElemBytes (an `LDS.128`) where ptxas joins V = 16 / ElemBytes
/// iterations of its innermost loop into one read, else 1. It does so (the
/// SASS of mm_acc's `stage=k:64 cache=A,B` and small_k_gemm's `cache=A,B`
/// tiles: A[i][k] as `LDS.128`, B[k][j] as `LDS`) where the loop walks the
/// tile's contiguous last subscript one element an iteration, moves no
/// other subscript, has a constant trip count, its compiled body holds a
/// multiple of V iterations (the layout's unroll, or nvcc's 4 in a staged
/// loop; emit keeps every other loop rolled) and its stage (or trip) is a
/// multiple of V, every other variable of the last subscript moves it by
/// whole vectors, and the warp's first elements and every row of the tile
/// start on 16 bytes. Elements of 4 and 8 bytes only.
int64_t sharedVectorElems(const KernelInfo &ki, const AccessInfo &a, const Layout &l, const hw::HwSpec &hw,
                          const SharedTile &tile);

/// The loads that fill shared memory with a footprint's bounding box, threads
/// taking consecutive elements in row-major order.
WarpAccess cachingLoadPattern(const ArrayInfo &arr, const FootprintBox &box,
                              int64_t threadsPerBlock, const hw::HwSpec &hw);

} // namespace skelcast::layout
