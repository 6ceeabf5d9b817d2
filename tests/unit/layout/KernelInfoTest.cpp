// KernelInfo's names: sibling loops and bindings that share a name, as C
// writes them, each bind the uses inside them (layout::analyzeKernel).
#include "skelcast/layout/KernelInfo.h"
#include "skelcast/skeleton/Parser.h"

#include <gtest/gtest.h>

using namespace skelcast;
using namespace skelcast::layout;

namespace {

KernelInfo kernelOf(const std::string &text) {
  return analyzeKernel(skeleton::parseSkeleton(text, "test.skel"), 0);
}

// row_norm: a row's squared norm over j, then the row scaled over another j.
// Each a[i][j] moves with its own loop: 8 bytes an iteration of that loop and
// nothing along the other (before, the second loop's j was read as the
// first's, and its walk moved 0 bytes).
TEST(KernelInfo, SiblingLoopsOfOneNameEachBindTheirOwnIndex) {
  auto ki = kernelOf("#define R 64\n#define C 2048\ndouble a[R][C]\nparallel_for(R) : i {\n"
                     "  stream j = 0:C {\n    ld a[i][j]\n    comp 2\n  }\n"
                     "  stream j = 0:C {\n    ld a[i][j]\n    comp 17\n    st a[i][j]\n  }\n}\n");
  ASSERT_EQ(ki.loops.size(), 2u);
  EXPECT_EQ(ki.loops[0].index, "j");
  EXPECT_EQ(ki.loops[1].index, "j") << "a loop keeps its C name; layouts call it j#2";
  int v1 = ki.loops[0].var, v2 = ki.loops[1].var;
  ASSERT_EQ(ki.accesses.size(), 3u);
  for (size_t a = 0; a < 3; ++a) {
    const IndexForm &col = ki.accesses[a].index[1];
    int own = a == 0 ? v1 : v2, other = a == 0 ? v2 : v1;
    EXPECT_EQ(col.coef[static_cast<size_t>(own)], 1) << "access " << a << " moves with its own loop";
    EXPECT_EQ(col.coef[static_cast<size_t>(other)], 0) << "access " << a << " not with the other";
    EXPECT_EQ(ki.accesses[a].innerStepBytes, 8) << "access " << a;
  }
}

// SpinFlap's shape: two loops over n, each binding c = M[i][n] and using it.
// The second binding is its own: A's subscript reads the first loop's n
// through the first c, C's the second's through the second c.
TEST(KernelInfo, ABindingRepeatedInASiblingLoopBindsTheUsesAfterIt) {
  auto ki = kernelOf("#define N 1024\nint M[N][4]\nfloat A[N]\nfloat C[N]\nparallel_for(N) : i {\n"
                     "  for n = 0:4 {\n    ld M[i][n]\n    c = M[i][n]\n    ld A[c]\n    comp 1\n  }\n"
                     "  for n = 0:4 {\n    ld M[i][n]\n    c = M[i][n]\n    comp 1\n    st C[c]\n  }\n}\n");
  ASSERT_EQ(ki.loops.size(), 2u);
  ASSERT_EQ(ki.accesses.size(), 4u);
  const skeleton::Expr &a = ki.accesses[1].index[0].expr, &c = ki.accesses[3].index[0].expr;
  ASSERT_EQ(a.kind, skeleton::Expr::Kind::Name);
  ASSERT_EQ(c.kind, skeleton::Expr::Kind::Name);
  ASSERT_NE(a.name, c.name) << "each use names its own binding";
  auto ba = ki.bindings.find(a.name), bc = ki.bindings.find(c.name);
  ASSERT_NE(ba, ki.bindings.end());
  ASSERT_NE(bc, ki.bindings.end());
  int v1 = ki.loops[0].var, v2 = ki.loops[1].var;
  EXPECT_EQ(ba->second.args[1].name, ki.vars[static_cast<size_t>(v1)].name);
  EXPECT_EQ(bc->second.args[1].name, ki.vars[static_cast<size_t>(v2)].name);
  EXPECT_NE(ki.vars[static_cast<size_t>(v1)].name, ki.vars[static_cast<size_t>(v2)].name);
}

} // namespace

