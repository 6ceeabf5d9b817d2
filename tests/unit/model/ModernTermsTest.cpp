// Each modern term of docs/model.md section 7 on a case worked by hand.
#include "skelcast/model/Program.h"
#include "skelcast/model/Project.h"
#include "skelcast/model/Validation.h"
#include "skelcast/skeleton/Parser.h"
#include "skelcast/support/Diagnostic.h"

#include <gtest/gtest.h>

#include <optional>

#include <cmath>

using namespace skelcast;

namespace {

const std::string kSrc = SKELCAST_SOURCE_DIR;

hw::HwSpec h100() { return hw::resolveHwSpec("h100", kSrc + "/hwspecs"); }

layout::KernelInfo kernelOf(const std::string &text) {
  return layout::analyzeKernel(skeleton::parseSkeleton(text, "t.skel"), 0);
}

struct Run {
  layout::Characterization c;
  model::AdjustedInputs a;
};

Run apply(const layout::KernelInfo &ki, const std::string &layoutText,
          std::set<std::string> terms = {"schedulers", "fp64", "registers", "mlp", "caches",
                                         "residency", "waves", "bandwidth", "lsu", "launch"},
          const hw::HwSpec &hw = h100()) {
  auto l = layout::parseLayout(ki, layoutText, hw);
  auto c = layout::characterize(ki, l, hw);
  return {c, model::applyModernTerms(c, ki, l, hw, terms)};
}

const char *kTriad = "#define N 67108864\nfloat a[N]\nfloat b[N]\nfloat c[N]\n"
                     "parallel_for(N) : i {\n  comp 13\n  ld b[i]\n  ld c[i]\n  comp 4\n  st a[i]\n}\n";

} // namespace

TEST(ModernTerms, SchedulersDivideTheIssueCycles) {
  auto r = apply(kernelOf(kTriad), "block=i:256", {"schedulers"});
  EXPECT_DOUBLE_EQ(r.a.hw.issueCycles, h100().issueCycles / 4);
}

TEST(ModernTerms, LaunchAddsTheOverhead) {
  auto ki = kernelOf(kTriad);
  auto hw = h100();
  auto l = layout::parseLayout(ki, "block=i:256", hw);
  model::ModelOptions with, without;
  without.model = model::parseModelSpec("skelcast", {"launch"});
  double t1 = model::projectLayout(ki, l, hw, with).result.timeMs;
  double t0 = model::projectLayout(ki, l, hw, without).result.timeMs;
  EXPECT_NEAR(t1 - t0, hw.launchOverheadUs / 1000.0, 1e-12);
}

TEST(ModernTerms, BandwidthFloorIsDramBytesOverBandwidth) {
  // Triad: b and c read once, a written once, no reuse: 3 x 4 x 2^26 bytes.
  auto r = apply(kernelOf(kTriad), "block=i:256");
  double bytes = 3.0 * 4 * 67108864;
  EXPECT_NEAR(r.a.effects.dramBytesPerThread * 67108864, bytes, 1.0);
  EXPECT_NEAR(r.a.effects.dramFloorMs, bytes / (h100().memBandwidthGBps * 1e6), 1e-9);
}

TEST(ModernTerms, RooflineOfTheTriad) {
  auto ki = kernelOf(kTriad);
  auto hw = h100();
  auto c = layout::characterize(ki, layout::parseLayout(ki, "block=i:256", hw), hw);
  auto r = model::roofline(c, hw);
  EXPECT_NEAR(r.memoryMs, 3.0 * 4 * 67108864 / (hw.memBandwidthGBps * 1e6), 1e-12);
  // 2^26 / 32 warps x (17 comp + 3 memory) instructions over 132 SMs x 4 / Issue_cycles per cycle.
  EXPECT_NEAR(r.computeMs, 67108864.0 / 32 * 20 / (132 * 4 / hw.issueCycles) / (hw.clockGHz * 1e6), 1e-12);
  EXPECT_NEAR(r.timeMs, std::max(r.memoryMs, r.computeMs) + hw.launchOverheadUs / 1000, 1e-12);
}

TEST(ModernTerms, MemoryLevelParallelismCountsLoadGroups) {
  auto ki = layout::analyzeKernel(
      skeleton::parseSkeletonFile(kSrc + "/validation/skeletons/ispinex_real_4096.skel"), 0);
  // Before the loop: J[j] and J[j+1] together (1 group). In the loop: T[n] and I[n]
  // together, then B[r][i], which waits for I[n]: 2 groups x 14 iterations.
  EXPECT_DOUBLE_EQ(apply(ki, "block=j:1,i:128").c.loadGroups, 1 + 2 * 14);
  EXPECT_DOUBLE_EQ(apply(ki, "block=j:1,i:128 unroll=n:2").c.loadGroups, 1 + 2 * 14 / 2.0);
  auto r = apply(ki, "block=j:1,i:128", {"mlp"});
  EXPECT_DOUBLE_EQ(r.a.workload.exposedMemInsts, 29);
}

// A load held in a register across its loop (mm_acc's tmp[i][j], loaded once
// before the k loop: AccessInfo::heldInRegister) is a group once each time
// the loop starts, not once an iteration. With A and B from shared memory it
// was the only direct load, and the layout counted 1 + 1,024 + 128 groups a
// thread (0.75 ms projected; 0.42 ms with 1 + 128; 0.259 ms measured on the
// H200, h200_held34). A read-only one (W[i][j]) is loaded again after each
// stage's barrier: once a stage.
TEST(ModernTerms, ALoadHeldInARegisterIsOneGroupBeforeItsLoop) {
  const std::string head = "#define N 1024\nfloat A[N][N]\nfloat B[N][N]\nfloat W[N][N]\nfloat tmp[N][N]\n"
                           "parallel_for(N, N) : i, j {\n  comp 1\n  st tmp[i][j]\n  stream k = 0:N {\n";
  auto ki = kernelOf(head + "    ld tmp[i][j]\n    ld A[i][k]\n    ld B[k][j]\n    comp 4\n    st tmp[i][j]\n  }\n}\n");
  auto none = kernelOf(head + "    ld A[i][k]\n    ld B[k][j]\n    comp 4\n  }\n}\n");
  auto readOnly = kernelOf(head + "    ld W[i][j]\n    ld A[i][k]\n    ld B[k][j]\n    comp 4\n  }\n}\n");
  ASSERT_TRUE(ki.accesses[1].heldInRegister);
  ASSERT_TRUE(readOnly.accesses[1].heldInRegister);
  const char *staged = "block=i:16,j:16 stage=k:64 cache=A,B";
  auto run = apply(ki, staged);
  double fills = 0;
  for (const auto &au : run.c.arrays)
    fills += au.cachingInsts;
  EXPECT_DOUBLE_EQ(fills, 2 * 16 * 64 * 16 / 256.0) << "A and B: 16 stages of 16 x 64 elements, 256 threads";
  EXPECT_DOUBLE_EQ(run.c.loadGroups, 1 + fills) << "tmp once, then a group per fill instruction";
  EXPECT_DOUBLE_EQ(apply(readOnly, staged).c.loadGroups, 16 + fills) << "W once a stage";
  // read straight from global memory, A and B are a group each iteration and
  // tmp adds its one before the loop
  EXPECT_DOUBLE_EQ(apply(ki, "block=i:16,j:16").c.loadGroups, 1 + 1024);
  // mlp waits the held load's latency once (a stage)
  auto exposed = [&](const layout::KernelInfo &k) {
    return apply(k, staged, {"mlp", "caches"}).a.workload.exposedLatencyCycles;
  };
  double once = exposed(ki) - exposed(none);
  EXPECT_GT(once, 0) << "tmp's one wait";
  EXPECT_LE(once, h100().dramLatencyCycles) << "one latency, not 1,024";
  // W and tmp have one shape, so `caches` gives them one latency
  EXPECT_NEAR(exposed(readOnly) - exposed(none), 16 * once, 1e-6) << "W: one latency a stage";
  // written, but beside another element of its array: emit keeps no register
  // across the stages, and each stage loads and stores it again (a review's
  // SASS of B[0][j] += A[k][j] * B[1][j], stage=k:64 cache=A)
  auto beside = kernelOf("#define N 1024\nfloat A[N][N]\nfloat B[2][N]\nparallel_for(N) : j {\n"
                         "  stream k = 0:N {\n    ld B[0][j]\n    ld A[k][j]\n    comp 2\n    st B[0][j]\n"
                         "    st B[1][j]\n  }\n}\n");
  ASSERT_TRUE(beside.accesses[0].heldInRegister);
  ASSERT_FALSE(beside.accesses[0].heldWritten);
  auto besideRun = apply(beside, "block=j:256 stage=k:64 cache=A");
  double besideFills = 0;
  for (const auto &au : besideRun.c.arrays)
    besideFills += au.cachingInsts;
  EXPECT_DOUBLE_EQ(besideRun.c.loadGroups, 16 + besideFills) << "B[0][j] once a stage, 16 stages";
  // a held index leaves its level empty: the gather is one group an iteration
  auto gather = kernelOf("#define N 1024\nint idx[N]\nfloat A[N][N]\nfloat y[N]\nparallel_for(N) : j {\n"
                         "  stream k = 0:N {\n    ld idx[j]\n    ld A[k][idx[j]]\n    comp 1\n  }\n  st y[j]\n}\n");
  ASSERT_TRUE(gather.accesses[0].heldInRegister);
  ASSERT_EQ(gather.accesses[1].level, 2);
  EXPECT_DOUBLE_EQ(apply(gather, "block=j:256").c.loadGroups, 1 + 1024) << "idx once, A each iteration";
}

