// emit (docs/emit.md): the CUDA of a layout from the C nest's AST. What the
// kernels compute is checked by tests/emit/emulate_examples.sh (they run on
// the CPU against the C nest); these tests pin the mapping of each layout
// element and the refusals.
#include "skelcast/emit/Emit.h"

#include "../support/TempDir.h"
#include "ValidateRun.h"
#include "skelcast/hw/HwSpec.h"
#include "skelcast/layout/KernelInfo.h"

#include <gtest/gtest.h>

#include <sstream>

namespace {

using skelcast::InputError;
namespace emit = skelcast::emit;
namespace layout = skelcast::layout;

const std::string kMatmul = R"(#define N 64
#define K 32
float A[N][K], B[K][N], C[N][N];
void matmul(void) {
  int i, j, k;
  for (i = 0; i < N; ++i)
    for (j = 0; j < N; ++j) {
      float sum = 0;
      for (k = 0; k < K; ++k)
        sum += A[i][k] * B[k][j];
      C[i][j] = sum;
    }
}
)";

/// Emit kernel 0 of `code` in the layout `text` ("naive" for the naive one).
std::string emitOne(const std::string &code, const std::string &text) {
  skelcast::testsupport::TempDir dir("skelcast-emit");
  std::string path = dir.write("k.c", code);
  skelcast::hw::HwSpec hw = skelcast::hw::resolveHwSpec("h100", SKELCAST_SOURCE_DIR "/hwspecs");
  std::ostringstream diag;
  std::vector<skelcast::Warning> warnings;
  emit::EmitResult r = emit::emitCuda(
      path, {}, {},
      [&](const skelcast::frontend::SkeletonizeResult &res) {
        emit::KernelChoice c;
        c.kernel = 0;
        layout::KernelInfo ki = layout::analyzeKernel(res.file, 0);
        c.layout = text == "naive" ? emit::naiveLayout(ki) : layout::parseLayout(ki, text, hw);
        c.tag = "t";
        return std::vector<emit::KernelChoice>{c};
      },
      diag, warnings);
  EXPECT_EQ(r.kernels.size(), 1u);
  return r.kernels.empty() ? "" : r.kernels[0].cuda;
}

TEST(Emit, NaiveLayoutIsOneTaskPerThreadWithTheUsersStatements) {
  std::string cu = emitOne(kMatmul, "naive");
  // 16 x 16 threads, j (the last index) on threadIdx.x
  // arrays only read are `const`; each is its own allocation: `restrict`
  EXPECT_NE(cu.find("__launch_bounds__(256) skelcast_matmul(const float (*restrict A)[32], "
                    "const float (*restrict B)[64], float (*restrict C)[64])"),
            std::string::npos)
      << cu;
  EXPECT_NE(cu.find("blockIdx.x * 16 + threadIdx.x"), std::string::npos);
  EXPECT_NE(cu.find("blockIdx.y * 16 + threadIdx.y"), std::string::npos);
  // the C statements, macros folded; k is private (declared outside the nest)
  EXPECT_NE(cu.find("sum += A[i][k] * B[k][j];"), std::string::npos);
  EXPECT_NE(cu.find("int k; // private"), std::string::npos);
  EXPECT_EQ(cu.find("comp "), std::string::npos);
  EXPECT_EQ(cu.find("__syncthreads();"), std::string::npos);
  EXPECT_NE(cu.find("#define SKELCAST_BARRIERS 0"), std::string::npos);
  // the host runs the C nest for reference; grid 4 x 4
  EXPECT_NE(cu.find("static void skelcast_reference("), std::string::npos);
  EXPECT_NE(cu.find("const dim3 grid(4, 4, 1), block(16, 16, 1);"), std::string::npos) << cu;
  EXPECT_NE(cu.find("\"layout\\\": \\\"block=i:16,j:16\\\""), std::string::npos);
}

