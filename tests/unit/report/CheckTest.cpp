// `skelcast check`'s comparison: tolerance parsing, the baseline format, every
// status (unchanged, improved, regressed, new, gone, failed), and the renderers.
#include "skelcast/report/Check.h"
#include "skelcast/support/Diagnostic.h"

#include <gtest/gtest.h>

using namespace skelcast;
using namespace skelcast::report;

namespace {

/// A layout projection with only what the check reads: its time.
model::LayoutProjection timed(double ms) {
  model::LayoutProjection p;
  p.layoutString = "block=i:256";
  p.result.timeMs = ms;
  p.result.bound = "memory";
  return p;
}

KernelGpuResult ok(double ms) {
  KernelGpuResult r;
  r.layoutsExplored = 1;
  r.layouts = {timed(ms)};
  return r;
}

/// The program of each benchmark on each GPU as the suite runner would give it,
/// without transfers: its total is the sum of its kernels' times.
void addPrograms(BatchReport &r) {
  for (auto &b : r.benchmarks) {
    b.programs.assign(r.gpus.size(), std::nullopt);
    for (size_t g = 0; g < r.gpus.size(); ++g)
      if (auto t = benchmarkTimeMs(b, g)) {
        model::ProgramProjection p;
        p.kernelsMs = p.totalMs = *t;
        b.programs[g] = p;
      }
  }
}

/// benchmark "s" (CPU 10 ms) with kernels k1, k2 on h100 and a100; "t" with t1.
BatchReport run(double k1h100 = 1.0) {
  BatchReport r;
  r.version = "0.1.0";
  r.model = "skelcast";
  r.suite = "suite.json";
  r.gpus = {{"h100", "H100", "aaaa", 1.98}, {"a100", "A100", "bbbb", 1.41}};
  BenchmarkResult s;
  s.name = "s";
  s.cpuMs = 10;
  s.kernels = {{"k1", {ok(k1h100), ok(2.0)}}, {"k2", {ok(1.0), ok(2.0)}}};
  BenchmarkResult t;
  t.name = "t";
  t.kernels = {{"t1", {ok(0.5), ok(0.7)}}};
  r.benchmarks = {s, t};
  addPrograms(r);
  return r;
}

const CheckEntry *find(const CheckReport &c, const std::string &k, const std::string &g) {
  for (const auto &e : c.entries)
    if (e.kernel == k && e.gpu == g)
      return &e;
  return nullptr;
}

std::string errorOf(const std::string &text) {
  try {
    parseBaseline(text, "base.json");
  } catch (const InputError &e) {
    return e.what();
  }
  return "";
}

} // namespace

TEST(Tolerance, AcceptsPercentagesAndFractions) {
  EXPECT_DOUBLE_EQ(parseTolerance("5%"), 0.05);
  EXPECT_DOUBLE_EQ(parseTolerance("0.05"), 0.05);
  EXPECT_DOUBLE_EQ(parseTolerance("0"), 0.0);
  EXPECT_DOUBLE_EQ(parseTolerance("12.5%"), 0.125);
  EXPECT_DOUBLE_EQ(parseTolerance("1"), 1.0);
}

TEST(Tolerance, RefusesWhatIsAmbiguousOrNotANumber) {
  for (const char *bad : {"5", "abc", "-1%", "%", "", "5%%", "0.05x", "nan"})
    EXPECT_THROW(parseTolerance(bad), InputError) << bad;
  try {
    parseTolerance("5");
  } catch (const InputError &e) {
    EXPECT_NE(std::string(e.what()).find("'5%'"), std::string::npos) << e.what();
  }
}

