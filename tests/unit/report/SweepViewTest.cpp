// The views of a size sweep and of several GPUs (issue 20, items 1 and 2),
// from hand-made values: break-even, table, CSV, JSON and the SVG plot.
#include "skelcast/report/Report.h"
#include "skelcast/report/Sweep.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

using namespace skelcast;
using namespace skelcast::report;

namespace {

SweepRow row(int64_t v, size_t gpu, double totalMs, double cpuMs, double minSpeedup = 2) {
  SweepRow r;
  r.input = "m.skel";
  r.value = v;
  r.gpu = gpu;
  r.kernels = {{"mm", "block=i:16,j:16", "memory", totalMs / 2}};
  model::ProgramProjection p;
  p.totalMs = totalMs;
  p.kernelsMs = totalMs / 2;
  p.h2dMs = totalMs / 4;
  p.d2hMs = totalMs / 4;
  p.kernels = {{"mm", "block=i:16,j:16", 1, totalMs / 2, 0, std::nullopt}};
  p.cpuMs = cpuMs;
  p.speedup = cpuMs / totalMs;
  p.verdict = *p.speedup >= minSpeedup ? "port" : "do not port";
  r.program = p;
  return r;
}

SweepReport sample() {
  SweepReport r;
  r.version = "test";
  r.model = "skelcast";
  r.name = "N";
  r.rule = "1000..4000, doubling";
  r.values = {1000, 2000, 4000};
  r.gpus = {"h100", "v100"};
  r.cpuRule = "scaled";
  // h100: speedups 1, 2.5, 5 (pays from 2000 on); v100: 0.5, 1, 1.5 (never).
  r.rows = {row(1000, 0, 1, 1), row(1000, 1, 2, 1), row(2000, 0, 1, 2.5),
            row(2000, 1, 2, 2), row(4000, 0, 1, 5), row(4000, 1, 2, 3)};
  return r;
}

} // namespace

TEST(SweepView, BreakEvenPerGpu) {
  std::vector<BreakEven> b = breakEvens(sample());
  ASSERT_EQ(b.size(), 2u);
  EXPECT_EQ(b[0].kind, BreakEven::Kind::Between);
  EXPECT_EQ(b[0].below, 1000);
  EXPECT_EQ(b[0].above, 2000);
  ASSERT_TRUE(b[0].estimate);
  // log-log between (1000, 1x) and (2000, 2.5x): 2x at 1000 x 2^(ln 2 / ln 2.5)
  EXPECT_NEAR(*b[0].estimate, 1000 * std::pow(2.0, std::log(2.0) / std::log(2.5)), 1e-6);
  EXPECT_EQ(b[1].kind, BreakEven::Kind::Nowhere);
  SweepReport all = sample();
  for (auto &r : all.rows)
    r.program->verdict = "port";
  EXPECT_EQ(breakEvens(all)[0].kind, BreakEven::Kind::Everywhere);
  all.rows[0].program->speedup.reset();
  EXPECT_EQ(breakEvens(all)[0].kind, BreakEven::Kind::Unknown);
}

TEST(SweepView, TableSaysTheRuleAndTheBreakEven) {
  std::string t = renderSweepTable(sample());
  EXPECT_NE(t.find("sweep of N over 1000..4000, doubling (3 sizes), model skelcast\nCPU time: scaled\n"),
            std::string::npos) << t;
  EXPECT_NE(t.find("the port pays (verdict port, speedup >= 2x) on h100 from N = 2000 on (about N = 1689,"),
            std::string::npos) << t;
  EXPECT_NE(t.find("on v100 at no size swept (up to N = 4000)"), std::string::npos) << t;
}

