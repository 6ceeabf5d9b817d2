// `--load-groups sass` (docs/model.md, "Load groups from the SASS"): the
// layout is emitted, built and its SASS read; the registers of loads a wait go
// into `mlp`. The compilers are stand-ins on PATH that answer as nvcc and
// cuobjdump do, so the test runs the same with or without the CUDA toolkit.
#include "../support/CliRun.h"
#include "../support/CudaStandIns.h"
#include "../support/TempDir.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#ifdef SKELCAST_HAVE_FRONTEND

namespace {

using skelcast::testsupport::CliRun;
using skelcast::testsupport::run;
using skelcast::testsupport::TempDir;
using StandIns = skelcast::testsupport::CudaStandIns;

const std::string kSrc = SKELCAST_SOURCE_DIR;

// A 5-point stencil: 5 loads of 4 bytes a task.
const char *kStencil = "#define N 1024\n"
                       "float u[N][N], v[N][N];\n"
                       "void jacobi(void) {\n"
                       "  for (int i = 1; i < N - 1; i++)\n"
                       "    for (int j = 1; j < N - 1; j++)\n"
                       "      v[i][j] = 0.2f * (u[i][j] + u[i-1][j] + u[i+1][j] + u[i][j-1] + u[i][j+1]);\n"
                       "}\n";

// What cuobjdump -sass prints for a kernel whose 8 registers of loads are
// waited for in two groups: 4 registers of loads a wait.
const char *kSass = R"(
	code for sm_90
		Function : skelcast_jacobi
        /*0000*/                   LDG.E R2, desc[UR4][R10.64] ;
        /*0010*/                   LDG.E R3, desc[UR4][R10.64+0x4] ;
        /*0020*/                   LDG.E.64 R4, desc[UR4][R12.64] ;
        /*0030*/                   FADD R6, R2, R3 ;
        /*0040*/                   FADD R6, R6, R4 ;
        /*0050*/                   LDG.E.128 R8, desc[UR4][R14.64] ;
        /*0060*/                   FADD R7, R8, R9 ;
        /*0070*/                   STG.E desc[UR4][R16.64], R7 ;
        /*0080*/                   EXIT ;
)";

/// The value of `explain`'s row that starts with `label`, or "" when absent.
std::string row(const std::string &out, const std::string &label) {
  size_t at = out.find("  " + label);
  if (at == std::string::npos)
    return "";
  size_t end = out.find('\n', at);
  std::string line = out.substr(at + 2 + label.size(), end - at - 2 - label.size());
  size_t b = line.find_first_not_of(' ');
  return b == std::string::npos ? "" : line.substr(b, line.find(' ', b) - b);
}

} // namespace

TEST(LoadGroups, TheSassRegistersAWaitReplaceTheEstimatesSixteen) {
  StandIns tools(kSass);
  std::string c = tools.dir().write("jacobi.c", kStencil);
  std::vector<std::string> args = {"explain", c, "--hw", "h200", "--layout", "block=i:8,j:32 fold=i:8"};
  CliRun est = run(args);
  ASSERT_EQ(est.rc, 0) << est.err;
  EXPECT_EQ(row(est.out, "load registers a wait (estimate)"), "16") << est.out;
  // 8 jammed tasks of 5 loads: 40 registers, 40 / 16 groups.
  EXPECT_EQ(row(est.out, "load groups per thread"), "2.5") << est.out;

  args.push_back("--load-groups");
  args.push_back("sass");
  CliRun sass = run(args);
  ASSERT_EQ(sass.rc, 0) << sass.err;
  // 8 registers of loads (LDG, LDG, LDG.64, LDG.128) in 2 groups: the second
  // FADD waits for a load issued before the first wait, which ends no group.
  EXPECT_EQ(row(sass.out, "load registers a wait (SASS)"), "4") << sass.out;
  EXPECT_EQ(row(sass.out, "load groups per thread"), "10") << "40 / 4\n" << sass.out;
  // The registers stay the estimate: --counts is table.
  EXPECT_NE(sass.out.find("registers per thread (estimate)"), std::string::npos) << sass.out;
  EXPECT_EQ(sass.err.find("warning"), std::string::npos) << sass.err;
}