TEST(Baseline, RoundTripsThroughItsFile) {
  Baseline b = baselineFromReport(run());
  ASSERT_EQ(b.entries.size(), 6u);
  EXPECT_EQ(b.entries[0].benchmark, "s");
  EXPECT_EQ(b.entries[0].kernel, "k1");
  EXPECT_EQ(b.entries[0].gpu, "h100");
  EXPECT_DOUBLE_EQ(*b.entries[0].speedup, 10.0 / 2.0); // k1 + k2 on h100
  EXPECT_FALSE(b.entries[4].speedup);                   // t has no CPU time
  std::string text = renderBaselineJson(b);
  Baseline back = parseBaseline(text, "base.json");
  EXPECT_EQ(back.version, "0.1.0");
  EXPECT_EQ(back.model, "skelcast");
  EXPECT_EQ(back.specs.at("h100"), "aaaa");
  ASSERT_EQ(back.entries.size(), 6u);
  EXPECT_DOUBLE_EQ(back.entries[1].timeMs, 2.0);
  EXPECT_EQ(renderBaselineJson(back), text);
  // One entry per line, keys in the documented order.
  EXPECT_NE(text.find("\n    {\"benchmark\": \"s\", \"kernel\": \"k1\", \"gpu\": \"h100\", \"time_ms\": 1.0, "
                      "\"speedup\": 5.0}"),
            std::string::npos)
      << text;
}

TEST(Baseline, RefusesOtherFormatsNamingTheField) {
  EXPECT_NE(errorOf("{").find("base.json:1:2: error: invalid JSON"), std::string::npos) << errorOf("{");
  EXPECT_NE(errorOf(R"({"schema_version": 2, "entries": []})").find("field 'schema_version': 2 is not supported"),
            std::string::npos);
  EXPECT_NE(errorOf(R"({"entries": []})").find("field 'schema_version': missing"), std::string::npos);
  EXPECT_NE(errorOf(R"({"schema_version": 1, "benchmarks": []})").find("this is a batch report"),
            std::string::npos);
  EXPECT_NE(errorOf(R"({"schema_version": 1, "model": "skelcast", "entries": []})")
                .find("field 'skelcast_version': missing"),
            std::string::npos);
  std::string head = R"({"schema_version": 1, "skelcast_version": "0.1.0", "model": "skelcast", "entries": [)";
  EXPECT_NE(errorOf(head + R"({"benchmark": "s", "kernel": "k", "gpu": "h100", "speedup": null}]})")
                .find("field 'entries[0].time_ms': missing"),
            std::string::npos);
  EXPECT_NE(errorOf(head + R"({"benchmark": "s", "kernel": "k", "gpu": "h100", "time_ms": -1, "speedup": null}]})")
                .find("field 'entries[0].time_ms': must be a positive number"),
            std::string::npos);
  EXPECT_NE(errorOf(head + R"({"benchmark": "s", "kernel": "k", "gpu": "h100", "time_ms": 1, "speedup": null, "x": 1}]})")
                .find("field 'entries[0].x': unknown field"),
            std::string::npos);
  std::string e = R"({"benchmark": "s", "kernel": "k", "gpu": "h100", "time_ms": 1, "speedup": null})";
  EXPECT_NE(errorOf(head + e + "," + e + "]}").find("field 'entries[1]': a second entry"), std::string::npos);
}

TEST(Check, SameRunIsUnchanged) {
  CheckReport c = compareWithBaseline(run(), baselineFromReport(run()), {});
  EXPECT_EQ(c.entries.size(), 6u);
  EXPECT_EQ(c.count(CheckStatus::Unchanged), 6u);
  EXPECT_FALSE(c.failed());
  EXPECT_NE(renderCheckText(c).find("check passed"), std::string::npos);
}

