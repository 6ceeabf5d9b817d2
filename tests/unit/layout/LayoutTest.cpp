#include "skelcast/layout/Characterize.h"
#include "skelcast/layout/Coalescing.h"
#include "skelcast/layout/Footprint.h"
#include "skelcast/layout/Layout.h"
#include "skelcast/skeleton/Parser.h"
#include "skelcast/support/Diagnostic.h"

#include <map>
#include <gtest/gtest.h>

using namespace skelcast;
using namespace skelcast::layout;

namespace {

const std::string kSrc = SKELCAST_SOURCE_DIR;

hw::HwSpec spec(const std::string &n) { return hw::resolveHwSpec(n, kSrc + "/hwspecs"); }

KernelInfo kernelOf(const std::string &text) {
  return analyzeKernel(skeleton::parseSkeleton(text, "t.skel"), 0);
}

KernelInfo matmul() {
  return analyzeKernel(skeleton::parseSkeletonFile(kSrc + "/skeletons/matmul.skel"), 0);
}

const char *kStencil = R"(#define N 64
float t[N][N]
float o[N][N]
parallel_for(1:N - 1, 1:N - 1) : i, j {
  ld t[i][j]
  ld t[i - 1][j]
  ld t[i + 1][j]
  ld t[i][j - 1]
  ld t[i][j + 1]
  comp 6
  st o[i][j]
}
)";

} // namespace

TEST(Footprint, FivePointStencilBlockByHand) {
  KernelInfo ki = kernelOf(kStencil);
  std::vector<const AccessInfo *> t;
  for (const auto &a : ki.accesses)
    if (ki.arrays[a.array].name == "t")
      t.push_back(&a);
  IterSet block(ki.vars.size());
  block[0] = {1, 16, 1};
  block[1] = {1, 16, 1};
  // A 16x16 tile plus a one-cell halo on each side, without the corners.
  EXPECT_DOUBLE_EQ(footprint(ki, t, block).size, 16 * 16 + 4 * 16);
  IterSet thread(ki.vars.size());
  thread[0] = {1, 2, 16}; // fold 2 along i, spaced by the block
  thread[1] = {1, 1, 1};
  EXPECT_DOUBLE_EQ(footprint(ki, t, thread).size, 10);
}

TEST(Footprint, LinearisedIndexIsEnumerated) {
  KernelInfo ki = kernelOf("#define N 32\nfloat a[N*N]\nparallel_for(N) : i {\n  stream k = "
                           "0:N {\n    ld a[i*N + k]\n  }\n}\n");
  IterSet s(ki.vars.size());
  s[0] = {0, 4, 1};
  s[1] = {0, 32, 1};
  Footprint fp = footprint(ki, {&ki.accesses[0]}, s);
  EXPECT_TRUE(fp.exact);
  EXPECT_DOUBLE_EQ(fp.size, 128);
}

TEST(Characterize, MatMulTiledByHand) {
  KernelInfo ki = matmul();
  hw::HwSpec fx = spec("fx5600");
  Layout l = parseLayout(ki, "block=i:16,j:16 stage=k:16 cache=A,B unroll=k:16", fx);
  // Equation 1: each A element is shared by the 16 threads of a row.
  auto shr = shareDegrees(ki, l);
  EXPECT_DOUBLE_EQ(shr[0], 16);
  EXPECT_DOUBLE_EQ(shr[1], 16);
  EXPECT_DOUBLE_EQ(shr[2], 1);
  // Equation 3: StageSize = size(B) x StageShrDegree / size(H(D, B ^ k:<0,1,1>)) = 256 x 1 / 16.
  EXPECT_EQ(paperStageSize(ki, l, 0, {0, 1}), 16);
  Characterization c = characterize(ki, l, fx);
  ASSERT_EQ(c.stages.size(), 1u);
  EXPECT_DOUBLE_EQ(c.stages[0].numStages, 25);              // equation 4: 400 / 16
  EXPECT_DOUBLE_EQ(c.arrays[0].shMemElems, 256);            // equation 5: 16 x 16
  EXPECT_DOUBLE_EQ(c.workload.sharedMemBytesPerBlock, 2048); // equations 6-7
  EXPECT_DOUBLE_EQ(c.arrays[0].cachingInsts, 25);           // equation 12: ceil(256/256) x 25
  EXPECT_DOUBLE_EQ(c.workload.coalMemInsts, 25 + 25 + 1);   // caching loads + st C
  EXPECT_DOUBLE_EQ(c.workload.uncoalMemInsts, 0);
  EXPECT_DOUBLE_EQ(c.funcInsts, 1 + 3 * 400 + 5);           // equation 17
  EXPECT_DOUBLE_EQ(c.workload.synchInsts, 50);
  EXPECT_DOUBLE_EQ(c.workload.blocks, 2500);
  EXPECT_DOUBLE_EQ(c.workload.loadBytesPerWarp, 128);       // equations 10-11
}