TEST(ModernTerms, FoldedTasksWithTheirOwnTripCountRunOneAfterAnother) {
  auto ki = layout::analyzeKernel(
      skeleton::parseSkeletonFile(kSrc + "/validation/skeletons/ispinex_real_4096.skel"), 0);
  // The stream loop's bounds read J[j] and J[j + 1]: j is in them, i is not.
  const auto &n = ki.loops.front();
  ASSERT_EQ(n.boundDims, std::vector<int>{0});
  // fold=i:8: the 8 tasks share one row's loop (a register tile): the groups
  // of one task, 1 + 2 x 14
  EXPECT_DOUBLE_EQ(layout::serialTasks(ki, layout::parseLayout(ki, "block=j:4,i:8 fold=i:8", h100())), 1);
  EXPECT_DOUBLE_EQ(apply(ki, "block=j:4,i:8 fold=i:8").c.loadGroups, 1 + 2 * 14);
  // fold=j:2,i:8: two rows, two trip counts: the 16 tasks run one after
  // another, 16 x (1 + 2 x 14 / 4) groups with unroll=n:4
  EXPECT_DOUBLE_EQ(apply(ki, "block=j:4,i:8 fold=j:2,i:8 unroll=n:4").c.serialTasks, 16);
  EXPECT_DOUBLE_EQ(apply(ki, "block=j:4,i:8 fold=j:2,i:8 unroll=n:4").c.loadGroups,
                   16 * (1 + 2 * 14 / 4.0));
  auto r = apply(ki, "block=j:4,i:8 fold=j:2,i:8 unroll=n:4", {"mlp"});
  EXPECT_DOUBLE_EQ(r.a.workload.exposedMemInsts, 16 * (1 + 2 * 14 / 4.0));
}

// Folded tasks that run one after another share no register tile: each loads
// its own elements in its loops (syrk over a triangle, emit's loop over the
// tasks: Nsight Compute counted 134.8 million load requests on the H200, 2,048
// warps x 2 x 32,768, validation/results/h200_ncu_syrk37.txt).
TEST(ModernTerms, SerialTasksEachLoadTheirOwnElements) {
  auto syrk = [](bool triangle) {
    std::string body = "  ld C[i][j]\n  stream k = 0:M {\n    ld A[i][k]\n    ld A[j][k]\n    comp 2\n  }\n"
                       "  st C[i][j]\n";
    if (triangle)
      body = "  if (p=0.5) {\n" + body + "  }\n";
    return kernelOf("#define N 1024\n#define M 64\ndouble C[N][N]\ndouble A[N][M]\n"
                    "parallel_for(N, N) : i, j {\n" + body + "}\n");
  };
  auto square = syrk(false), tri = syrk(true);
  auto loadsOfA = [](const layout::KernelInfo &ki, const layout::Characterization &c) {
    std::vector<double> out;
    for (const auto &u : c.accesses) {
      const auto &a = ki.accesses[static_cast<size_t>(u.access)];
      if (!a.isStore && ki.arrays[static_cast<size_t>(a.array)].name == "A")
        out.push_back(u.insts);
    }
    return out;
  };
  const char *fold = "block=i:8,j:32 fold=i:2,j:2";
  // Jammed 2 x 2 tile: A[i][k] for 2 rows of i over 64 k, shared by the 2 j
  // tasks: 128 loads a thread; A[j][k] alike.
  ASSERT_EQ(apply(square, fold).c.serialTasks, 1);
  EXPECT_EQ(loadsOfA(square, apply(square, fold).c), (std::vector<double>{128, 128}));
  // The triangle's arm, where C[i][j] is loaded, makes the 4 tasks serial
  // (serialTasks: a load in a branch's arm): each loads its own row of both,
  // 4 x 64, times the arm's probability 0.5 (jammed it would be 64).
  ASSERT_EQ(apply(tri, fold).c.serialTasks, 4);
  EXPECT_EQ(loadsOfA(tri, apply(tri, fold).c), (std::vector<double>{128, 128}));
  // The store after the loop is each task's own either way: 4 x 0.5.
  for (const auto &u : apply(tri, fold).c.accesses) {
    if (tri.accesses[static_cast<size_t>(u.access)].isStore) {
      EXPECT_DOUBLE_EQ(u.insts, 2);
    }
  }
}

// A load in a branch's arm: each folded task's branch closes before the next
// task's loads go out (the SASS of h200_ncu_branch_folds.txt), so the tasks
// run one after another; a branch that only stores leaves them jammed.
TEST(ModernTerms, FoldedTasksWithALoadInABranchArmRunOneAfterAnother) {
  const char *loadInArm = "#define N 4096\nfloat a[N]\nfloat b[N]\nfloat o[N]\n"
                          "parallel_for(N) : i {\n  ld a[i]\n  if (p=0.25) {\n    ld b[i]\n    comp 2\n"
                          "  } else {\n    comp 1\n  }\n  st o[i]\n}\n";
  const char *storeInArm = "#define N 4096\nfloat a[N]\nfloat o[N]\n"
                           "parallel_for(N) : i {\n  ld a[i]\n  if (p=0.25) {\n    st o[i]\n"
                           "  } else {\n    comp 1\n  }\n}\n";
  auto branchy = kernelOf(loadInArm), stores = kernelOf(storeInArm);
  EXPECT_DOUBLE_EQ(layout::serialTasks(branchy, layout::parseLayout(branchy, "block=i:64 fold=i:4", h100())), 4);
  EXPECT_DOUBLE_EQ(layout::serialTasks(branchy, layout::parseLayout(branchy, "block=i:64", h100())), 1);
  EXPECT_DOUBLE_EQ(layout::serialTasks(stores, layout::parseLayout(stores, "block=i:64 fold=i:4", h100())), 1);
  // mlp: a[i] is one group, b[i] (in the arm, p = 0.25) another: 1 + 0.25
  // groups a task, 4 tasks one after another
  auto r = apply(branchy, "block=i:64 fold=i:4", {"mlp"});
  EXPECT_DOUBLE_EQ(r.c.loadGroups, 4 * (1 + 0.25));
}

// Several loops side by side at the top of the body (a softmax's max, sum and
// scale) keep emit's loop over the tasks around the whole body (docs/emit.md,
// "Folding"): with a loop left rolled each task's iterations run after the
// last task's; unrolled whole, the body is straight-line and the tasks' loads
// go out together; a staged loop holds the tasks inside it, and so does the
// one loop at the top beside a loop under an `if`.
TEST(ModernTerms, FoldedTasksAroundLoopsSideBySideRunOneAfterAnother) {
  auto rows = kernelOf("#define R 4096\n#define C 8\nfloat x[R][C]\nfloat w[C]\nfloat y[R][C]\n"
                       "parallel_for(R) : i {\n  stream j = 0:C {\n    ld x[i][j]\n    ld w[j]\n    comp 1\n  }\n"
                       "  stream k = 0:C {\n    ld x[i][k]\n    comp 2\n    st y[i][k]\n  }\n}\n");
  auto one = kernelOf("#define R 4096\n#define C 8\nfloat x[R][C]\nfloat y[R]\n"
                      "parallel_for(R) : i {\n  stream j = 0:C {\n    ld x[i][j]\n    comp 1\n  }\n  st y[i]\n}\n");
  auto inIf = kernelOf("#define R 4096\n#define C 8\nfloat x[R][C]\nfloat y[R]\n"
                       "parallel_for(R) : i {\n  if (p=0.5) {\n    stream j = 0:C {\n      comp 1\n    }\n  }\n"
                       "  ld x[i][0]\n  st y[i]\n}\n");
  auto besideIf = kernelOf("#define R 4096\n#define C 8\nfloat x[R][C]\nfloat y[R]\n"
                           "parallel_for(R) : i {\n  if (p=0.5) {\n    stream j = 0:C {\n      comp 1\n    }\n  }\n"
                           "  stream k = 0:C {\n    ld x[i][k]\n    comp 1\n  }\n  st y[i]\n}\n");
  auto tasks = [](const layout::KernelInfo &ki, const char *l) {
    return layout::serialTasks(ki, layout::parseLayout(ki, l, h100()));
  };
  EXPECT_DOUBLE_EQ(tasks(rows, "block=i:64 fold=i:4"), 4) << "two rolled loops side by side";
  EXPECT_DOUBLE_EQ(tasks(rows, "block=i:64 fold=i:2"), 2) << "the fold's product";
  EXPECT_DOUBLE_EQ(tasks(rows, "block=i:64 fold=i:4 unroll=j:4"), 4) << "k is still rolled";
  EXPECT_DOUBLE_EQ(tasks(rows, "block=i:64 fold=i:4 unroll=j:8,k:8"), 1) << "both unrolled whole";
  EXPECT_DOUBLE_EQ(tasks(rows, "block=i:64 fold=i:4 stage=j:8 cache=w"), 1) << "staged";
  EXPECT_DOUBLE_EQ(tasks(one, "block=i:64 fold=i:4"), 1) << "one loop: a register tile";
  EXPECT_DOUBLE_EQ(tasks(inIf, "block=i:64 fold=i:4"), 4) << "its only loop under an if";
  EXPECT_DOUBLE_EQ(tasks(besideIf, "block=i:64 fold=i:4"), 1) << "one loop at the top beside one under an if";
  // mlp, the two loops side by side: 8 + 8 iterations, one level each, no
  // unrolling; 4 tasks one after another: 4 x 16 groups (jammed, 16)
  EXPECT_DOUBLE_EQ(apply(rows, "block=i:64 fold=i:4", {"mlp"}).c.loadGroups, 4 * 16);
  // Unrolled whole, jammed: one level a loop, but the registers bound each
  // list: 4 tasks' x and one w, 40 words, and 4 x's, 32, over R = 32 - 16 - 4
  // carried = 12.
  EXPECT_DOUBLE_EQ(apply(rows, "block=i:64 fold=i:4 unroll=j:8,k:8", {"mlp"}).c.loadGroups, 40.0 / 12 + 32.0 / 12);
  // Equation 13 counts w[j], which no folded index moves, once for the 4
  // tasks whatever the loops' unrolling: 8 loads a thread (its loads are
  // counted from the block and fold alone).
  auto loadsOfW = [&](const char *l) {
    auto r = apply(rows, l);
    for (const auto &u : r.c.accesses)
      if (rows.arrays[static_cast<size_t>(rows.accesses[static_cast<size_t>(u.access)].array)].name == "w")
        return u.insts;
    return -1.0;
  };
  EXPECT_DOUBLE_EQ(loadsOfW("block=i:64 fold=i:4 unroll=j:8,k:8"), 8);
  EXPECT_DOUBLE_EQ(loadsOfW("block=i:64 fold=i:4"), 8);
}

