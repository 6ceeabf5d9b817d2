#include "skelcast/layout/Coalescing.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace skelcast::layout {
namespace {

/// A shared-memory bank serves one 4-byte word a cycle (CUDA C++ Programming
/// Guide, compute capability 5.x and later, "Shared Memory").
constexpr int64_t kBankBytes = 4;

/// A buffer of n values on the stack when small (a warp's addresses).
class Scratch {
public:
  explicit Scratch(size_t n) {
    if (n > kInline) {
      heap_.resize(n);
      p_ = heap_.data();
    }
  }
  int64_t *data() { return p_; }

private:
  static constexpr size_t kInline = 256;
  int64_t inline_[kInline];
  std::vector<int64_t> heap_;
  int64_t *p_ = inline_;
};

/// Distinct values among buf[0, n) (sorted in place).
size_t countDistinct(int64_t *buf, size_t n) {
  std::sort(buf, buf + n);
  return static_cast<size_t>(std::unique(buf, buf + n) - buf);
}

/// Transactions of a group of threads by distinct `unit`-byte blocks;
/// unknown addresses count one each.
double distinctUnits(const std::optional<int64_t> *addrs, size_t b, size_t e, int64_t unit) {
  Scratch s(e - b);
  size_t k = 0;
  double unknown = 0;
  for (size_t i = b; i < e; ++i) {
    if (addrs[i])
      s.data()[k++] = *addrs[i] / unit - (*addrs[i] % unit < 0 ? 1 : 0); // floor, without overflow at INT64_MIN
    else
      unknown += 1;
  }
  return static_cast<double>(countDistinct(s.data(), k)) + unknown;
}

bool dependsOn(const KernelInfo &ki, const skeleton::Expr &e, const std::vector<bool> &vary) {
  if (e.kind == skeleton::Expr::Kind::Name) {
    int v = ki.varIndex(e.name);
    if (v >= 0)
      return vary[static_cast<size_t>(v)];
    auto b = ki.bindings.find(e.name);
    if (b != ki.bindings.end())
      return dependsOn(ki, b->second, vary);
    return false;
  }
  for (const auto &a : e.args)
    if (dependsOn(ki, a, vary))
      return true;
  return false;
}

/// The parallel dimensions in `vary` that a data subscript reads only through
/// the start of a loop: IspinEx's B[I[n]][i] with n from J[j] to J[j + 1] reads
/// row I[n] of j's own range, so threads of different rows j read different
/// rows of B (the same row where j is the same). A loop whose end alone
/// varies (n < cnt[j], n < j) runs every row over the same n: one row.
void boundKeyDims(const KernelInfo &ki, const skeleton::Expr &e, const std::vector<bool> &vary,
                  std::vector<int> &dims, int depth = 0) {
  if (depth > 64)
    return;
  if (e.kind == skeleton::Expr::Kind::Name) {
    int v = ki.varIndex(e.name);
    if (v >= 0) {
      for (const auto &lp : ki.loops)
        if (lp.var == v)
          for (int d : lp.startDims)
            if (vary[static_cast<size_t>(d)] &&
                std::find(dims.begin(), dims.end(), d) == dims.end())
              dims.push_back(d);
      return;
    }
    auto b = ki.bindings.find(e.name);
    if (b != ki.bindings.end())
      boundKeyDims(ki, b->second, vary, dims, depth + 1);
    return;
  }
  for (const auto &a : e.args)
    boundKeyDims(ki, a, vary, dims, depth);
}

/// A stand-in value in [0, extent) for data that is the same for the threads
/// with the same `key` and differs between keys (splitmix64 of the key).
int64_t keyedValue(const int64_t *vals, const std::vector<int> &key, int64_t extent) {
  uint64_t h = 0x9E3779B97F4A7C15ull;
  for (int d : key) {
    uint64_t z = h + static_cast<uint64_t>(vals[static_cast<size_t>(d)]) + 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    h = z ^ (z >> 31);
  }
  return extent > 0 ? static_cast<int64_t>(h % static_cast<uint64_t>(extent)) : 0;
}

/// Appends the byte addresses of the representative warp (see warpAddresses),
/// at the thread's task `task` along folded dimension `foldDim` (-1: its first).
/// `strides` (elements per step of each subscript) replace the array's: a
/// shared-memory tile's.
void appendWarpAddresses(std::vector<std::optional<int64_t>> &addrs, const KernelInfo &ki,
                         const AccessInfo &a, const Layout &l, const hw::HwSpec &hw,
                         int64_t innerIteration, int foldDim = -1, int64_t task = 0,
                         const std::vector<int64_t> *strides = nullptr) {
  const ArrayInfo &arr = ki.arrays[static_cast<size_t>(a.array)];
  const std::vector<int64_t> &stride = strides ? *strides : arr.strides;
  size_t nd = ki.dimNames.size();
  // Thread coordinates: x is the last parallel dimension, then y, then z.
  int64_t bdim[3] = {1, 1, 1};
  for (size_t t = 0; t < nd; ++t)
    bdim[t] = l.block[nd - 1 - t];
  int64_t tpb = l.threadsPerBlock();
  int64_t warp = std::min<int64_t>(hw.warpSize, tpb);
  bool allAffine = true;
  for (const auto &f : a.index)
    allAffine = allAffine && f.kind == IndexForm::Kind::Affine;
  std::vector<bool> vary;
  if (!allAffine) {
    vary.assign(ki.vars.size(), false);
    for (size_t t = 0; t < nd; ++t) {
      int64_t below = 1;
      for (size_t u = 0; u < t; ++u)
        below *= bdim[u];
      vary[nd - 1 - t] = bdim[t] > 1 && below < warp;
    }
  }
  // data subscripts the warp reads per row of a loop whose bounds vary across it
  std::vector<std::vector<int>> keyDims(allAffine ? 0 : a.index.size());
  for (size_t d = 0; d < keyDims.size(); ++d)
    if (a.index[d].kind == IndexForm::Kind::Data && !dependsOn(ki, a.index[d].expr, vary))
      boundKeyDims(ki, a.index[d].expr, vary, keyDims[d]);
  Scratch valsBuf(ki.vars.size());
  int64_t *vals = valsBuf.data();
  for (size_t v = 0; v < ki.vars.size(); ++v)
    vals[v] = ki.vars[v].lo;
  if (innerIteration > 0 && !a.loops.empty()) {
    const Var &iv = ki.vars[static_cast<size_t>(ki.loops[static_cast<size_t>(a.loops.back())].var)];
    vals[static_cast<size_t>(ki.loops[static_cast<size_t>(a.loops.back())].var)] =
        iv.lo + innerIteration * iv.step;
  }
  std::vector<int64_t> valsVec; // evalIndex takes a vector
  addrs.reserve(addrs.size() + static_cast<size_t>(warp));
  for (int64_t th = 0; th < warp; ++th) {
    int64_t rest = th;
    for (size_t t = 0; t < nd; ++t) {
      vals[nd - 1 - t] = ki.dimLo[nd - 1 - t] + rest % bdim[t];
      rest /= bdim[t];
    }
    // cyclic folding: the thread's task f along d is f x B_d further
    if (foldDim >= 0)
      vals[static_cast<size_t>(foldDim)] += task * l.block[static_cast<size_t>(foldDim)];
    if (allAffine) {
      // An affine subscript is its constant plus its coefficients times the
      // variables: the value evalIndex computes from the expression.
      // An offset beyond 64 bits (a subscript far outside the array) is unknown.
      int64_t off = 0;
      bool fits = true;
      for (size_t d = 0; d < a.index.size() && fits; ++d) {
        const IndexForm &f = a.index[d];
        int64_t x = f.constant, term = 0;
        for (size_t v = 0; v < f.coef.size() && fits; ++v)
          fits = !__builtin_mul_overflow(f.coef[v], vals[v], &term) &&
                 !__builtin_add_overflow(x, term, &x);
        fits = fits && !__builtin_mul_overflow(x, stride[d], &term) &&
               !__builtin_add_overflow(off, term, &off);
      }
      int64_t bytes = 0;
      fits = fits && !__builtin_mul_overflow(off, static_cast<int64_t>(arr.elemBytes), &bytes);
      addrs.push_back(fits ? std::optional<int64_t>(bytes) : std::nullopt);
      continue;
    }
    valsVec.assign(vals, vals + ki.vars.size());
    int64_t off = 0;
    bool known = true;
    for (size_t d = 0; d < a.index.size() && known; ++d) {
      auto x = evalIndex(ki, a.index[d].expr, valsVec);
      if (!x && !keyDims[d].empty())
        x = keyedValue(vals, keyDims[d], arr.extents[d]);
      if (!x) {
        // Unknown data: the same for the whole warp when it depends on no index
        // that varies across it (then it shifts all addresses alike).
        if (dependsOn(ki, a.index[d].expr, vary))
          known = false;
        continue;
      }
      // An offset beyond 64 bits (a subscript far outside the array) is unknown.
      int64_t term = 0;
      if (__builtin_mul_overflow(*x, stride[d], &term) || __builtin_add_overflow(off, term, &off))
        known = false;
    }
    int64_t bytes = 0;
    if (known && __builtin_mul_overflow(off, static_cast<int64_t>(arr.elemBytes), &bytes))
      known = false;
    addrs.push_back(known ? std::optional<int64_t>(bytes) : std::nullopt);
  }
}

// The lanes of a warp the L1 serves in one 128-byte pass: the whole warp for
// elements of 4 bytes or less, a half-warp for 8-byte ones, a quarter-warp
// for 16-byte ones (global lines and shared banks alike).
size_t lanesPerPass(int64_t bytesPerLane) { return bytesPerLane >= 16 ? 8 : bytesPerLane >= 8 ? 16 : 32; }

} // namespace

