// The CPU harness of `project --measure-cpu`: generated for a small function,
// compiled with clang-19 and run; what it cannot drive is refused by name.
#include "../../../src/cli/CpuHarness.h"
#include "skelcast/skeleton/Parser.h"

#include "../support/TempDir.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

using namespace skelcast;
using namespace skelcast::cli;

namespace {

bool haveClang() { return std::system("clang-19 --version > /dev/null 2>&1") == 0; }

frontend::CParam buffer(const std::string &name, const std::string &type, bool floating) {
  frontend::CParam p;
  p.kind = frontend::CParam::Kind::Buffer;
  p.name = name;
  p.elemType = type;
  p.elemFloating = floating;
  p.arrays = {name};
  return p;
}

const char *kSkel = "#define N 1000\nfloat x[N]\nfloat y[N]\nint idx[N]\n"
                    "parallel_for f(N) : i {\n  ld idx[i]\n  ld x[idx[i]]\n  comp 2\n  st y[i]\n}\n";
const char *kC = "void f(float *y, const float *x, const int *idx, float a, int n) {\n"
                 "  for (int i = 0; i < n; i++) y[i] = a * x[idx[i]];\n}\n";

frontend::CFunction function() {
  frontend::CFunction fn;
  fn.name = "f";
  fn.loc = {"f.c", 1, 6};
  fn.params = {buffer("y", "float", true), buffer("x", "float", true), buffer("idx", "int", false)};
  frontend::CParam a;
  a.kind = frontend::CParam::Kind::Floating;
  a.name = "a";
  frontend::CParam n;
  n.kind = frontend::CParam::Kind::Integer;
  n.name = "n";
  n.value = 1000;
  fn.params.push_back(a);
  fn.params.push_back(n);
  return fn;
}

} // namespace

TEST(CpuHarness, GeneratesSizesAndIndexRanges) {
  auto skel = skeleton::parseSkeleton(kSkel, "f.skel");
  std::string src = harnessSource("/abs/f.c", function(), skel, 3);
  EXPECT_NE(src.find("#include \"/abs/f.c\""), std::string::npos);
  EXPECT_NE(src.find("float *arg0 = malloc(sizeof(float) * 1000LL)"), std::string::npos) << src;
  // idx subscripts x's only dimension: its values stay below 1000
  EXPECT_NE(src.find("% 1000ULL)"), std::string::npos) << src;
  EXPECT_NE(src.find("long long arg4 = 1000LL;"), std::string::npos) << src;
}

TEST(CpuHarness, RefusesWhatItCannotProvide) {
  auto skel = skeleton::parseSkeleton(kSkel, "f.skel");
  frontend::CFunction fn = function();
  fn.params[4].value.reset();
  try {
    harnessSource("/abs/f.c", fn, skel, 3);
    FAIL() << "expected a refusal";
  } catch (const InputError &e) {
    EXPECT_NE(std::string(e.what()).find("f.c:1:6: error: cannot measure the CPU time of 'f': "
                                         "integer parameter 'n' has no value (give --extent n=V)"),
              std::string::npos)
        << e.what();
  }
  fn = function();
  fn.params[0].kind = frontend::CParam::Kind::Other;
  fn.params[0].why = "of type 'struct grid'";
  EXPECT_THROW(harnessSource("/abs/f.c", fn, skel, 3), InputError);
}

TEST(CpuHarness, CompilesAndRuns) {
  if (!haveClang())
    GTEST_SKIP() << "clang-19 is not installed";
  namespace fs = std::filesystem;
  skelcast::testsupport::TempDir tmp("skelcast-harness-test");
  const fs::path &dir = tmp.path();
  std::string c = (dir / "f.c").string();
  std::ofstream(c) << kC;
  auto skel = skeleton::parseSkeleton(kSkel, "f.skel");
  CpuMeasureOptions o;
  o.repeats = 3;
  CpuMeasurement m = measureCpu(c, function(), skel, o);
  EXPECT_EQ(m.timesMs.size(), 3u);
  EXPECT_GT(m.medianMs, 0);
  EXPECT_EQ(m.threads, 1); // no OpenMP in f
}