TEST(Emit, FoldIsCyclicInsideTheBlockTile) {
  std::string cu = emitOne(kMatmul, "block=i:4,j:16 fold=i:2,j:2");
  EXPECT_NE(cu.find("for (int sk_f0 = 0; sk_f0 < 2; ++sk_f0) { // fold=i:2"), std::string::npos);
  EXPECT_NE(cu.find("(long long)blockIdx.x * 32 + sk_f1 * 16 + threadIdx.x"), std::string::npos)
      << cu;
  // 64 = 8 tiles of 8 along i, 2 of 32 along j: no task outside the space
  EXPECT_NE(cu.find("// 'i': 64 trips, 8 whole tiles of 8: every task in range"), std::string::npos);
  EXPECT_EQ(cu.find("continue; // outside the loop space"), std::string::npos);
  EXPECT_NE(cu.find("const dim3 grid(2, 8, 1), block(16, 4, 1);"), std::string::npos);
}

/// Where `what` is in `cu` after `from`, failing the test when it is not.
size_t at(const std::string &cu, const std::string &what, size_t from = 0) {
  size_t p = cu.find(what, from);
  EXPECT_NE(p, std::string::npos) << "expected '" << what << "' after offset " << from
                                  << " in:\n" << cu;
  return p == std::string::npos ? from : p;
}

TEST(Emit, AFoldedLayoutIsARegisterTileInsideTheStreamingLoop) {
  // eq. 13's register tile: the 8 tasks run inside `for k`, so B[k][j] is one
  // load for the 4 rows of a thread; `sum` is one register per task
  std::string cu = emitOne(kMatmul, "block=i:2,j:16 fold=i:4,j:2 unroll=k:8");
  at(cu, "// Folding: a register tile, the thread's 8 tasks run inside the streaming loop 'k'");
  at(cu, "float sum[8]; // one per task of the thread");
  size_t init = at(cu, "sum[sk_fl] = 0;");
  size_t loop = at(cu, "#pragma unroll 8\n  for (k = 0; k < 32; ++k) { // the thread's tasks run "
                       "inside\n",
                   init);
  size_t f0 = at(cu, "#pragma unroll\n      for (int sk_f0 = 0; sk_f0 < 4; ++sk_f0)", loop);
  size_t f1 = at(cu, "#pragma unroll\n        for (int sk_f1 = 0; sk_f1 < 2; ++sk_f1)", f0);
  size_t body = at(cu, "sum[sk_fl] += A[i][k] * B[k][j];", f1);
  at(cu, "C[i][j] = sum[sk_fl];", body);
  // one k loop in the kernel (the next is the host's reference nest)
  EXPECT_GT(cu.find("for (k = 0;", body), cu.find("static void skelcast_reference")) << cu;
}

TEST(Emit, PartialTilesKeepEachTasksGuardBesideAFastPath) {
  std::string code = kMatmul;
  code.replace(code.find("#define N 64"), 12, "#define N 60");
  std::string cu = emitOne(code, "block=i:2,j:16 fold=i:4,j:2 unroll=k:8");
  // the threads whose last tasks are in range run the tile without guards
  size_t fast = at(cu, "if ((long long)blockIdx.y * 8 + 6 + threadIdx.y < ((long long)(60) - (0) + "
                       "0) / 1 && (long long)blockIdx.x * 32 + 16 + threadIdx.x < ((long long)(60) "
                       "- (0) + 0) / 1) { // every task of the thread in range");
  size_t slow = at(cu, "} else {", fast);
  EXPECT_EQ(cu.substr(fast, slow - fast).find("continue;"), std::string::npos) << cu;
  size_t guard = at(cu, "if (!(sk_t0 < sk_n0 && sk_t1 < sk_n1)) continue; // outside the loop space",
                    slow);
  at(cu, "sum[sk_fl] += A[i][k] * B[k][j];", guard);
}

TEST(Emit, AFoldedStageRunsTheTasksInsideEachIterationOfTheStage) {
  std::string cu = emitOne(kMatmul, "block=i:4,j:16 fold=i:2,j:2 stage=k:16 cache=A,B unroll=k:16");
  size_t stage = at(cu, "for (long long sk_k0 = 0; sk_k0 < 32; sk_k0 += 16)");
  size_t sync = at(cu, "__syncthreads();", stage);
  size_t k = at(cu, "#pragma unroll 16\n    for (k = sk_k0; k < sk_k0 + 16 && k < 32; k += 1) { // "
                    "the thread's tasks run inside",
                sync);
  size_t f0 = at(cu, "for (int sk_f0 = 0; sk_f0 < 2; ++sk_f0)", k);
  at(cu, "sum[sk_fl] += sk_A_tile[", f0);
  at(cu, "__syncthreads();", f0);
}

