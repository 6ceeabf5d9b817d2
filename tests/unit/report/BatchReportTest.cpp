// The BatchReport value and its renderers (report.md/html/json/csv), on real
// projections of small skeletons.
#include "skelcast/layout/KernelInfo.h"
#include "skelcast/hw/HwSpec.h"
#include "skelcast/model/Project.h"
#include "skelcast/report/Batch.h"
#include "skelcast/skeleton/Parser.h"

#include "../../../src/report/SpeedupFormat.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <sstream>

using namespace skelcast;
using report::BatchReport;

namespace {

const std::string kSpecs = std::string(SKELCAST_SOURCE_DIR) + "/hwspecs";

const char *kTriad = R"(#define N 1048576
float a[N]
float b[N]
float c[N]
parallel_for triad(N) : i {
  comp 13
  ld b[i]
  ld c[i]
  comp 4
  st a[i]
}
)";

const char *kMatmul = R"(#define N 512
float A[N][N]
float B[N][N]
float C[N][N]
parallel_for matmul(N, N) : i, j {
  comp 1
  stream k = 0:N {
    ld A[i][k]
    ld B[k][j]
    comp 3
  }
  st C[i][j]
}
)";

report::KernelGpuResult projectText(const char *text, const hw::HwSpec &hw, size_t top = 3) {
  skeleton::SkeletonFile f = skeleton::parseSkeleton(text, "<test>");
  layout::KernelInfo ki = layout::analyzeKernel(f, 0);
  model::KernelProjection kp = model::projectKernel(ki, hw, {}, {});
  report::KernelGpuResult r;
  r.layoutsExplored = kp.layoutsExplored;
  r.layoutsPruned = kp.layoutsPruned;
  kp.layouts.resize(std::min(top, kp.layouts.size()));
  r.layouts = kp.layouts;
  return r;
}

/// Two benchmarks (one with two kernels and a CPU time), one failed input, one
/// kernel that failed on the second GPU.
BatchReport build() {
  hw::HwSpec h100 = hw::resolveHwSpec("h100", kSpecs);
  hw::HwSpec a100 = hw::resolveHwSpec("a100", kSpecs);
  BatchReport r;
  r.version = "9.9.9";
  r.model = "skelcast";
  r.suite = "suite.json";
  r.top = 3;
  r.gpus = {{h100.name, h100.description, h100.contentHash, h100.clockGHz},
            {a100.name, a100.description, a100.contentHash, a100.clockGHz}};
  report::BenchmarkResult b1;
  b1.name = "pair";
  b1.input = "pair.skel";
  b1.cpuMs = 50;
  b1.kernels.push_back({"triad", {projectText(kTriad, h100), projectText(kTriad, a100)}});
  b1.kernels.push_back({"matmul", {projectText(kMatmul, h100), projectText(kMatmul, a100)}});
  report::BenchmarkResult b2;
  b2.name = "odd|name <b>";
  b2.input = "odd.skel";
  report::KernelGpuResult failed;
  failed.error = "no layout fits a100: all 3 layouts explored were pruned";
  b2.kernels.push_back({"triad", {projectText(kTriad, h100), failed}});
  b2.warnings.push_back("odd.c:3:5: warning: cannot port this loop: a call to 'rand'");
  report::BenchmarkResult b3;
  b3.name = "broken";
  b3.input = "broken.c";
  b3.error = "broken.c: error: C input needs the skeletonizer\nsecond line";
  // The programs as the suite runner gives them (its own test checks how): here
  // 0.1 ms in and 0.05 ms out around the kernels, where every kernel projected.
  for (auto *b : {&b1, &b2}) {
    b->programs.assign(r.gpus.size(), std::nullopt);
    for (size_t g = 0; g < r.gpus.size(); ++g)
      if (auto t = report::benchmarkTimeMs(*b, g)) {
        model::ProgramProjection p;
        p.h2dMs = 0.1;
        p.d2hMs = 0.05;
        p.kernelsMs = *t;
        p.totalMs = *t + 0.15;
        b->programs[g] = p;
      }
  }
  r.benchmarks = {b1, b2, b3};
  return r;
}

