// The isl dependence test (src/frontend/PolyDependence.h) on hand-built nests
// of the shapes real code has: PolyBench's gemm, correlation, doitgen, lu and
// Jacobi, recurrences, aliases, a swap, and a subscript loaded from data.
// Each test says what is expected and why; docs/dependence.md walks through
// the same examples.
#include "frontend/PolyDependence.h"

#include <gtest/gtest.h>

#include <algorithm>

using namespace skelcast::frontend;

namespace {

PolyAffine v(const char *name) { return PolyAffine::var(name); }

PolyLoop loop(const char *index, PolyAffine lo, PolyAffine hi) {
  PolyLoop l;
  l.index = index;
  l.lower = {std::move(lo)};
  l.upper = {std::move(hi)};
  return l;
}

PolyAccess R(const char *a, std::vector<std::optional<PolyAffine>> subs, const char *text = "") {
  PolyAccess acc = PolyAccess::read(a, std::move(subs));
  acc.text = text;
  return acc;
}
PolyAccess W(const char *a, std::vector<std::optional<PolyAffine>> subs, const char *text = "") {
  PolyAccess acc = PolyAccess::write(a, std::move(subs));
  acc.text = text;
  return acc;
}
PolyStmt stmt(std::vector<PolyAccess> accesses) {
  PolyStmt s;
  s.accesses = std::move(accesses);
  return s;
}
PolyParam atLeast(const char *name, int64_t min) {
  PolyParam p;
  p.name = name;
  p.min = min;
  return p;
}
PolyParam symbol(const char *name) {
  PolyParam p;
  p.name = name;
  return p;
}

bool has(const std::vector<std::string> &v, const std::string &s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

// gemm: for i for j { C[i][j] *= beta; for k C[i][j] += alpha*A[i][k]*B[k][j]; }
PolyNest gemm(bool markReduction) {
  PolyNest n;
  n.params = {atLeast("ni", 1), atLeast("nj", 1), atLeast("nk", 1)};
  int i = n.addLoop(-1, loop("i", 0, v("ni")));
  int j = n.addLoop(i, loop("j", 0, v("nj")));
  n.addStatement(j, stmt({R("C", {v("i"), v("j")}), W("C", {v("i"), v("j")})}));
  int k = n.addLoop(j, loop("k", 0, v("nk")));
  PolyAccess rc = R("C", {v("i"), v("j")}), wc = W("C", {v("i"), v("j")});
  if (markReduction) {
    rc.reductionOp = "+";
    wc.reductionOp = "+";
  }
  n.addStatement(k, stmt({rc, R("A", {v("i"), v("k")}), R("B", {v("k"), v("j")}), wc}));
  return n;
}

} // namespace

// Each (i, j) owns C[i][j]: i and j carry nothing. The k loop updates one
// element in every iteration: with the update marked `+=` it is a reduction,
// without the mark a flow dependence.
TEST(PolyDependenceTest, GemmIAndJParallelKReduces) {
  PolyResult r = analyzeDependences(gemm(true));
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.loop("i").verdict, LoopVerdict::Parallel) << r.loop("i").reason;
  EXPECT_EQ(r.loop("j").verdict, LoopVerdict::Parallel) << r.loop("j").reason;
  const PolyLoopResult &k = r.loop("k");
  EXPECT_EQ(k.verdict, LoopVerdict::Reduction);
  EXPECT_EQ(k.reductions, std::vector<std::string>{"C"});
  EXPECT_EQ(k.reason, "parallel except for a reduction on 'C'");

  PolyResult plain = analyzeDependences(gemm(false));
  ASSERT_EQ(plain.loop("k").verdict, LoopVerdict::Sequential);
  EXPECT_EQ(plain.loop("k").carried.front().kind, DepKind::Flow);
  EXPECT_EQ(plain.loop("k").reason,
            "the iterations are not independent: 'C[i][j]' (written) and 'C[i][j]' (read)");
}