// The loads of one group hold their values in registers until it ends: nvcc
// keeps about kLoadRegistersPerWait = 16 registers of them in flight
// (validation/results/h200_sass_load_groups.txt), so a register tile of
// straight-line tasks waits once per 16 registers of loads, not once.
TEST(ModernTerms, AGroupOfLoadsHoldsAtMostSixteenRegistersOfValues) {
  // A 5-point stencil of `type`s: 5 loads and a store a task.
  auto stencil = [](const std::string &type) {
    return kernelOf("#define N 4096\n" + type + " u[N][N]\n" + type + " v[N][N]\n" +
                    "parallel_for(1:N-1, 1:N-1) : i, j {\n  ld u[i][j]\n  ld u[i-1][j]\n  ld u[i+1][j]\n"
                    "  ld u[i][j-1]\n  ld u[i][j+1]\n  comp 5\n  st v[i][j]\n}\n");
  };
  auto ki = stencil("float"), kd = stencil("double");
  ASSERT_EQ(layout::kLoadRegistersPerWait, 16);
  // One task: 5 loads, 5 registers, one group (its highest level).
  EXPECT_DOUBLE_EQ(apply(ki, "block=i:8,j:32").c.loadGroups, 1);
  // 8 jammed tasks: 8 x 5 = 40 registers of loads, 40 / 16 = 2.5 groups.
  EXPECT_DOUBLE_EQ(apply(ki, "block=i:8,j:32 fold=i:8").c.loadGroups, 2.5);
  // 64 tasks: 320 / 16 = 20 groups (the SASS of jacobi2d 4094's fold=i:8,j:8: 57).
  EXPECT_DOUBLE_EQ(apply(ki, "block=i:8,j:32 fold=i:8,j:8").c.loadGroups, 20);
  // A double fills 2 registers: 8 tasks, 80 / 16 = 5 groups.
  EXPECT_DOUBLE_EQ(apply(kd, "block=i:8,j:32 fold=i:8").c.loadGroups, 5);
  // mlp exposes them: 5 of the thread's 48 memory instructions wait.
  EXPECT_DOUBLE_EQ(apply(kd, "block=i:8,j:32 fold=i:8", {"mlp"}).a.workload.exposedMemInsts, 5);
  // Reads of shared memory hold no load in flight: with u cached, the 8 tasks'
  // loads are its fill's (a group of its own) and nothing else.
  auto cached = apply(ki, "block=i:8,j:32 fold=i:8 cache=u").c;
  ASSERT_GT(cached.arrays[0].cachingInsts, 0);
  EXPECT_DOUBLE_EQ(cached.loadGroups, cached.arrays[0].cachingInsts);
}

TEST(ModernTerms, BlocksOfOneWarpHoldMoreLoadsAWait) {
  // ptxas's register target under __launch_bounds__(threads): what lets an SM
  // (65,536 registers, 64 warps, 32 blocks) hold the most threads of the block
  // size. 32 threads: 32 blocks of one warp, 1,024 threads, 64 registers;
  // 64 threads and more: 2,048 threads, 32 registers.
  auto hw = h100();
  ASSERT_EQ(hw.registersPerSM, 65536);
  ASSERT_EQ(hw.maxWarpsPerSM, 64);
  ASSERT_EQ(hw.maxBlocksPerSM, 32);
  auto stencil = kernelOf("#define N 4096\nfloat u[N][N]\nfloat v[N][N]\n"
                          "parallel_for(1:N-1, 1:N-1) : i, j {\n  ld u[i][j]\n  ld u[i-1][j]\n  ld u[i+1][j]\n"
                          "  ld u[i][j-1]\n  ld u[i][j+1]\n  comp 5\n  st v[i][j]\n}\n");
  auto target = [&](const layout::KernelInfo &ki, const std::string &text) {
    return layout::ptxasRegisterTarget(layout::parseLayout(ki, text, hw), hw);
  };
  auto perWait = [&](const layout::KernelInfo &ki, const std::string &text) {
    auto l = layout::parseLayout(ki, text, hw);
    return layout::loadRegistersPerWait(ki, l, hw, layout::serialTasks(ki, l));
  };
  EXPECT_DOUBLE_EQ(target(stencil, "block=i:1,j:32"), 64);
  EXPECT_DOUBLE_EQ(target(stencil, "block=i:1,j:16"), 64); // half a warp is a warp
  EXPECT_DOUBLE_EQ(target(stencil, "block=i:2,j:32"), 32);
  EXPECT_DOUBLE_EQ(target(stencil, "block=i:32,j:32"), 32);
  // No loop, nothing carried: 64 - 16 = 48 registers left in one warp, at
  // most 32 of loads a wait; the 16 of kLoadRegistersPerWait from two warps on.
  EXPECT_DOUBLE_EQ(perWait(stencil, "block=i:1,j:32 fold=j:8"), 32);
  EXPECT_DOUBLE_EQ(perWait(stencil, "block=i:2,j:32 fold=j:8"), 16);
  // 8 jammed tasks, 40 registers of loads: 40 / 32 groups in one warp, 40 / 16
  // in two (the SASS of jacobi2d 4094's fold=j:8: 35 + 5 loads in blocks of
  // 32 threads, 17 + 18 + 5 in blocks of 64).
  EXPECT_DOUBLE_EQ(apply(stencil, "block=i:1,j:32 fold=j:8").c.loadGroups, 40.0 / 32.0);
  EXPECT_DOUBLE_EQ(apply(stencil, "block=i:2,j:32 fold=j:8").c.loadGroups, 40.0 / 16.0);
  // A row walk accumulating into y[i] (one store in a loop, a value carried):
  // 64 - 16 - 1 = 47, at most 32, with one task; 16 tasks jammed carry 16:
  // 32; 17 carry 17: 31; 64 tasks carry more than the target leaves: the
  // floor of 16. From two warps on the target is 32: one task leaves
  // 32 - 16 - 1 = 15, 8 tasks 8 (ptxas stays at the target and waits for
  // what is left: the SASS of the 36 measured layouts with 8 left waits for
  // 8, median), 15 tasks 1, held at 8 (no measured layout has fewer than 8
  // left), 16 tasks none: ptxas exceeds the target, the floor of 16.
  auto walk = kernelOf("#define N 4096\nfloat A[N][N]\nfloat x[N]\nfloat y[N]\n"
                       "parallel_for(0:N) : i {\n  for j = 0:N {\n    ld A[i][j]\n    ld x[j]\n"
                       "    comp 2\n  }\n  st y[i]\n}\n");
  EXPECT_DOUBLE_EQ(perWait(walk, "block=i:32"), 32);
  EXPECT_DOUBLE_EQ(perWait(walk, "block=i:32 fold=i:16"), 32);
  EXPECT_DOUBLE_EQ(perWait(walk, "block=i:32 fold=i:17"), 31);
  EXPECT_DOUBLE_EQ(perWait(walk, "block=i:32 fold=i:64"), 16);
  EXPECT_DOUBLE_EQ(perWait(walk, "block=i:64"), 15);
  EXPECT_DOUBLE_EQ(perWait(walk, "block=i:64 fold=i:8"), 8);
  EXPECT_DOUBLE_EQ(perWait(walk, "block=i:64 fold=i:16"), 16);
  EXPECT_DOUBLE_EQ(perWait(walk, "block=i:64 fold=i:15"), 8);
  // mlp: the 8 tasks load A's 8 rows and x[j] once an iteration, 9
  // registers over R = 8: 9 / 8 groups an iteration over 4,096 (with the
  // floor of 16, one a level: 4,096).
  EXPECT_DOUBLE_EQ(apply(walk, "block=i:64 fold=i:8").c.loadGroups, 9.0 / 8.0 * 4096);
  // mlp's explain row reads the same value.
  EXPECT_DOUBLE_EQ(apply(walk, "block=i:32 fold=i:17", {"mlp"}).a.effects.loadRegistersPerWait, 31);
  // The SASS's own count, where read, stands whatever the block.
  auto l = layout::parseLayout(walk, "block=i:32", hw);
  l.compiledRegistersPerWait = 8.0;
  EXPECT_DOUBLE_EQ(layout::loadRegistersPerWait(walk, l, hw, 1), 8);
}