TEST(Check, SlowerBeyondToleranceRegressesWithinItDoesNot) {
  Baseline base = baselineFromReport(run());
  CheckReport within = compareWithBaseline(run(1.04), base, {});
  EXPECT_FALSE(within.failed());
  CheckReport beyond = compareWithBaseline(run(1.25), base, {});
  EXPECT_TRUE(beyond.failed());
  const CheckEntry *e = find(beyond, "k1", "h100");
  ASSERT_TRUE(e);
  EXPECT_EQ(e->status, CheckStatus::Regressed);
  EXPECT_TRUE(e->timeRegressed);
  EXPECT_TRUE(e->speedupRegressed); // 10 / 2.25 against 10 / 2: -11%
  // k2 did not get slower, but its benchmark's speedup fell by 11%.
  EXPECT_EQ(find(beyond, "k2", "h100")->status, CheckStatus::Regressed);
  EXPECT_FALSE(find(beyond, "k2", "h100")->timeRegressed);
  EXPECT_EQ(find(beyond, "k1", "a100")->status, CheckStatus::Unchanged);
  std::string text = renderCheckText(beyond);
  EXPECT_NE(text.find("REGRESSED  s: kernel 'k1' on h100: time 1 ms -> 1.25 ms (+25.0%)"), std::string::npos)
      << text;
  EXPECT_NE(text.find("check FAILED"), std::string::npos);
  // A looser tolerance lets it pass.
  CheckOptions loose;
  loose.tolerance = 0.3;
  EXPECT_FALSE(compareWithBaseline(run(1.25), base, loose).failed());
}

TEST(Check, FasterIsImprovedAndPasses) {
  CheckReport c = compareWithBaseline(run(0.5), baselineFromReport(run()), {});
  EXPECT_EQ(find(c, "k1", "h100")->status, CheckStatus::Improved);
  EXPECT_FALSE(c.failed());
  EXPECT_NE(renderCheckText(c).find("--update-baseline"), std::string::npos);
}

TEST(Check, GoneFailsNewOnlyUnderStrict) {
  Baseline base = baselineFromReport(run());
  BatchReport r = run();
  r.benchmarks[0].kernels[1].name = "k3"; // k2 gone, k3 new
  CheckReport c = compareWithBaseline(r, base, {});
  EXPECT_EQ(c.count(CheckStatus::Gone), 2u);
  EXPECT_EQ(c.count(CheckStatus::New), 2u);
  EXPECT_TRUE(c.failed());
  std::string text = renderCheckText(c);
  EXPECT_NE(text.find("GONE       s: kernel 'k2' on h100"), std::string::npos) << text;
  EXPECT_NE(text.find("NEW        s: kernel 'k3' on a100"), std::string::npos) << text;

  BatchReport added = run();
  added.benchmarks[1].kernels.push_back({"t2", {ok(0.1), ok(0.1)}});
  CheckReport lax = compareWithBaseline(added, base, {});
  EXPECT_EQ(lax.count(CheckStatus::New), 2u);
  EXPECT_FALSE(lax.failed());
  CheckOptions strict;
  strict.strict = true;
  EXPECT_TRUE(compareWithBaseline(added, base, strict).failed());
}

TEST(Check, MissingProjectionAndFailedInputFail) {
  Baseline base = baselineFromReport(run());
  BatchReport r = run();
  r.benchmarks[0].kernels[0].gpus[1] = KernelGpuResult{};
  r.benchmarks[0].kernels[0].gpus[1].error = "no layout fits a100";
  r.benchmarks[1].error = "t.skel:3:1: error: expected 'parallel_for'";
  r.benchmarks[1].kernels.clear();
  CheckReport c = compareWithBaseline(r, base, {});
  EXPECT_TRUE(c.failed());
  EXPECT_EQ(find(c, "k1", "a100")->status, CheckStatus::Failed);
  EXPECT_EQ(c.inputFailures.size(), 1u);
  EXPECT_EQ(find(c, "t1", "h100")->status, CheckStatus::Failed); // not "gone": its input failed
  // k2 on a100 lost its benchmark's speedup only because k1 failed there: not a regression of k2.
  EXPECT_EQ(find(c, "k2", "a100")->status, CheckStatus::Unchanged);
  std::string text = renderCheckText(c);
  EXPECT_NE(text.find("FAILED     input of benchmark 't'"), std::string::npos) << text;
  EXPECT_NE(text.find("           t.skel:3:1: error: expected 'parallel_for'"), std::string::npos) << text;
}