// PolyBench correlation's symmetric write:
//   for (i = 0; i < m-1; i++) { corr[i][i] = 1;
//     for (j = i+1; j < m; j++) { corr[i][j] = 0;
//       for (k = 0; k < n; k++) corr[i][j] += data[k][i] * data[k][j];
//       corr[j][i] = corr[i][j]; } }
// Iteration i touches corr[i][i], the upper-triangle row corr[i][j] (j > i)
// and the lower-triangle column corr[j][i] (j > i). An upper element
// corr[r][c] (r < c) is touched only in iteration r, a lower one (r > c) only
// in iteration c, a diagonal one only in iteration r: no element is touched
// by two iterations of i, so i is parallel, although the nest reads and writes
// corr "across" the diagonal. isl finds the relation of every pair empty:
// corr[j][i] (written in i) = corr[i'][j'] (in i' > i) needs i' = j > i and
// j' = i < i' = j', contradicting j' > i'. For j the same holds inside one i;
// k carries only the += on corr[i][j].
TEST(PolyDependenceTest, CorrelationSymmetricWriteIsParallelInI) {
  PolyNest n;
  n.params = {atLeast("m", 1), atLeast("n", 1)};
  int i = n.addLoop(-1, loop("i", 0, v("m") - 1));
  n.addStatement(i, stmt({W("corr", {v("i"), v("i")})}));
  int j = n.addLoop(i, loop("j", v("i") + 1, v("m")));
  n.addStatement(j, stmt({W("corr", {v("i"), v("j")})}));
  int k = n.addLoop(j, loop("k", 0, v("n")));
  n.addStatement(k, stmt({R("corr", {v("i"), v("j")}).reduction("+"), R("data", {v("k"), v("i")}),
                          R("data", {v("k"), v("j")}), W("corr", {v("i"), v("j")}).reduction("+")}));
  n.addStatement(j, stmt({R("corr", {v("i"), v("j")}), W("corr", {v("j"), v("i")})}));
  n.addStatement(-1, stmt({W("corr", {v("m") - 1, v("m") - 1})})); // after the nest

  PolyResult r = analyzeDependences(n);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.loop("i").verdict, LoopVerdict::Parallel) << r.loop("i").reason;
  EXPECT_TRUE(r.loop("i").carried.empty());
  EXPECT_EQ(r.loop("j").verdict, LoopVerdict::Parallel) << r.loop("j").reason;
  EXPECT_EQ(r.loop("k").verdict, LoopVerdict::Reduction) << r.loop("k").reason;
  EXPECT_EQ(r.loop("k").reductions, std::vector<std::string>{"corr"});
}

