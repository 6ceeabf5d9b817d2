// Numbers stay sane (issue 7, item 4): every bundled skeleton (skeletons/*.skel,
// validation/skeletons/*.skel) projected on every bundled spec (hwspecs/*.json)
// with every model gives JSON whose numbers are all finite: nlohmann prints a
// NaN or an infinity as null, so no null may stand where a number belongs.
//
// The plain build runs the whole matrix. The sanitizer build (SKELCAST_SANITIZED),
// where a projection is some six times slower, runs every skeleton once, on the
// specs and models in turn: it looks for memory errors and undefined behaviour
// along the same paths, while finiteness, a property of the numbers, is the
// plain build's to check in full.
#include "skelcast/cli/Cli.h"
#include "skelcast/model/Project.h"

#include "../support/JsonChecks.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <sstream>

using skelcast::cli::runCli;

namespace {

const std::string kSrc = SKELCAST_SOURCE_DIR;

std::vector<std::string> filesIn(const std::string &dir, const std::string &ext) {
  std::vector<std::string> out;
  for (const auto &e : std::filesystem::directory_iterator(kSrc + "/" + dir))
    if (e.path().extension() == ext)
      out.push_back(dir + "/" + e.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::string> bundledSkeletons() {
  auto a = filesIn("skeletons", ".skel");
  auto b = filesIn("validation/skeletons", ".skel");
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

std::vector<std::string> bundledSpecs() {
  std::vector<std::string> names;
  for (const auto &f : filesIn("hwspecs", ".json"))
    names.push_back(std::filesystem::path(f).stem().string());
  return names;
}

struct Case {
  std::string skeleton, spec;
  std::vector<std::string> models;
};

std::vector<Case> cases() {
  std::vector<Case> out;
  const auto skels = bundledSkeletons();
  const auto specs = bundledSpecs();
  const auto &models = skelcast::model::modelNames();
#ifdef SKELCAST_SANITIZED
  for (size_t i = 0; i < skels.size(); ++i)
    out.push_back({skels[i], specs[i % specs.size()], {models[i % models.size()]}});
#else
  for (const auto &sk : skels)
    for (const auto &sp : specs)
      out.push_back({sk, sp, models});
#endif
  return out;
}

class FiniteOutput : public ::testing::TestWithParam<Case> {};

TEST_P(FiniteOutput, EveryModelGivesFiniteNumbers) {
  const std::string &skel = GetParam().skeleton, &spec = GetParam().spec;
  for (const auto &model : GetParam().models) {
    std::ostringstream out, err;
    int rc = runCli({"project", kSrc + "/" + skel, "--hw", spec, "--model", model, "--format",
                     "json", "--top", "1000000", "--cpu-ms", "1"},
                    out, err);
    ASSERT_EQ(rc, 0) << skel << " on " << spec << " with " << model << ": " << err.str();
    std::vector<std::string> bad = skelcast::testsupport::nonFinite(out.str());
    EXPECT_TRUE(bad.empty()) << skel << " on " << spec << " with " << model
                             << ": not a finite number at " << ::testing::PrintToString(bad);
    // With --cpu-ms the speedup is a number too.
    auto j = nlohmann::json::parse(out.str());
    for (const auto &p : j["programs"])
      EXPECT_TRUE(p["speedup"].is_number()) << skel << " on " << spec << " with " << model;
  }
}

std::string caseName(const ::testing::TestParamInfo<Case> &info) {
  std::string s = info.param.skeleton + "_on_" + info.param.spec;
  if (info.param.models.size() == 1)
    s += "_with_" + info.param.models.front();
  for (char &c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)))
      c = '_';
  return s;
}

INSTANTIATE_TEST_SUITE_P(Bundled, FiniteOutput, ::testing::ValuesIn(cases()), caseName);

} // namespace
