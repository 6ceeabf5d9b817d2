// `--sweep NAME=SIZES` (issue 20, item 2): the sizes, and every malformed spec
// as an error naming the option.
#include "Inputs.h"
#include "SweepSpec.h"
#include "Work.h"

#include "skelcast/skeleton/Parser.h"
#include "skelcast/support/Diagnostic.h"

#include <gtest/gtest.h>

#include <sstream>

using namespace skelcast;
using namespace skelcast::cli;

namespace {

const std::string kSrc = SKELCAST_SOURCE_DIR;

std::string errorOf(const std::string &spec) {
  try {
    parseSweepSpec(spec);
  } catch (const InputError &e) {
    return e.what();
  }
  return "(no error)";
}

} // namespace

TEST(SweepSpec, LogDoublesByDefault) {
  SweepSpec s = parseSweepSpec("N=1024..65536:log");
  EXPECT_EQ(s.name, "N");
  EXPECT_EQ(s.values, (std::vector<int64_t>{1024, 2048, 4096, 8192, 16384, 32768, 65536}));
  EXPECT_EQ(s.rule, "1024..65536, doubling");
  EXPECT_EQ(parseSweepSpec("N=1024..65536").values, s.values);
}

TEST(SweepSpec, LogWithAFactorEndsAtTheEnd) {
  SweepSpec s = parseSweepSpec("n=100..5000:log:10");
  EXPECT_EQ(s.values, (std::vector<int64_t>{100, 1000, 5000}));
  EXPECT_EQ(s.rule, "100..5000, x10");
  EXPECT_EQ(parseSweepSpec("N=7..7").values, std::vector<int64_t>{7});
}

TEST(SweepSpec, LinearAndLists) {
  EXPECT_EQ(parseSweepSpec("N=1000..4500:lin:1000").values, (std::vector<int64_t>{1000, 2000, 3000, 4000, 4500}));
  SweepSpec l = parseSweepSpec("SIZE_2=4000,1000,2000");
  EXPECT_EQ(l.values, (std::vector<int64_t>{1000, 2000, 4000}));
  EXPECT_EQ(l.rule, "the sizes listed");
}

TEST(SweepSpec, BadSpecsNameTheOption) {
  EXPECT_EQ(errorOf("N"), "--sweep: error: 'N' is not NAME=SIZES (e.g. --sweep N=1024..65536:log)");
  EXPECT_EQ(errorOf("N="), "--sweep: error: no sizes after 'N=' (e.g. N=1024..65536:log)");
  EXPECT_EQ(errorOf("=1..2"), "--sweep: error: '' is not a macro or --extent name (in '=1..2')");
  EXPECT_EQ(errorOf("2N=1..2"), "--sweep: error: '2N' is not a macro or --extent name (in '2N=1..2')");
  EXPECT_EQ(errorOf("N=4096..1024"), "--sweep: error: the range 4096..1024 is empty: its start is above its end");
  EXPECT_EQ(errorOf("N=..1024"), "--sweep: error: the range '..1024' needs a start and an end (e.g. N=1024..65536)");
  EXPECT_EQ(errorOf("N=abc..1024"), "--sweep: error: 'abc' is not an integer size (in 'N=abc..1024')");
  EXPECT_EQ(errorOf("N=1k,2k"), "--sweep: error: '1k' is not an integer size (in 'N=1k,2k')");
  EXPECT_EQ(errorOf("N=0..8"), "--sweep: error: size 0 is out of range [1, 2^62] (in 'N=0..8')");
  EXPECT_EQ(errorOf("N=1..8:cubic"), "--sweep: error: 'cubic' is not a spacing: log, log:FACTOR or lin:STEP (in 'N=1..8:cubic')");
  EXPECT_EQ(errorOf("N=1..8:lin"), "--sweep: error: ':lin' needs a step, e.g. N=1..8:lin:1 (in 'N=1..8:lin')");
  EXPECT_EQ(errorOf("N=1..8:log:1"), "--sweep: error: the factor of :log must be within (1, 1e6], is 1 (in 'N=1..8:log:1')");
  EXPECT_EQ(errorOf("N=1..8:log:x"), "--sweep: error: 'x' is not a number for the factor of :log (in 'N=1..8:log:x')");
  EXPECT_EQ(errorOf("N=1,2,2"), "--sweep: error: size 2 is listed twice (in 'N=1,2,2')");
  EXPECT_EQ(errorOf("N=1..1000000:lin:1"),
            "--sweep: error: 'N=1..1000000:lin:1' gives more than 64 sizes, more than a sweep takes: widen the step");
  EXPECT_EQ(errorOf("N=1..1000000000000000000:log:1.1"),
            "--sweep: error: 'N=1..1000000000000000000:log:1.1' gives more than 64 sizes, more than a sweep takes: widen the step");
}

TEST(SweepSpec, AtMostTheCap) {
  EXPECT_EQ(parseSweepSpec("N=1..64:lin:1").values.size(), kMaxSweepPoints);
}

TEST(SweepSize, SkelMacroIsReplaced) {
  std::ostringstream diag;
  std::string path = kSrc + "/skeletons/matmul.skel";
  LoadedInput in = loadSkeleton(path, withSize({}, path, "N", 1600), diag);
  EXPECT_EQ(in.file.kernels.size(), 1u);
  // The work of matmul is N x M x (its per-task count): doubling N doubles it.
  double w0 = programWork(loadSkeleton(path));
  double w1 = programWork(in.file);
  EXPECT_DOUBLE_EQ(w1 / w0, 2.0);
  try {
    loadSkeleton(path, withSize({}, path, "Q", 5), diag);
    ADD_FAILURE();
  } catch (const InputError &e) {
    EXPECT_EQ(std::string(e.what()),
              "--sweep: error: 'Q' is not a macro of " + path + " (its macros: N, K, M)");
  }
}

TEST(SweepSize, RepeatsCountInTheWork) {
  std::string path = kSrc + "/skeletons/hotspot.skel";
  skeleton::SkeletonFile f = loadSkeleton(path);
  EXPECT_GT(programWork(f), 0);
}

#ifdef SKELCAST_HAVE_FRONTEND
TEST(SweepSize, CNeedsAGuardOrAnExtent) {
  std::string matmul = kSrc + "/examples/matmul.c", matvec = kSrc + "/examples/matvec.c";
  try {
    withSize({}, matmul, "N", 64);
    ADD_FAILURE();
  } catch (const InputError &e) {
    EXPECT_EQ(std::string(e.what()), "--sweep: error: " + matmul +
                                         " defines 'N' without '#ifndef N' around it, so -D N=... cannot "
                                         "change it: add the guard, or give the size as --extent");
  }
  try {
    withSize({}, matmul, "ZZ", 64);
    ADD_FAILURE();
  } catch (const InputError &e) {
    EXPECT_EQ(std::string(e.what()), "--sweep: error: 'ZZ' is neither a macro of " + matmul + " nor an --extent name");
  }
  InputOptions o = withSize({}, matvec, "N", 64);
  EXPECT_EQ(o.compilerArgs, std::vector<std::string>{"-DN=64"});
  InputOptions e;
  e.extents["n"] = {100, 100};
  EXPECT_EQ(withSize(e, matmul, "n", 7).extents.at("n"), (std::vector<int64_t>{7, 7}));
}
#endif