// doitgen: for r for q { for p { sum[p] = 0; for s sum[p] += A[r][q][s]*C4[s][p]; }
//                        for p A[r][q][p] = sum[p]; }
// Every (r, q) reuses sum: r and q carry flow, anti and output dependences on
// it, so without privatization they are sequential. But each iteration writes
// sum[p] (sum[p] = 0) before any read of it, and nothing after the q loop
// reads it: no value flows between iterations (isl's value-based flow from
// compute_flow has every source of a read of sum in the same (r, q)), so a
// private sum per (r, q) makes both parallel. A[r][q][s] is read and
// A[r][q][p] written in the same (r, q) only. The first p loop is parallel
// (sum[p] is its own element), s reduces sum[p], the second p is parallel.
TEST(PolyDependenceTest, DoitgenParallelOnceSumIsPrivatized) {
  PolyNest n;
  n.params = {atLeast("nr", 1), atLeast("nq", 1), atLeast("np", 1), atLeast("ns", 1)};
  int r = n.addLoop(-1, loop("r", 0, v("nr")));
  int q = n.addLoop(r, loop("q", 0, v("nq")));
  int p1 = n.addLoop(q, loop("p", 0, v("np")));
  n.addStatement(p1, stmt({W("sum", {v("p")})}));
  int s = n.addLoop(p1, loop("s", 0, v("ns")));
  n.addStatement(s, stmt({R("sum", {v("p")}).reduction("+"), R("A", {v("r"), v("q"), v("s")}),
                          R("C4", {v("s"), v("p")}), W("sum", {v("p")}).reduction("+")}));
  int p2 = n.addLoop(q, loop("p", 0, v("np")));
  n.addStatement(p2, stmt({R("sum", {v("p")}), W("A", {v("r"), v("q"), v("p")})}));

  PolyResult res = analyzeDependences(n);
  ASSERT_TRUE(res.ok) << res.error;
  for (const char *idx : {"r", "q"}) {
    const PolyLoopResult &l = res.loop(idx);
    EXPECT_EQ(l.verdict, LoopVerdict::ParallelAfterPrivatization) << idx << ": " << l.reason;
    EXPECT_EQ(l.privatized, std::vector<std::string>{"sum"}) << idx;
    EXPECT_EQ(l.reason, "parallel once 'sum' is privatized (each iteration writes what it reads first)");
  }
  EXPECT_EQ(res.loop("p", 0).verdict, LoopVerdict::Parallel) << res.loop("p", 0).reason;
  EXPECT_EQ(res.loop("s").verdict, LoopVerdict::Reduction);
  EXPECT_EQ(res.loop("p", 1).verdict, LoopVerdict::Parallel) << res.loop("p", 1).reason;

  PolyOptions noPriv;
  noPriv.privatize = false;
  PolyResult plain = analyzeDependences(n, noPriv);
  for (const char *idx : {"r", "q"}) {
    EXPECT_EQ(plain.loop(idx).verdict, LoopVerdict::Sequential) << idx;
    EXPECT_EQ(plain.loop(idx).carried.front().array, "sum") << idx;
  }
  EXPECT_EQ(plain.loop("r").reason,
            "the iterations are not independent: 'sum[p]' (written) and 'sum[p]' (read)");
}

// A read of the scratch array before the iteration writes it (an upward-exposed
// read: sum[p] keeps a value from the previous q) is a real flow dependence:
// no privatization, q is sequential.
TEST(PolyDependenceTest, ScratchReadBeforeWrittenIsNotPrivatizable) {
  PolyNest n;
  n.params = {atLeast("nq", 1), atLeast("np", 1)};
  int q = n.addLoop(-1, loop("q", 0, v("nq")));
  int p1 = n.addLoop(q, loop("p", 0, v("np")));
  n.addStatement(p1, stmt({R("sum", {v("p")}), W("out", {v("q"), v("p")})}));
  int p2 = n.addLoop(q, loop("p", 0, v("np")));
  n.addStatement(p2, stmt({R("in", {v("q"), v("p")}), W("sum", {v("p")})}));
  PolyResult r = analyzeDependences(n);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.loop("q").verdict, LoopVerdict::Sequential);
  EXPECT_TRUE(r.loop("q").privatized.empty());
  EXPECT_EQ(r.loop("q").carried.front().kind, DepKind::Flow);
}

// a[i] = a[i-1] + b[i]: iteration i reads what i-1 wrote, a flow dependence
// of distance 1.
TEST(PolyDependenceTest, RecurrenceCarriesFlow) {
  PolyNest n;
  n.params = {symbol("n")};
  int i = n.addLoop(-1, loop("i", 1, v("n")));
  n.addStatement(i, stmt({R("a", {v("i") - 1}, "a[i-1]"), R("b", {v("i")}), W("a", {v("i")}, "a[i]")}));
  PolyResult r = analyzeDependences(n);
  ASSERT_TRUE(r.ok) << r.error;
  const PolyLoopResult &l = r.loop("i");
  EXPECT_EQ(l.verdict, LoopVerdict::Sequential);
  ASSERT_EQ(l.carried.size(), 1u);
  EXPECT_EQ(l.carried[0].kind, DepKind::Flow);
  EXPECT_EQ(l.reason, "the iterations are not independent: 'a[i]' (written) and 'a[i-1]' (read)");
  EXPECT_EQ(l.carried[0].example, "i=1 -> i=2 (n=3)");
}