/// Built once: the projections are the slow part.
BatchReport sample() {
  static const BatchReport r = build();
  return r;
}

size_t countFields(const std::string &line) {
  size_t n = 1;
  bool quoted = false;
  for (char c : line) {
    if (c == '"')
      quoted = !quoted;
    else if (c == ',' && !quoted)
      ++n;
  }
  return n;
}

} // namespace

TEST(BatchReport, BenchmarkTimeIsTheSumOfItsKernelsAndSpeedupDividesTheCpuTime) {
  BatchReport r = sample();
  const auto &b = r.benchmarks[0];
  double t = *b.kernels[0].gpus[0].timeMs() + *b.kernels[1].gpus[0].timeMs();
  ASSERT_TRUE(report::benchmarkTimeMs(b, 0));
  EXPECT_DOUBLE_EQ(*report::benchmarkTimeMs(b, 0), t);
  // The speedup is the program's: the CPU time over transfers plus kernels.
  EXPECT_DOUBLE_EQ(*report::programTimeMs(b, 0), t + 0.15);
  EXPECT_DOUBLE_EQ(*report::transferShare(b, 0), 0.15 / (t + 0.15));
  EXPECT_DOUBLE_EQ(*report::speedup(b, 0), 50 / (t + 0.15));
  EXPECT_FALSE(report::programTimeMs(r.benchmarks[1], 1)); // no program where a kernel failed
  EXPECT_FALSE(report::speedup(r.benchmarks[1], 0)); // no CPU time
  EXPECT_FALSE(report::benchmarkTimeMs(r.benchmarks[1], 1)); // a kernel failed there
  EXPECT_FALSE(report::benchmarkTimeMs(r.benchmarks[2], 0)); // the input failed
}

TEST(BatchReport, FailuresListInputsAndKernelsOnGpus) {
  BatchReport r = sample();
  auto fs = report::batchFailures(r);
  ASSERT_EQ(fs.size(), 2u);
  EXPECT_EQ(fs[0].benchmark, "odd|name <b>");
  EXPECT_EQ(fs[0].kernel, "triad");
  EXPECT_EQ(fs[0].gpu, "a100");
  EXPECT_EQ(fs[1].benchmark, "broken");
  EXPECT_TRUE(fs[1].kernel.empty());
  EXPECT_EQ(report::kernelCount(r), 3u);
  EXPECT_EQ(report::projectionCount(r), 5u);
}

TEST(BatchReport, MemoryShareFollowsTheBound) {
  hw::HwSpec h100 = hw::resolveHwSpec("h100", kSpecs);
  auto triad = projectText(kTriad, h100);
  auto matmul = projectText(kMatmul, h100);
  ASSERT_TRUE(triad.ok() && matmul.ok());
  double st = report::memoryShare(triad.layouts.front(), h100.clockGHz);
  double sm = report::memoryShare(matmul.layouts.front(), h100.clockGHz);
  EXPECT_GT(st, 0.5) << triad.layouts.front().result.bound;
  EXPECT_GE(st, 0.0);
  EXPECT_LE(st, 1.0);
  EXPECT_LT(sm, st);
  // Memory's share is above one half for a memory-bound layout, below for a compute-bound one.
  BatchReport r = sample();
  for (const auto &b : r.benchmarks)
    for (const auto &k : b.kernels)
      for (size_t g = 0; g < k.gpus.size(); ++g)
        for (const auto &l : k.gpus[g].layouts) {
          double share = report::memoryShare(l, r.gpus[g].clockGHz);
          if (l.result.bound == "memory") {
            EXPECT_GT(share, 0.5) << k.name << " " << l.layoutString;
          }
          if (l.result.bound == "compute" && l.result.cwpFull <= l.result.n) {
            EXPECT_LT(share, 0.5) << k.name << " " << l.layoutString;
          }
        }
}

