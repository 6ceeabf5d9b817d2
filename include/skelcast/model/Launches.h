/// \file
/// The launches of a kernel in an indexed repeat (`repeat k = lo:hi { ... }`,
/// docs/model.md, section 9, "Launches of an indexed repeat"): the kernel runs
/// once per value of k with k substituted, so its loop space, trip counts and
/// footprints change from launch to launch. One layout serves every launch: the
/// one whose time summed over a few representative iterations is the least.
/// The program's time for the kernel is the sum over every launch, projected
/// one by one up to kExactLaunches launches, else integrated piecewise-linearly
/// between kSumPoints evenly spaced iterations with a stated error bound.
///
///   repeat k = 0:4 { parallel_for f(k + 1:4) : i { ... } }
///   k = 0, 1, 2: 3, 2, 1 threads; k = 3: an empty loop space, no launch
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace skelcast::model {

/// Launches projected one by one (exactly) up to this many.
constexpr int64_t kExactLaunches = 4096;
/// Representative iterations the layouts are ranked on (evenly spaced).
constexpr int kRankingPoints = 17;
/// Iterations the time is integrated over beyond kExactLaunches.
constexpr int kSumPoints = 257;

/// One launch the model evaluated: the index value, the launches it stands
/// for in the sum, the size of its loop space and, for the best layout, its time.
struct LaunchSample {
  int64_t value = 0;   ///< the repeat index k
  double weight = 0;   ///< launches it stands for (piecewise-linear weights)
  int64_t threads = 0; ///< size of the loop space at k
  double timeMs = 0;   ///< one launch at k, launch overhead included
};

/// A kernel's launches in an indexed repeat, for its best layout.
struct RepeatedLaunches {
  std::string index;                    ///< the repeat's index
  int64_t first = 0, step = 1;          ///< its values: first + n x step
  int64_t iterations = 0;               ///< passes of the repeat
  int64_t launches = 0;                 ///< passes whose loop space is not empty (the rest are skipped)
  int64_t characterizedAt = 0;          ///< the k whose launch the layout rows describe (the largest)
  std::vector<LaunchSample> ranking;    ///< the representative iterations the layouts were ranked on
  bool exact = false;                   ///< every launch projected (launches <= kExactLaunches, or sizes not monotone in k)
  std::vector<LaunchSample> summed;     ///< not exact: the iterations the sum integrates
  double totalMs = 0;                   ///< every launch of the best layout, summed
  double errorBoundMs = 0;              ///< |totalMs - the exact sum| at most this (0 when exact)
};

/// Positions first..last (inclusive), at most `points` of them evenly spaced
/// (rounded; all when there are no more), each with its weight in the
/// piecewise-linear sum over every position: between neighbouring samples a
/// and b (L = b - a), a takes (L + 1) / 2 and b (L - 1) / 2, the last sample
/// one more. The weights sum to last - first + 1; with every position sampled
/// each weighs 1. Empty when last < first.
std::vector<std::pair<int64_t, double>> samplePositions(int64_t first, int64_t last, int points);

} // namespace skelcast::model