WarpAccess classifyWarp(const std::vector<std::optional<int64_t>> &addrs, int eb,
                        hw::CoalescingRule rule) {
  return classifyWarp(addrs.data(), addrs.size(), eb, rule);
}

WarpAccess classifyWarp(const std::optional<int64_t> *addrs, size_t n, int eb,
                        hw::CoalescingRule rule) {
  WarpAccess w;
  if (n == 0)
    return w;
  // The distinct known addresses, sorted.
  Scratch known(n);
  size_t nk = 0;
  double unknown = 0;
  for (size_t i = 0; i < n; ++i) {
    if (addrs[i])
      known.data()[nk++] = *addrs[i];
    else
      unknown += 1;
  }
  nk = countDistinct(known.data(), nk);
  w.distinct = static_cast<double>(nk) + unknown;
  // The L1 looks up a warp's lines one 128-byte pass of its data at a time:
  // a half-warp's for 8-byte elements, a quarter-warp's for 16-byte ones, so
  // a line both halves touch is looked up twice (validation/kernels/
  // l1lines_fp64.cu on the H200: doubles on L lines, lane t on line t mod L,
  // 2 L cycles a load; lane t on line t / (32 / L), L).
  size_t pass = lanesPerPass(eb);
  w.lines = 0;
  for (size_t h = 0; h < n; h += pass)
    w.lines += distinctUnits(addrs, h, std::min(n, h + pass), 128);
  switch (rule) {
  case hw::CoalescingRule::HalfWarp: {
    double trans = 0;
    bool all = true;
    for (size_t h = 0; h < n; h += 16) {
      size_t e = std::min(n, h + 16);
      bool ok = (eb == 4 || eb == 8 || eb == 16) && addrs[h] && *addrs[h] % (16 * eb) == 0;
      int64_t want = 0;
      for (size_t i = h; i < e && ok; ++i)
        ok = addrs[i] && !__builtin_add_overflow(*addrs[h], static_cast<int64_t>(i - h) * eb, &want) &&
             *addrs[i] == want;
      trans += ok ? 1.0 : static_cast<double>(e - h);
      all = all && ok;
    }
    w.coalesced = all;
    w.transactions = all ? 1.0 : trans;
    return w;
  }
  case hw::CoalescingRule::Segment: {
    int64_t seg = eb == 1 ? 32 : eb == 2 ? 64 : 128;
    double trans = 0;
    bool all = true;
    for (size_t h = 0; h < n; h += 16) {
      double t = distinctUnits(addrs, h, std::min(n, h + 16), seg);
      trans += t;
      all = all && t <= 1.0;
    }
    w.coalesced = all;
    w.transactions = all ? 1.0 : trans;
    return w;
  }
  case hw::CoalescingRule::Sector: {
    double sectors = distinctUnits(addrs, 0, n, 32);
    bool anyUnknown = unknown > 0;
    const int64_t *k = known.data();
    double runs = nk == 0 ? 0 : 1;
    int64_t next = 0;
    for (size_t i = 1; i < nk; ++i)
      if (__builtin_add_overflow(k[i - 1], static_cast<int64_t>(eb), &next) || k[i] != next)
        runs += 1;
    double ideal = std::ceil(static_cast<double>(nk) * eb / 32.0);
    w.coalesced = !anyUnknown && runs <= 4 && sectors <= ideal + runs;
    w.transactions = w.coalesced ? 1.0 : sectors;
    return w;
  }
  }
  return w;
}

