// The habits of issue 20, items 6 and 7: diagnostics with the source line and a
// caret, --warnings-as-errors, `fmt -i`, `.skelcast.json`, compile_commands.json
// found upwards, `skeletonize -o` and its sample paths. Standard input (`-`) is
// tested by the golden cases (tests/cli/*_stdin), which can redirect it.
#include "../support/CliRun.h"
#include "../support/TempDir.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

using skelcast::testsupport::run;
using skelcast::testsupport::TempDir;

namespace {

const std::string kSrc = SKELCAST_SOURCE_DIR;

std::string slurp(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

const char *kMessy = "float   A[16]\nparallel_for f(16) : i {\n      ld A[i]\n comp 1 }\n";

} // namespace

TEST(Diagnostics, SkeletonErrorShowsTheLineAndACaret) {
  TempDir d;
  std::string f = d.write("bad.skel", "float A[16]\nparallel_for f(16) : i {\n\tcomp 1\n\tld B[i]\n}\n");
  auto r = run({"project", f});
  EXPECT_EQ(r.rc, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, f + ":4:2: error: undeclared array 'B'\n\tld B[i]\n\t^\n");
}

TEST(Diagnostics, ColorAlwaysAndNever) {
  TempDir d;
  std::string f = d.write("bad.skel", "float A[0]\n");
  auto never = run({"--color=never", "project", f});
  EXPECT_EQ(never.err.find('\033'), std::string::npos);
  auto always = run({"project", f, "--color", "always"}); // after the subcommand too
  EXPECT_EQ(always.rc, 1);
  EXPECT_NE(always.err.find("\033[1;31merror:\033[0m"), std::string::npos) << always.err;
  auto bad = run({"--color=sometimes", "project", f});
  EXPECT_EQ(bad.rc, 2);
}

TEST(Fmt, InPlaceRewritesAtomicallyAndOnlyWhatChanges) {
  TempDir d;
  std::string messy = d.write("messy.skel", kMessy);
  auto canon = run({"fmt", messy});
  ASSERT_EQ(canon.rc, 0) << canon.err;
  std::string good = d.write("good.skel", canon.out);
  auto t0 = std::filesystem::last_write_time(good);
  auto r = run({"fmt", "-i", messy, good});
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(slurp(messy), canon.out);
  EXPECT_EQ(std::filesystem::last_write_time(good), t0);
  // nothing else in the directory: no temporary file left
  int n = 0;
  for ([[maybe_unused]] auto &e : std::filesystem::directory_iterator(d.path()))
    ++n;
  EXPECT_EQ(n, 2);
}

TEST(Fmt, InPlaceWithABadFileRewritesNothing) {
  TempDir d;
  std::string messy = d.write("messy.skel", kMessy);
  std::string bad = d.write("bad.skel", "kernel {");
  auto r = run({"fmt", "--in-place", messy, bad});
  EXPECT_EQ(r.rc, 1);
  EXPECT_EQ(slurp(messy), kMessy);
}

TEST(Fmt, InPlaceRefusesStandardInputAndCheck) {
  auto r = run({"fmt", "-i", "-"});
  EXPECT_EQ(r.rc, 1);
  EXPECT_EQ(r.err, "-i: error: cannot rewrite standard input in place\n");
  TempDir d;
  EXPECT_EQ(run({"fmt", "-i", "--check", d.write("a.skel", kMessy)}).rc, 2);
}

TEST(ProjectConfig, HwFromTheNearestConfigAndTheCommandLineWins) {
  TempDir d;
  std::filesystem::create_directories(d.path() / "sub" / "deeper");
  d.write(".skelcast.json", R"({"hw": "a100", "flags": []})");
  std::string f = (d.path() / "sub" / "deeper" / "m.skel").string();
  std::filesystem::copy_file(kSrc + "/skeletons/matmul.skel", f);
  auto r = run({"project", f, "--format", "json"});
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("\"name\": \"a100"), std::string::npos) << r.out.substr(0, 400);
  auto cli = run({"project", f, "--format", "json", "--hw", "h100"});
  ASSERT_EQ(cli.rc, 0) << cli.err;
  EXPECT_NE(cli.out.find("\"name\": \"h100"), std::string::npos);
  // the nearest file wins
  d.write("sub/.skelcast.json", R"({"hw": "v100"})");
  auto near = run({"project", f, "--format", "json"});
  EXPECT_NE(near.out.find("\"name\": \"v100"), std::string::npos);
}

TEST(ProjectConfig, UnknownFieldsAndWrongTypesAreErrors) {
  TempDir d;
  std::string f = d.file("m.skel");
  std::filesystem::copy_file(kSrc + "/skeletons/matmul.skel", f);
  d.write(".skelcast.json", R"({"hw": "h100", "flag": ["-DX"]})");
  // named as the user sees it: relative to the working directory when below it
  std::string cfg = d.path().filename().string() + "/.skelcast.json";
  auto r = run({"project", f});
  EXPECT_EQ(r.rc, 1);
  EXPECT_NE(r.err.find(cfg + ": error: unknown field 'flag' (a .skelcast.json knows 'flags' and 'hw')\n"),
            std::string::npos)
      << r.err;
  d.write(".skelcast.json", R"({"flags": "-DX"})");
  EXPECT_NE(run({"project", f}).err.find(cfg + ": error: field 'flags': must be an array of strings\n"),
            std::string::npos);
  d.write(".skelcast.json", R"({"hw": 3})");
  EXPECT_NE(run({"project", f})
                .err.find(cfg + ": error: field 'hw': must be the name of a GPU spec or a spec file\n"),
            std::string::npos);
  d.write(".skelcast.json", R"([1])");
  EXPECT_EQ(run({"project", f}).rc, 1);
}