TEST(SweepView, CsvAndJsonHaveARowPerSizeAndGpu) {
  SweepReport r = sample();
  r.rows[5].program.reset();
  r.rows[5].error = "no layout fits";
  std::string csv = renderSweepCsv(r);
  EXPECT_EQ(csv.substr(0, csv.find('\n')),
            "input,N,gpu,total_ms,h2d_ms,kernels_ms,d2h_ms,cpu_ms,speedup,verdict,kernel,launches,kernel_ms,bound,layout,error");
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 7);
  EXPECT_NE(csv.find("m.skel,4000,v100,,,,,,,,,,,,,no layout fits\n"), std::string::npos) << csv;
  nlohmann::json j = nlohmann::json::parse(renderSweepJson(r));
  EXPECT_EQ(j["rows"].size(), 6u);
  EXPECT_EQ(j["sweep"]["values"], nlohmann::json({1000, 2000, 4000}));
  EXPECT_EQ(j["rows"][5]["error"], "no layout fits");
  EXPECT_EQ(j["break_even"][0]["kind"], "between");
}

TEST(SweepView, SvgIsSelfContainedWithALinePerGpu) {
  std::string svg = renderSweepSvg(sample());
  EXPECT_EQ(svg.rfind("<svg xmlns=\"http://www.w3.org/2000/svg\"", 0), 0u);
  EXPECT_EQ(svg.find("<script"), std::string::npos);
  EXPECT_EQ(svg.find("href"), std::string::npos);
  // "http" only in the namespace: no fetch of anything.
  EXPECT_EQ(svg.find("http", 20), std::string::npos);
  EXPECT_EQ(std::count(svg.begin(), svg.end(), '\n') > 10, true);
  size_t lines = 0;
  for (size_t at = svg.find("<polyline"); at != std::string::npos; at = svg.find("<polyline", at + 1))
    ++lines;
  EXPECT_EQ(lines, 4u); // time and speedup, for each of two GPUs
  EXPECT_NE(svg.find(">h100</text>"), std::string::npos);
  EXPECT_NE(svg.find("(log)"), std::string::npos);
  // Without a CPU time: the time panel only.
  SweepReport r = sample();
  for (auto &row : r.rows)
    row.program->speedup.reset();
  svg = renderSweepSvg(r);
  EXPECT_EQ(svg.find("speedup over the CPU"), std::string::npos);
}

TEST(GpuView, SideBySideWithTheRatioToTheFirst) {
  auto rep = [](const std::string &gpu, double ms) {
    Report r;
    r.hwName = gpu;
    r.model = "skelcast";
    model::KernelProjection kp;
    kp.kernel = "mm";
    model::LayoutProjection lp;
    lp.layoutString = "block=i:16";
    lp.result.timeMs = ms;
    lp.result.bound = "memory";
    kp.layouts.push_back(lp);
    r.kernels.push_back({"m.skel", kp});
    model::ProgramProjection p;
    p.totalMs = 2 * ms;
    p.verdict = "port";
    r.programs.push_back({"m.skel", p});
    return r;
  };
  std::vector<Report> reps{rep("h100", 1), rep("a100", 2.5)};
  reps[1].hwOverrides = {"mem_bandwidth_gbps=8000"};
  std::string t = renderGpuTable(reps);
  EXPECT_NE(t.find("kernel mm (m.skel), model skelcast\n"), std::string::npos) << t;
  EXPECT_NE(t.find("  h100             1    1.00x  memory    block=i:16\n"), std::string::npos) << t;
  EXPECT_NE(t.find("  a100           2.5    2.50x  memory    block=i:16\n"), std::string::npos) << t;
  EXPECT_NE(t.find("spec fields overridden (--set) on a100: mem_bandwidth_gbps=8000\n"), std::string::npos) << t;
  nlohmann::json j = nlohmann::json::parse(renderGpuJson(reps));
  ASSERT_EQ(j["gpus"].size(), 2u);
  EXPECT_EQ(j["gpus"][1]["hw"]["name"], "a100");
  EXPECT_EQ(j["gpus"][1]["hw"]["overrides"][0], "mem_bandwidth_gbps=8000");
  EXPECT_FALSE(j["gpus"][0]["hw"].contains("overrides"));
  std::string csv = renderGpuCsv(reps);
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 3); // one header, a row per GPU
}