std::vector<std::optional<int64_t>> warpAddresses(const KernelInfo &ki, const AccessInfo &a,
                                                  const Layout &l, const hw::HwSpec &hw,
                                                  int64_t innerIteration) {
  std::vector<std::optional<int64_t>> addrs;
  appendWarpAddresses(addrs, ki, a, l, hw, innerIteration);
  return addrs;
}

WarpAccess directAccessPattern(const KernelInfo &ki, const AccessInfo &a, const Layout &l,
                               const hw::HwSpec &hw) {
  std::vector<std::optional<int64_t>> addrs;
  appendWarpAddresses(addrs, ki, a, l, hw, 0);
  return classifyWarp(addrs, ki.arrays[static_cast<size_t>(a.array)].elemBytes, hw.coalescing());
}

double sectorInflation(const KernelInfo &ki, const std::vector<const AccessInfo *> &accesses,
                       const Layout &l, const hw::HwSpec &hw, bool loads) {
  if (accesses.empty())
    return 1.0;
  // The warp's addresses over the first iterations of each access's innermost
  // loop: sectors that later iterations use are not wasted. Loads: nor are
  // those the thread's next task along a folded dimension uses (it finds the
  // sector in L1: transpose's `fold=j:8` over `block=j:4` reads the other half
  // of each row's sector). A store is written by its own instruction: each
  // partial sector goes to L2 on its own (h100_ncu of transpose 4096²: 6.6
  // million L2 write sectors with half-sector stores, 3.1 with whole ones).
  // A load that walks its row (the `walk` term: it moves s < 32 bytes an
  // iteration) uses its sector over 32 / s iterations, the next ones finding it
  // in L1: a row walk of floats (gesummv's A[i][j] in `block=i:32`) uses each
  // sector whole, where its first 4 iterations use half of it.
  constexpr int64_t kIterations = 4;
  std::vector<std::optional<int64_t>> all;
  all.reserve(accesses.size() * static_cast<size_t>(kIterations * hw.warpSize));
  for (const auto *a : accesses) {
    int64_t iters = 1;
    int64_t most = kIterations;
    if (loads && a->innerStepBytes > 0 && a->innerStepBytes < 32)
      most = std::max<int64_t>(most, static_cast<int64_t>(std::ceil(32.0 / a->innerStepBytes)));
    if (!a->loops.empty())
      iters = std::clamp<int64_t>(static_cast<int64_t>(ki.loops[static_cast<size_t>(a->loops.back())].trip), 1,
                                  most);
    for (int64_t t = 0; t < iters; ++t) {
      appendWarpAddresses(all, ki, *a, l, hw, t);
      if (!loads)
        continue;
      for (size_t d = 0; d < l.fold.size(); ++d)
        if (l.fold[d] > 1)
          appendWarpAddresses(all, ki, *a, l, hw, t, static_cast<int>(d), 1);
    }
  }
  int eb = ki.arrays[static_cast<size_t>(accesses.front()->array)].elemBytes;
  Scratch known(all.size());
  size_t nk = 0;
  double unknown = 0;
  for (const auto &x : all) {
    if (x)
      known.data()[nk++] = *x;
    else
      unknown += 1;
  }
  nk = countDistinct(known.data(), nk);
  double sectors = distinctUnits(all.data(), 0, all.size(), 32);
  double bytes = (static_cast<double>(nk) + unknown) * eb;
  return bytes > 0 ? std::max(1.0, sectors * 32.0 / bytes) : 1.0;
}