#ifdef SKELCAST_HAVE_FRONTEND

namespace {
const char *kSized = R"(#ifdef LARGE
#define N 4000
#else
#define N 40
#endif
void scale(float a[N], float b[N]) {
  for (int i = 0; i < N; i++)
    a[i] = 2 * b[i];
}
)";
} // namespace

TEST(ProjectConfig, FlagsComeFirstAndTheCommandLineWins) {
  TempDir d;
  std::string c = d.write("s.c", kSized);
  EXPECT_NE(run({"skeletonize", c}).out.find("#define N 40\n"), std::string::npos);
  d.write(".skelcast.json", R"({"flags": ["-DLARGE"]})");
  auto r = run({"skeletonize", c});
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("#define N 4000\n"), std::string::npos) << r.out;
  auto cli = run({"skeletonize", c, "--", "-ULARGE"});
  EXPECT_NE(cli.out.find("#define N 40\n"), std::string::npos) << cli.out << cli.err;
}

TEST(CompilationDatabase, FoundInAParentDirectoryWithoutDashP) {
  TempDir d;
  std::filesystem::create_directories(d.path() / "src");
  std::string c = d.write("src/s.c", kSized);
  d.write("compile_commands.json",
          "[{\"directory\": \"" + d.path().string() +
              "\", \"file\": \"src/s.c\", \"command\": \"cc -DLARGE -c src/s.c\"}]");
  auto r = run({"skeletonize", c});
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("#define N 4000\n"), std::string::npos) << r.out;
  // a database without an entry for the file is not used
  d.write("compile_commands.json", "[{\"directory\": \"/\", \"file\": \"/other.c\", \"command\": \"cc -DLARGE -c /other.c\"}]");
  auto other = run({"skeletonize", c});
  ASSERT_EQ(other.rc, 0) << other.err;
  EXPECT_NE(other.out.find("#define N 40\n"), std::string::npos) << other.out;
}

TEST(WarningsAsErrors, AnyWarningFailsWithNothingOnStdout) {
  TempDir d;
  std::string c = d.write("w.c", "void f(float *a, float *b, int n) {\n\tfor (int i = 0; i < n; i++)\n\t\ta[i] = b[i];\n}\n");
  auto plain = run({"skeletonize", c, "--extent", "n=64"});
  ASSERT_EQ(plain.rc, 0) << plain.err;
  ASSERT_NE(plain.err.find("warning:"), std::string::npos);
  auto strict = run({"--warnings-as-errors", "skeletonize", c, "--extent", "n=64"});
  EXPECT_EQ(strict.rc, 1);
  EXPECT_EQ(strict.out, "");
  EXPECT_NE(strict.err.find("error: "), std::string::npos);
  EXPECT_NE(strict.err.find("[--warnings-as-errors]"), std::string::npos);
  EXPECT_NE(strict.err.find("treated as error"), std::string::npos) << strict.err;
  auto project = run({"project", c, "--warnings-as-errors", "--extent", "n=64"});
  EXPECT_EQ(project.rc, 1);
  EXPECT_EQ(project.out, "");
}

TEST(WarningsOnC, ShowTheCLineWithItsTabs) {
  TempDir d;
  std::string c = d.write("w.c", "void f(float *a, float *b, int n) {\n\tfor (int i = 1; i < n; i++)\n\t\ta[i] = a[i - 1] + b[i];\n\tfor (int i = 0; i < n; i++)\n\t\tb[i] = 2 * b[i];\n}\n");
  auto r = run({"skeletonize", c, "--extent", "n=64"});
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.err.find(c + ":2:2: warning: cannot port this loop"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("\n\tfor (int i = 1; i < n; i++)\n\t^\n"), std::string::npos) << r.err;
}

TEST(SkeletonizeOutput, SamplePathsFollowTheOutputFile) {
  TempDir d;
  std::filesystem::create_directories(d.path() / "out" / "deep");
  std::string out = d.file("out/deep/spinflap.skel");
  auto r = run({"skeletonize", kSrc + "/examples/spinflap.c", "--sample",
                "M=" + kSrc + "/examples/spinflap_M.txt", "-o", out});
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(r.out, "");
  // the skeleton written there projects: its sample file is found from there
  auto p = run({"project", out});
  EXPECT_EQ(p.rc, 0) << p.err;
  // relative paths stay relative
  std::filesystem::path cwd = std::filesystem::current_path();
  std::filesystem::current_path(kSrc);
  auto r2 = run({"skeletonize", "examples/spinflap.c", "--sample", "M=examples/spinflap_M.txt",
                 "-o", out});
  std::filesystem::current_path(cwd);
  ASSERT_EQ(r2.rc, 0) << r2.err;
  std::string text = slurp(out);
  std::string want = std::filesystem::path(kSrc + "/examples/spinflap_M.txt")
                         .lexically_relative(std::filesystem::path(out).parent_path())
                         .string();
  EXPECT_NE(text.find("sample=\"" + want + "\""), std::string::npos) << text;
  EXPECT_EQ(run({"project", out}).rc, 0);
}

#endif