// a[i] = a[i+1]: iteration i reads the element i+1 overwrites, an anti dependence.
TEST(PolyDependenceTest, ShiftLeftCarriesAnti) {
  PolyNest n;
  n.params = {symbol("n")};
  int i = n.addLoop(-1, loop("i", 0, v("n") - 1));
  n.addStatement(i, stmt({R("a", {v("i") + 1}, "a[i+1]"), W("a", {v("i")}, "a[i]")}));
  PolyResult r = analyzeDependences(n);
  const PolyLoopResult &l = r.loop("i");
  EXPECT_EQ(l.verdict, LoopVerdict::Sequential);
  ASSERT_EQ(l.carried.size(), 1u);
  EXPECT_EQ(l.carried[0].kind, DepKind::Anti);
  EXPECT_EQ(l.reason, "the iterations are not independent: 'a[i+1]' (read) and 'a[i]' (written)");
}

// a[2*i] = a[2*i+1]: even elements written, odd ones read: nothing shared.
TEST(PolyDependenceTest, EvenWritesOddReadsIsParallel) {
  PolyNest n;
  n.params = {symbol("n")};
  int i = n.addLoop(-1, loop("i", 0, v("n")));
  n.addStatement(i, stmt({R("a", {2 * v("i") + 1}), W("a", {2 * v("i")})}));
  EXPECT_EQ(analyzeDependences(n).loop("i").verdict, LoopVerdict::Parallel);
}

// a[i] = a[i + n] for i < n: the reads are the upper half, the writes the lower
// one, for every n (isl proves it over the parameter). With a[i + n - 1] the
// last write meets the first read: not parallel.
TEST(PolyDependenceTest, SymbolicOffsetHalvesAreParallel) {
  for (int64_t shift : {0, -1}) {
    PolyNest n;
    n.params = {symbol("n")};
    int i = n.addLoop(-1, loop("i", 0, v("n")));
    n.addStatement(i, stmt({R("a", {v("i") + v("n") + shift}), W("a", {v("i")})}));
    PolyResult r = analyzeDependences(n);
    ASSERT_TRUE(r.ok) << r.error;
    if (shift == 0) {
      EXPECT_EQ(r.loop("i").verdict, LoopVerdict::Parallel) << r.loop("i").reason;
    } else {
      EXPECT_EQ(r.loop("i").verdict, LoopVerdict::Sequential);
      EXPECT_EQ(r.loop("i").carried.front().kind, DepKind::Anti);
      EXPECT_EQ(r.loop("i").carried.front().example, "i=0 -> i=1 (n=2)");
    }
  }
}

// float *xx = flat + 4; xx[i] = flat[i+8] + a[i]: xx[i] is flat[i+4], so
// iteration i reads flat[i+8], which iteration i+4 writes: anti, distance 4.
TEST(PolyDependenceTest, AliasWithOffsetCarriesDistanceFour) {
  PolyNest n;
  n.params = {atLeast("n", 1)};
  n.aliases = {{"xx", "flat", {4}}};
  int i = n.addLoop(-1, loop("i", 0, v("n")));
  n.addStatement(i, stmt({R("flat", {v("i") + 8}, "flat[i+8]"), R("a", {v("i")}), W("xx", {v("i")}, "xx[i]")}));
  std::optional<PolyArrayBase> base = resolveArray(n, "xx");
  ASSERT_TRUE(base);
  EXPECT_EQ(base->base, "flat");
  EXPECT_EQ(base->offset.at(0).constant, 4);

  PolyResult r = analyzeDependences(n);
  ASSERT_TRUE(r.ok) << r.error;
  const PolyLoopResult &l = r.loop("i");
  EXPECT_EQ(l.verdict, LoopVerdict::Sequential);
  ASSERT_EQ(l.carried.size(), 1u);
  EXPECT_EQ(l.carried[0].array, "flat");
  EXPECT_EQ(l.carried[0].kind, DepKind::Anti);
  EXPECT_EQ(l.carried[0].example, "i=0 -> i=4 (n=5)"); // the distance: 4
  EXPECT_EQ(l.reason, "the iterations are not independent: 'flat[i+8]' (read) and 'xx[i]' (written)");
}