TEST(Check, OtherModelOrVersionIsAnError) {
  Baseline base = baselineFromReport(run());
  BatchReport r = run();
  r.model = "roofline";
  EXPECT_THROW(compareWithBaseline(r, base, {}), InputError);
  r = run();
  r.version = "0.2.0";
  try {
    compareWithBaseline(r, base, {});
    FAIL();
  } catch (const InputError &e) {
    EXPECT_NE(std::string(e.what()).find("--update-baseline"), std::string::npos) << e.what();
  }
}

TEST(Check, GpusNotProjectedAreNotedNotGone) {
  Baseline base = baselineFromReport(run());
  BatchReport r = run();
  r.gpus.pop_back();
  for (auto &b : r.benchmarks)
    for (auto &k : b.kernels)
      k.gpus.pop_back();
  CheckReport c = compareWithBaseline(r, base, {});
  EXPECT_EQ(c.entries.size(), 3u);
  EXPECT_FALSE(c.failed());
  ASSERT_EQ(c.notes.size(), 1u);
  EXPECT_NE(c.notes[0].find("'a100'"), std::string::npos);
}

TEST(Check, ChangedSpecIsNoted) {
  Baseline base = baselineFromReport(run());
  base.specs["h100"] = "cccc";
  CheckReport c = compareWithBaseline(run(), base, {});
  ASSERT_EQ(c.notes.size(), 1u);
  EXPECT_NE(c.notes[0].find("cccc -> aaaa"), std::string::npos);
}

TEST(JUnit, OneTestcasePerKernelAndGpuWithFailures) {
  Baseline base = baselineFromReport(run());
  BatchReport r = run(1.5);
  r.benchmarks[1].name = "t<&>";
  CheckReport c = compareWithBaseline(r, base, {});
  std::string x = renderJUnit(c);
  EXPECT_EQ(x.rfind("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites", 0), 0u) << x;
  auto count = [&](const std::string &s) {
    size_t n = 0;
    for (size_t p = x.find(s); p != std::string::npos; p = x.find(s, p + 1))
      ++n;
    return n;
  };
  // 6 current entries (t<&> is new twice) + 2 gone t entries.
  EXPECT_EQ(count("<testcase "), 8u);
  EXPECT_EQ(count("<testsuite "), 2u);
  // k1 and k2 on h100 regressed (k2 by its benchmark's speedup), t1 gone twice.
  EXPECT_EQ(count("<failure "), 4u);
  EXPECT_NE(x.find("<testcase classname=\"s\" name=\"k1 on h100\">\n      <failure message=\"projected time "
                   "grew +50.0% (1 ms -&gt; 1.5 ms), more than 5%"),
            std::string::npos)
      << x;
  EXPECT_NE(x.find("classname=\"t&lt;&amp;&gt;\""), std::string::npos);
  EXPECT_EQ(x.find("t<&>"), std::string::npos);
  EXPECT_NE(x.find("tests=\"8\" failures=\"4\""), std::string::npos) << x;
}

// The baseline keeps every double as it was (issue 17, item 9): written with 6
// digits, 0.0086294 came back as 0.008629 and `check --tolerance 0` straight
// after `--update-baseline` failed unchanged kernels.
TEST(Baseline, RoundTripsFullPrecisionSoThatAnUnchangedSuitePassesAtZeroTolerance) {
  BatchReport r = run(0.0086294371);
  r.benchmarks[1].cpuMs = 1.0 / 3.0; // a speedup of many digits too
  addPrograms(r);
  Baseline b = parseBaseline(renderBaselineJson(baselineFromReport(r)), "base.json");
  Baseline direct = baselineFromReport(r);
  ASSERT_EQ(b.entries.size(), direct.entries.size());
  for (size_t i = 0; i < b.entries.size(); ++i) {
    EXPECT_EQ(b.entries[i].timeMs, direct.entries[i].timeMs) << b.entries[i].kernel;
    EXPECT_EQ(b.entries[i].speedup, direct.entries[i].speedup) << b.entries[i].kernel;
  }
  CheckOptions o;
  o.tolerance = 0;
  CheckReport c = compareWithBaseline(r, b, o);
  EXPECT_FALSE(c.failed());
  EXPECT_EQ(c.count(CheckStatus::Unchanged), c.entries.size());
}