SharedTile sharedTile(const KernelInfo &ki, const std::vector<const AccessInfo *> &reads, const Layout &l,
                      int stagedLoop, bool constantTrips) {
  SharedTile t;
  if (reads.empty())
    return t;
  auto refuse = [](std::string why) {
    SharedTile r;
    r.refusal = std::move(why);
    return r;
  };
  size_t rank = reads.front()->index.size();
  for (const auto *x : reads)
    if (x->index.size() != rank)
      return refuse("its reads have different numbers of subscripts");
  t.extent.resize(rank);
  t.base.resize(rank);
  t.lo.resize(rank);
  t.vars.resize(rank);
  for (size_t e = 0; e < rank; ++e) {
    // the block's (and the stage's) variables take their whole B x F (stage)
    // range, unclipped; the other loops their whole trip
    std::vector<int64_t> runtimeCoef(ki.vars.size(), 0);
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    for (size_t q = 0; q < reads.size(); ++q) {
      const IndexForm &f = reads[q]->index[e];
      if (f.kind != IndexForm::Kind::Affine)
        return refuse("a subscript is not affine in the loop indices");
      int64_t mn = f.constant, mx = f.constant;
      for (size_t vi = 0; vi < ki.vars.size(); ++vi) {
        int64_t c = vi < f.coef.size() ? f.coef[vi] : 0;
        const Var &var = ki.vars[vi];
        if (var.dim >= 0 || (stagedLoop >= 0 && var.loop == stagedLoop)) {
          if (q == 0)
            runtimeCoef[vi] = c;
          else if (runtimeCoef[vi] != c)
            return refuse(fmt::format("its accesses move differently with '{}'", var.name));
          continue;
        }
        if (c == 0)
          continue;
        if (constantTrips && var.loop >= 0 && !ki.loops[static_cast<size_t>(var.loop)].constTrip)
          return refuse(fmt::format("loop '{}' around a read has no constant trip count", var.name));
        int64_t first = var.lo, last = var.lo + (static_cast<int64_t>(var.trip) - 1) * var.step;
        mn += std::min(c * first, c * last);
        mx += std::max(c * first, c * last);
      }
      lo = std::min(lo, mn);
      hi = std::max(hi, mx);
    }
    int64_t width = hi - lo, base = lo;
    for (size_t vi = 0; vi < ki.vars.size(); ++vi) {
      int64_t c = runtimeCoef[vi];
      if (c == 0)
        continue;
      const Var &var = ki.vars[vi];
      int64_t count = var.dim >= 0 ? l.block[static_cast<size_t>(var.dim)] * l.fold[static_cast<size_t>(var.dim)]
                                   : l.stageSize(stagedLoop);
      int64_t span = (count - 1) * var.step;
      base += c * (var.lo + (c * var.step > 0 ? 0 : span)); // the first block's (stage's) first element
      width += std::abs(c * span);
      t.vars[e].push_back({static_cast<int>(vi), c, count, span});
    }
    t.extent[e] = width + 1;
    t.base[e] = base;
    t.lo[e] = lo;
  }
  return t;
}