// t = a[i]; a[i] = a[n-1-i]; a[n-1-i] = t; over i < n swaps every pair twice:
// iteration i and n-1-i touch the same two elements, not parallel. The
// scalar t is privatizable (written before it is read in every iteration),
// which does not help. Over i < h with n = 2h (each pair swapped once) the
// halves never meet: parallel once t is privatized.
TEST(PolyDependenceTest, SwapIsSequentialOverTheWholeArray) {
  for (bool half : {false, true}) {
    PolyNest n;
    n.params = {atLeast("n", 1), symbol("h")};
    if (half)
      n.assumptions = {v("n") - 2 * v("h"), 2 * v("h") - v("n")}; // n == 2h
    int i = n.addLoop(-1, loop("i", 0, half ? v("h") : v("n")));
    PolyAffine mirror = v("n") - 1 - v("i");
    n.addStatement(i, stmt({R("a", {v("i")}, "a[i]"), W("t", {}, "t")}));
    n.addStatement(i, stmt({R("a", {mirror}, "a[n-1-i]"), W("a", {v("i")}, "a[i]")}));
    n.addStatement(i, stmt({R("t", {}, "t"), W("a", {mirror}, "a[n-1-i]")}));
    PolyResult r = analyzeDependences(n);
    ASSERT_TRUE(r.ok) << r.error;
    const PolyLoopResult &l = r.loop("i");
    EXPECT_TRUE(has(l.privatized, "t")) << half;
    if (!half) {
      EXPECT_EQ(l.verdict, LoopVerdict::Sequential);
      EXPECT_EQ(l.carried.front().array, "a");
    } else {
      EXPECT_EQ(l.verdict, LoopVerdict::ParallelAfterPrivatization) << l.reason;
    }
  }
}

// for t { for i B[i] = A[i-1] + A[i] + A[i+1]; for i A[i] = B[i]; }: each
// sweep reads A and writes B, or the reverse, element by element: both i
// loops are parallel; t carries (step t+1 reads the A step t wrote).
TEST(PolyDependenceTest, JacobiTimeLoopCarriesSweepsAreParallel) {
  PolyNest n;
  n.params = {atLeast("T", 1), atLeast("n", 3)};
  int t = n.addLoop(-1, loop("t", 0, v("T")));
  int i1 = n.addLoop(t, loop("i", 1, v("n") - 1));
  n.addStatement(i1, stmt({R("A", {v("i") - 1}), R("A", {v("i")}), R("A", {v("i") + 1}), W("B", {v("i")})}));
  int i2 = n.addLoop(t, loop("i", 1, v("n") - 1));
  n.addStatement(i2, stmt({R("B", {v("i")}), W("A", {v("i")})}));
  PolyResult r = analyzeDependences(n);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.loop("t").verdict, LoopVerdict::Sequential);
  EXPECT_EQ(r.loop("t").carried.front().kind, DepKind::Flow);
  EXPECT_EQ(r.loop("i", 0).verdict, LoopVerdict::Parallel) << r.loop("i", 0).reason;
  EXPECT_EQ(r.loop("i", 1).verdict, LoopVerdict::Parallel) << r.loop("i", 1).reason;
}