TEST(BatchReport, JsonRecordsWhatProducedItAndEveryProjection) {
  BatchReport r = sample();
  auto j = nlohmann::json::parse(report::renderBatchJson(r));
  EXPECT_EQ(j["schema_version"], 1);
  EXPECT_EQ(j["skelcast_version"], "9.9.9");
  EXPECT_EQ(j["model"]["name"], "skelcast");
  ASSERT_EQ(j["gpus"].size(), 2u);
  EXPECT_EQ(j["gpus"][0]["name"], "h100");
  EXPECT_EQ(j["gpus"][0]["content_hash"], r.gpus[0].contentHash);
  EXPECT_FALSE(r.gpus[0].contentHash.empty());
  EXPECT_EQ(j["summary"]["failures"], 2);
  const auto &pair = j["benchmarks"][0];
  EXPECT_EQ(pair["cpu_ms"], 50.0);
  EXPECT_TRUE(pair["gpus"][0]["speedup"].is_number());
  EXPECT_EQ(pair["kernels"][1]["projections"][1]["layouts"].size(), 3u);
  EXPECT_TRUE(pair["kernels"][1]["projections"][1]["layouts"][0]["mem_cycles"].is_number());
  EXPECT_EQ(j["benchmarks"][1]["kernels"][0]["projections"][1]["error"],
            "no layout fits a100: all 3 layouts explored were pruned");
  EXPECT_TRUE(j["benchmarks"][2]["error"].is_string());
  // Per GPU, the program: its time, the transfers' share, the speedup against it.
  EXPECT_DOUBLE_EQ(pair["gpus"][0]["program"]["h2d_ms"].get<double>(), 0.1);
  EXPECT_DOUBLE_EQ(pair["gpus"][0]["transfer_share"].get<double>(),
                   0.15 / pair["gpus"][0]["program_ms"].get<double>());
  EXPECT_DOUBLE_EQ(pair["gpus"][0]["speedup"].get<double>(), 50 / pair["gpus"][0]["program_ms"].get<double>());
  EXPECT_TRUE(j["benchmarks"][1]["gpus"][1]["program"].is_null()); // a kernel failed there
}

TEST(BatchReport, CsvRowsAllHaveEveryColumn) {
  BatchReport r = sample();
  std::istringstream in(report::renderBatchCsv(r));
  std::string header, line;
  std::getline(in, header);
  size_t cols = countFields(header);
  EXPECT_EQ(cols, 37u);
  size_t rows = 0, errors = 0;
  // The failed input's message holds a line break inside its quoted field.
  std::string record;
  while (std::getline(in, line)) {
    record += record.empty() ? line : "\n" + line;
    if (std::count(record.begin(), record.end(), '"') % 2)
      continue;
    EXPECT_EQ(countFields(record), cols) << record;
    ++rows;
    errors += record.back() != ',' ? 1 : 0;
    record.clear();
  }
  // 2 kernels x 2 GPUs x 3 layouts + 3 layouts + 1 failed kernel + 1 failed input
  EXPECT_EQ(rows, 12u + 3u + 1u + 1u);
  EXPECT_EQ(errors, 2u);
}

TEST(BatchReport, MarkdownListsFailuresAndEscapesCells) {
  BatchReport r = sample();
  std::string md = report::renderBatchMarkdown(r);
  EXPECT_NE(md.find("## Failures"), std::string::npos);
  EXPECT_NE(md.find("  second line"), std::string::npos);
  EXPECT_NE(md.find("| odd\\|name <b> | triad | a100 | no layout fits a100"), std::string::npos) << md;
  EXPECT_NE(md.find("## Projected speedup over the CPU"), std::string::npos);
  EXPECT_NE(md.find("### pair / matmul on a100"), std::string::npos);
  EXPECT_NE(md.find("- `odd|name <b>`: odd.c:3:5: warning: cannot port this loop"), std::string::npos);
}

