// The figures `validate` prints under its ranking, from hand-made kernel
// checks: issue 19's figure (the enumerator's top itself measured and within
// 10% of the fastest) beside the one that judges each kernel by the measured
// layout the projection ranks first.
#include "skelcast/model/Validation.h"
#include "skelcast/report/Report.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

using namespace skelcast;

namespace {

model::KernelCheck check(const std::string &name, double fastestMs, double pickMs, bool topMeasured,
                         double topMs) {
  model::KernelCheck k;
  k.kernel = name;
  k.size = "1024";
  k.source = name + ".c";
  k.fastestMeasured = "block=i:256";
  k.fastestMs = fastestMs;
  k.projectedBest = "block=i:128";
  k.projectedBestMeasuredMs = pickMs;
  k.withinTenPercent = pickMs <= 1.10 * fastestMs;
  k.enumeratedTop = "block=i:64";
  k.enumeratedTopMeasured = topMeasured;
  k.enumeratedTopMs = topMs;
  return k;
}

TEST(ValidationView, CountsTheEnumeratorsTopMeasuredAndWithinTenPercent) {
  model::ValidationReport v;
  v.hwName = "h200";
  v.model = "skelcast";
  v.measurementsPath = "m.json";
  v.kernels = {check("a", 1.0, 1.05, true, 1.05),   // top measured, 5% off: counts
               check("b", 1.0, 1.05, true, 1.2),    // top measured, 20% off: does not
               check("c", 1.0, 1.0, false, 0.0),    // top not measured: judged by the pick only
               check("d", 1.0, 1.5, true, 1.1)};    // exactly 10%: counts
  v.topWithinTen = 3;
  std::string text = report::renderValidation(v);
  EXPECT_NE(text.find("3 of 4 kernels: projected favourite within 10% of the fastest measured\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("3 of 4 kernels: the enumerator's top itself measured, 2 of those tops within "
                      "10% of the fastest"),
            std::string::npos)
      << text;
  std::string md = report::renderValidationMarkdown(v);
  EXPECT_NE(md.find("The enumerator's top itself measured: 3 of 4 kernels, 2 of those tops within 10% "
                    "of the fastest."),
            std::string::npos)
      << md;
  auto j = nlohmann::json::parse(report::renderValidationJson(v));
  EXPECT_EQ(j["top_measured"], 3) << j.dump(1);
  EXPECT_EQ(j["top_measured_within_10pct"], 2) << j.dump(1);
  EXPECT_EQ(j["top_within_10pct"], 3) << j.dump(1);
}

} // namespace
