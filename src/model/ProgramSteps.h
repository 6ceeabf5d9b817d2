/// \file
/// The steps of a program's projection (docs/model.md, section 9), one file
/// each, which projectProgram (Program.cpp) runs in this order:
///
/// 1. transfers (Transfers.cpp): the dataflow (which arrays come from the host,
///    which go back) and the copies over the host link, when they happen;
/// 2. launches (Launches.cpp): each kernel's time and launch count, every
///    launch after the program's first queued behind it;
/// 3. fusion (Fusion.cpp): neighbouring kernels fused where they can be, the
///    fused kernel projected, the faster kept;
/// 4. verdict (Verdict.cpp): the total against the CPU's time, and why not.
///
/// Each step reads the program's shape and what the steps before it wrote into
/// the ProgramProjection. Private to src/model (the public interface is
/// Program.h), with the reuse-distance machinery that the program's analysis
/// and fusion share.
#pragma once

#include "skelcast/model/Program.h"
#include "skelcast/skeleton/Eval.h"

#include <map>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace skelcast::model::program {

/// Bytes of each array of the file, by name.
std::map<std::string, double> arrayBytes(const skeleton::SkeletonFile &file,
                                         const skeleton::MacroTable &macros);

/// What every step reads: the file, its macros, and where each kernel runs.
struct Shape {
  const skeleton::SkeletonFile &file;
  skeleton::MacroTable macros;
  std::vector<double> count; ///< per kernel: the launches of one pass over the program (its repeat's count)
  std::vector<int> scope;    ///< per kernel: the repeat it is in, -1 for none
  int repeats = 1;           ///< the largest count of a repeat that is not indexed (for the break-even)
};

Shape shapeOf(const skeleton::SkeletonFile &file);

// --- 1. transfers (Transfers.cpp) ----------------------------------------------

/// Which arrays cross the host link (docs/model.md, section 9, "Dataflow").
struct Dataflow {
  bool marked = false;                   ///< the file has host marks, which decide
  std::set<std::string> inputs, outputs;
  std::set<std::string> hostNeeds;       ///< what the host reads (outputs, host steps): never dead
  std::map<std::string, double> bytes;   ///< of every array, by name
  /// Per array read by a kernel: the first and the last kernel that reads it.
  std::map<std::string, std::pair<size_t, size_t>> readers;
  /// The program's arrays together exceed the device memory: the verdict's reason.
  std::optional<std::string> memoryShortfall;
};

Dataflow dataflowOf(const Shape &s, const hw::HwSpec &hw);

/// The transfer times the break-even needs.
struct TransferTimes {
  double onceMs = 0;       ///< copies made once
  double eachRepeatMs = 0; ///< copies made in each pass of a repeat
};

/// The copies (pp.h2d, pp.d2h, pp.h2dMs, pp.d2hMs).
TransferTimes projectTransfers(const Shape &s, const Dataflow &df, const hw::HwSpec &hw, bool pinned,
                               ProgramProjection &pp);

// --- 2. launches (Launches.cpp) ---------------------------------------------------

/// The kernels (pp.kernels, pp.kernelsUnfusedMs, pp.kernelsMs, pp.launchMs):
/// each its best layout's time, times its launches, every launch but the
/// program's first queued. Returns what the first launch costs beyond a queued
/// one, (launch_overhead_us - launch_back_to_back_us) / 1000, or 0 when the
/// model counts no launch.
double projectLaunches(const Shape &s, const std::vector<KernelProjection> &kps, const hw::HwSpec &hw,
                       ModelKind model, ProgramProjection &pp);

// --- 3. fusion (Fusion.cpp) -------------------------------------------------------

/// Neighbouring kernels fused (pp.fusion, pp.notFused); a faster fused kernel
/// lowers pp.kernelsMs and pp.launchMs.
void projectFusion(const Shape &s, const Dataflow &df, const std::vector<KernelProjection> &kps,
                   double firstLaunchExtraMs, const hw::HwSpec &hw, const layout::EnumerateOptions &eo,
                   const ModelOptions &mo, ProgramProjection &pp);

// --- 4. verdict (Verdict.cpp) -----------------------------------------------------

/// The total, the speedup, the break-even and the verdict with its reason.
void judge(const Shape &s, const Dataflow &df, const std::vector<KernelProjection> &kps,
           const TransferTimes &transfers, double firstLaunchExtraMs, const hw::HwSpec &hw,
           const ProgramOptions &po, ProgramProjection &pp);

// --- reuse distances (Program.cpp), for the analysis and for fusion ---------------

/// The arrays each kernel touches (loads or stores), as positions in
/// file.arrays, sorted and unique; and what each array weighs in bytes.
struct Touches {
  std::vector<std::vector<size_t>> used;
  std::vector<double> bytes;
  std::unordered_map<std::string, size_t> position;
  std::vector<size_t> of(const skeleton::Kernel &k) const {
    std::vector<size_t> out;
    for (const auto &[a, st] : skeleton::memTouches(k.body)) {
      auto it = position.find(a);
      if (it != position.end())
        out.push_back(it->second);
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
  }
};

Touches touches(const skeleton::SkeletonFile &file, const skeleton::MacroTable &macros);

/// Reuse distances in one pass over a sequence of kernels (docs/model.md,
/// section 9): the distance of array a at step t is the bytes of the distinct
/// arrays touched from the last step before t that touched a up to t. A Fenwick
/// tree over the steps holds each array's bytes at the last step that touched
/// it, so that the distinct arrays of a window [p, t] are a range sum: O(log n)
/// per touch instead of a walk back over every kernel in between (which made a
/// program of n kernels cost n^2). The bytes are whole numbers, so the sums are
/// exact, in any order.
class ReuseSweep {
public:
  ReuseSweep(size_t steps, const std::vector<double> &bytes)
      : tree_(steps + 1, 0), last_(bytes.size(), -1), bytes_(bytes) {}
  /// The step `t` touches `arrays`; returns, per array, the step that touched it
  /// last before (-1 for none), in the order of `arrays`.
  std::vector<long> touch(long t, const std::vector<size_t> &arrays) {
    std::vector<long> prev;
    prev.reserve(arrays.size());
    for (size_t a : arrays) {
      prev.push_back(last_[a]);
      if (last_[a] >= 0)
        add(last_[a], -bytes_[a]);
      add(t, bytes_[a]);
      last_[a] = t;
    }
    return prev;
  }
  /// The bytes of the distinct arrays whose last touch is within [p, t].
  double window(long p, long t) const { return prefix(t) - (p > 0 ? prefix(p - 1) : 0); }
  long last(size_t a) const { return last_[a]; }

private:
  void add(long i, double v) {
    for (size_t x = static_cast<size_t>(i) + 1; x < tree_.size(); x += x & (~x + 1))
      tree_[x] += v;
  }
  double prefix(long i) const {
    double s = 0;
    for (size_t x = static_cast<size_t>(i) + 1; x > 0; x -= x & (~x + 1))
      s += tree_[x];
    return s;
  }
  std::vector<double> tree_;
  std::vector<long> last_;
  const std::vector<double> &bytes_;
};

/// The repeats that run at least twice, per kernel (-1: none): their kernels
/// also follow their last one.
std::vector<int> loopsOf(const skeleton::SkeletonFile &file, const skeleton::MacroTable &macros);

/// Each array of `ki` with its reuse distance in `distances` gets it.
void applyReuse(layout::KernelInfo &ki, const std::map<std::string, double> &distances);

} // namespace skelcast::model::program
