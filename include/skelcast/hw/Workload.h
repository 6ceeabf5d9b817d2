/// \file
/// The inputs of the GPU performance model for one layout: GROPHECY's Table 2
/// (per thread; one thread's instruction is one warp instruction).
#pragma once

namespace skelcast::hw {

struct Workload {
  double threadsPerBlock = 0;        ///< Thread_per_block = size(B)
  double blocks = 0;                 ///< Blocks = size(loop space) / (size(B) x F)
  double sharedMemBytesPerBlock = 0; ///< equation 7
  double compInsts = 0;              ///< Comp_insts (equation 17 plus layout overheads)
  double coalMemInsts = 0;           ///< Coal_Mem_insts, equation 14
  double uncoalMemInsts = 0;         ///< Uncoal_Mem_insts, equation 15
  double synchInsts = 0;             ///< Synch_insts: barriers per thread
  double uncoalPerMw = 1;            ///< Uncoal_per_mw, equation 16
  double loadBytesPerWarp = 0;       ///< Load_bytes_per_warp, equation 11
  /// Memory instructions whose latency a warp waits out one after the other.
  /// Hong & Kim: every one (= memInsts). The `mlp` term: one per group of
  /// independent loads (docs/model.md, section 7).
  double exposedMemInsts = -1;       ///< < 0 means memInsts
  /// With per-access latencies (the `caches` term): the cycles a warp waits
  /// for memory in sequence; < 0 means exposedInsts() x Mem_L.
  double exposedLatencyCycles = -1;
  /// The `waves` term: the Rep waves of blocks on an SM overlap (a block starts
  /// when one finishes), so case 3 exposes Mem_L once, not once per wave.
  bool wavesOverlap = false;

  double memInsts() const { return coalMemInsts + uncoalMemInsts; }
  double exposedInsts() const { return exposedMemInsts < 0 ? memInsts() : exposedMemInsts; }
  double totalInsts() const { return compInsts + memInsts(); }
};

} // namespace skelcast::hw