TEST(ModernTerms, TheSassRegistersPerWaitTakeThePlaceOfSixteen) {
  // `--load-groups sass` (docs/model.md, "Load groups from the SASS"): the
  // layout's compiled code holds R registers of loads in flight per wait.
  auto ki = kernelOf("#define N 4096\nfloat u[N][N]\nfloat v[N][N]\n"
                     "parallel_for(1:N-1, 1:N-1) : i, j {\n  ld u[i][j]\n  ld u[i-1][j]\n  ld u[i+1][j]\n"
                     "  ld u[i][j-1]\n  ld u[i][j+1]\n  comp 5\n  st v[i][j]\n}\n");
  auto groups = [&](const std::string &text, std::optional<double> perWait) {
    auto l = layout::parseLayout(ki, text, h100());
    l.compiledRegistersPerWait = perWait;
    return layout::characterize(ki, l, h100()).loadGroups;
  };
  // 8 jammed tasks, 40 registers of loads: 40 / 16 = 2.5 groups by the
  // estimate, 40 / 4.3 with IspinEx real 4096's fold=i:8 SASS (52 loads, 12 waits).
  EXPECT_DOUBLE_EQ(groups("block=i:8,j:32 fold=i:8", std::nullopt), 2.5);
  EXPECT_DOUBLE_EQ(groups("block=i:8,j:32 fold=i:8", 52.0 / 12.0), 40.0 / (52.0 / 12.0));
  // More registers a wait than the loads fill: the loads' one level still waits once.
  EXPECT_DOUBLE_EQ(groups("block=i:8,j:32", 32.0), 1);
  EXPECT_DOUBLE_EQ(groups("block=i:8,j:32 fold=i:8", 64.0), 1);
}

TEST(ModernTerms, CachesOnAStencilByHand) {
  // Interior 1024 x 1024 of t, 16 x 16 blocks: 4096 blocks; a block reads 16x16 + 4x16
  // = 320 elements; its 8 warps ask 5 loads x 32 elements = 1280 times: r1 = 0.75.
  // The kernel reads 1024^2 + 4 x 1024 elements of t: r2 = 1 - 1052672 / (4096 x 320).
  auto ki = kernelOf("#define N 1026\nfloat t[N][N]\nfloat o[N][N]\n"
                     "parallel_for(1:N - 1, 1:N - 1) : i, j {\n  ld t[i][j]\n  ld t[i - 1][j]\n"
                     "  ld t[i + 1][j]\n  ld t[i][j - 1]\n  ld t[i][j + 1]\n  comp 10\n  st o[i][j]\n}\n");
  auto hw = h100();
  auto r = apply(ki, "block=i:16,j:16", {"caches"});
  double r1 = 0.75, r2 = 1.0 - 1052672.0 / (4096.0 * 320.0);
  double lat = r1 * hw.l1LatencyCycles +
               (1 - r1) * (r2 * hw.l2LatencyCycles + (1 - r2) * hw.dramLatencyCycles);
  EXPECT_NEAR(r.a.effects.effectiveLatencyCycles, lat, 1e-6);
  EXPECT_DOUBLE_EQ(r.a.hw.dramLatencyCycles, lat);
}

TEST(ModernTerms, UncoalescedL1HitsDoNotDepart) {
  // Each thread reads the 4 floats of row x[i] (16 bytes), one per iteration of n:
  // a warp instruction touches 32 rows x 16 B = 512 B = 16 sectors (uncoalesced),
  // and the 4 iterations touch the same 16 sectors. Per block of 128 threads:
  // requested 128 threads x 4 instructions x 16 B of sectors = 8192 B; leaving L1
  // the block's 512 distinct elements x 4 B x inflation 1 (over 4 iterations the
  // warp uses every byte of its sectors) = 2048 B. miss = 2048 / 8192 = 0.25, so
  // Uncoal_per_mw' = 16 x 0.25 = 4; the store y[i] is coalesced and not counted.
  auto ki = kernelOf("#define N 1048576\nfloat x[N][4]\nfloat y[N]\nparallel_for(N) : i {\n"
                     "  for n = 0:4 {\n    ld x[i][n]\n    comp 1\n  }\n  st y[i]\n}\n");
  auto off = apply(ki, "block=i:128", {});
  auto on = apply(ki, "block=i:128", {"caches"});
  ASSERT_FALSE(off.c.accesses[0].pattern.coalesced);
  EXPECT_DOUBLE_EQ(off.c.accesses[0].pattern.transactions, 16);
  EXPECT_DOUBLE_EQ(off.a.workload.uncoalPerMw, 16);
  EXPECT_DOUBLE_EQ(on.a.workload.uncoalPerMw, 4);
}

TEST(ModernTerms, LsuFloorCountsWavefronts) {
  // Triad, block=i:256: two coalesced loads and a coalesced store, one
  // wavefront each, per warp; 2^26 / 32 warps over 132 SMs at one wavefront per
  // cycle.
  auto hw = h100();
  ASSERT_DOUBLE_EQ(hw.l1WavefrontsPerCycle, 1);
  auto r = apply(kernelOf(kTriad), "block=i:256", {"lsu"});
  EXPECT_DOUBLE_EQ(r.a.effects.l1WavefrontsPerWarp, 3);
  EXPECT_NEAR(r.a.effects.lsuFloorMs, 67108864.0 / 32 / 132 * 3 / (hw.clockGHz * 1e6), 1e-12);
  // An uncoalesced load of 16 sectors (4 lines of 128 bytes) is 4 wavefronts:
  // 4 iterations x 4 + the coalesced store = 17.
  auto x = apply(kernelOf("#define N 1048576\nfloat x[N][4]\nfloat y[N]\nparallel_for(N) : i {\n"
                          "  for n = 0:4 {\n    ld x[i][n]\n    comp 1\n  }\n  st y[i]\n}\n"),
                 "block=i:128", {"lsu"});
  EXPECT_DOUBLE_EQ(x.a.effects.l1WavefrontsPerWarp, 17);
}

TEST(ModernTerms, LsuCountsTwoWavefrontsForEightByteElements) {
  // The triad on doubles: a warp's 32 x 8 bytes = 256 bytes per access, two
  // wavefronts each: 6 per warp.
  auto r = apply(kernelOf("#define N 1048576\ndouble a[N]\ndouble b[N]\ndouble c[N]\n"
                          "parallel_for(N) : i {\n  ld b[i]\n  ld c[i]\n  comp 4\n  st a[i]\n}\n"),
                 "block=i:256", {"lsu"});
  EXPECT_DOUBLE_EQ(r.a.effects.l1WavefrontsPerWarp, 6);
}

TEST(ModernTerms, BanksCountAConflictedSharedReadOnceAWordOfItsBusiestBank) {
  // A 5-point stencil, t cached, block=i:2,j:16: each of the 5 shared reads
  // takes 2 wavefronts (the warp's two tile rows, 18 words apart, share banks
  // 0 and 1: tests/unit/layout/CharacterizerTest.cpp), not 1. The fill (72
  // elements over 32 threads: 3 loads and 3 stores a thread) and the store of
  // o are the same either way: 5 more wavefronts a warp.
  auto ki = kernelOf("#define N 1026\nfloat t[N][N]\nfloat o[N][N]\n"
                     "parallel_for(1:N - 1, 1:N - 1) : i, j {\n  ld t[i][j]\n  ld t[i - 1][j]\n"
                     "  ld t[i + 1][j]\n  ld t[i][j - 1]\n  ld t[i][j + 1]\n  comp 10\n  st o[i][j]\n}\n");
  auto off = apply(ki, "block=i:2,j:16 cache=t", {"lsu"});
  auto on = apply(ki, "block=i:2,j:16 cache=t", {"lsu", "banks"});
  EXPECT_DOUBLE_EQ(off.a.effects.l1WavefrontsPerWarp, 5 + 2 * 3 + 1);
  EXPECT_DOUBLE_EQ(on.a.effects.l1WavefrontsPerWarp, 2 * 5 + 2 * 3 + 1);
  EXPECT_NEAR(on.a.effects.lsuFloorMs / off.a.effects.lsuFloorMs, 17.0 / 12.0, 1e-12);
  // One row of 32 lanes has no conflict: banks changes nothing.
  EXPECT_DOUBLE_EQ(apply(ki, "block=i:1,j:32 cache=t", {"lsu", "banks"}).a.effects.l1WavefrontsPerWarp,
                   apply(ki, "block=i:1,j:32 cache=t", {"lsu"}).a.effects.l1WavefrontsPerWarp);
}

TEST(ModernTerms, LsuFloorOfStagedMatMul) {
  // MatMul 800x400x800, block=i:32,j:32 stage=k:32 cache=A,B: per thread 400
  // shared reads of A and 400 of B; 13 stages (400 / 32, rounded up), each
  // filling a 32x32 tile of A and of B with one instruction per thread (a load
  // and a store: 2 wavefronts); the store of C. 800 + 13 x 2 x 2 + 1 = 853.
  auto ki = model::analyzeProgram(skeleton::parseSkeletonFile(kSrc + "/validation/skeletons/matmul_800.skel"))[0];
  auto r = apply(ki, "block=i:32,j:32 stage=k:32 cache=A,B unroll=k:32", {"lsu"});
  EXPECT_DOUBLE_EQ(r.a.effects.l1WavefrontsPerWarp, 853);
  auto hw = h100();
  double warpsPerSM = 800.0 * 800 / 32 / 132;
  EXPECT_NEAR(r.a.effects.lsuFloorMs, warpsPerSM * 853 / (hw.clockGHz * 1e6), 1e-12);
}

