// The build cache (docs/performance.md, "The build cache"): each emitted
// source is built once per run, builds of different sources run side by side,
// and a successful build is kept on disk for the next run, read back only for
// the same tools, kind and source. The compilers are stand-in scripts that
// answer as nvcc and cuobjdump do and count their runs, so the test runs the
// same with or without the CUDA toolkit.
#include "skelcast/toolchain/Toolchain.h"

#include "../support/TempDir.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

using skelcast::testsupport::TempDir;
using skelcast::toolchain::CompileCache;
using skelcast::toolchain::Tools;
namespace fs = std::filesystem;

/// nvcc and cuobjdump stand-ins in `dir`: nvcc appends a line to runs.txt per
/// build and reports `registers` (or fails when `fail`), cuobjdump prints the
/// source's first line back as its "SASS".
Tools standIns(const TempDir &dir, int registers = 32, bool fail = false) {
  std::string runs = dir.file("runs.txt");
  dir.write("nvcc", "#!/bin/sh\n"
                    "echo run >> '" + runs + "'\n" +
                        (fail ? std::string("echo 'nvcc error: no'; exit 2\n") : std::string()) +
                        "while [ $# -gt 0 ]; do [ \"$1\" = -o ] && out=\"$2\"; src=\"$1\"; shift; done\n"
                        "head -n 1 \"$src\" > \"$out\"\n"
                        "echo 'ptxas info    : Used " + std::to_string(registers) +
                        " registers, used 0 barriers, 0 bytes smem'\n");
  dir.write("cuobjdump", "#!/bin/sh\nfor a; do f=\"$a\"; done\necho SASS; cat \"$f\"\n");
  dir.write("nvdisasm", "#!/bin/sh\nexit 0\n");
  for (const char *tool : {"nvcc", "cuobjdump", "nvdisasm"})
    fs::permissions(dir.file(tool), fs::perms::owner_all);
  Tools t;
  t.nvcc = dir.file("nvcc");
  t.cuobjdump = dir.file("cuobjdump");
  return t;
}

int runs(const TempDir &dir) {
  std::ifstream in(dir.file("runs.txt"));
  int n = 0;
  for (std::string line; std::getline(in, line);)
    ++n;
  return n;
}

std::vector<fs::path> records(const std::string &store) {
  std::vector<fs::path> out;
  std::error_code ec;
  for (const auto &e : fs::directory_iterator(store, ec))
    out.push_back(e.path());
  return out;
}

TEST(CompileCache, ABuildIsKeptAndReadBackByTheNextRunForTheSameToolsAndSource) {
  TempDir tools, store;
  Tools t = standIns(tools);
  std::string sass, res;
  {
    CompileCache first(t, store.path().string());
    sass = first.sass("// kernel a\n").text;
    res = first.resourceUsage("// kernel a\n").text; // the same nvcc run
    EXPECT_EQ(first.runs(), 1);
    EXPECT_EQ(first.stored(), 0);
  }
  EXPECT_EQ(sass, "SASS\n// kernel a\n");
  EXPECT_NE(res.find("Used 32 registers"), std::string::npos) << res;
  EXPECT_EQ(records(store.path().string()).size(), 1u);

  CompileCache second(t, store.path().string());
  EXPECT_EQ(second.sass("// kernel a\n").text, sass);
  EXPECT_EQ(second.resourceUsage("// kernel a\n").text, res);
  EXPECT_EQ(second.runs(), 0);
  EXPECT_EQ(second.stored(), 1);
  EXPECT_EQ(runs(tools), 1) << "nvcc ran again for a kept build";

  // Another source is built.
  EXPECT_EQ(second.sass("// kernel b\n").text, "SASS\n// kernel b\n");
  EXPECT_EQ(runs(tools), 2);
}

TEST(CompileCache, ABuildIsNotReadBackForOtherTools) {
  TempDir tools, store;
  Tools t = standIns(tools, 32);
  CompileCache(t, store.path().string()).resourceUsage("// k\n");
  // A new nvcc (another size): the kept build is not its answer.
  standIns(tools, 255);
  CompileCache again(t, store.path().string());
  std::string res = again.resourceUsage("// k\n").text;
  EXPECT_NE(res.find("Used 255 registers"), std::string::npos) << res;
  EXPECT_EQ(again.runs(), 1);
  EXPECT_EQ(runs(tools), 2);
}

