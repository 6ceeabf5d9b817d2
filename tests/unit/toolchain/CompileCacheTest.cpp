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
#include <thread>
#include <vector>

namespace {

using skelcast::testsupport::TempDir;
using skelcast::toolchain::CompileCache;
using skelcast::toolchain::Tools;
namespace fs = std::filesystem;

struct StandInOptions {
  int registers = 32;
  bool fail = false;          ///< nvcc fails
  bool disassemblerFails = false;
  const char *sleep = "0";    ///< seconds nvcc takes
};

/// nvcc and cuobjdump stand-ins in `dir`: nvcc appends "start" and "end" lines
/// to runs.txt around each build and reports `registers` (or fails), cuobjdump
/// prints the source's first line back as its "SASS" (or fails).
Tools standIns(const TempDir &dir, StandInOptions o = {}) {
  std::string runs = dir.file("runs.txt");
  dir.write("nvcc", "#!/bin/sh\n"
                    "echo start >> '" + runs + "'\n"
                    "sleep " + o.sleep + "\n"
                    "echo end >> '" + runs + "'\n" +
                        (o.fail ? std::string("echo 'nvcc error: no'; exit 2\n") : std::string()) +
                        "while [ $# -gt 0 ]; do [ \"$1\" = -o ] && out=\"$2\"; src=\"$1\"; shift; done\n"
                        "head -n 1 \"$src\" > \"$out\"\n"
                        "echo 'ptxas info    : Used " + std::to_string(o.registers) +
                        " registers, used 0 barriers, 0 bytes smem'\n");
  dir.write("cuobjdump", o.disassemblerFails ? "#!/bin/sh\necho 'cuobjdump fatal: no'; exit 1\n"
                                             : "#!/bin/sh\nfor a; do f=\"$a\"; done\necho SASS; cat \"$f\"\n");
  dir.write("nvdisasm", "#!/bin/sh\nexit 0\n");
  for (const char *tool : {"nvcc", "cuobjdump", "nvdisasm"})
    fs::permissions(dir.file(tool), fs::perms::owner_all);
  Tools t;
  t.nvcc = dir.file("nvcc");
  t.cuobjdump = dir.file("cuobjdump");
  t.nvdisasm = dir.file("nvdisasm");
  return t;
}

std::vector<std::string> runLog(const TempDir &dir) {
  std::ifstream in(dir.file("runs.txt"));
  std::vector<std::string> out;
  for (std::string line; std::getline(in, line);)
    out.push_back(line);
  return out;
}

int runs(const TempDir &dir) {
  int n = 0;
  for (const auto &line : runLog(dir))
    n += line == "start";
  return n;
}

std::string slurp(const fs::path &p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
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
  Tools t = standIns(tools);
  CompileCache(t, store.path().string()).resourceUsage("// k\n");
  // A new nvcc (another size): the kept build is not its answer.
  standIns(tools, {255});
  CompileCache again(t, store.path().string());
  std::string res = again.resourceUsage("// k\n").text;
  EXPECT_NE(res.find("Used 255 registers"), std::string::npos) << res;
  EXPECT_EQ(again.runs(), 1);
  EXPECT_EQ(runs(tools), 2);
}

TEST(CompileCache, AFailedBuildIsNotKept) {
  TempDir tools, store;
  StandInOptions failing;
  failing.fail = true;
  Tools t = standIns(tools, failing);
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
  std::string whole = slurp(r[0]);
  // Cut short (a disk full); a length past the end, one of 13 digits, one not
  // a number, in place of the identity's: each is a miss, never a crash.
  std::string header = "skelcast build 1\n";
  ASSERT_EQ(whole.compare(0, header.size(), header), 0) << whole.substr(0, 40);
  std::string rest = whole.substr(whole.find('\n', header.size()));
  for (std::string bad : {whole.substr(0, whole.size() - 3), header + "99999999999" + rest,
                          header + "1234567890123" + rest, header + "-1" + rest, header + "\n"}) {
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
  StandInOptions slow;
  slow.sleep = "1"; // long beside a thread's start, even on a loaded machine
  Tools t = standIns(tools, slow);
  std::vector<std::string> sources;
  for (int i = 0; i < 7; ++i)
    sources.push_back("// kernel " + std::to_string(i % 5) + "\n"); // 5 distinct, two repeated
  CompileCache c(t);
  c.buildAll(sources, 3);
  EXPECT_EQ(c.runs(), 5);
  EXPECT_EQ(runs(tools), 5);
  // Side by side: a second build started before the first ended (nvcc takes 1 s here).
  std::vector<std::string> log = runLog(tools);
  ASSERT_GE(log.size(), 2u);
  EXPECT_EQ(log[0], "start");
  EXPECT_EQ(log[1], "start") << "the builds ran one after another";
  for (int i = 0; i < 5; ++i)
    EXPECT_EQ(c.sass("// kernel " + std::to_string(i) + "\n").text, "SASS\n// kernel " + std::to_string(i) + "\n");
  EXPECT_EQ(c.runs(), 5) << "a source built by buildAll was built again";
}

TEST(CompileCache, TwoThreadsAskingForOneBuildWaitForTheSameRun) {
  TempDir tools;
  StandInOptions slow;
  slow.sleep = "0.3";
  Tools t = standIns(tools, slow);
  CompileCache c(t);
  std::string sass, res;
  std::thread other([&] { sass = c.sass("// k\n").text; });
  res = c.resourceUsage("// k\n").text;
  other.join();
  EXPECT_EQ(runs(tools), 1);
  EXPECT_EQ(c.runs(), 1);
  EXPECT_EQ(sass, "SASS\n// k\n");
  EXPECT_NE(res.find("Used 32 registers"), std::string::npos) << res;
}

TEST(CompileCache, ABuildIsNotReadBackUnderOtherNvccFlagsFromTheEnvironment) {
  TempDir tools, store;
  Tools t = standIns(tools);
  CompileCache(t, store.path().string()).sass("// k\n");
  setenv("NVCC_APPEND_FLAGS", "-Xptxas -O1", 1);
  CompileCache other(t, store.path().string());
  other.sass("// k\n");
  unsetenv("NVCC_APPEND_FLAGS");
  EXPECT_EQ(other.runs(), 1) << "a build made without NVCC_APPEND_FLAGS answered for one with it";
  CompileCache again(t, store.path().string());
  again.sass("// k\n");
  EXPECT_EQ(again.stored(), 1);
}

TEST(CompileCache, WithoutCuobjdumpTheRegistersAreKeptAndTheSassErrorComesBackTheSame) {
  TempDir tools, store;
  Tools t = standIns(tools);
  t.cuobjdump.clear();
  t.nvdisasm.clear();
  skelcast::toolchain::Compiled cold;
  {
    CompileCache c(t, store.path().string());
    EXPECT_TRUE(c.resourceUsage("// k\n").ok);
    cold = c.sass("// k\n");
  }
  EXPECT_FALSE(cold.ok);
  CompileCache warm(t, store.path().string());
  skelcast::toolchain::Compiled res = warm.resourceUsage("// k\n"), sass = warm.sass("// k\n");
  EXPECT_TRUE(res.ok);
  EXPECT_FALSE(sass.ok);
  EXPECT_EQ(sass.error, cold.error);
  EXPECT_EQ(warm.runs(), 0);
  EXPECT_EQ(warm.stored(), 1);
}

TEST(CompileCache, ABuildWhoseDisassemblyFailedIsNotKept) {
  TempDir tools, store;
  StandInOptions o;
  o.disassemblerFails = true;
  Tools t = standIns(tools, o);
  CompileCache first(t, store.path().string());
  EXPECT_TRUE(first.resourceUsage("// k\n").ok);
  EXPECT_FALSE(first.sass("// k\n").ok);
  EXPECT_TRUE(records(store.path().string()).empty());
}

TEST(CompileCache, TheStoreDirectoriesItMakesAreTheUsersAlone) {
  TempDir tools, store;
  Tools t = standIns(tools);
  fs::path dir = store.path() / "skelcast" / "builds";
  CompileCache(t, dir.string()).sass("// k\n");
  for (const fs::path &p : {dir, dir.parent_path()})
    EXPECT_EQ(fs::status(p).permissions() & fs::perms::all, fs::perms::owner_all) << p;
  EXPECT_EQ(records(dir.string()).size(), 1u);
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