namespace {

// The tile's row-major strides, and the offset of its first element.
void tileStrides(const SharedTile &tile, std::vector<int64_t> &strides, int64_t &origin) {
  size_t rank = tile.extent.size();
  strides.assign(rank, 1);
  for (size_t d = rank - 1; d > 0; --d)
    strides[d - 1] = strides[d] * tile.extent[d];
  origin = 0;
  for (size_t d = 0; d < rank; ++d)
    origin += tile.base[d] * strides[d];
}

} // namespace

int64_t sharedVectorElems(const KernelInfo &ki, const AccessInfo &a, const Layout &l, const hw::HwSpec &hw,
                          const SharedTile &tile) {
  const ArrayInfo &arr = ki.arrays[static_cast<size_t>(a.array)];
  int64_t v = arr.elemBytes == 4 || arr.elemBytes == 8 ? 16 / arr.elemBytes : 1;
  size_t rank = tile.extent.size();
  if (v == 1 || a.loops.empty() || rank == 0 || rank != a.index.size())
    return 1;
  int lp = a.loops.back();
  const LoopInfo &loop = ki.loops[static_cast<size_t>(lp)];
  const Var &var = ki.vars[static_cast<size_t>(loop.var)];
  if (!loop.constTrip || var.step != 1)
    return 1;
  // The loop walks the tile's contiguous last subscript one element an
  // iteration and moves no other subscript.
  for (size_t d = 0; d < rank; ++d) {
    const IndexForm &f = a.index[d];
    if (f.kind != IndexForm::Kind::Affine)
      return 1;
    int64_t c = static_cast<size_t>(loop.var) < f.coef.size() ? f.coef[static_cast<size_t>(loop.var)] : 0;
    if (c != (d + 1 == rank ? 1 : 0))
      return 1;
  }
  // Every other variable of the last subscript moves it by whole vectors
  // (an outer loop's A[i][k + r] does not: ptxas reads it one element at a time).
  const IndexForm &last = a.index[rank - 1];
  for (size_t w = 0; w < last.coef.size(); ++w)
    if (static_cast<int>(w) != loop.var && (last.coef[w] * ki.vars[w].step) % v != 0)
      return 1;
  // The compiled body holds V consecutive iterations: the layout's unroll, or
  // nvcc's own 4 in a staged loop the layout does not unroll (emit writes
  // `#pragma unroll 1` on every other loop it leaves rolled); a stage (or the
  // loop) of a whole number of vectors.
  int64_t unroll = l.unrollFactor(lp) > 1 ? l.unrollFactor(lp) : l.stageSize(lp) > 0 ? 4 : 1;
  int64_t trip = l.stageSize(lp) > 0 ? l.stageSize(lp) : static_cast<int64_t>(loop.trip);
  if (unroll % v != 0 || trip % v != 0)
    return 1;
  // Every lane's first element and every row start 16-byte aligned in the
  // tile (emit aligns the tile itself to 16 bytes).
  std::vector<int64_t> strides;
  int64_t origin = 0;
  tileStrides(tile, strides, origin);
  if (rank > 1 && strides[rank - 2] % v != 0)
    return 1;
  std::vector<std::optional<int64_t>> addrs;
  appendWarpAddresses(addrs, ki, a, l, hw, 0, -1, 0, &strides);
  for (const auto &x : addrs)
    if (!x || (*x / arr.elemBytes - origin) % v != 0)
      return 1;
  return v;
}