// PolyBench lu:
//   for (i = 0; i < n; i++) {
//     for (j = 0; j < i; j++) { for (k = 0; k < j; k++) A[i][j] -= A[i][k] * A[k][j];
//                               A[i][j] /= A[j][j]; }
//     for (j = i; j < n; j++) for (k = 0; k < i; k++) A[i][j] -= A[i][k] * A[k][j]; }
// i: row i reads rows k < i, finished by earlier iterations: sequential.
// First j: iteration j reads A[i][k] for k < j, which iteration k finished
// (A[i][j] /= A[j][j] at j = k): a flow dependence, sequential.
// Its k: only the -= on A[i][j] (A[i][k], k < j, and A[k][j], k < i, are other
// elements): a reduction.
// Second j: iteration j writes A[i][j] (j >= i) and reads A[i][k] and A[k][j]
// with k < i: never an element another j writes: parallel. Its k: a reduction.
TEST(PolyDependenceTest, LuRowsSequentialUpdateLoopParallel) {
  PolyNest n;
  n.params = {atLeast("n", 1)};
  int i = n.addLoop(-1, loop("i", 0, v("n")));
  int j1 = n.addLoop(i, loop("j", 0, v("i")));
  int k1 = n.addLoop(j1, loop("k", 0, v("j")));
  n.addStatement(k1, stmt({R("A", {v("i"), v("j")}).reduction("-"), R("A", {v("i"), v("k")}, "A[i][k]"),
                           R("A", {v("k"), v("j")}), W("A", {v("i"), v("j")}).reduction("-")}));
  n.addStatement(j1, stmt({R("A", {v("i"), v("j")}), R("A", {v("j"), v("j")}),
                           W("A", {v("i"), v("j")}, "A[i][j]")}));
  int j2 = n.addLoop(i, loop("j", v("i"), v("n")));
  int k2 = n.addLoop(j2, loop("k", 0, v("i")));
  n.addStatement(k2, stmt({R("A", {v("i"), v("j")}).reduction("-"), R("A", {v("i"), v("k")}),
                           R("A", {v("k"), v("j")}), W("A", {v("i"), v("j")}).reduction("-")}));
  PolyResult r = analyzeDependences(n);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.loop("i").verdict, LoopVerdict::Sequential);
  const PolyLoopResult &first = r.loop("j", 0);
  EXPECT_EQ(first.verdict, LoopVerdict::Sequential);
  EXPECT_EQ(first.reason, "the iterations are not independent: 'A[i][j]' (written) and 'A[i][k]' (read)");
  EXPECT_EQ(r.loop("k", 0).verdict, LoopVerdict::Reduction) << r.loop("k", 0).reason;
  EXPECT_EQ(r.loop("j", 1).verdict, LoopVerdict::Parallel) << r.loop("j", 1).reason;
  EXPECT_EQ(r.loop("k", 1).verdict, LoopVerdict::Reduction) << r.loop("k", 1).reason;
}

// a[idx[i]] = b[i]: isl cannot see which element; the access may touch any,
// so the write may meet itself in another iteration: unknown, with the reason.
// A read through data from an array nobody writes is harmless, and one
// affine dimension can still prove independence (a[i][idx[i]]).
TEST(PolyDependenceTest, SubscriptFromDataIsUnknown) {
  PolyNest n;
  n.params = {symbol("n")};
  int i = n.addLoop(-1, loop("i", 0, v("n")));
  n.addStatement(i, stmt({R("b", {v("i")}),
                          W("a", {std::nullopt}, "a[idx[i]]").because("'idx[i]' is loaded from data")}));
  PolyResult r = analyzeDependences(n);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.loop("i").verdict, LoopVerdict::Unknown);
  EXPECT_EQ(r.loop("i").reason,
            "'a[idx[i]]' has a subscript that is not affine ('idx[i]' is loaded from data): the "
            "iterations may not be independent ('a[idx[i]]' (written) and 'a[idx[i]]' (written))");

  PolyNest ok;
  ok.params = {symbol("n")};
  int i2 = ok.addLoop(-1, loop("i", 0, v("n")));
  ok.addStatement(i2, stmt({R("b", {std::nullopt}), W("a", {v("i"), std::nullopt})}));
  EXPECT_EQ(analyzeDependences(ok).loop("i").verdict, LoopVerdict::Parallel);
}