TEST(Emit, AFoldedBodyThatIsNoTileSaysWhyInTheFile) {
  const std::string two = R"(#define N 64
float A[N][N], B[N][N], C[N][N];
void two(void) {
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < N; ++j) {
      float s = 0;
      for (int k = 0; k < N; ++k)
        s += A[i][k];
      for (int k = 0; k < N; ++k)
        s += B[k][j];
      C[i][j] = s;
    }
}
)";
  std::string cu = emitOne(two, "block=i:4,j:16 fold=i:2,j:2");
  at(cu, "// Folding: a loop over the thread's 4 tasks, not a register tile: several loops side "
         "by side at the top of the nest's body");
  size_t f0 = at(cu, "for (int sk_f0 = 0; sk_f0 < 2; ++sk_f0)");
  at(cu, "float s = 0;", f0); // the task's own local, in the loop over tasks
  const std::string tri = R"(#define N 64
float A[N][N], C[N];
void tri(void) {
  for (int i = 0; i < N; ++i) {
    float s = 0;
    for (int k = 0; k <= i; ++k)
      s += A[i][k];
    C[i] = s;
  }
}
)";
  cu = emitOne(tri, "block=i:32 fold=i:2");
  at(cu, "not a register tile: the bounds of the streaming loop differ from task to task");
}

TEST(Emit, AFoldedLoopFreeBodyUnrollsItsTasks) {
  const std::string add = R"(#define N 256
float x[N], y[N];
void add(void) {
  for (int i = 0; i < N; ++i)
    y[i] = x[i] + 1;
}
)";
  std::string cu = emitOne(add, "block=i:32 fold=i:4");
  at(cu, "// Folding: the thread's 4 tasks, unrolled (the body has no loop).");
  at(cu, "#pragma unroll\n  for (int sk_f0 = 0; sk_f0 < 4; ++sk_f0)");
}

TEST(Emit, UnrollIsAPragmaOnTheCLoop) {
  std::string cu = emitOne(kMatmul, "block=i:16,j:16 unroll=k:8");
  EXPECT_NE(cu.find("#pragma unroll 8\nfor (k = 0; k < 32; ++k)"), std::string::npos) << cu;
}

TEST(Emit, StageLoadsTilesOfTheCachedArraysBetweenBarriers) {
  std::string cu = emitOne(kMatmul, "block=i:16,j:16 stage=k:16 cache=A,B unroll=k:16");
  EXPECT_NE(cu.find("cache=A: 16 x 16 elements per stage of 'k'"), std::string::npos) << cu;
  EXPECT_NE(cu.find("cache=B: 16 x 16 elements per stage of 'k'"), std::string::npos);
  EXPECT_NE(cu.find("for (long long sk_k0 = 0; sk_k0 < 32; sk_k0 += 16)"), std::string::npos);
  EXPECT_NE(cu.find("sk_A_tile[((i) - sk_A_b0) * 16 + ((k) - sk_A_b1)]"), std::string::npos);
  EXPECT_NE(cu.find("#pragma unroll 16"), std::string::npos);
  EXPECT_NE(cu.find("__syncthreads();"), std::string::npos);
  EXPECT_NE(cu.find("const size_t smem = 2048;"), std::string::npos); // 2 x 256 floats
  // threads outside the space still meet the barriers: no early return
  EXPECT_EQ(cu.find("return; // outside"), std::string::npos);
}

TEST(Emit, CacheWithoutStageLoadsTheWholeBlockFootprintOnce) {
  std::string cu = emitOne(kMatmul, "block=i:16,j:16 cache=A");
  EXPECT_NE(cu.find("cache=A: 16 x 32 elements of the block's footprint"), std::string::npos)
      << cu;
}