TEST(Characterize, NaiveMatMulIsUncoalescedOnG80) {
  KernelInfo ki = matmul();
  hw::HwSpec fx = spec("fx5600");
  Characterization c = characterize(ki, parseLayout(ki, "block=i:16,j:16", fx), fx);
  // A[i][k] is the same word for a whole half-warp: not coalesced on cc 1.0.
  EXPECT_DOUBLE_EQ(c.workload.uncoalMemInsts, 400);
  EXPECT_DOUBLE_EQ(c.workload.coalMemInsts, 401); // B[k][j] and st C
  EXPECT_DOUBLE_EQ(c.workload.uncoalPerMw, 32);
}

TEST(Coalescing, RulesOnWorkedWarps) {
  using hw::CoalescingRule;
  std::vector<std::optional<int64_t>> seq, bcast, shifted, strided;
  for (int t = 0; t < 32; ++t) {
    seq.push_back(4 * t);
    bcast.push_back(0);
    shifted.push_back(4 * t + 4);
    strided.push_back(4096 * t);
  }
  for (auto r : {hw::CoalescingRule::HalfWarp, hw::CoalescingRule::Segment, hw::CoalescingRule::Sector})
    EXPECT_TRUE(classifyWarp(seq, 4, r).coalesced);
  EXPECT_FALSE(classifyWarp(bcast, 4, hw::CoalescingRule::HalfWarp).coalesced);
  EXPECT_DOUBLE_EQ(classifyWarp(bcast, 4, hw::CoalescingRule::HalfWarp).transactions, 32);
  EXPECT_TRUE(classifyWarp(bcast, 4, hw::CoalescingRule::Segment).coalesced);
  EXPECT_FALSE(classifyWarp(shifted, 4, hw::CoalescingRule::HalfWarp).coalesced);
  // Misaligned by a word: the second half-warp crosses a 128-byte segment.
  EXPECT_FALSE(classifyWarp(shifted, 4, hw::CoalescingRule::Segment).coalesced);
  EXPECT_DOUBLE_EQ(classifyWarp(shifted, 4, hw::CoalescingRule::Segment).transactions, 3);
  EXPECT_TRUE(classifyWarp(shifted, 4, hw::CoalescingRule::Sector).coalesced);
  EXPECT_FALSE(classifyWarp(strided, 4, hw::CoalescingRule::Sector).coalesced);
  EXPECT_DOUBLE_EQ(classifyWarp(strided, 4, hw::CoalescingRule::Sector).transactions, 32);
  std::vector<std::optional<int64_t>> unknown(32, std::nullopt);
  EXPECT_DOUBLE_EQ(classifyWarp(unknown, 4, hw::CoalescingRule::Sector).transactions, 32);
}

