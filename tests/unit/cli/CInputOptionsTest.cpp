// Every command that reads C takes the same input options, from one definition
// (issue 17, item 19): -D -I -s -p --function --extent --trip --sample
// --assume-aliasing and `-- ARGS` for Clang.
#include "../support/CliRun.h"
#include "../support/TempDir.h"

#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#ifdef SKELCAST_HAVE_FRONTEND

namespace {

using skelcast::testsupport::CliRun;
using skelcast::testsupport::run;
using skelcast::testsupport::TempDir;

const std::vector<std::string> kCCommands = {"skeletonize", "project", "explain", "batch", "check"};
const std::vector<std::string> kInputOptions = {"-D",       "-I",      "-s,--std", "-p",
                                                "--function", "--extent", "--trip", "--sample",
                                                "--assume-aliasing"};

/// The help lines of `option` (its line and the wrapped description below it).
std::string helpOf(const std::string &help, const std::string &option) {
  std::istringstream in(help);
  std::string line, found;
  bool inside = false;
  while (std::getline(in, line)) {
    size_t start = line.find_first_not_of(' ');
    if (start == std::string::npos) { // the end of the options section
      inside = false;
      continue;
    }
    bool optionLine = line[start] == '-';
    if (optionLine)
      inside = line.compare(start, option.size() + 1, option + " ") == 0;
    if (inside)
      found += line + "\n";
  }
  return found;
}

// A C file that compiles only with N defined: the arguments after `--` reach Clang.
const char *kNeedsN = "#ifndef N\n#error N must be given\n#endif\n"
                      "void scale(float *restrict a, const float *restrict b) {\n"
                      "  for (int i = 0; i < N; i++)\n    a[i] = 2.0f * b[i];\n}\n";

} // namespace

TEST(CInputOptions, EveryCommandThatReadsCDeclaresTheSameOptions) {
  for (const std::string &option : kInputOptions) {
    CliRun first = run({kCCommands.front(), "--help"});
    std::string want = helpOf(first.out, option);
    ASSERT_FALSE(want.empty()) << option << " is not in 'skelcast " << kCCommands.front()
                               << " --help':\n" << first.out;
    for (const std::string &cmd : kCCommands) {
      CliRun r = run({cmd, "--help"});
      ASSERT_EQ(r.rc, 0) << r.err;
      EXPECT_EQ(helpOf(r.out, option), want)
          << "'skelcast " << cmd << " --help' describes " << option << " differently from '"
          << kCCommands.front() << "'";
    }
  }
}

TEST(CInputOptions, ArgumentsAfterDashesReachClangOnEveryCommand) {
  TempDir dir;
  std::string c = dir.write("scale.c", kNeedsN);
  std::vector<std::vector<std::string>> withArgs = {
      {"skeletonize", c, "--", "-DN=4096"},
      {"project", c, "--", "-DN=4096"},
      {"explain", c, "--layout", "block=i:256", "--", "-DN=4096"},
  };
  for (const auto &args : withArgs) {
    std::vector<std::string> without(args.begin(), args.end() - 2);
    CliRun bare = run(without);
    EXPECT_EQ(bare.rc, 1) << "without -DN=4096, 'skelcast " << args[0]
                          << "' should stop at the #error; it printed:\n" << bare.out << bare.err;
    CliRun r = run(args);
    EXPECT_EQ(r.rc, 0) << "'skelcast " << args[0] << " ... -- -DN=4096': " << r.err;
  }
  CliRun s = run(withArgs.front());
  EXPECT_NE(s.out.find("4096"), std::string::npos) << "the skeleton should carry N = 4096:\n" << s.out;
}

TEST(CInputOptions, ProjectTakesSeveralFilesBeforeTheDashes) {
  TempDir dir;
  std::string a = dir.write("a.c", kNeedsN);
  std::string b = dir.write("b.c", kNeedsN);
  CliRun r = run({"project", a, b, "--top", "1", "--", "-DN=2048"});
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("a.c"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("b.c"), std::string::npos) << r.out;
}

// C++ sources (Rodinia's OpenMP codes are .cpp) are C inputs to every command,
// as `skeletonize` always read them: `project hotspot.cpp -I DIR` used to
// parse the file as a skeleton ("unknown directive '#include'") and, with
// compiler arguments, refuse it as "not a C input".
TEST(CInputOptions, CppSourcesAreReadAsCByEveryCommand) {
  TempDir dir;
  const std::string body = std::string("#include <cstddef>\n") +
                           "void scale(float *__restrict__ a, const float *__restrict__ b) {\n"
                           "  for (std::size_t i = 0; i < N; i++)\n    a[i] = 2.0f * b[i];\n}\n";
  for (const char *name : {"scale.cpp", "scale.cc", "scale.cxx"}) {
    std::string f = dir.write(name, body);
    for (const std::vector<std::string> &args :
         {std::vector<std::string>{"project", f, "-D", "N=4096", "--top", "1"},
          std::vector<std::string>{"project", f, "--top", "1", "--", "-DN=4096"},
          std::vector<std::string>{"explain", f, "--layout", "block=i:256", "-D", "N=4096"}}) {
      CliRun r = run(args);
      EXPECT_EQ(r.rc, 0) << "'skelcast " << args[0] << " " << name << "': " << r.err;
      EXPECT_EQ(r.err.find("not a C"), std::string::npos) << r.err;
      EXPECT_NE(r.out.find("scale"), std::string::npos) << "the kernel 'scale' projected:\n" << r.out;
    }
  }
  // A file of another kind with compiler arguments is still refused, by name.
  std::string skel = dir.write("scale.skel", "float a[64]\nparallel_for(64) : i {\n  st a[i]\n}\n");
  CliRun r = run({"project", skel, "-D", "N=4"});
  EXPECT_EQ(r.rc, 1);
  EXPECT_NE(r.err.find("not a C or C++ input"), std::string::npos) << r.err;
}

#endif // SKELCAST_HAVE_FRONTEND