namespace {

// A loop named like a scalar bound before it (`n = M[i][m]` in one loop, then
// `for n` in the next): the loop's n is its own variable, not the binding, so
// B[i][n] walks the loop, 4 bytes an iteration, rather than reading data.
TEST(KernelInfo, ALoopNamedLikeAnEarlierBindingIsItsOwnVariable) {
  auto ki = kernelOf("#define N 1024\nint M[N][8]\nfloat A[N][64]\nfloat B[N][64]\nfloat y[N]\n"
                     "parallel_for(N) : i {\n"
                     "  for m = 0:8 {\n    ld M[i][m]\n    n = M[i][m]\n    ld A[i][n]\n    comp 1\n  }\n"
                     "  for n = 0:64 {\n    ld B[i][n]\n    comp 1\n  }\n  st y[i]\n}\n");
  ASSERT_EQ(ki.loops.size(), 2u);
  const AccessInfo &b = ki.accesses[2];
  ASSERT_EQ(b.array, ki.arrayIndex("B"));
  EXPECT_FALSE(b.hasData()) << "B[i][n] read n as the binding";
  EXPECT_EQ(b.index[1].coef[static_cast<size_t>(ki.loops[1].var)], 1);
  EXPECT_EQ(b.innerStepBytes, 4);
}

} // namespace

namespace {

// AccessInfo::heldInRegister: which loads the port keeps in a register across
// their innermost loop (loaded once before it). What counts is the stores in
// the loop: nvcc (the arrays restrict) reloads the element after a store that
// may write it, whatever the loop's bounds say, and reads of other, maybe
// equal, elements do not make it reload it (a review's SASS of trsm's and
// trmm's loops, sm_90, CUDA 13.0).
TEST(KernelInfo, ALoadHeldInARegisterIsOneNoStoreInTheLoopCanOverwrite) {
  auto held = [](const std::string &body, size_t access, bool *written = nullptr) {
    auto ki = kernelOf("#define M 1024\n#define N 512\ndouble A[M][N]\ndouble B[M][N]\ndouble x[M]\n"
                       "parallel_for(N) : j {\n" + body + "}\n");
    EXPECT_LT(access, ki.accesses.size());
    if (access >= ki.accesses.size())
      return false;
    if (written)
      *written = ki.accesses[access].heldWritten;
    return ki.accesses[access].heldInRegister;
  };
  // mvt's x1[i] += A[i][j] * y1[j], by columns: B[0][j] stands still in k
  const std::string acc = "  for k = 0:M {\n    ld B[0][j]\n    ld A[k][j]\n    comp 2\n    st B[0][j]\n  }\n";
  bool written = false;
  EXPECT_TRUE(held(acc, 0, &written)) << "its own element, stored at the same subscript";
  EXPECT_TRUE(written) << "the loop writes it: the register carries it";
  EXPECT_FALSE(held(acc, 1)) << "A[k][j] moves with k";
  // trmm's B[i][j] += A[k][i] * B[k][j]: B[k][j] is only read
  const std::string trmm = "  stream i = 0:M {\n    stream k = i + 1:M {\n      ld B[i][j]\n      ld A[k][i]\n"
                           "      ld B[k][j]\n      comp 4\n      st B[i][j]\n    }\n  }\n";
  EXPECT_TRUE(held(trmm, 0)) << "reads of other elements do not reload it";
  const std::string allRows = "  stream i = 0:M {\n    stream k = 0:M {\n      ld B[i][j]\n      ld B[k][j]\n"
                              "      comp 4\n      st B[i][j]\n    }\n  }\n";
  EXPECT_TRUE(held(allRows, 0, &written)) << "B[k][j] reaches row i, but it is only read";
  EXPECT_FALSE(written) << "another element of B in the loop: emit keeps no register across stages";
  // trsm's B[k][j] -= L[k][i] * B[i][j] for k = i + 1 : M: the loop's bounds
  // keep the store off row i, but nvcc does not read them
  const std::string trsm = "  stream i = 0:M {\n    stream k = i + 1:M {\n      ld A[k][i]\n      ld B[i][j]\n"
                           "      ld B[k][j]\n      comp 2\n      st B[k][j]\n    }\n  }\n";
  EXPECT_FALSE(held(trsm, 1)) << "a store to B[k][j] may write B[i][j]";
  // a store to the row beside: the same coefficients, another constant
  const std::string beside = "  for k = 1:M {\n    ld B[5][j]\n    ld A[k][j]\n    comp 2\n    st B[5][j]\n"
                             "    st B[4][j]\n  }\n";
  EXPECT_TRUE(held(beside, 0)) << "B[4][j] is never B[5][j]";
  // read only
  const std::string readOnly = "  for k = 0:M {\n    ld x[j]\n    ld A[k][j]\n    ld x[k]\n    comp 2\n  }\n";
  EXPECT_TRUE(held(readOnly, 0, &written)) << "nothing in the loop writes x";
  EXPECT_FALSE(written) << "read only: a staged loop loads it again each stage";
  const std::string storedElsewhere = "  for k = 0:M {\n    ld x[j]\n    ld A[k][j]\n    comp 2\n    st x[k]\n  }\n";
  EXPECT_FALSE(held(storedElsewhere, 0)) << "x[k] may be x[j]";
  // a store in an arm keeps the load before the loop (@P0 STG in it); a load
  // in an arm stays in the loop with its store (@P0 LDG, @P0 STG)
  const std::string storeInArm = "  for k = 0:M {\n    ld B[0][j]\n    ld A[k][j]\n    comp 2\n    if (p=0.5) {\n"
                                 "      st B[0][j]\n    }\n  }\n";
  EXPECT_TRUE(held(storeInArm, 0)) << "the store in an arm";
  const std::string arm = "  for k = 0:M {\n    if (p=0.5) {\n      ld B[0][j]\n      comp 2\n      st B[0][j]\n"
                          "    }\n    ld A[k][j]\n  }\n";
  EXPECT_FALSE(held(arm, 0)) << "the load in an arm";
  EXPECT_FALSE(held("  ld x[j]\n  comp 1\n  st x[j]\n", 0)) << "in no loop";
  EXPECT_FALSE(held("  for k = 0:M {\n    ld B[k % 4][j]\n    comp 1\n  }\n", 0)) << "a subscript not affine";
}

} // namespace

