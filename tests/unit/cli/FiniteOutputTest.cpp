// Numbers stay sane (issue 7, item 4): every bundled skeleton (skeletons/*.skel,
// validation/skeletons/*.skel) and, with the frontend, every C example of the
// bundled suite (examples/*.c with bench/suite.json's options for it), projected
// on every bundled spec (hwspecs/*.json)
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

#include "Suite.h"

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
  std::string skeleton, spec; ///< skeleton: a .skel or .c input, from the source root
  std::vector<std::string> models;
  std::vector<std::string> inputArgs; ///< how the suite reads a C input (--extent, --trip, ...)
};

/// Every bundled input: the skeletons, then (with the frontend) the C examples of
/// bench/suite.json with the command-line form of the options it gives them.
std::vector<std::pair<std::string, std::vector<std::string>>> bundledInputs() {
  std::vector<std::pair<std::string, std::vector<std::string>>> out;
  for (const auto &sk : bundledSkeletons())
    out.push_back({sk, {}});
#ifdef SKELCAST_HAVE_FRONTEND
  std::filesystem::current_path(kSrc);
  for (const auto &b : skelcast::cli::loadSuite("bench/suite.json").benchmarks) {
    if (!skelcast::cli::isCInput(b.input))
      continue;
    std::vector<std::string> args;
    const auto &o = b.options;
    if (!o.function.empty())
      args.insert(args.end(), {"--function", o.function});
    for (const auto &[name, dims] : o.extents) {
      std::string v;
      for (int64_t d : dims)
        v += (v.empty() ? "" : ",") + std::to_string(d);
      args.insert(args.end(), {"--extent", name + "=" + v});
    }
    for (const auto &[name, n] : o.trips)
      args.insert(args.end(), {"--trip", name + "=" + std::to_string(n)});
    for (const auto &[name, file] : o.samples)
      args.insert(args.end(), {"--sample", name + "=" + file});
    // project's own spelling of the manifest's Clang arguments.
    for (const auto &c : o.compilerArgs) {
      if (c.rfind("-D", 0) == 0 || c.rfind("-I", 0) == 0)
        args.insert(args.end(), {c.substr(0, 2), c.substr(2)});
      else if (c.rfind("-std=", 0) == 0)
        args.insert(args.end(), {"--std", c.substr(5)});
      else
        args.push_back(c); // project refuses it: the test fails and names it
    }
    out.push_back({std::filesystem::path(b.input).lexically_normal().string(), args});
  }
#endif
  return out;
}

std::vector<Case> cases() {
  std::vector<Case> out;
  const auto inputs = bundledInputs();
  const auto specs = bundledSpecs();
  const auto &models = skelcast::model::modelNames();
#ifdef SKELCAST_SANITIZED
  for (size_t i = 0; i < inputs.size(); ++i)
    out.push_back({inputs[i].first, specs[i % specs.size()], {models[i % models.size()]}, inputs[i].second});
#else
  for (const auto &[in, args] : inputs)
    for (const auto &sp : specs)
      out.push_back({in, sp, models, args});
#endif
  return out;
}

class FiniteOutput : public ::testing::TestWithParam<Case> {};

TEST_P(FiniteOutput, EveryModelGivesFiniteNumbers) {
  const std::string &skel = GetParam().skeleton, &spec = GetParam().spec;
  for (const auto &model : GetParam().models) {
    std::ostringstream out, err;
    std::filesystem::current_path(kSrc); // the suite's sample files are relative to it
    std::vector<std::string> args{"project", skel, "--hw", spec, "--model", model, "--format",
                                  "json", "--top", "1000000", "--cpu-ms", "1"};
    args.insert(args.end(), GetParam().inputArgs.begin(), GetParam().inputArgs.end());
    int rc = runCli(args, out, err);
    // A GPU that cannot run the input at all says so (issue 17, items 7 and 8):
    // FP64 on a GPU without FP64 units, arrays beyond its device memory.
    if (rc == 1 && (err.str().find("has no FP64 units") != std::string::npos ||
                    err.str().find("(mem_capacity_bytes)") != std::string::npos))
      continue;
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

// Readable test names in ctest's listing (instead of the bytes of the struct).
void PrintTo(const Case &c, std::ostream *os) { *os << c.skeleton << " on " << c.spec; }

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
