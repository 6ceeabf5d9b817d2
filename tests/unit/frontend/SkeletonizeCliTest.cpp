// The `skeletonize` subcommand, run in-process: options reach Clang and the
// library, usage errors exit with 2, input errors with 1.
#include "skelcast/cli/Cli.h"

#include "../support/CliRun.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <unistd.h>

using skelcast::cli::runCli;

namespace {

using skelcast::testsupport::CliRun;
using skelcast::testsupport::run;

const std::string kSrc = SKELCAST_SOURCE_DIR;

std::string slurp(const std::string &path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

} // namespace

TEST(SkeletonizeCli, HelpListsTheCommandAndItsOptions) {
  EXPECT_NE(run({"--help"}).out.find("skeletonize"), std::string::npos);
  CliRun r = run({"skeletonize", "--help"});
  EXPECT_EQ(r.rc, 0);
  for (const char *opt : {"--extent", "--trip", "--sample", "--function", "-p", "-D", "-I"})
    EXPECT_NE(r.out.find(opt), std::string::npos) << opt;
}

TEST(SkeletonizeCli, PrintsTheSkeleton) {
  CliRun r = run({"skeletonize", kSrc + "/examples/matmul.c"});
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(r.out, slurp(kSrc + "/tests/cli/skeletonize_matmul/expected"));
  EXPECT_EQ(r.err, "");
}

TEST(SkeletonizeCli, ClangArgumentsAfterDoubleDash) {
  // C89 has no declarations in 'for': with -pedantic-errors Clang refuses (exit 1)
  CliRun r = run({"skeletonize", kSrc + "/examples/stencil2d.c", "-std=c89", "--",
                  "-pedantic-errors"});
  EXPECT_EQ(r.rc, 1) << r.out;
  EXPECT_NE(r.err.find("error:"), std::string::npos) << r.err;
  CliRun ok = run({"skeletonize", kSrc + "/examples/stencil2d.c", "--std", "c99", "--",
                   "-pedantic-errors"});
  EXPECT_EQ(ok.rc, 0) << ok.err;
}

TEST(SkeletonizeCli, MalformedOptionsAreUsageErrors) {
  EXPECT_EQ(run({"skeletonize", "x.c", "--trip", "n"}).rc, 2);
  EXPECT_EQ(run({"skeletonize", "x.c", "--trip", "n=many"}).rc, 2);
  EXPECT_EQ(run({"skeletonize", "x.c", "--trip", "n=-1"}).rc, 2);
  EXPECT_EQ(run({"skeletonize", "x.c", "--extent", "a=3,,4"}).rc, 2);
  EXPECT_EQ(run({"skeletonize", "x.c", "--sample", "M"}).rc, 2);
  EXPECT_EQ(run({"skeletonize"}).rc, 2);
}

TEST(SkeletonizeCli, MissingFileIsAnInputError) {
  CliRun r = run({"skeletonize", "/nonexistent/k.c"});
  EXPECT_EQ(r.rc, 1);
  EXPECT_NE(r.err.find("/nonexistent/k.c: error: cannot open file"), std::string::npos) << r.err;
}

TEST(SkeletonizeCli, AssumeAliasingRefusesPlainPointerParameters) {
  std::string path = (std::filesystem::temp_directory_path() /
                      ("skelcast_alias_" + std::to_string(::getpid()) + ".c"))
                         .string();
  {
    std::ofstream out(path);
    out << "void step(float *a, const float *b) {\n"
           "  for (int i = 0; i < 1024; i++) a[i] = b[i] + 1;\n"
           "}\n";
  }
  CliRun traced = run({"skeletonize", path});
  EXPECT_EQ(traced.rc, 0) << traced.err;
  EXPECT_NE(traced.err.find(":1:6: warning: 'step' assumes its pointer parameters 'a', 'b' do "
                            "not overlap (a port must guarantee it; --assume-aliasing refuses "
                            "instead)"),
            std::string::npos)
      << traced.err;
  for (const char *cmd : {"skeletonize", "project"}) {
    CliRun strict = run({cmd, path, "--assume-aliasing"});
    EXPECT_EQ(strict.rc, 1) << cmd << ": " << strict.out;
    EXPECT_NE(strict.err.find("'a' and 'b' may point to the same memory (declare the pointers "
                              "'restrict')"),
              std::string::npos)
        << cmd << ": " << strict.err;
  }
  std::filesystem::remove(path);
}