// CompiledIndex::update keeps the parts of a subscript that depend on no moved
// variable: walked one variable at a time, and several at once, it must give
// eval's value at every point, nullopt included (an element of an array with
// no sample).
TEST(CompiledIndex, UpdateGivesEvalsValueAsTheVariablesMove) {
  auto ki = kernelOf("#define S 96\n#define C 5\nfloat a[S * S]\nfloat b[S]\nint ix[16]\n"
                     "parallel_for(C * C) : c {\n  ig = 16 * (1 + c / C)\n  for i = 0:16 {\n    for j = 0:16 {\n"
                     "      ld a[(i + ig) * S + j + 16 * (c % C) - (j / 3) * (i % 4)]\n"
                     "      ld ix[j]\n      ld b[ix[j] + c]\n      ld b[(i + 16) / (j - 3) + c % (i - 5)]\n    }\n  }\n}\n");
  ASSERT_EQ(ki.accesses.size(), 4u);
  ASSERT_EQ(ki.vars.size(), 3u);
  CompiledIndex known(ki, ki.accesses[0].index[0].expr), unknown(ki, ki.accesses[2].index[0].expr),
      sometimes(ki, ki.accesses[3].index[0].expr);
  int undefined = 0, defined = 0;
  std::vector<int64_t> vals{0, 0, 0};
  uint64_t changed = ~uint64_t{0};
  unsigned seed = 5;
  for (int step = 0; step < 2000; ++step) {
    auto want = known(vals);
    ASSERT_TRUE(want.has_value());
    ASSERT_EQ(known.update(vals, changed), want) << "step " << step;
    ASSERT_EQ(unknown.update(vals, changed), std::nullopt) << "ix has no sample to read";
    // A division by j - 3 and a remainder by i - 5: nothing where either is 0,
    // a value again when they move away (the parts above them recomputed).
    auto maybe = sometimes(vals);
    ASSERT_EQ(sometimes.update(vals, changed), maybe) << "step " << step;
    (maybe ? defined : undefined) += 1;
    // Move one variable, or (every fifth step) all three.
    seed = seed * 1103515245u + 12345u;
    changed = 0;
    for (size_t v = 0; v < 3; ++v)
      if (step % 5 == 4 || (seed >> 16) % 3 == v) {
        vals[v] = static_cast<int64_t>((seed >> (4 + v)) % 25);
        changed |= CompiledIndex::bit(v);
      }
  }
  EXPECT_GT(undefined, 20) << "the walk passes j = 3 or i = 5 often enough";
  EXPECT_GT(defined, 1000);
  EXPECT_EQ(known.partsDependingOn(0), 0u);
  EXPECT_GT(known.partsDependingOn(CompiledIndex::bit(0)), known.partsDependingOn(CompiledIndex::bit(2)))
      << "c is in more of the subscript than j";
}