TEST(ModernTerms, EachFillInstructionWaitsOutOneLatency) {
  // A 5-point stencil with t cached, no stage: the 16x16 block's tile is 18x18
  // = 324 elements, 2 fill instructions per thread, each a guarded load and
  // store that waits for its load (the validation SASS): the exposed latency is
  // 2 x the fill's latency, r2 L2 + (1 - r2) DRAM with r2 = 1 - 1026^2 - 4
  // corners over the 2 x 256 x 4096 elements the fills ask for.
  auto ki = kernelOf("#define N 1026\nfloat t[N][N]\nfloat o[N][N]\n"
                     "parallel_for(1:N - 1, 1:N - 1) : i, j {\n  ld t[i][j]\n  ld t[i - 1][j]\n"
                     "  ld t[i + 1][j]\n  ld t[i][j - 1]\n  ld t[i][j + 1]\n  comp 10\n  st o[i][j]\n}\n");
  auto hw = h100();
  auto r = apply(ki, "block=i:16,j:16 cache=t", {"mlp", "caches"});
  ASSERT_DOUBLE_EQ(r.c.arrays[0].cachingInsts, 2);
  double r2 = 1.0 - (1026.0 * 1026 - 4) / (2.0 * 256 * 4096);
  double fill = r2 * hw.l2LatencyCycles + (1 - r2) * hw.dramLatencyCycles;
  EXPECT_NEAR(r.a.workload.exposedLatencyCycles, 2 * fill, 1e-6);
}

TEST(ModernTerms, OverlappingWavesExposeOneLatency) {
  // compute_heavy (2^24 elements), block=i:256 unroll=n:8 on the H100 is case 3
  // (MWP > CWP) with 8 blocks of 8 warps per SM (N = 64) and Rep = 65536 / (8 x
  // 132) = 62.06 waves. Hong & Kim: (Mem_L + Comp_cycles x N) x Rep; with the
  // waves overlapping, Mem_L + Comp_cycles x N x Rep (`explain` prints Mem_L
  // 692.5, Comp_cycles 78.34: 354,115 against 311,836 cycles).
  auto ki = model::analyzeProgram(
      skeleton::parseSkeletonFile(kSrc + "/validation/skeletons/compute_heavy_16M.skel"))[0];
  auto hw = h100();
  auto l = layout::parseLayout(ki, "block=i:256 unroll=n:8", hw);
  model::ModelOptions on, off;
  off.model = model::parseModelSpec("skelcast", {"waves"});
  auto a = model::projectLayout(ki, l, hw, on).result;
  auto b = model::projectLayout(ki, l, hw, off).result;
  ASSERT_EQ(a.execCase, 3);
  ASSERT_EQ(b.execCase, 3);
  EXPECT_DOUBLE_EQ(a.n, 64);
  EXPECT_NEAR(a.rep, 65536.0 / (8 * 132), 1e-9);
  EXPECT_NEAR(a.execCycles, a.memL + a.compCycles * a.n * a.rep, 1e-6);
  EXPECT_NEAR(b.execCycles, (b.memL + b.compCycles * b.n) * b.rep, 1e-6);
  EXPECT_NEAR(b.execCycles - a.execCycles, a.memL * (a.rep - 1), 1e-6);
}

TEST(ModernTerms, FillLatencyIsEachArraysOwn) {
  // A writes A in a program; a staged MatMul then caches A (resident in L2,
  // reuse distance 48 MB < 50 MB) and B (from DRAM). Each fill waits for its
  // own array's latency, whatever order the arrays are declared in.
  auto exposed = [](const char *decls) {
    std::string text = std::string("#define N 2048\n") + decls +
                       "float C[N][N]\n"
                       "parallel_for init(N, N) : i, j {\n  comp 1\n  st A[i][j]\n}\n"
                       "parallel_for mm(N, N) : i, j {\n  stream k = 0:N {\n    ld A[i][k]\n"
                       "    ld B[k][j]\n    comp 1\n  }\n  st C[i][j]\n}\n";
    auto f = skeleton::parseSkeleton(text, "t.skel");
    auto ki = model::analyzeProgramKernel(f, 1);
    auto hw = h100();
    auto l = layout::parseLayout(ki, "block=i:16,j:16 stage=k:16 cache=A,B", hw);
    auto c = layout::characterize(ki, l, hw);
    return model::applyModernTerms(c, ki, l, hw, {"mlp", "caches", "residency"}).workload.exposedLatencyCycles;
  };
  EXPECT_DOUBLE_EQ(exposed("float A[N][N]\nfloat B[N][N]\n"), exposed("float B[N][N]\nfloat A[N][N]\n"));
}

TEST(ModernTerms, RegistersEstimateAndLimit) {
  auto ki = layout::analyzeKernel(skeleton::parseSkeletonFile(kSrc + "/skeletons/matmul.skel"), 0);
  auto hw = h100();
  // 16 + 2 x 3 arrays + F x (2 + 1 store + 2 loads x 1) = 27
  auto l = layout::parseLayout(ki, "block=i:16,j:16", hw);
  EXPECT_DOUBLE_EQ(model::estimateRegisters(ki, l, layout::serialTasks(ki, l), 0), 27);
  // fold 4, unroll 16: 16 + 6 + 4 x (2 + 1 + 2 x 4) = 66 -> 72 per thread, 256 threads per block
  auto r = apply(ki, "block=i:16,j:16 fold=i:4 unroll=k:16", {"registers"});
  EXPECT_DOUBLE_EQ(r.a.effects.registersPerThread, 66);
  EXPECT_DOUBLE_EQ(r.a.effects.blocksByRegisters, std::floor(65536.0 / (72 * 256)));
}

// An access in a branch's arm counts by the arm's probability, and tasks that
// run one after another hold one task's values (plus two indices a task).
TEST(ModernTerms, RegistersEstimateOfABranchAndOfTasksInSequence) {
  auto ki = kernelOf("#define N 4096\nfloat a[N]\nfloat b[N]\nfloat o[N]\n"
                     "parallel_for(N) : i {\n  ld a[i]\n  if (p=0.25) {\n    ld b[i]\n    comp 2\n"
                     "  } else {\n    comp 1\n  }\n  st o[i]\n}\n");
  auto hw = h100();
  // 16 + 2 x 3 arrays + (2 + 1 store + (1 + 0.25) loads) = 26.25
  auto one = layout::parseLayout(ki, "block=i:64", hw);
  EXPECT_DOUBLE_EQ(model::estimateRegisters(ki, one, layout::serialTasks(ki, one), 0), 26.25);
  // fold 4, the tasks in sequence: one task's values and the task loop's index
  // and bound: 16 + 6 + 4.25 + 2 = 28.25 (jammed it would be 16 + 6 + 4 x 4.25 = 39);
  // fold 8 the same
  auto four = layout::parseLayout(ki, "block=i:64 fold=i:4", hw);
  EXPECT_DOUBLE_EQ(model::estimateRegisters(ki, four, layout::serialTasks(ki, four), 0), 28.25);
  auto eight = layout::parseLayout(ki, "block=i:64 fold=i:8", hw);
  EXPECT_DOUBLE_EQ(model::estimateRegisters(ki, eight, layout::serialTasks(ki, eight), 0), 28.25);
}

// Jammed tasks hold a value they share across accesses once: out[i][j] =
// in[i][j] + in[i+1][j] + in[i+2][j] folded 4 down i loads 6 rows, not 12
// (Characterization::sharedFoldLoads = 6).
TEST(ModernTerms, RegistersEstimateHoldsTheLoadsFoldedTasksShareOnce) {
  auto ki = kernelOf("float in[66][64]\nfloat out[66][64]\nparallel_for(64, 64) : i, j {\n"
                     "  ld in[i][j]\n  ld in[i + 1][j]\n  ld in[i + 2][j]\n  comp 2\n  st out[i + 1][j]\n}\n");
  auto hw = h100();
  auto l = layout::parseLayout(ki, "block=i:1,j:32 fold=i:4", hw);
  auto c = layout::characterize(ki, l, hw);
  EXPECT_DOUBLE_EQ(c.sharedFoldLoads, 6);
  // 16 + 2 x 2 arrays + 4 x (2 + 1 store + 3 loads) - 6 shared = 38 (44 without)
  EXPECT_DOUBLE_EQ(model::estimateRegisters(ki, l, c.serialTasks, c.sharedFoldLoads), 38);
  EXPECT_DOUBLE_EQ(model::estimateRegisters(ki, l, c.serialTasks, 0), 44);
  // and the term reads it from the characterization
  EXPECT_DOUBLE_EQ(model::applyModernTerms(c, ki, l, hw, {"registers"}).effects.registersPerThread, 38);
}

// ptxas's count, where the toolchain stage read it, replaces the estimate
// (docs/model.md, "Registers from ptxas"): 100 registers -> 104 per thread
// allocated, x 256 threads = 26,624 per block: 65,536 / 26,624 = 2 blocks per SM,
// where the estimate (27 -> 32 per thread) allows 8. explain names which.
TEST(ModernTerms, RegistersFromPtxasReplaceTheEstimate) {
  auto ki = layout::analyzeKernel(skeleton::parseSkeletonFile(kSrc + "/skeletons/matmul.skel"), 0);
  auto hw = h100();
  auto l = layout::parseLayout(ki, "block=i:16,j:16", hw);
  auto c = layout::characterize(ki, l, hw);
  auto est = model::applyModernTerms(c, ki, l, hw, {"registers"});
  EXPECT_DOUBLE_EQ(est.effects.registersPerThread, 27);
  EXPECT_FALSE(est.effects.registersFromPtxas);
  EXPECT_DOUBLE_EQ(est.effects.blocksByRegisters, 8);
  l.compiledRegisters = 100;
  EXPECT_TRUE(l == layout::parseLayout(ki, "block=i:16,j:16", hw)) << "not part of the identity";
  auto got = model::applyModernTerms(c, ki, l, hw, {"registers"});
  EXPECT_DOUBLE_EQ(got.effects.registersPerThread, 100);
  EXPECT_TRUE(got.effects.registersFromPtxas);
  EXPECT_DOUBLE_EQ(got.effects.blocksByRegisters, 2);
  EXPECT_EQ(got.hw.maxBlocksPerSM, 2);
  bool named = false;
  for (const model::Term &t : model::skelcastTerms())
    if (t.id == model::TermId::Registers)
      named = t.explain(got.effects).front().name == "registers per thread (ptxas)";
  EXPECT_TRUE(named) << "explain's row names ptxas";
}

