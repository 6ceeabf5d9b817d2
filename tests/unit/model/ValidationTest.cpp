// `skelcast validate`'s ranking check: the favourite against the fastest
// measured layout, and the misses the run's own repeats do not resolve.
#include "skelcast/model/Validation.h"
#include "skelcast/support/Diagnostic.h"

#include "../support/TempDir.h"

#include <gtest/gtest.h>

using namespace skelcast;

namespace {

const std::string kSrc = SKELCAST_SOURCE_DIR;

std::string errorOf(const std::function<void()> &f) {
  try {
    f();
  } catch (const InputError &e) {
    return e.what();
  }
  return "(no error)";
}

const char *kTriad = "#define N 67108864\nfloat a[N]\nfloat b[N]\nfloat c[N]\n"
                     "parallel_for(N) : i {\n  comp 13\n  ld b[i]\n  ld c[i]\n  comp 4\n  st a[i]\n}\n";

} // namespace

// Two layouts of a triad, timed in batches of launches back to back: the one
// the model ranks first measured 20% slower than the other. Its repeats
// reaching below the other's slowest repeat make the miss a tie; repeats
// apart, no repeats' spread, or launches timed alone leave it a miss.
TEST(Validation, AMissTheRepeatsDoNotResolveIsATie) {
  testsupport::TempDir tmp("skelcast-validation-test");
  std::string skel = tmp.write("triad.skel", kTriad);
  hw::HwSpec hw = hw::loadHwSpec(kSrc + "/hwspecs/h100.json");
  auto measured = [&](const std::string &layout, double ms, double lo, double hi) {
    model::MeasuredCase c;
    c.kernel = "triad";
    c.size = "67108864";
    c.skeleton = skel;
    c.layout = layout;
    c.timeMs = ms;
    c.minMs = lo;
    c.maxMs = hi;
    c.timing = layout::LaunchTiming::BackToBack; // emit's batches of launches
    return c;
  };
  model::Measurements m;
  m.path = "inline";
  m.cases = {measured("block=i:256", 1.0, 0, 0), measured("block=i:32", 1.0, 0, 0)};
  std::string favourite = model::validate(m, hw, {}, "skelcast").kernels.at(0).projectedBest;
  auto withTimes = [&](double favLo, double favHi, double otherLo, double otherHi) {
    for (auto &c : m.cases) {
      bool fav = c.layout == favourite;
      c.timeMs = fav ? 1.2 : 1.0;
      c.minMs = fav ? favLo : otherLo;
      c.maxMs = fav ? favHi : otherHi;
    }
    return model::validate(m, hw, {}, "skelcast");
  };
  // The favourite's fastest repeat (0.95 ms) below the other's slowest (1.3).
  auto v = withTimes(0.95, 1.4, 0.9, 1.3);
  ASSERT_EQ(v.kernels.size(), 1u);
  EXPECT_FALSE(v.kernels[0].withinTenPercent) << "1.2 ms against 1.0 is 20% past the fastest";
  EXPECT_TRUE(v.kernels[0].tiedWithinRepeats);
  EXPECT_DOUBLE_EQ(v.kernels[0].projectedBestMinMs, 0.95);
  EXPECT_DOUBLE_EQ(v.kernels[0].fastestMaxMs, 1.3);
  EXPECT_EQ(v.topWithinTen, 0);
  EXPECT_EQ(v.topTiedWithinRepeats, 1);
  // Repeats apart: 1.15 ms at the fastest against 1.05 at the slowest.
  v = withTimes(1.15, 1.25, 0.95, 1.05);
  EXPECT_FALSE(v.kernels[0].tiedWithinRepeats);
  EXPECT_EQ(v.topTiedWithinRepeats, 0);
  // No repeats' spread in the file: a miss.
  v = withTimes(0, 0, 0, 0);
  EXPECT_FALSE(v.kernels[0].tiedWithinRepeats);
  // Launches timed alone: their extremes are single launches' jitter.
  for (auto &c : m.cases)
    c.timing = layout::LaunchTiming::RepeatedAlone;
  v = withTimes(0.95, 1.4, 0.9, 1.3);
  EXPECT_FALSE(v.kernels[0].tiedWithinRepeats);
}

// min_ms and max_ms come together, positive, around time_ms; the merge of
// several runs keeps the fastest run's time with its own spread.
TEST(Validation, TheRepeatsSpreadIsReadAndChecked) {
  testsupport::TempDir tmp("skelcast-validation-test");
  tmp.write("k.skel", "#define N 1024\nfloat a[N]\nparallel_for(N) : i {\n  st a[i]\n}\n");
  auto file = [&](const std::string &name, const std::string &fields) {
    return tmp.write(name, R"({"schema_version": 1, "cases": [
      {"kernel": "k", "size": "1", "skeleton": "k.skel", "layout": "block=i:32", "time_ms": 1.5)" + fields + "}]}");
  };
  auto m = model::loadMeasurements(file("a.json", R"(, "min_ms": 1.4, "max_ms": 1.9)"));
  EXPECT_DOUBLE_EQ(m.cases[0].minMs, 1.4);
  EXPECT_DOUBLE_EQ(m.cases[0].maxMs, 1.9);
  m = model::loadMeasurements(file("a.json", ""));
  EXPECT_EQ(m.cases[0].minMs, 0);
  std::string path = file("a.json", R"(, "min_ms": 1.6, "max_ms": 1.9)");
  EXPECT_EQ(errorOf([&] { model::loadMeasurements(path); }),
            path + ": error: field 'cases[0]': min_ms 1.6 <= time_ms 1.5 <= max_ms 1.9 does not hold");
  path = file("a.json", R"(, "min_ms": 1.4)");
  EXPECT_EQ(errorOf([&] { model::loadMeasurements(path); }),
            path + ": error: field 'cases[0].max_ms': missing or not a positive number");
  auto a = model::loadMeasurements(file("a.json", R"(, "min_ms": 1.4, "max_ms": 1.9)"));
  auto b = model::loadMeasurements(tmp.write("b.json", R"({"schema_version": 1, "cases": [
      {"kernel": "k", "size": "1", "skeleton": "k.skel", "layout": "block=i:32", "time_ms": 1.2, "min_ms": 1.1, "max_ms": 1.3}]})"));
  auto merged = model::mergeRuns({a, b});
  ASSERT_EQ(merged.cases.size(), 1u);
  EXPECT_DOUBLE_EQ(merged.cases[0].timeMs, 1.2);
  EXPECT_DOUBLE_EQ(merged.cases[0].minMs, 1.1);
  EXPECT_DOUBLE_EQ(merged.cases[0].maxMs, 1.3);
}