TEST(CompileCache, AFailedBuildIsNotKept) {
  TempDir tools, store;
  Tools t = standIns(tools, 32, /*fail=*/true);
  CompileCache first(t, store.path().string());
  skelcast::toolchain::Compiled c = first.sass("// k\n");
  EXPECT_FALSE(c.ok);
  EXPECT_NE(c.error.find("nvcc error: no"), std::string::npos) << c.error;
  EXPECT_TRUE(records(store.path().string()).empty());
  CompileCache second(t, store.path().string());
  EXPECT_FALSE(second.sass("// k\n").ok);
  EXPECT_EQ(runs(tools), 2);
}

TEST(CompileCache, ADamagedRecordIsBuiltAgainAndReplaced) {
  TempDir tools, store;
  Tools t = standIns(tools);
  std::string good = CompileCache(t, store.path().string()).sass("// k\n").text;
  std::vector<fs::path> r = records(store.path().string());
  ASSERT_EQ(r.size(), 1u);
  std::string whole;
  {
    std::ifstream in(r[0], std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    whole = ss.str();
  }
  // Cut short (a disk full), then garbage lengths: each is a miss, never a crash.
  for (std::string bad : {whole.substr(0, whole.size() - 3), whole.substr(0, 30) + "99999999999\nx",
                          std::string("skelcast build 1\n-1\n")}) {
    std::ofstream(r[0], std::ios::binary | std::ios::trunc) << bad;
    CompileCache c(t, store.path().string());
    EXPECT_EQ(c.sass("// k\n").text, good);
    EXPECT_EQ(c.stored(), 0);
    EXPECT_EQ(c.runs(), 1);
  }
  CompileCache after(t, store.path().string());
  EXPECT_EQ(after.sass("// k\n").text, good);
  EXPECT_EQ(after.stored(), 1) << "the rebuilt record was not written back whole";
}

TEST(CompileCache, AStoreThatCannotBeWrittenOnlyCostsTheBuild) {
  TempDir tools, store;
  Tools t = standIns(tools);
  std::string file = store.write("a-file", "not a directory");
  CompileCache c(t, file + "/builds");
  EXPECT_TRUE(c.sass("// k\n").ok);
  EXPECT_EQ(c.runs(), 1);
  CompileCache none(t, ""); // no store at all
  EXPECT_TRUE(none.sass("// k\n").ok);
  EXPECT_EQ(runs(tools), 2);
}

TEST(CompileCache, BuildAllBuildsEachSourceOnceSideBySide) {
  TempDir tools;
  Tools t = standIns(tools);
  std::vector<std::string> sources;
  for (int i = 0; i < 7; ++i)
    sources.push_back("// kernel " + std::to_string(i % 5) + "\n"); // 5 distinct, two repeated
  CompileCache c(t);
  c.buildAll(sources, 3);
  EXPECT_EQ(c.runs(), 5);
  EXPECT_EQ(runs(tools), 5);
  for (int i = 0; i < 5; ++i)
    EXPECT_EQ(c.sass("// kernel " + std::to_string(i) + "\n").text, "SASS\n// kernel " + std::to_string(i) + "\n");
  EXPECT_EQ(c.runs(), 5) << "a source built by buildAll was built again";
}

TEST(CompileCache, TheStoreIsChosenByTheEnvironment) {
  auto with = [](const char *cache, const char *xdg, const char *home) {
    auto set = [](const char *name, const char *v) { v ? setenv(name, v, 1) : unsetenv(name); };
    std::string old[3];
    const char *names[3] = {"SKELCAST_BUILD_CACHE", "XDG_CACHE_HOME", "HOME"};
    bool had[3];
    for (int i = 0; i < 3; ++i) {
      const char *v = std::getenv(names[i]);
      had[i] = v != nullptr;
      old[i] = v ? v : "";
    }
    set(names[0], cache);
    set(names[1], xdg);
    set(names[2], home);
    std::string s = skelcast::toolchain::defaultBuildStore();
    for (int i = 0; i < 3; ++i)
      set(names[i], had[i] ? old[i].c_str() : nullptr);
    return s;
  };
  EXPECT_EQ(with("/x/builds", "/xdg", "/home/u"), "/x/builds");
  EXPECT_EQ(with("none", "/xdg", "/home/u"), "");
  EXPECT_EQ(with(nullptr, "/xdg", "/home/u"), "/xdg/skelcast/builds");
  EXPECT_EQ(with("", "", "/home/u"), "/home/u/.cache/skelcast/builds");
  EXPECT_EQ(with(nullptr, nullptr, nullptr), "");
}

} // namespace