// Worked by hand: 10 instructions per thread, 4 of them FP64, inside a loop of 8
// and folded by 2: fp64 insts = 2 x 4 x 8 = 64 per thread. On the H100 spec
// (peak SP 64,327 / DP 32,838 GFLOP/s, ratio 1.95892) they add 64 x 0.95892 =
// 61.371 issue slots; the other 96 x 2 = 160 instructions are unchanged.
TEST(ModernTerms, OnlyTheFp64InstructionsIssueAtTheFp64Rate) {
  auto ki = kernelOf("#define N 1048576\ndouble x[N]\ndouble y[N]\nparallel_for(N) : i {\n"
                     "  ld x[i]\n  for n = 0:8 {\n    comp 10 (fp64:4)\n  }\n  st y[i]\n}\n");
  auto hw = h100();
  ASSERT_DOUBLE_EQ(hw.peakSpGflops, 64327.0);
  ASSERT_DOUBLE_EQ(hw.peakDpGflops, 32838.0);
  auto r = apply(ki, "block=i:256 fold=i:2", {"fp64"});
  EXPECT_DOUBLE_EQ(r.c.fp64Insts, 64.0);
  EXPECT_NEAR(r.a.effects.fp64ExtraInsts, 61.371, 1e-3);
  EXPECT_NEAR(r.a.workload.compInsts - r.c.workload.compInsts, 61.371, 1e-3);
  // Double data alone costs nothing more: the rate belongs to the arithmetic.
  auto plain = kernelOf("#define N 1048576\ndouble x[N]\ndouble y[N]\nparallel_for(N) : i {\n"
                        "  ld x[i]\n  comp 10\n  st y[i]\n}\n");
  auto q = apply(plain, "block=i:256", {"fp64"});
  EXPECT_DOUBLE_EQ(q.a.effects.fp64ExtraInsts, 0.0);
  EXPECT_DOUBLE_EQ(q.a.workload.compInsts, q.c.workload.compInsts);
}

TEST(ModernTerms, WalkHitsTheSectorTheThreadJustFetched) {
  // Each thread walks its own row of floats: no element is read twice (r1 =
  // 0) and no block shares a row (r2 = 0), so without `walk` every load waits
  // for DRAM. With it, 4 of each sector's 32 bytes are new per iteration: 7 of
  // 8 loads hit L1 (the SM's windows fit: s1 = 1), Mem_LD = 7/8 x L1 + 1/8 x DRAM.
  auto hw = h100();
  auto ki = kernelOf("#define N 8192\nfloat A[N][N]\nfloat y[N]\nparallel_for(N) : i {\n"
                     "  for j = 0:N {\n    ld A[i][j]\n    comp 1\n  }\n  st y[i]\n}\n");
  auto off = apply(ki, "block=i:128", {"mlp", "caches"});
  EXPECT_DOUBLE_EQ(off.a.effects.effectiveLatencyCycles, hw.dramLatencyCycles);
  EXPECT_DOUBLE_EQ(off.a.effects.walkHitFraction, 0);
  auto on = apply(ki, "block=i:128", {"mlp", "caches", "walk"});
  EXPECT_DOUBLE_EQ(on.a.effects.walkHitFraction, 0.875);
  EXPECT_NEAR(on.a.effects.effectiveLatencyCycles, 0.875 * hw.l1LatencyCycles + 0.125 * hw.dramLatencyCycles,
              1e-9);
  // The exposed latency: one group per iteration, N iterations.
  EXPECT_NEAR(on.a.workload.exposedLatencyCycles,
              8192 * (0.875 * hw.l1LatencyCycles + 0.125 * hw.dramLatencyCycles), 1e-6);
  // Unrolled by 4, each group of 4 iterations goes out together: 1 - 4 x 4 / 32
  // = 1/2 of the loads find their sector filled; by 8 a group is a whole new
  // sector and none does (trmv's double row walk unrolled by 4, docs/model.md).
  auto u4 = apply(ki, "block=i:128 unroll=j:4", {"mlp", "caches", "walk"});
  EXPECT_DOUBLE_EQ(u4.a.effects.walkHitFraction, 0.5);
  auto u8 = apply(ki, "block=i:128 unroll=j:8", {"mlp", "caches", "walk"});
  EXPECT_DOUBLE_EQ(u8.a.effects.walkHitFraction, 0);
  EXPECT_NEAR(u8.a.workload.exposedLatencyCycles, 8192 / 8 * hw.dramLatencyCycles, 1e-6);
  // Walking a column (a row of 32 KB per iteration) finds nothing in its sector.
  auto col = kernelOf("#define N 8192\nfloat A[N][N]\nfloat y[N]\nparallel_for(N) : i {\n"
                      "  for j = 0:N {\n    ld A[j][i]\n    comp 1\n  }\n  st y[i]\n}\n");
  auto c = apply(col, "block=i:128", {"mlp", "caches", "walk"});
  EXPECT_DOUBLE_EQ(c.a.effects.walkHitFraction, 0);
}

TEST(ModernTerms, ReadAfterStoreWaitsTwoL2RoundTrips) {
  // t[i] += t[k]; t[k] -= t[i] in a loop over k: the store to t[k] may write
  // t[i], so the element goes through memory every iteration, and from the
  // second iteration on the load of t[i] reads what the previous iteration
  // stored, which went through to L2: its latency is 2 x l2_latency (564.8
  // cycles on the H100), not the DRAM latency that `caches` alone gives the
  // first touch of each element.
  auto hw = h100();
  auto ki = kernelOf("#define N 65536\nfloat t[N]\nparallel_for(N) : i {\n"
                     "  stream k = 0:64 {\n    ld t[i]\n    ld t[k]\n    comp 1\n    st t[i]\n    st t[k]\n  }\n}\n");
  auto off = apply(ki, "block=i:256", {"caches"});
  EXPECT_DOUBLE_EQ(off.a.effects.rmwLoads, 0);
  auto on = apply(ki, "block=i:256", {"caches", "rmw"});
  EXPECT_DOUBLE_EQ(on.a.effects.rmwLoads, on.c.accesses[0].insts);
  EXPECT_GT(on.a.effects.effectiveLatencyCycles, off.a.effects.effectiveLatencyCycles);
  // No store of t in the loop but at t[i]: emit passes t restrict and the
  // compiler keeps t[i] in a register (eq. 13 counts its load once), so no
  // load reads a store; nor a load of another element than the one stored.
  auto held = kernelOf("#define N 65536\nfloat t[N]\nparallel_for(N) : i {\n"
                       "  stream k = 0:64 {\n    ld t[i]\n    comp 1\n    st t[i]\n  }\n}\n");
  EXPECT_DOUBLE_EQ(apply(held, "block=i:256", {"caches", "rmw"}).a.effects.rmwLoads, 0);
  EXPECT_DOUBLE_EQ(apply(held, "block=i:256", {"caches", "rmw"}).a.effects.effectiveLatencyCycles,
                   hw.dramLatencyCycles);
  // In a branch's arm the store may not run, and nvcc keeps the load and the
  // store in the loop: the rule applies.
  auto arm = kernelOf("#define N 65536\nfloat t[N]\nfloat y[64]\nparallel_for(N) : i {\n"
                      "  stream k = 0:64 {\n    ld y[k]\n    if (p=0.5) {\n      ld t[i]\n      comp 1\n"
                      "      st t[i]\n    }\n  }\n}\n");
  auto armRun = apply(arm, "block=i:256", {"caches", "rmw"});
  ASSERT_EQ(arm.accesses[1].array, 0);
  EXPECT_DOUBLE_EQ(armRun.a.effects.rmwLoads, armRun.c.accesses[1].insts);
  EXPECT_GT(armRun.a.effects.rmwLoads, 0);
  auto other = kernelOf("#define N 65536\nfloat t[N]\nfloat u[N]\nparallel_for(N) : i {\n"
                        "  stream k = 0:64 {\n    ld u[i]\n    comp 1\n    st t[i]\n  }\n}\n");
  EXPECT_DOUBLE_EQ(apply(other, "block=i:256", {"caches", "rmw"}).a.effects.rmwLoads, 0);
}