TEST(LoadGroups, ASassThatCannotBeReadKeepsTheEstimateWithAWarning) {
  StandIns tools("");
  std::string c = tools.dir().write("jacobi.c", kStencil);
  CliRun r = run({"explain", c, "--hw", "h200", "--layout", "block=i:8,j:32 fold=i:8", "--load-groups", "sass"});
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(row(r.out, "load registers a wait (estimate)"), "16") << r.out;
  EXPECT_NE(r.err.find("load groups from the model's estimate, not the compiled code, for 1 of the 1"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("no cubin here"), std::string::npos) << "cuobjdump's own message\n" << r.err;
}

TEST(LoadGroups, ValidateReadsThemForEveryMeasuredLayoutWithoutMarkingItsRegisters) {
  StandIns tools(kSass);
  std::filesystem::current_path(kSrc); // the measurements name their C files from there
  const std::vector<std::string> base = {"validate", "tests/data/ptxas/matmul_kernels.json", "--hw", "h100"};
  auto with = [&](std::vector<std::string> extra) {
    std::vector<std::string> a = base;
    a.insert(a.end(), extra.begin(), extra.end());
    return run(a);
  };
  CliRun est = with({}), sass = with({"--load-groups", "sass"});
  CliRun noRegs = with({"--load-groups", "sass", "--without", "registers"});
  ASSERT_EQ(sass.rc, 0) << sass.err;
  EXPECT_NE(sass.out.find("load groups from the SASS for all 2 cases"), std::string::npos) << sass.out;
  // --counts is table: the registers are the estimate's, and not marked as asked for.
  EXPECT_EQ(sass.out.find("registers per thread from ptxas"), std::string::npos) << sass.out;
  EXPECT_EQ(est.out.find("load groups from the SASS"), std::string::npos) << est.out;
  // The groups do not hang on the registers term.
  ASSERT_EQ(noRegs.rc, 0) << noRegs.err;
  EXPECT_NE(noRegs.out.find("load groups from the SASS for all 2 cases"), std::string::npos) << noRegs.out;
}

TEST(LoadGroups, ValidatesFavouriteIsRankedWithTheSassGroupsToo) {
  // The favourite validate compares is the one the same options rank first:
  // with --load-groups sass, the estimate's best rerankCandidates(1) built and
  // projected again with their groups (4 registers of loads a wait here, which
  // puts the estimate's register tile behind another layout). Without the
  // registers term, whose sub-partitions otherwise hold the estimate's tile
  // first either way: the test is of the ranking, not of a term.
  StandIns tools(kSass);
  std::filesystem::current_path(kSrc);
  auto top = [](const CliRun &r) {
    size_t at = r.out.find("enumerator's top: ");
    if (at == std::string::npos)
      return std::string();
    at += 18;
    return r.out.substr(at, r.out.find(';', at) - at);
  };
  const std::vector<std::string> base = {"validate", "tests/data/ptxas/matmul_kernels.json", "--hw", "h200",
                                         "--force", "--without", "registers"};
  CliRun est = run(base);
  std::vector<std::string> withSass = base;
  withSass.insert(withSass.end(), {"--load-groups", "sass"});
  CliRun sass = run(withSass);
  ASSERT_EQ(est.rc, 0) << est.err;
  ASSERT_EQ(sass.rc, 0) << sass.err;
  ASSERT_FALSE(top(est).empty()) << est.out;
  EXPECT_NE(top(sass), top(est)) << "the favourite under --load-groups sass is still the estimate's\n" << sass.out;
}

TEST(LoadGroups, InputsWithoutCToEmitSayTheEstimateStays) {
  TempDir dir;
  std::string skel = dir.write("k.skel", "#define N 1024\nfloat a[N]\nfloat b[N]\n"
                                         "parallel_for(N) : i {\n  ld a[i]\n  comp 2\n  st b[i]\n}\n");
  CliRun r = run({"explain", skel, "--hw", "h200", "--layout", "block=i:128", "--load-groups", "sass"});
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.err.find("a skeleton has no C to emit"), std::string::npos) << r.err;
  EXPECT_EQ(row(r.out, "load registers a wait (estimate)"), "16") << r.out;
  // Without the mlp term there is nothing to read and no row to show.
  CliRun off = run({"explain", skel, "--hw", "h200", "--layout", "block=i:128", "--without", "mlp"});
  ASSERT_EQ(off.rc, 0) << off.err;
  EXPECT_EQ(off.out.find("load registers a wait"), std::string::npos) << off.out;
}

TEST(LoadGroups, AnUnknownValueIsAUsageError) {
  CliRun r = run({"project", "examples/matmul.c", "--load-groups", "ptxas"});
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("--load-groups"), std::string::npos) << r.err;
}

#endif