// for (i = 0; i < n; i += 2) a[i+1] = a[i]: even elements read, odd written.
// for (j = i; j < min(n, i+4); j++) w[i][j-i] = a[j]: a band of four.
TEST(PolyDependenceTest, StepsAndMinBounds) {
  PolyNest n;
  n.params = {symbol("n")};
  PolyLoop stepped = loop("i", 0, v("n"));
  stepped.step = 2;
  int i = n.addLoop(-1, stepped);
  n.addStatement(i, stmt({R("a", {v("i")}), W("a", {v("i") + 1})}));
  int i2 = n.addLoop(-1, loop("k", 0, v("n")));
  PolyLoop band = loop("j", v("k"), v("n"));
  band.upper.push_back(v("k") + 4);
  int j = n.addLoop(i2, band);
  n.addStatement(j, stmt({R("a", {v("j")}), W("w", {v("k"), v("j") - v("k")})}));
  PolyResult r = analyzeDependences(n);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.loop("i").verdict, LoopVerdict::Parallel);
  EXPECT_EQ(r.loop("k").verdict, LoopVerdict::Parallel);
  EXPECT_EQ(r.loop("j").verdict, LoopVerdict::Parallel);
  // With step 1 the same loop reads what the previous iteration wrote.
  n.loops[i].step = 1;
  EXPECT_EQ(analyzeDependences(n).loop("i").verdict, LoopVerdict::Sequential);
}

// isl over its operation budget, or a name nobody declared: every loop is
// unknown and the result says why; nothing aborts.
TEST(PolyDependenceTest, FailuresBecomeUnknown) {
  PolyOptions tiny;
  tiny.maxOperations = 1;
  PolyResult r = analyzeDependences(gemm(true), tiny);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.error, "isl failed: over the operation budget (1 operations)");
  EXPECT_EQ(r.loop("i").verdict, LoopVerdict::Unknown);
  EXPECT_EQ(r.loop("i").reason, r.error);

  PolyNest bad;
  int i = bad.addLoop(-1, loop("i", 0, v("n")));
  bad.addStatement(i, stmt({W("a", {v("i")})}));
  PolyResult b = analyzeDependences(bad);
  EXPECT_FALSE(b.ok);
  EXPECT_EQ(b.error, "invalid nest: unknown name 'n' in a bound of loop 'i'");
  EXPECT_EQ(b.loop("i").verdict, LoopVerdict::Unknown);
}

namespace {

// Floyd-Warshall's step k: for i for j  path[i][j] = min(path[i][j], path[i][k] + path[k][j]).
// `relaxed` marks the statement as the min relaxation it is (the builder does
// that from the C); `addend` is which read of the candidate the test names.
PolyNest floydStep(bool relaxed) {
  PolyNest n;
  n.params = {atLeast("n", 1), symbol("k")};
  n.assumptions = {v("k"), v("n") - v("k") - 1}; // 0 <= k < n
  int i = n.addLoop(-1, loop("i", 0, v("n")));
  int j = n.addLoop(i, loop("j", 0, v("n")));
  PolyStmt s = stmt({R("path", {v("i"), v("j")}, "path[i][j]"), R("path", {v("i"), v("k")}, "path[i][k]"),
                     R("path", {v("k"), v("j")}, "path[k][j]"), W("path", {v("i"), v("j")}, "path[i][j]")});
  if (relaxed)
    s.relaxation = PolyRelaxation{"min", 3, {{1, "path[k][j]"}, {2, "path[i][k]"}}};
  n.addStatement(j, s);
  return n;
}

} // namespace