TEST(ModernTerms, AStoreIntoTheWalkedSectorDelaysTheNextLoad) {
  // jacobi_residual's second nest: each thread walks its row of u and v and
  // stores u[i][j] after loading it. Walking floats, 7 of 8 loads find their
  // sector in L1 (walk), u's too: the store keeps the sector in L1 (row_norm's
  // in-place walk hit 3 of 4 sectors, Nsight Compute on the H200), but u's
  // next load waits for it, 152 cycles (walkstore.cu: 385 against 233 cycles an
  // iteration). Mem_LD = (lat_v + lat_u) / 2 with lat_v = 7/8 x L1 + 1/8 x
  // DRAM (the rows, 4 MB each, stay in L2: x L2) and lat_u = lat_v + 152.
  auto ki = kernelOf("#define N 1024\nfloat u[N][N]\nfloat v[N][N]\nfloat r[N]\nparallel_for(N) : i {\n"
                     "  for j = 0:N {\n    ld v[i][j]\n    ld u[i][j]\n    comp 3\n    st u[i][j]\n  }\n"
                     "  st r[i]\n}\n");
  auto walkOnly = apply(ki, "block=i:32", {"mlp", "caches", "walk"});
  EXPECT_DOUBLE_EQ(walkOnly.a.effects.walkHitFraction, 7.0 / 8.0);
  EXPECT_DOUBLE_EQ(walkOnly.a.effects.storeTakenLoads, 0);
  auto on = apply(ki, "block=i:32", {"mlp", "caches", "walk", "rmw"});
  EXPECT_DOUBLE_EQ(on.a.effects.walkHitFraction, 7.0 / 8.0);
  EXPECT_DOUBLE_EQ(on.a.effects.storeTakenLoads, 1024);
  EXPECT_DOUBLE_EQ(on.a.effects.rmwLoads, 0); // the element moves: not a read of the same element
  EXPECT_NEAR(on.a.effects.effectiveLatencyCycles, walkOnly.a.effects.effectiveLatencyCycles + 152.0 / 2, 1e-9)
      << "u's loads wait 152 cycles more, half the loads";
  // A store of the same shape to another array, or 16 floats (64 bytes, two
  // sectors) away along the walk, leaves the walk alone.
  for (const char *store : {"st r2[i][j]", "st u[i][j + 16]"}) {
    auto other = kernelOf(std::string("#define N 1024\nfloat u[N][N + 16]\nfloat v[N][N]\nfloat r2[N][N]\n"
                                      "float r[N]\nparallel_for(N) : i {\n  for j = 0:N {\n    ld v[i][j]\n"
                                      "    ld u[i][j]\n    comp 3\n    ") +
                          store + "\n  }\n  st r[i]\n}\n");
    auto o = apply(other, "block=i:32", {"mlp", "caches", "walk", "rmw"});
    EXPECT_DOUBLE_EQ(o.a.effects.storeTakenLoads, 0) << store;
    EXPECT_DOUBLE_EQ(o.a.effects.walkHitFraction, 7.0 / 8.0) << store;
  }
}

TEST(ModernTerms, LinesCountOneWavefrontPerLine) {
  // Each thread of a warp on its own 1 KB row: a load touches 32 sectors in 32
  // lines. lsu alone counts ceil(32 / 4) = 8 wavefronts per load, with `lines`
  // 32: per warp 256 loads x 32 + the coalesced store 1 = 8193 (2049 without).
  auto hw = h100();
  auto ki = kernelOf("#define N 2048\n#define K 256\nfloat A[N][K]\nfloat y[N]\nparallel_for(N) : i {\n"
                     "  for k = 0:K {\n    ld A[i][k]\n    comp 1\n  }\n  st y[i]\n}\n");
  auto off = apply(ki, "block=i:32", {"lsu"});
  EXPECT_DOUBLE_EQ(off.a.effects.l1WavefrontsPerWarp, 2049);
  auto on = apply(ki, "block=i:32", {"lsu", "lines"});
  EXPECT_DOUBLE_EQ(on.a.effects.l1WavefrontsPerWarp, 8193);
  // 64 warps (one per block) over 64 SMs: one warp's wavefronts per SM.
  EXPECT_NEAR(on.a.effects.lsuFloorMs, 8193 / (hw.clockGHz * 1e6), 1e-12);
  // The latency: A's load (the only one) returns its data 31 lines x
  // l1_line_latency_cycles (2.22 on the H100) later: 68.82 cycles; a spec
  // without the field counts 1 / l1_wavefronts_per_cycle a line: 31.
  double base = apply(ki, "block=i:32", {"caches"}).a.effects.effectiveLatencyCycles;
  EXPECT_NEAR(apply(ki, "block=i:32", {"caches", "lines"}).a.effects.effectiveLatencyCycles - base, 31 * 2.22,
              1e-9);
  auto old = h100();
  old.l1LineLatencyCycles = 0;
  EXPECT_NEAR(apply(ki, "block=i:32", {"caches", "lines"}, old).a.effects.effectiveLatencyCycles - base, 31, 1e-9);
}

TEST(ModernTerms, ACoalescedAccessIsOneWavefrontPerLineItTouches) {
  // A block 8 threads wide: a warp is 8 x 4 threads over 4 rows i. Its load of
  // A[i][0] reads 4 elements, one a row, each in its own 4 KB row: 4 runs, so
  // coalesced by the sector rule, in 4 lines; its store of y[i][j] writes 4
  // runs of 32 bytes, also in 4 lines. The L1 serves one line a cycle whether
  // a line's threads read one word or distinct words (h200_l1lines.txt): with
  // `lines` 4 + 4 = 8 wavefronts a warp, without it 1 + 1.
  auto hw = h100();
  auto ki = kernelOf("#define N 1024\nfloat A[N][N]\nfloat y[N][N]\nparallel_for(N, N) : i, j {\n"
                     "  ld A[i][0]\n  comp 1\n  st y[i][j]\n}\n");
  auto on = apply(ki, "block=i:4,j:8", {"lsu", "lines"});
  ASSERT_TRUE(on.c.accesses[0].pattern.coalesced);
  ASSERT_DOUBLE_EQ(on.c.accesses[0].pattern.lines, 4);
  EXPECT_DOUBLE_EQ(on.a.effects.l1WavefrontsPerWarp, 8);
  EXPECT_DOUBLE_EQ(apply(ki, "block=i:4,j:8", {"lsu"}).a.effects.l1WavefrontsPerWarp, 2);
  // 1024 x 1024 / 32 warps over 132 SMs, 8 wavefronts each at one a cycle.
  EXPECT_NEAR(on.a.effects.lsuFloorMs, 1024.0 * 1024 / 32 / 132 * 8 / (hw.clockGHz * 1e6), 1e-12);
  // A warp 32 threads wide reads A[i][0] once and writes one 128-byte line.
  EXPECT_DOUBLE_EQ(apply(ki, "block=i:4,j:32", {"lsu", "lines"}).a.effects.l1WavefrontsPerWarp, 2);
}

TEST(ModernTerms, TheLinesOfAGroupsLoadsPassOneAfterAnother) {
  // One thread a row walking a[i][j] and b[i][j] (32 lines a load): the two
  // loads form one group, and the second's 31 extra lines (31 x 2.22 = 68.82
  // cycles) come after the first's, so each of the 1024 groups waits 68.82
  // cycles more than the walk of a alone. Unrolled by 4, a group holds 8 such
  // loads: 7 x 68.82 more than its slowest (3 x 68.82 for a alone), 256 groups.
  const char *two = "#define N 1024\nfloat a[N][N]\nfloat b[N][N]\nfloat y[N]\nparallel_for(N) : i {\n"
                    "  for j = 0:N {\n    ld a[i][j]\n    ld b[i][j]\n    comp 2\n  }\n  st y[i]\n}\n";
  const char *one = "#define N 1024\nfloat a[N][N]\nfloat y[N]\nparallel_for(N) : i {\n"
                    "  for j = 0:N {\n    ld a[i][j]\n    comp 2\n  }\n  st y[i]\n}\n";
  std::set<std::string> terms = {"mlp", "caches", "lines"};
  auto exposed = [&](const char *text, const char *layout) {
    return apply(kernelOf(text), layout, terms).a.workload.exposedLatencyCycles;
  };
  double passage = 31 * 2.22;
  EXPECT_NEAR(exposed(two, "block=i:32") - exposed(one, "block=i:32"), 1024 * passage, 1e-6);
  double slowest = exposed(one, "block=i:32") / 1024; // a group of one load: its latency
  EXPECT_NEAR(exposed(one, "block=i:32 unroll=j:4"), 256 * (slowest + 3 * passage), 1e-6);
  EXPECT_NEAR(exposed(two, "block=i:32 unroll=j:4"), 256 * (slowest + 7 * passage), 1e-6);
  // Without `lines` the group waits for its slowest load only.
  EXPECT_NEAR(apply(kernelOf(two), "block=i:32", {"mlp", "caches"}).a.workload.exposedLatencyCycles,
              apply(kernelOf(one), "block=i:32", {"mlp", "caches"}).a.workload.exposedLatencyCycles, 1e-6);
}

TEST(ModernTerms, LongestTaskSetsTheTimeOfOneWave) {
  // Row i of a triangle walks j = 0..i: mean trip 8192.5 for N = 16384, the
  // last row 16384. block=i:128 is 128 blocks, one wave on 132 SMs: the time
  // is the longest block's, 16384 / 8192.5 of the mean.
  const char *tri = "#define N 16384\nfloat L[N][N]\nfloat x[N]\nfloat y[N]\nparallel_for(N) : i {\n"
                    "  stream j = 0:i + 1 {\n    ld L[i][j]\n    ld x[j]\n    comp 2\n  }\n  st y[i]\n}\n";
  auto ki = kernelOf(tri);
  auto one = apply(ki, "block=i:128", {"longest"});
  EXPECT_DOUBLE_EQ(one.a.effects.longestFactor, 16384 / 8192.5);
  model::HongKimResult r;
  r.timeMs = 1.0;
  model::settleModernTerms(one.a.effects, model::termBit(model::TermId::Longest), r);
  EXPECT_DOUBLE_EQ(r.timeMs, 16384 / 8192.5);
  // block=i:1: 16384 blocks against 132 SMs x 32 blocks = 3.88 waves: the
  // long rows pad out: factor max(1, 2.0 / 3.88) = 1.
  auto many = apply(ki, "block=i:1", {"longest"});
  EXPECT_DOUBLE_EQ(many.a.effects.longestFactor, 1);
}