TEST(Coalescing, SampleHintDecidesIndirectAccess) {
  KernelInfo ki = analyzeKernel(skeleton::parseSkeletonFile(kSrc + "/skeletons/spinflap.skel"), 0);
  hw::HwSpec h = spec("c1060");
  Layout l = parseLayout(ki, "block=j:1,i:64", h);
  // ld A[j][M[i][n]][0]: the map permutes within groups of 4, so a half-warp
  // touches 16 x 4 columns of complex floats = 512 bytes: 4 segments.
  WarpAccess w = directAccessPattern(ki, ki.accesses[1], l, h);
  EXPECT_FALSE(w.coalesced);
  EXPECT_DOUBLE_EQ(w.transactions, 8);
}

namespace {

/// The kernel's first access to `array`, or nullptr.
const AccessInfo *firstAccessOf(const KernelInfo &ki, const std::string &array) {
  for (const auto &a : ki.accesses)
    if (ki.arrays[static_cast<size_t>(a.array)].name == array)
      return &a;
  return nullptr;
}

} // namespace

TEST(Coalescing, AnIndexReadInARowsOwnRangeDiffersBetweenRows) {
  // IspinEx: n runs from J[j] to J[j + 1], so r = I[n] is row j's own: the 4
  // rows j of a warp of block j:8,i:8 read 4 rows of B, each 8 floats (32
  // bytes, one sector, one line): 4 runs of a sector on 4 lines (coalesced by
  // the sector rule, 4 wavefronts by `lines`), where the threads of one row j
  // share theirs; read as one row for the whole warp it was 1 line. Block
  // j:1,i:32 is one row: 128 bytes, one line.
  skeleton::SkeletonFile f = skeleton::parseSkeleton(R"(int J[133]
int I[1848]
float T[1848]
float B[132][4096]
float C[132][4096]
parallel_for k(132, 4096) : j, i {
  stream n = J[j]:J[j + 1] (hint:14) {
    ld I[n]
    r = I[n]
    ld T[n]
    ld B[r][i]
    comp 2
  }
  st C[j][i]
}
)",
                                                     "ispinex.skel");
  KernelInfo ki = analyzeKernel(f, 0);
  hw::HwSpec h = spec("h100");
  const AccessInfo *b = firstAccessOf(ki, "B");
  ASSERT_NE(b, nullptr);
  WarpAccess rows = directAccessPattern(ki, *b, parseLayout(ki, "block=j:8,i:8", h), h);
  EXPECT_TRUE(rows.coalesced);
  EXPECT_DOUBLE_EQ(rows.distinct, 32);
  EXPECT_DOUBLE_EQ(rows.lines, 4);
  WarpAccess one = directAccessPattern(ki, *b, parseLayout(ki, "block=j:1,i:32", h), h);
  EXPECT_TRUE(one.coalesced);
  EXPECT_DOUBLE_EQ(one.lines, 1);
  // a loop whose end alone varies runs every row over the same n: I[n] is the
  // warp's one row (n < cnt[j]: 1 line for the 4 rows j)
  skeleton::SkeletonFile g = skeleton::parseSkeleton(R"(int cnt[132]
int I[1848]
float B[132][4096]
float C[132][4096]
parallel_for k(132, 4096) : j, i {
  stream n = 0:cnt[j] (hint:14) {
    r = I[n]
    ld B[r][i]
    comp 2
  }
  st C[j][i]
}
)",
                                                     "counted.skel");
  KernelInfo kc = analyzeKernel(g, 0);
  const AccessInfo *bc = firstAccessOf(kc, "B");
  ASSERT_NE(bc, nullptr);
  EXPECT_DOUBLE_EQ(directAccessPattern(kc, *bc, parseLayout(kc, "block=j:8,i:8", h), h).lines, 1);
}

TEST(LayoutString, CanonicalRoundTrip) {
  KernelInfo ki = matmul();
  hw::HwSpec h = spec("h100");
  Layout l = parseLayout(ki, "unroll=k:16 cache=B,A stage=k:16 fold=j:2 block=j:16,i:8", h);
  EXPECT_EQ(layoutString(ki, l), "block=i:8,j:16 fold=j:2 stage=k:16 cache=A,B unroll=k:16");
  EXPECT_EQ(parseLayout(ki, layoutString(ki, l), h), l);
}