double sharedWavefronts(const KernelInfo &ki, const AccessInfo &a, const Layout &l,
                        const hw::HwSpec &hw, const SharedTile &tile, int64_t vectorElems) {
  const ArrayInfo &arr = ki.arrays[static_cast<size_t>(a.array)];
  int64_t warp = std::min<int64_t>(hw.warpSize, l.threadsPerBlock());
  int64_t eb = arr.elemBytes;
  int64_t vb = eb * std::max<int64_t>(1, vectorElems); // bytes a lane reads
  double dense = std::max(1.0, std::ceil(static_cast<double>(vb * warp) / 128.0));
  size_t rank = tile.extent.size();
  if (hw.sharedMemBanks <= 0 || rank != a.index.size() || rank == 0)
    return dense;
  // The tile is row-major, the last subscript contiguous, and starts at
  // `base` (16-byte aligned, as emit places it).
  std::vector<int64_t> strides;
  int64_t origin = 0;
  tileStrides(tile, strides, origin);
  std::vector<std::optional<int64_t>> addrs;
  appendWarpAddresses(addrs, ki, a, l, hw, 0, -1, 0, &strides);
  // A warp's 8-byte reads are served a half-warp at a time, 16-byte ones a
  // quarter-warp: each pass waits for its own busiest bank (Nsight Compute on
  // the H200: 4 rows x 8 doubles 20 words apart, 4 wavefronts).
  size_t pass = lanesPerPass(vb);
  int64_t perElem = std::max<int64_t>(1, vb / kBankBytes); // words a lane's read spans
  double total = 0;
  std::vector<int64_t> words;
  std::vector<int> perBank(static_cast<size_t>(hw.sharedMemBanks));
  for (size_t b = 0; b < addrs.size(); b += pass) {
    words.clear();
    for (size_t i = b; i < std::min(addrs.size(), b + pass); ++i) {
      if (!addrs[i])
        return dense; // an address the tile cannot place
      int64_t byte = (*addrs[i] / eb - origin) * eb;
      int64_t first = byte / kBankBytes - (byte % kBankBytes < 0 ? 1 : 0); // floor
      for (int64_t w = 0; w < perElem; ++w)
        words.push_back(first + w);
    }
    size_t n = countDistinct(words.data(), words.size());
    std::fill(perBank.begin(), perBank.end(), 0);
    int most = 0;
    for (size_t i = 0; i < n; ++i) {
      int64_t bank = words[i] % hw.sharedMemBanks;
      bank += bank < 0 ? hw.sharedMemBanks : 0;
      most = std::max(most, ++perBank[static_cast<size_t>(bank)]);
    }
    total += most;
  }
  return std::max(dense, total);
}