TEST(BatchReport, HtmlIsSelfContainedWithItsCharts) {
  BatchReport r = sample();
  std::string h = report::renderBatchHtml(r);
  EXPECT_EQ(h.rfind("<!DOCTYPE html>", 0), 0u);
  // One inline script (sorting and filtering the tables), none loaded.
  size_t script = h.find("<script>");
  ASSERT_NE(script, std::string::npos);
  EXPECT_EQ(h.find("<script", script + 1), std::string::npos);
  EXPECT_EQ(h.find("<link"), std::string::npos);
  EXPECT_EQ(h.find(" src="), std::string::npos);
  EXPECT_EQ(h.find("url("), std::string::npos);
  // The only URL is the SVG namespace name, which is never fetched.
  std::string rest = h;
  size_t pos = 0, urls = 0;
  while ((pos = rest.find("http", pos)) != std::string::npos) {
    EXPECT_EQ(rest.compare(pos, 26, "http://www.w3.org/2000/svg"), 0) << rest.substr(pos, 60);
    ++urls;
    ++pos;
  }
  EXPECT_GT(urls, 0u);
  EXPECT_NE(h.find("<svg class=\"chart speedup\""), std::string::npos);
  EXPECT_NE(h.find("<svg class=\"chart split\""), std::string::npos);
  EXPECT_NE(h.find("<svg class=\"chart layouts\""), std::string::npos);
  EXPECT_EQ(h.find("odd|name <b>"), std::string::npos); // escaped
  EXPECT_NE(h.find("odd|name &lt;b&gt;"), std::string::npos);
  // No NaN, infinity or negative size ever reaches an attribute.
  EXPECT_EQ(h.find("nan"), std::string::npos);
  EXPECT_EQ(h.find("inf\""), std::string::npos);
  EXPECT_EQ(h.find("width=\"-"), std::string::npos);
}

TEST(BatchReport, HtmlWithoutCpuTimesSaysSo) {
  BatchReport r = sample();
  for (auto &b : r.benchmarks)
    b.cpuMs.reset();
  std::string h = report::renderBatchHtml(r);
  EXPECT_EQ(h.find("chart speedup"), std::string::npos);
  EXPECT_NE(h.find("No benchmark of this suite gives a measured CPU time"), std::string::npos);
}

TEST(BatchReport, RenderersArePureFunctions) {
  BatchReport r = build();
  EXPECT_EQ(report::renderBatchHtml(r), report::renderBatchHtml(sample()));
  EXPECT_EQ(report::renderBatchJson(r), report::renderBatchJson(sample()));
  EXPECT_EQ(report::renderBatchCsv(r), report::renderBatchCsv(sample()));
  EXPECT_EQ(report::renderBatchMarkdown(r), report::renderBatchMarkdown(sample()));
}

// The speedup chart said "best layout of each kernel, summed" but plotted the
// program's speedup, transfers included (issue 17, item 10): it labels what it
// plots and shows the kernels' speedup beside the program's.
TEST(BatchReport, HtmlSpeedupChartLabelsTheProgramAndTheKernelSpeedup) {
  BatchReport r = sample();
  const auto &b = r.benchmarks[0];
  ASSERT_TRUE(report::kernelSpeedup(b, 0));
  EXPECT_DOUBLE_EQ(*report::kernelSpeedup(b, 0), 50 / *report::benchmarkTimeMs(b, 0));
  EXPECT_FALSE(report::kernelSpeedup(r.benchmarks[1], 0)); // no CPU time
  std::string h = report::renderBatchHtml(r);
  EXPECT_EQ(h.find("best layout of each kernel, summed over the benchmark's kernels). Log scale"),
            std::string::npos);
  EXPECT_NE(h.find("the whole program"), std::string::npos);
  std::string program = report::speedupText(*report::speedup(b, 0));
  std::string kernels = report::speedupText(*report::kernelSpeedup(b, 0));
  ASSERT_NE(program, kernels);
  // Both figures on the chart and in the table, each named.
  size_t chart = h.find("<svg class=\"chart speedup\""), chartEnd = h.find("</svg>", chart);
  std::string svg = h.substr(chart, chartEnd - chart);
  EXPECT_NE(svg.find("program " + program), std::string::npos) << svg.substr(0, 3000);
  EXPECT_NE(svg.find("kernels " + kernels), std::string::npos);
  EXPECT_NE(h.find("kernel speedup</th>"), std::string::npos);
  EXPECT_NE(h.find(">" + kernels + "<"), std::string::npos);
}