TEST(LayoutString, ImpossibleLayoutsAreRejected) {
  KernelInfo ki = matmul();
  hw::HwSpec h = spec("h100");
  auto expectBad = [&](const std::string &text, const std::string &want) {
    try {
      parseLayout(ki, text, h);
      FAIL() << text;
    } catch (const InputError &e) {
      EXPECT_NE(e.message().find(want), std::string::npos) << e.message();
    }
  };
  expectBad("block=q:16", "'q' is not a parallel index of kernel 'matmul'");
  expectBad("block=i:0,j:16", "block size of 'i' must be at least 1, is 0");
  expectBad("block=i:2048", "block size 2048 exceeds h100's limit of 1024");
  expectBad("block=i:64,j:64", "block of 4096 threads exceeds h100's limit of 1024");
  expectBad("block=i:16 fold=i:-2", "fold of 'i' must be at least 1, is -2");
  expectBad("block=i:16 cache=Z", "unknown array 'Z'");
  expectBad("block=i:16 cache=C", "kernel 'matmul' does not load 'C'");
  expectBad("block=i:16 stage=k:16", "staging needs at least one array");
  expectBad("block=i:16 stage=x:16 cache=A", "'x' is not a loop of kernel 'matmul'");
  expectBad("fold=i:2", "a layout needs a 'block=' part");
  expectBad("block=i:16 tile=4", "unknown layout part 'tile'");
  expectBad("block=i:1x", "'1x' is not an integer");
  expectBad("block=i:16 block=j:4", "'block' is given twice");
}

namespace {
const char *kRowWalk = "#define N 1024\n#define M 256\nfloat A[N][M]\ndouble D[N][M]\nfloat y[N]\n"
                       "parallel_for(N) : i {\n  for j = 0:M {\n    ld A[i][j]\n    ld A[j][i]\n"
                       "    ld D[i][j]\n    comp 1\n  }\n  for k = 0:M:2 {\n    ld A[i][k]\n  }\n  st y[i]\n}\n";
} // namespace

TEST(KernelInfo, InnerStepBytesOfRowAndColumnWalks) {
  // A[i][j] moves one float per j, A[j][i] a row of 256 floats, D[i][j] one
  // double, A[i][k] with step 2 two floats; y[i] is in no loop.
  auto ki = kernelOf(kRowWalk);
  ASSERT_EQ(ki.accesses.size(), 5u);
  EXPECT_DOUBLE_EQ(ki.accesses[0].innerStepBytes, 4);
  EXPECT_DOUBLE_EQ(ki.accesses[1].innerStepBytes, 256 * 4);
  EXPECT_DOUBLE_EQ(ki.accesses[2].innerStepBytes, 8);
  EXPECT_DOUBLE_EQ(ki.accesses[3].innerStepBytes, 8);
  EXPECT_DOUBLE_EQ(ki.accesses[4].innerStepBytes, -1);
}

TEST(KernelInfo, LongestTripOfATriangle) {
  // Row i walks j = 0..i: the mean trip is (N - 1) / 2 + 1 = 512.5, the last
  // row's N = 1024; a rectangle's longest is its trip.
  auto ki = kernelOf("#define N 1024\nfloat L[N][N]\nfloat y[N]\nparallel_for(N) : i {\n"
                     "  stream j = 0:i + 1 {\n    ld L[i][j]\n    comp 1\n  }\n  for k = 0:8 {\n    comp 1\n  }\n  st y[i]\n}\n");
  ASSERT_EQ(ki.loops.size(), 2u);
  EXPECT_DOUBLE_EQ(ki.loops[0].trip, 512.5);
  EXPECT_DOUBLE_EQ(ki.loops[0].longestTrip, 1024);
  EXPECT_DOUBLE_EQ(ki.loops[1].longestTrip, 8);
  // The upper triangle j = i..N: longest at i = 0.
  auto up = kernelOf("#define N 1024\nfloat L[N][N]\nfloat y[N]\nparallel_for(N) : i {\n"
                     "  stream j = i:N {\n    ld L[i][j]\n  }\n  st y[i]\n}\n");
  EXPECT_DOUBLE_EQ(up.loops[0].trip, 512.5);
  EXPECT_DOUBLE_EQ(up.loops[0].longestTrip, 1024);
}

