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
  EXPECT_NE(cu.find("__launch_bounds__(256) skelcast_matmul(float (*A)[32], float (*B)[64], "
                    "float (*C)[64])"),
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
  EXPECT_NE(cu.find("continue; // outside the loop space"), std::string::npos);
  EXPECT_NE(cu.find("const dim3 grid(2, 8, 1), block(16, 4, 1);"), std::string::npos);
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
