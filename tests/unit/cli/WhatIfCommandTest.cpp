// Issue 20, items 1-3 through the CLI, in-process: `project`/`explain` on
// several GPUs, `--sweep` on project and batch (with `--plot`), `--set`.
#include "../support/CliRun.h"
#include "../support/TempDir.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <sstream>

using skelcast::testsupport::CliRun;
using skelcast::testsupport::run;
using skelcast::testsupport::TempDir;

namespace {

const std::string kSrc = SKELCAST_SOURCE_DIR;
const std::string kMatmul = kSrc + "/skeletons/matmul.skel";

std::string slurp(const std::string &path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

} // namespace

TEST(WhatIf, ProjectOnSeveralGpusIsTheSameProjectionAsEachAlone) {
  CliRun all = run({"project", kMatmul, "--hw", "h100,a100,v100", "--format", "json", "--cpu-ms", "100"});
  ASSERT_EQ(all.rc, 0) << all.err;
  nlohmann::json j = nlohmann::json::parse(all.out);
  ASSERT_EQ(j["gpus"].size(), 3u);
  for (size_t g = 0; g < 3; ++g) {
    std::string name = j["gpus"][g]["hw"]["name"];
    CliRun one = run({"project", kMatmul, "--hw", name, "--format", "json", "--cpu-ms", "100"});
    ASSERT_EQ(one.rc, 0) << one.err;
    nlohmann::json alone = nlohmann::json::parse(one.out);
    EXPECT_EQ(alone["schema_version"], 1);
    alone.erase("schema_version"); // the document's, once at the top of the several GPUs' one
    EXPECT_EQ(alone, j["gpus"][g]) << name;
  }
  // Repeating --hw is the same as a list.
  CliRun rep = run({"project", kMatmul, "--hw", "h100", "--hw", "a100", "--hw", "v100", "--format", "json",
                    "--cpu-ms", "100"});
  EXPECT_EQ(rep.out, all.out);
  CliRun csv = run({"project", kMatmul, "--hw", "h100,a100", "--format", "csv", "--top", "2"});
  EXPECT_EQ(std::count(csv.out.begin(), csv.out.end(), '\n'), 5) << csv.out; // header + 2 per GPU
}

TEST(WhatIf, ExplainOnSeveralGpus) {
  CliRun r = run({"explain", kMatmul, "--hw", "h100,v100", "--layout", "block=i:16,j:16"});
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(r.out.rfind("=== on h100 ===\n", 0), 0u) << r.out;
  EXPECT_NE(r.out.find("\n=== on v100 ===\n"), std::string::npos);
}

TEST(WhatIf, SetChangesTheProjectionAndSaysSo) {
  CliRun base = run({"project", kMatmul, "--format", "json"});
  CliRun fast = run({"project", kMatmul, "--format", "json", "--set", "mem_bandwidth_gbps=100000",
                     "--set", "host_link.h2d_pinned_gbps=64"});
  ASSERT_EQ(fast.rc, 0) << fast.err;
  nlohmann::json b = nlohmann::json::parse(base.out), f = nlohmann::json::parse(fast.out);
  EXPECT_FALSE(b["hw"].contains("overrides"));
  EXPECT_EQ(f["hw"]["overrides"],
            nlohmann::json({"mem_bandwidth_gbps=100000", "host_link.h2d_pinned_gbps=64"}));
  EXPECT_EQ(f["hw"]["content_hash"], b["hw"]["content_hash"]);
  CliRun table = run({"project", kMatmul, "--set", "mem_bandwidth_gbps=8000"});
  EXPECT_NE(table.out.find("spec fields overridden (--set) on h100: mem_bandwidth_gbps=8000\n"), std::string::npos);
  // --pinned stays what it was: the program's host buffers, not a spec field.
  CliRun pinned = run({"project", kMatmul, "--pinned", "--set", "host_link.h2d_pinned_gbps=1"});
  EXPECT_EQ(pinned.rc, 0) << pinned.err;
  CliRun bad = run({"project", kMatmul, "--set", "mem_bandwith_gbps=8000"});
  EXPECT_EQ(bad.rc, 1);
  EXPECT_EQ(bad.err, "--set: error: unknown field 'mem_bandwith_gbps' (close names: mem_bandwidth_gbps, l2_bandwidth_gbps)\n");
  EXPECT_EQ(bad.out, "");
}

TEST(WhatIf, SweepWithScaledCpuTimeAndPlot) {
  TempDir dir;
  std::string svg = dir.file("sweep.svg");
  CliRun r = run({"project", kMatmul, "--sweep", "N=200..3200", "--hw", "h100,v100", "--cpu-ms", "232",
                  "--format", "json", "--plot", svg});
  ASSERT_EQ(r.rc, 0) << r.err;
  nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["sweep"]["values"], nlohmann::json({200, 400, 800, 1600, 3200}));
  ASSERT_EQ(j["rows"].size(), 10u);
  // At N = 800, the size of the file as written, the CPU time is the one given.
  EXPECT_EQ(j["rows"][4]["value"], 800);
  EXPECT_DOUBLE_EQ(j["rows"][4]["program"]["cpu_ms"].get<double>(), 232);
  // Elsewhere in proportion to the work (N x M x K with M, K fixed: in N).
  EXPECT_DOUBLE_EQ(j["rows"][0]["program"]["cpu_ms"].get<double>(), 58);
  // Each row is what `project` says at that size.
  CliRun one = run({"project", kSrc + "/tests/data/sweep/matmul_n1600.skel", "--hw", "v100", "--cpu-ms", "464",
                    "--format", "json"});
  ASSERT_EQ(one.rc, 0) << one.err;
  nlohmann::json o = nlohmann::json::parse(one.out);
  EXPECT_EQ(j["rows"][7]["program"]["total_ms"], o["program"]["total_ms"]);
  EXPECT_EQ(j["rows"][7]["program"]["verdict"], o["program"]["verdict"]);
  std::string plot = slurp(svg);
  EXPECT_EQ(plot.rfind("<svg xmlns=", 0), 0u);
  EXPECT_NE(plot.find("speedup over the CPU"), std::string::npos);
}