TEST(ModernTerms, OneBlockPastAFullWaveLastsTwoRoundsOfABlockAlone) {
  // A triad of 1057 blocks of 256 threads: a wave is 132 SMs x 8 blocks =
  // 1056, so the busiest SM runs 9 blocks: its 8 slots in 2 rounds, the 9th
  // block alone after the first 8. A block alone waits out its loads' latency
  // (case 1), W(8) = E + C + C / M x 7, which is nearly a full SM's wave, so
  // the 2 rounds outlast the issue of 9 / 8 full waves: factor 2 W(8) / (Rep
  // W(64)), Rep = 1057 / 1056 (1.85; ceil(Rep) / Rep = 2 x 1056 / 1057 before
  // the full SM's wave was weighed, which draws its loads at MWP < N).
  const char *triad = "#define N 270592\nfloat a[N]\nfloat b[N]\nfloat c[N]\n"
                      "parallel_for(N) : i {\n  ld b[i]\n  ld c[i]\n  comp 4\n  st a[i]\n}\n";
  auto ki = kernelOf(triad);
  auto one = apply(ki, "block=i:256", {"tail"});
  auto core = model::hongKim(one.a.workload, one.a.hw);
  double alone = core.memCyclesExposed + core.compCycles + core.compCycles / core.memInsts * 7;
  EXPECT_EQ(one.a.effects.tailBusiestBlocks, 9);
  EXPECT_DOUBLE_EQ(one.a.effects.tailFactor, 2 * alone / (1057.0 / 1056.0 * model::waveCycles(core, 64)));
  EXPECT_NEAR(one.a.effects.tailFactor, 1.852, 0.001);
  // One block short of a full wave (1055 blocks): one round; the busiest SM's
  // 8 blocks against the mean 7.99: factor W(64) / W(63.94), barely above 1.
  const char *short_ = "#define N 270080\nfloat a[N]\nfloat b[N]\nfloat c[N]\n"
                       "parallel_for(N) : i {\n  ld b[i]\n  ld c[i]\n  comp 4\n  st a[i]\n}\n";
  auto s = apply(kernelOf(short_), "block=i:256", {"tail"});
  auto sc = model::hongKim(s.a.workload, s.a.hw);
  EXPECT_DOUBLE_EQ(s.a.effects.tailFactor, model::waveCycles(sc, 64) / model::waveCycles(sc, sc.n));
  EXPECT_NEAR(s.a.effects.tailFactor, 1.0009, 0.0001);
  // Exactly two waves (2112 blocks): 16 blocks an SM, 2 full rounds.
  const char *two = "#define N 540672\nfloat a[N]\nfloat b[N]\nfloat c[N]\n"
                    "parallel_for(N) : i {\n  ld b[i]\n  ld c[i]\n  comp 4\n  st a[i]\n}\n";
  EXPECT_DOUBLE_EQ(apply(kernelOf(two), "block=i:256", {"tail"}).a.effects.tailFactor, 1.0);
}

TEST(ModernTerms, SkelcastBeatsTheBaselinesOnTheH100Measurements) {
  std::vector<model::Measurements> runs{
      model::loadMeasurements(kSrc + "/validation/results/h100_kernels.json"),
      model::loadMeasurements(kSrc + "/validation/results/h100_run2_kernels.json"),
      model::loadMeasurements(kSrc + "/validation/results/h100_run3_kernels.json"),
      model::loadMeasurements(kSrc + "/validation/results/h100_run4_kernels.json"),
      model::loadMeasurements(kSrc + "/validation/results/h100_run5_kernels.json"),
      model::loadMeasurements(kSrc + "/validation/results/h100_run6_kernels.json")};
  auto m = model::mergeRuns(runs);
  auto hw = h100();
  auto v = model::validate(m, hw, {}, "skelcast");
  EXPECT_LT(v.geomeanError, v.rooflineGeomeanError);
  EXPECT_LE(v.geomeanError, 0.20) << "geometric-mean error on the H100 measurements (issue 5 target)";
  // The issue's second target (docs/validation.md): for every kernel, the
  // projected favourite within 10% of the fastest measured layout.
  // Three kernels miss it by a tie: streaming 2^20 since the launches' L2
  // residency (every layout at the L2 floor plus the launch, 8.29 us; measured
  // 7.25 to 10.8 us, the tie-break's block=i:1024 8.0 us, 0.4% past the 10%),
  // and SpinFlap at 132x2048 and 132x65536, every layout at the DRAM floor:
  // the tie-break by the floors' headroom (docs/model.md, section 2, "Ties")
  // takes block=j:4,i:64 at 65536 (0.115 ms, 11% past the fastest, the
  // unrolled block=j:1,i:128 that the core's time chose before), and gains 1
  // to 5 kernels on each emitted set (docs/validation.md).
  EXPECT_GE(v.topWithinTen, static_cast<int>(v.kernels.size()) - 3)
      << "kernels whose projected favourite is within 10% of the fastest";
  // The paper-faithful model on the same cases (projecting only the measured layouts).
  model::ModelOptions hk;
  hk.model = model::parseModelSpec("hong-kim");
  double logSum = 0;
  for (const auto &c : m.cases) {
    auto ki = layout::analyzeKernel(skeleton::parseSkeletonFile(c.skeleton), 0);
    double p = model::projectLayout(ki, layout::parseLayout(ki, c.layout, hw), hw, hk).result.timeMs;
    logSum += std::log(std::max(p / c.timeMs, c.timeMs / p));
  }
  EXPECT_LT(v.geomeanError, std::expm1(logSum / static_cast<double>(m.cases.size())));
}

// A double kernel on a GPU without FP64 (fx5600, peak_dp_gflops 0) got "fp64
// extra issue 0", as if FP64 were free (issue 17, item 8): it is an error naming
// the kernel and the spec, whatever the model.
TEST(Fp64, AGpuWithoutFp64RefusesAKernelWithFp64Instructions) {
  auto fx = hw::resolveHwSpec("fx5600", kSrc + "/hwspecs");
  ASSERT_EQ(fx.peakDpGflops, 0);
  layout::KernelInfo ki = kernelOf("#define N 1024\ndouble a[N]\nparallel_for dbl(N) : i {\n"
                                   "  ld a[i]\n  comp 4 (fp64:2)\n  st a[i]\n}\n");
  for (const char *m : {"skelcast", "hong-kim", "roofline"}) {
    model::ModelOptions mo;
    mo.model = model::parseModelSpec(m);
    try {
      model::projectKernel(ki, fx, {}, mo);
      ADD_FAILURE() << m << ": no error";
    } catch (const InputError &e) {
      EXPECT_EQ(std::string(e.what()),
                "--hw: error: kernel 'dbl' executes FP64 instructions, but fx5600 has no FP64 "
                "units (peak_dp_gflops 0)")
          << m;
    }
  }
  // Without FP64 instructions the same GPU projects it.
  layout::KernelInfo sp = kernelOf("#define N 1024\nfloat a[N]\nparallel_for sp(N) : i {\n"
                                   "  ld a[i]\n  comp 4\n  st a[i]\n}\n");
  EXPECT_FALSE(model::projectKernel(sp, fx, {}, {}).layouts.empty());
}

// Worked by hand: MatMul's register tile, block=i:16,j:16 fold=i:8,j:8 (F = 64)
// cache=A,B, with a k loop of 64. Each task reads A[i][k] and B[k][j] once per
// k: eq. 17 counts their address instructions F x 64 = 4,096 times each. The
// thread's 64 tasks read 8 distinct A[i][k] (8 values of i) and 8 distinct
// B[k][j] per k (eq. 13: 8 x 64 = 512 each), so 2 x (4,096 - 512) = 7,168 are
// shared. The store C[i][j] is one element per task: nothing shared. Unfolded,
// or reading A and B straight from global memory, nothing.
TEST(ModernTerms, JammedTasksShareTheAddressOfAnElementTheyAllRead) {
  auto ki = kernelOf("#define N 1024\nfloat A[N][64]\nfloat B[64][N]\nfloat C[N][N]\n"
                     "parallel_for(N, N) : i, j {\n  for k = 0:64 {\n    ld A[i][k]\n    ld B[k][j]\n"
                     "    comp 3\n  }\n  st C[i][j]\n}\n");
  auto r = apply(ki, "block=i:16,j:16 fold=i:8,j:8 cache=A,B", {"jam"});
  EXPECT_DOUBLE_EQ(r.c.jammedAddressInsts, 7168.0);
  EXPECT_DOUBLE_EQ(r.a.effects.jammedAddressInsts, 7168.0);
  EXPECT_DOUBLE_EQ(r.c.workload.compInsts - r.a.workload.compInsts, 7168.0);
  auto off = apply(ki, "block=i:16,j:16 fold=i:8,j:8 cache=A,B", {});
  EXPECT_DOUBLE_EQ(off.a.workload.compInsts, off.c.workload.compInsts) << "switched off, Comp_insts as eq. 17";
  auto unfolded = apply(ki, "block=i:16,j:16 cache=A,B", {"jam"});
  EXPECT_DOUBLE_EQ(unfolded.c.jammedAddressInsts, 0.0);
  auto direct = apply(ki, "block=i:16,j:16 fold=i:8,j:8", {"jam"});
  EXPECT_DOUBLE_EQ(direct.c.jammedAddressInsts, 0.0) << "direct global loads are left out";
}