TEST(Coalescing, LinesOfAWarp) {
  // 32 threads each on their own 1 KB row: 32 sectors in 32 lines; 32
  // consecutive floats: 4 sectors in one line; 32 consecutive doubles: 2 lines.
  std::vector<std::optional<int64_t>> rows, dense, doubles;
  for (int64_t t = 0; t < 32; ++t) {
    rows.emplace_back(t * 1024);
    dense.emplace_back(t * 4);
    doubles.emplace_back(t * 8);
  }
  auto r = classifyWarp(rows, 4, hw::CoalescingRule::Sector);
  EXPECT_DOUBLE_EQ(r.transactions, 32);
  EXPECT_DOUBLE_EQ(r.lines, 32);
  EXPECT_DOUBLE_EQ(classifyWarp(dense, 4, hw::CoalescingRule::Sector).lines, 1);
  EXPECT_DOUBLE_EQ(classifyWarp(doubles, 8, hw::CoalescingRule::Sector).lines, 2);
}

TEST(Coalescing, AWarpsEightByteLoadIsLookedUpAHalfWarpAtATime) {
  // A rank-k update's A[j][k] in a block 8 threads wide: lane t on row t mod 8
  // (rows 8 KB apart). Both half-warps touch the same 8 rows: doubles 2 x 8
  // lookups, floats 8 (validation/results/h200_l1lines_fp64.txt: doubles on
  // 8 lines so placed 16.06 cycles a load, floats 8.04). Lane t on row t / 4
  // gives each half 4 rows of its own: 8 either way. 16-byte elements: a
  // quarter-warp a pass, 4 passes of 8 rows.
  std::vector<std::optional<int64_t>> mod8, div4;
  for (int64_t t = 0; t < 32; ++t) {
    mod8.emplace_back((t % 8) * 8192);
    div4.emplace_back((t / 4) * 8192);
  }
  EXPECT_DOUBLE_EQ(classifyWarp(mod8, 8, hw::CoalescingRule::Sector).lines, 16);
  EXPECT_DOUBLE_EQ(classifyWarp(mod8, 4, hw::CoalescingRule::Sector).lines, 8);
  EXPECT_DOUBLE_EQ(classifyWarp(div4, 8, hw::CoalescingRule::Sector).lines, 8);
  EXPECT_DOUBLE_EQ(classifyWarp(div4, 4, hw::CoalescingRule::Sector).lines, 8);
  EXPECT_DOUBLE_EQ(classifyWarp(mod8, 16, hw::CoalescingRule::Sector).lines, 32);
}

TEST(Coalescing, AFoldedTaskUsesTheRestOfItsLoadsSectors) {
  // A transpose of floats in `block=i:128,j:4 fold=i:8,j:8`: a warp is 4 j x 8 i.
  // Its load of in[i][j] reads 16 bytes of each of 8 rows' sectors (inflation 2
  // alone); the thread's next task along j (j + 4) reads the other 16 bytes, its
  // next along i (i + 128) 8 more half sectors: 16 sectors, 512 bytes, for 3 x 128
  // bytes used, 4/3. Its store of out[j][i] writes 32 bytes of each of 4 rows: 1.
  // In `block=i:64,j:8 fold=i:8,j:8` (8 j x 4 i) the load is whole sectors and the
  // store half ones: each partial sector is its own write, folded or not: 2.
  KernelInfo ki = kernelOf(R"(#define N 4096
float in[N][N]
float out[N][N]
parallel_for(N, N) : i, j {
  ld in[i][j]
  st out[j][i]
}
)");
  auto hw = spec("h100");
  auto inflation = [&](const char *layout, bool load) {
    Characterization c = characterize(ki, parseLayout(ki, layout, hw), hw);
    for (const auto &au : c.arrays)
      if (ki.arrays[static_cast<size_t>(au.array)].name == (load ? "in" : "out"))
        return load ? au.loadInflation : au.storeInflation;
    return -1.0;
  };
  EXPECT_DOUBLE_EQ(inflation("block=i:128,j:4", true), 2.0);
  EXPECT_DOUBLE_EQ(inflation("block=i:128,j:4 fold=i:8,j:8", true), 4.0 / 3.0);
  EXPECT_DOUBLE_EQ(inflation("block=i:128,j:4 fold=i:8,j:8", false), 1.0);
  EXPECT_DOUBLE_EQ(inflation("block=i:64,j:8 fold=i:8,j:8", true), 1.0);
  EXPECT_DOUBLE_EQ(inflation("block=i:64,j:8 fold=i:8,j:8", false), 2.0);
}