WarpAccess cachingLoadPattern(const ArrayInfo &arr, const FootprintBox &box,
                              int64_t threadsPerBlock, const hw::HwSpec &hw) {
  size_t nd = box.lo.size();
  int64_t warp = std::min<int64_t>(hw.warpSize, threadsPerBlock);
  constexpr size_t kInline = 64;
  std::optional<int64_t> inlineAddrs[kInline];
  std::vector<std::optional<int64_t>> heapAddrs;
  std::optional<int64_t> *addrs = inlineAddrs;
  if (warp > static_cast<int64_t>(kInline)) {
    heapAddrs.resize(static_cast<size_t>(warp));
    addrs = heapAddrs.data();
  }
  size_t n = 0;
  for (int64_t th = 0; th < warp; ++th) {
    int64_t rest = th, off = 0;
    for (size_t d = nd; d-- > 0;) {
      int64_t ext = std::max<int64_t>(1, box.hi[d] - box.lo[d] + 1);
      off += (box.lo[d] + rest % ext) * arr.strides[d];
      rest /= ext;
    }
    if (rest > 0)
      break; // the box holds fewer elements than a warp
    addrs[n++] = off * arr.elemBytes;
  }
  return classifyWarp(addrs, n, arr.elemBytes, hw.coalescing());
}

} // namespace skelcast::layout