TEST(WhatIf, SweepRefusesWhatItCannotDo) {
  CliRun r = run({"project", kMatmul, "--sweep", "N=4096..1024"});
  EXPECT_EQ(r.rc, 1);
  EXPECT_EQ(r.err, "--sweep: error: the range 4096..1024 is empty: its start is above its end\n");
  r = run({"project", kMatmul, "--sweep", "N=1..2", "--layout", "block=i:16"});
  EXPECT_EQ(r.rc, 2) << r.err;
  r = run({"project", kMatmul, "--plot", "x.svg"});
  EXPECT_EQ(r.rc, 2) << r.err;
  r = run({"project", kMatmul, "--sweep", "N=1..2", "--format", "markdown"});
  EXPECT_EQ(r.rc, 1);
  EXPECT_EQ(r.err, "--sweep: error: --format markdown has no sweep view: use table, json or csv\n");
}

TEST(WhatIf, BatchSweepWritesItsFourFiles) {
  TempDir dir;
  CliRun r = run({"batch", kSrc + "/tests/data/sweep/suite.json", "--out", dir.path().string(), "--quiet",
                  "--sweep", "N=400,800", "--hw", "h100,a100", "--set", "mem_bandwidth_gbps=3000", "-j", "1"});
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("skelcast batch: sweep of N over the sizes listed (2 sizes) on 2 GPUs: 4 projections, 0 failed\n"),
            std::string::npos)
      << r.out;
  for (const char *f : {"sweep.txt", "sweep.json", "sweep.csv", "sweep.svg"})
    EXPECT_TRUE(std::filesystem::exists(dir.file(f))) << f;
  nlohmann::json j = nlohmann::json::parse(slurp(dir.file("sweep.json")));
  EXPECT_EQ(j["hw_overrides"][0], "mem_bandwidth_gbps=3000");
  EXPECT_DOUBLE_EQ(j["rows"][2]["program"]["cpu_ms"].get<double>(), 232); // N = 800 as written
  EXPECT_DOUBLE_EQ(j["rows"][0]["program"]["cpu_ms"].get<double>(), 116);
  // A benchmark without the macro fails, and says why.
  CliRun bad = run({"batch", kSrc + "/tests/data/sweep/suite.json", "--out", dir.path().string(), "--quiet",
                    "--sweep", "Q=1,2", "-j", "1"});
  EXPECT_EQ(bad.rc, 1);
  EXPECT_NE(bad.err.find("skelcast: benchmark 'matmul' at Q = 1 on h100 failed: --sweep: error: 'Q' is not a macro"),
            std::string::npos)
      << bad.err;
}

#ifdef SKELCAST_HAVE_FRONTEND
TEST(WhatIf, SweepMeasuresTheCpuAtEachSize) {
  if (std::system("clang-19 --version > /dev/null 2>&1") != 0)
    GTEST_SKIP() << "clang-19 is not installed";
  CliRun r = run({"project", kSrc + "/examples/matvec.c", "--sweep", "N=64,256", "--measure-cpu", "--cpu-repeats",
                  "1", "--format", "json"});
  ASSERT_EQ(r.rc, 0) << r.err;
  nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_NE(j["cpu_rule"].get<std::string>().find("measured at each size"), std::string::npos);
  ASSERT_EQ(j["rows"].size(), 2u);
  for (const auto &row : j["rows"]) {
    EXPECT_EQ(row["program"]["cpu_source"], "measured");
    EXPECT_GT(row["program"]["cpu_ms"].get<double>(), 0);
  }
  // A sweep of an --extent name of a C input.
  CliRun e = run({"project", kSrc + "/examples/hotspot.c", "--extent", "row=64", "--extent", "col=64", "--sweep",
                  "row=64,128", "--format", "csv"});
  EXPECT_EQ(e.rc, 0) << e.err;
}
#endif

TEST(WhatIf, BatchReportsSayWhatWasSet) {
  TempDir dir;
  CliRun r = run({"batch", kSrc + "/tests/data/sweep/suite.json", "--out", dir.path().string(), "--quiet", "--hw",
                  "h100,v100", "--set", "host_link.h2d_pinned_gbps=64", "-j", "1"});
  ASSERT_EQ(r.rc, 0) << r.err;
  nlohmann::json j = nlohmann::json::parse(slurp(dir.file("report.json")));
  EXPECT_EQ(j["gpus"][1]["overrides"], nlohmann::json({"host_link.h2d_pinned_gbps=64"}));
  EXPECT_NE(slurp(dir.file("report.md")).find("Spec fields overridden (`--set`) on v100: `host_link.h2d_pinned_gbps=64`."),
            std::string::npos);
  EXPECT_NE(slurp(dir.file("report.html"))
                .find("Spec fields overridden (<code>--set</code>) on h100: <code>host_link.h2d_pinned_gbps=64</code>"),
            std::string::npos);
}