TEST(Coalescing, ARowWalkUsesItsSectorsWhole) {
  // One thread a row (`block=i:32`), each walking j: a load of floats moves 4
  // bytes an iteration and uses its 32-byte sector over 8 iterations, so it is
  // followed over 8 (the first 4 alone use half of each sector: 2): 1. Every
  // other float (8 bytes an iteration) uses half of each sector however long it
  // is followed: 2. A store walking the same row is written 4 iterations at a
  // time, each a partial sector of its own: 2.
  KernelInfo ki = kernelOf(R"(#define N 1024
float a[N][N]
float b[N][2 * N]
float c[N][N]
parallel_for(N) : i {
  for j = 0:N {
    ld a[i][j]
    ld b[i][2 * j]
    st c[i][j]
  }
}
)");
  auto hw = spec("h100");
  Characterization c = characterize(ki, parseLayout(ki, "block=i:32", hw), hw);
  std::map<std::string, double> load, store;
  for (const auto &au : c.arrays) {
    load[ki.arrays[static_cast<size_t>(au.array)].name] = au.loadInflation;
    store[ki.arrays[static_cast<size_t>(au.array)].name] = au.storeInflation;
  }
  EXPECT_DOUBLE_EQ(load["a"], 1.0);
  EXPECT_DOUBLE_EQ(load["b"], 2.0);
  EXPECT_DOUBLE_EQ(store["c"], 2.0);
}

TEST(Characterize, ARowReadAgainInEachIterationOfAnOuterLoopCountsEveryRead) {
  // mm_ikj: each thread walks its row of C once per k. Equation 13 alone
  // counts the row's 64 elements once (a register would have to keep the row
  // from one k to the next); the thread reads it 64 times, so 64 x 64 loads
  // and stores of C. A[i][k] moves with k: 64. w[i] moves with nothing inside
  // k: one load, which the compiler keeps in a register.
  KernelInfo ki = kernelOf(R"(#define N 64
float A[N][N]
float B[N][N]
float C[N][N]
float w[N]
parallel_for(N) : i {
  stream k = 0:N {
    ld A[i][k]
    ld w[i]
    stream j = 0:N {
      ld C[i][j]
      ld B[k][j]
      comp 3
      st C[i][j]
    }
  }
}
)");
  Characterization c = characterize(ki, parseLayout(ki, "block=i:32", spec("h100")), spec("h100"));
  ASSERT_EQ(c.accesses.size(), 5u);
  EXPECT_DOUBLE_EQ(c.accesses[0].insts, 64);      // A[i][k]
  EXPECT_DOUBLE_EQ(c.accesses[1].insts, 1);       // w[i]
  EXPECT_DOUBLE_EQ(c.accesses[2].insts, 64 * 64); // C[i][j], read again for every k
  EXPECT_DOUBLE_EQ(c.accesses[3].insts, 64 * 64); // B[k][j]
  EXPECT_DOUBLE_EQ(c.accesses[4].insts, 64 * 64); // st C[i][j]
}