TEST(Emit, AReductionIsRefusedAtTheVariable) {
  const std::string dot = R"(#define N 1024
float x[N], y[N];
float dot(void) {
  float s = 0;
#pragma omp parallel for reduction(+:s)
  for (int i = 0; i < N; ++i)
    s += x[i] * y[i];
  return s;
}
)";
  try {
    emitOne(dot, "naive");
    FAIL() << "a reduction was emitted";
  } catch (const InputError &e) {
    EXPECT_EQ(e.loc().line, 4);
    EXPECT_NE(e.message().find("cannot emit kernel 'dot': the reduction into 's'"),
              std::string::npos)
        << e.message();
  }
}

TEST(Emit, LaunchShapeAndNaiveLayout) {
  layout::KernelInfo ki;
  ki.dimSize = {1000, 3};
  layout::Layout l = emit::naiveLayout(ki);
  EXPECT_EQ(l.block, (std::vector<int64_t>{16, 4})); // capped by the dimension, rounded up
  l.fold = {2, 1};
  emit::LaunchShape s = emit::launchShape(ki, l);
  EXPECT_EQ(s.block[0], 4);   // x: the last dimension
  EXPECT_EQ(s.block[1], 16);
  EXPECT_EQ(s.grid[0], 1);
  EXPECT_EQ(s.grid[1], 32);   // ceil(1000 / 32)
}

TEST(ValidateRun, ArchitectureFromTheSpec) {
  skelcast::hw::HwSpec hw = skelcast::hw::resolveHwSpec("h100", SKELCAST_SOURCE_DIR "/hwspecs");
  EXPECT_EQ(skelcast::cli::cudaArch(hw), "sm_90");
  hw.computeCapability.clear();
  EXPECT_THROW(skelcast::cli::cudaArch(hw), InputError);
}

TEST(ValidateRun, ANvccThatIsNotAnExecutableIsAnError) {
  EXPECT_THROW(skelcast::cli::findNvcc("/no/such/nvcc"), InputError);
}

TEST(ValidateRun, RecordsMergeIntoOneMeasurementFile) {
  auto rec = [](const char *layout) {
    return nlohmann::json::parse(std::string(R"({"schema_version": 1, "gpu": {"name": "G"},
      "method": "m", "cases": [{"kernel": "k", "layout": ")") + layout + R"("}]})");
  };
  nlohmann::json m = nlohmann::json::parse(skelcast::cli::mergeRecords({rec("a"), rec("b")}, "."));
  EXPECT_EQ(m["gpu"]["name"], "G");
  ASSERT_EQ(m["cases"].size(), 2u);
  EXPECT_EQ(m["cases"][1]["layout"], "b");
  nlohmann::json other = rec("c");
  other["gpu"]["name"] = "H";
  EXPECT_THROW(skelcast::cli::mergeRecords({rec("a"), other}, "."), InputError);
}

// A record names the C file it was emitted from and the options it was read
// with, relative to the working directory, so validate projects it from C
// again (the user's path), not from the emitted skeleton.
TEST(ValidateRun, ARecordNamesItsCFileAndOptions) {
  nlohmann::json c = {{"kernel", "matvec"}, {"skeleton", "matvec_naive.skel"}};
  skelcast::frontend::SkeletonizeOptions so;
  so.clangArgs = {"-DN=4096"};
  so.extents["m"] = {64};
  so.trips["k"] = 9;
  so.function = "kernel_matvec";
  auto cwd = std::filesystem::current_path();
  skelcast::cli::nameCFile(c, (cwd / "examples" / "matvec.c").string(), so);
  EXPECT_FALSE(c.contains("skeleton")) << c.dump();
  EXPECT_EQ(c["c"], "examples/matvec.c") << c.dump();
  EXPECT_EQ(c["c_kernel"], "matvec");
  EXPECT_EQ(c["c_args"], nlohmann::json::array({"-DN=4096"}));
  EXPECT_EQ(c["c_extent"]["m"], nlohmann::json::array({64}));
  EXPECT_EQ(c["c_trip"]["k"], 9);
  EXPECT_EQ(c["c_function"], "kernel_matvec");
  nlohmann::json outside = {{"kernel", "k"}};
  skelcast::cli::nameCFile(outside, "/elsewhere/x.c", {});
  EXPECT_EQ(outside["c"], "/elsewhere/x.c");
  EXPECT_FALSE(outside.contains("c_args"));
}

} // namespace