// Without the relaxation the rows and columns k are read by every iteration
// and written by those where i = k or j = k: both loops carry a dependence.
// As a min relaxation, the writes that meet those reads (j = k: path[i][k];
// i = k: path[k][j]) are min(x, x + path[k][k]) of their own element: both
// loops are parallel, assuming path[k][k] >= 0, which the result names.
TEST(PolyDependenceTest, AMinRelaxationMeetingItsOwnElementIsParallelOnAnAssumption) {
  PolyResult plain = analyzeDependences(floydStep(false));
  ASSERT_TRUE(plain.ok) << plain.error;
  EXPECT_EQ(plain.loop("i").verdict, LoopVerdict::Sequential);
  EXPECT_EQ(plain.loop("j").verdict, LoopVerdict::Sequential);

  PolyResult r = analyzeDependences(floydStep(true));
  ASSERT_TRUE(r.ok) << r.error;
  for (const char *idx : {"i", "j"}) {
    const PolyLoopResult &l = r.loop(idx);
    EXPECT_EQ(l.verdict, LoopVerdict::Parallel) << idx << ": " << l.reason;
    ASSERT_FALSE(l.assumptions.empty()) << idx;
    EXPECT_NE(l.assumptions.front().find("min(x, x + "), std::string::npos) << l.assumptions.front();
    EXPECT_NE(l.assumptions.front().find(">= 0"), std::string::npos) << l.assumptions.front();
  }
}

// The relaxation helps only where the conflicting writes read their own
// element through an addend: min(a[i], a[i-1] + c) reads its neighbour's,
// a chain every iteration of which changes what the next reads.
TEST(PolyDependenceTest, ARelaxationThroughANeighbourStaysSequential) {
  PolyNest n;
  n.params = {atLeast("n", 2)};
  int i = n.addLoop(-1, loop("i", 1, v("n")));
  PolyStmt s = stmt({R("a", {v("i")}, "a[i]"), R("a", {v("i") - 1}, "a[i-1]"), W("a", {v("i")}, "a[i]")});
  s.relaxation = PolyRelaxation{"min", 2, {{1, "c"}}};
  n.addStatement(i, s);
  PolyResult r = analyzeDependences(n);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.loop("i").verdict, LoopVerdict::Sequential) << r.loop("i").reason;
  EXPECT_TRUE(r.loop("i").assumptions.empty());
}

// b[i][j] = b[i][j-1] for j from 0: at j = 0 the read is b[i][-1], the last
// element of row i-1 in C's layout. Per dimension the rows look independent;
// with the rows' extent known, the analysis takes the array flattened and
// finds the i loop carrying the value. A subscript that stays in its row
// (b[i][j+1] for j < m-1) and one whose bound is only a symbol (j < n, which
// leaves a row only if n exceeds it) keep the array as it is.
TEST(PolyDependenceTest, ASubscriptLeavingItsRowReachesTheRowAbove) {
  auto nest = [](PolyAffine read, PolyAffine hi) {
    PolyNest n;
    n.params = {atLeast("n", 2)};
    n.innerExtents["b"] = {100};
    int i = n.addLoop(-1, loop("i", 1, 100));
    int j = n.addLoop(i, loop("j", 0, std::move(hi)));
    n.addStatement(j, stmt({R("b", {v("i"), std::move(read)}, "b[i][j-1]"), W("b", {v("i"), v("j")}, "b[i][j]")}));
    return n;
  };
  PolyResult out = analyzeDependences(nest(v("j") - 1, 100));
  ASSERT_TRUE(out.ok) << out.error;
  EXPECT_EQ(out.loop("i").verdict, LoopVerdict::Sequential) << out.loop("i").reason;
  EXPECT_NE(out.loop("i").reason.find("leaving its row"), std::string::npos) << out.loop("i").reason;

  PolyResult in = analyzeDependences(nest(v("j") + 1, 99));
  ASSERT_TRUE(in.ok) << in.error;
  EXPECT_EQ(in.loop("i").verdict, LoopVerdict::Parallel) << in.loop("i").reason;

  PolyResult symbolic = analyzeDependences(nest(v("j") + 1, v("n")));
  ASSERT_TRUE(symbolic.ok) << symbolic.error;
  EXPECT_EQ(symbolic.loop("i").verdict, LoopVerdict::Parallel) << symbolic.loop("i").reason;
}
