// The JSON outputs against their schemas in docs/schema/ (issue 20, item 5): a
// validator of the subset of JSON Schema those files use (type, const, enum,
// required, properties, additionalProperties, items, minimum), run on what the
// commands print for real inputs. Any keyword outside the subset fails the test,
// so a schema cannot silently promise more than is checked.
#include "../support/CliRun.h"
#include "skelcast/toolchain/Toolchain.h"

#include <nlohmann/json.hpp>

#include <gtest/gtest.h>

#include <algorithm>

#include <filesystem>
#include <fstream>
#include <set>
#include <unistd.h>

using nlohmann::json;
using skelcast::testsupport::run;

namespace {

const std::string kSrc = SKELCAST_SOURCE_DIR;

bool hasType(const json &v, const std::string &t) {
  if (t == "object") return v.is_object();
  if (t == "array") return v.is_array();
  if (t == "string") return v.is_string();
  if (t == "integer") return v.is_number_integer();
  if (t == "number") return v.is_number();
  if (t == "boolean") return v.is_boolean();
  if (t == "null") return v.is_null();
  ADD_FAILURE() << "unknown type '" << t << "' in a schema";
  return false;
}

/// Errors of `v` against `s`, each naming its place (`/specs/0/sm_count`).
void validate(const json &v, const json &s, const std::string &at, std::vector<std::string> &errs) {
  static const std::set<std::string> known{"$schema", "$id", "title", "description", "type",
                                           "const", "enum", "required", "properties",
                                           "additionalProperties", "items", "minimum"};
  for (auto it = s.begin(); it != s.end(); ++it)
    if (!known.count(it.key()))
      errs.push_back(at + ": schema keyword '" + it.key() + "' is outside the validated subset");
  if (s.contains("type")) {
    bool ok = false;
    if (s["type"].is_array()) {
      for (const auto &t : s["type"])
        ok = ok || hasType(v, t.get<std::string>());
    } else {
      ok = hasType(v, s["type"].get<std::string>());
    }
    if (!ok) {
      errs.push_back(at + ": " + v.dump() + " is not of type " + s["type"].dump());
      return;
    }
  }
  if (s.contains("const") && v != s["const"])
    errs.push_back(at + ": " + v.dump() + " is not " + s["const"].dump());
  if (s.contains("enum") && std::find(s["enum"].begin(), s["enum"].end(), v) == s["enum"].end())
    errs.push_back(at + ": " + v.dump() + " is not one of " + s["enum"].dump());
  if (s.contains("minimum") && v.is_number() && v.get<double>() < s["minimum"].get<double>())
    errs.push_back(at + ": " + v.dump() + " is below " + s["minimum"].dump());
  if (v.is_object()) {
    if (s.contains("required"))
      for (const auto &r : s["required"])
        if (!v.contains(r.get<std::string>()))
          errs.push_back(at + ": missing '" + r.get<std::string>() + "'");
    for (auto it = v.begin(); it != v.end(); ++it) {
      std::string place = at + "/" + it.key();
      if (s.contains("properties") && s["properties"].contains(it.key()))
        validate(*it, s["properties"][it.key()], place, errs);
      else if (s.contains("additionalProperties")) {
        const json &ap = s["additionalProperties"];
        if (ap.is_boolean() && !ap.get<bool>())
          errs.push_back(place + ": not allowed here");
        else if (ap.is_object())
          validate(*it, ap, place, errs);
      }
      // a named property is also checked against additionalProperties' shape
      if (s.contains("properties") && s["properties"].contains(it.key()) &&
          s.contains("additionalProperties") && s["additionalProperties"].is_object())
        validate(*it, s["additionalProperties"], place, errs);
    }
  }
  if (v.is_array() && s.contains("items"))
    for (size_t i = 0; i < v.size(); ++i)
      validate(v[i], s["items"], at + "/" + std::to_string(i), errs);
}

json schema(const std::string &name) {
  std::ifstream in(kSrc + "/docs/schema/" + name);
  EXPECT_TRUE(in) << name;
  return json::parse(in);
}

void expectValid(const std::vector<std::string> &args, const std::string &schemaName) {
  auto r = run(args);
  ASSERT_EQ(r.rc, 0) << r.err;
  json v = json::parse(r.out);
  ASSERT_TRUE(v.contains("schema_version")) << "every JSON output carries schema_version";
  std::vector<std::string> errs;
  validate(v, schema(schemaName), "", errs);
  for (const auto &e : errs)
    ADD_FAILURE() << schemaName << ": " << e;
}

} // namespace

TEST(Schema, TheValidatorRejectsWhatItShould) {
  json s = json::parse(R"({"type": "object", "required": ["n"], "additionalProperties": false,
                           "properties": {"n": {"type": "integer", "minimum": 1}}})");
  std::vector<std::string> errs;
  validate(json::parse(R"({"n": 2})"), s, "", errs);
  EXPECT_TRUE(errs.empty());
  validate(json::parse(R"({"n": 2.0})"), s, "", errs);
  EXPECT_EQ(errs.size(), 1u) << "2.0 is not an integer";
  errs.clear();
  validate(json::parse(R"({"n": 0, "x": 1})"), s, "", errs);
  EXPECT_EQ(errs.size(), 2u);
  errs.clear();
  validate(json::parse(R"({})"), s, "", errs);
  EXPECT_EQ(errs.size(), 1u);
  errs.clear();
  validate(json(1), json::parse(R"({"pattern": "x"})"), "", errs);
  EXPECT_EQ(errs.size(), 1u) << "a keyword outside the subset is an error";
}

TEST(Schema, HwList) { expectValid({"hw", "list", "--format", "json"}, "hw-list.schema.json"); }

TEST(Schema, HwShowEveryBundledSpec) {
  for (const auto &e : std::filesystem::directory_iterator(kSrc + "/hwspecs"))
    if (e.path().extension() == ".json") {
      SCOPED_TRACE(e.path().string());
      expectValid({"hw", "show", e.path().stem().string(), "--format", "json"}, "hw-show.schema.json");
    }
}

// Every H100 measurement file, validated from C, against the schemas. The
// sanitizer build, where validating a file from C is some fifteen times slower
// (599 s against 41 for the 30 files, two cores with a build beside them),
// takes every fourth file of each kind in name order: the same code paths,
// looked at for memory errors and undefined behaviour; the schemas are the
// plain build's to check on them all.
#ifdef SKELCAST_SANITIZED
constexpr size_t kMeasurementShare = 4;
#else
constexpr size_t kMeasurementShare = 1;
#endif
TEST(Schema, ValidateKernelsAndPrograms) {
  std::filesystem::current_path(kSrc); // the measurements name their skeletons from there
  std::vector<std::string> names;
  for (const auto &e : std::filesystem::directory_iterator(kSrc + "/validation/results"))
    names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  size_t seenKernels = 0, seenPrograms = 0;
  for (const std::string &name : names) {
    bool kernels = name.size() > 13 && name.rfind("h100", 0) == 0 &&
                   name.compare(name.size() - 13, 13, "_kernels.json") == 0;
    bool programs = name.size() > 14 && name.rfind("h100", 0) == 0 &&
                    name.compare(name.size() - 14, 14, "_programs.json") == 0;
    if (!kernels && !programs)
      continue;
    if ((kernels ? seenKernels++ : seenPrograms++) % kMeasurementShare != 0)
      continue;
    SCOPED_TRACE(name);
    auto r = run({"validate", "validation/results/" + name, "--hw", "h100", "--format", "json"});
    ASSERT_NE(r.out, "") << r.err;
    json v = json::parse(r.out);
    std::vector<std::string> errs;
    validate(v, schema(kernels ? "validate-kernels.schema.json" : "validate-programs.schema.json"),
             "", errs);
    for (const auto &err : errs)
      ADD_FAILURE() << name << ": " << err;
  }
}

TEST(Schema, HwListCsvHasTheJsonColumns) {
  auto r = run({"hw", "list", "--format", "csv"});
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(r.out.substr(0, r.out.find('\n')), "name,sm_count,clock_ghz,mem_bandwidth_gbps,description");
  auto j = json::parse(run({"hw", "list", "--format", "json"}).out);
  EXPECT_EQ(static_cast<size_t>(std::count(r.out.begin(), r.out.end(), '\n')), j["specs"].size() + 1);
}

TEST(Schema, ProjectOnEveryBundledSkeleton) {
  for (const auto &e : std::filesystem::directory_iterator(kSrc + "/skeletons"))
    if (e.path().extension() == ".skel") {
      SCOPED_TRACE(e.path().string());
      expectValid({"project", e.path().string(), "--hw", "h100", "--top", "3", "--cpu-ms", "10",
                   "--format", "json"},
                  "project.schema.json");
    }
}

#ifdef SKELCAST_HAVE_FRONTEND // C inputs
TEST(Schema, ProjectIndexedRepeatAndOneKernel) {
  // a repeat's launches (hotspot_steps) and --kernel, which projects no program
  expectValid({"project", kSrc + "/examples/hotspot_steps.c", "--top", "2", "--format", "json"},
              "project.schema.json");
  expectValid({"project", kSrc + "/skeletons/matmul.skel", "--kernel", "matmul", "--format", "json"},
              "project.schema.json");
}

// ptxas's registers (docs/model.md, "Registers from ptxas"): project's re-rank
// and validate's C path mark each layout's registers; needs nvcc and clang-19.
TEST(Schema, ProjectAndValidateWithPtxasRegisters) {
  skelcast::toolchain::Tools t = skelcast::toolchain::findTools();
  if (!t.hasPtxas() || !t.hasPtx())
    GTEST_SKIP() << "needs nvcc (ptxas) and clang-19";
  std::filesystem::current_path(kSrc); // the measurements name their C files from there
  expectValid({"project", "examples/matmul.c", "--counts", "ptx", "--top", "1", "--format", "json"},
              "project.schema.json");
  auto r = run({"validate", "tests/data/ptxas/matmul_kernels.json", "--hw", "h100", "--counts", "ptx",
                "--format", "json"});
  ASSERT_EQ(r.rc, 0) << r.err;
  json v = json::parse(r.out);
  std::vector<std::string> errs;
  validate(v, schema("validate-kernels.schema.json"), "", errs);
  for (const auto &err : errs)
    ADD_FAILURE() << err;
  // ptxas's counts of the emitted layouts, as the H100 run of the same code reported them
  for (const auto &c : v["cases"]) {
    ASSERT_TRUE(c.contains("registers")) << c.dump();
    EXPECT_EQ(c["registers"]["source"], "ptxas") << c.dump();
  }
  // (today's emit, 32-bit task coordinates: validation/results/h100_emit8_kernels.json)
  EXPECT_EQ(v["cases"][0]["registers"]["per_thread"], 15)
      << "block=i:16,j:16, its loop rolled: regs_per_thread 15 on the H100";
  EXPECT_EQ(v["cases"][1]["registers"]["per_thread"], 64)
      << "regs_per_thread 64 on the H100 (the register tile)";
  // --check-programs: each case's program compared with today's (docs/validation.md)
  auto checked = run({"validate", "tests/data/ptxas/matmul_kernels.json", "--hw", "h100",
                      "--check-programs", "--format", "json"});
  ASSERT_EQ(checked.rc, 0) << checked.err;
  json c = json::parse(checked.out);
  errs.clear();
  validate(c, schema("validate-kernels.schema.json"), "", errs);
  for (const auto &err : errs)
    ADD_FAILURE() << "--check-programs: " << err;
  EXPECT_EQ(c["programs"]["compared"], 2) << checked.out;
}

#endif

TEST(Schema, ProjectOnSeveralGpus) {
  expectValid({"project", kSrc + "/skeletons/matmul.skel", "--hw", "h100,a100,v100", "--top", "2",
               "--cpu-ms", "10", "--format", "json"},
              "project-gpus.schema.json");
  expectValid({"project", kSrc + "/skeletons/hotspot.skel", "--hw", "h100,a100", "--format", "json"},
              "project-gpus.schema.json");
}

TEST(Schema, ProjectSweeps) {
  // with and without a CPU time (break-even 'between' or 'unknown'), one and two GPUs, --set
  expectValid({"project", kSrc + "/skeletons/matmul.skel", "--sweep", "N=64..2048:log", "--cpu-ms", "20",
               "--format", "json"},
              "project-sweep.schema.json");
  expectValid({"project", kSrc + "/skeletons/hotspot.skel", "--sweep", "ROWS=256,512,1024", "--hw",
               "h100,v100", "--set", "mem_bandwidth_gbps=4000", "--format", "json"},
              "project-sweep.schema.json");
}

TEST(Schema, ExplainOneAndSeveralGpus) {
  expectValid({"explain", kSrc + "/skeletons/matmul.skel", "--layout", "block=i:16,j:16 stage=k:16 cache=A,B",
               "--format", "json"},
              "explain.schema.json");
  expectValid({"explain", kSrc + "/skeletons/hotspot.skel", "--hw", "h100,a100", "--layout",
               "block=i:16,j:16", "--set", "mem_bandwidth_gbps=4000", "--format", "json"},
              "explain.schema.json");
}

TEST(Schema, ExplainJsonHoldsTheTextsQuantities) {
  std::vector<std::string> args{"explain", kSrc + "/skeletons/matmul.skel", "--layout",
                                "block=i:16,j:16 stage=k:16 cache=A,B"};
  std::string text = run(args).out;
  args.insert(args.end(), {"--format", "json"});
  json j = json::parse(run(args).out);
  ASSERT_EQ(j["explanations"].size(), 1u);
  size_t n = 0;
  for (const auto &s : j["explanations"][0]["sections"]) {
    EXPECT_NE(text.find("\n" + s["title"].get<std::string>() + "\n"), std::string::npos) << s["title"];
    for (const auto &q : s["quantities"]) {
      EXPECT_NE(text.find("  " + q["name"].get<std::string>() + " "), std::string::npos) << q["name"];
      ++n;
    }
  }
  EXPECT_GT(n, 40u);
  // whole quantities are JSON integers: Thread_per_block = 256 for a 16x16 block
  bool found = false;
  for (const auto &s : j["explanations"][0]["sections"])
    for (const auto &q : s["quantities"])
      if (q["name"] == "Thread_per_block") {
        found = true;
        EXPECT_TRUE(q["value"].is_number_integer()) << q["value"].dump();
        EXPECT_EQ(q["value"], 256);
      }
  EXPECT_TRUE(found);
}

#ifdef SKELCAST_HAVE_FRONTEND
TEST(Schema, SkeletonizeEveryExample) {
  size_t n = 0;
  for (const auto &e : std::filesystem::directory_iterator(kSrc + "/examples"))
    if (e.path().extension() == ".c" && run({"skeletonize", e.path().string()}).rc == 0) {
      // (some need --extent: those skeletonize refuses are not outputs)
      SCOPED_TRACE(e.path().string());
      expectValid({"skeletonize", e.path().string(), "--format", "json"}, "skeletonize.schema.json");
      ++n;
    }
  EXPECT_GE(n, 10u);
  // the JSON's skeleton is what skeletonize prints
  auto text = run({"skeletonize", kSrc + "/examples/matmul.c"});
  auto j = json::parse(run({"skeletonize", kSrc + "/examples/matmul.c", "--format", "json"}).out);
  EXPECT_EQ(j["skeleton"].get<std::string>(), text.out);
}

#endif

namespace {

/// A manifest of two bundled skeletons (one with a CPU time, one without) and
/// an input that does not exist, in a fresh directory.
std::filesystem::path smallSuite(const std::string &name) {
  auto dir = std::filesystem::temp_directory_path() / ("skelcast_schema_" + name + "_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "suite.json") << R"({"schema_version": 1, "benchmarks": [
    {"name": "matmul", "input": ")" + kSrc + R"(/skeletons/matmul.skel", "cpu_ms": 232.2},
    {"name": "hotspot", "input": ")" + kSrc + R"(/skeletons/hotspot.skel"},
    {"name": "missing", "input": "no_such_file.skel"}]})";
  return dir;
}

} // namespace

TEST(Schema, BatchReportJson) {
  auto dir = smallSuite("batch");
  auto r = run({"batch", (dir / "suite.json").string(), "--hw", "h100,a100", "--top", "2", "--out",
                (dir / "out").string()});
  EXPECT_NE(r.rc, 0) << "an input is missing";
  std::ifstream in(dir / "out" / "report.json");
  ASSERT_TRUE(in) << r.err;
  json v = json::parse(in);
  std::vector<std::string> errs;
  validate(v, schema("batch.schema.json"), "", errs);
  for (const auto &e : errs)
    ADD_FAILURE() << "batch.schema.json: " << e;
  std::filesystem::remove_all(dir);
}

TEST(Schema, CheckJsonAndCsv) {
  auto dir = smallSuite("check");
  std::filesystem::remove(dir / "suite.json");
  std::ofstream(dir / "suite.json") << R"({"schema_version": 1, "benchmarks": [
    {"name": "matmul", "input": ")" + kSrc + R"(/skeletons/matmul.skel", "cpu_ms": 232.2},
    {"name": "hotspot", "input": ")" + kSrc + R"(/skeletons/hotspot.skel"}]})";
  std::string suite = (dir / "suite.json").string(), base = (dir / "base.json").string();
  auto u = run({"check", suite, "--baseline", base, "--hw", "h100", "--update-baseline"});
  ASSERT_EQ(u.rc, 0) << u.err;
  expectValid({"check", suite, "--baseline", base, "--format", "json"}, "check.schema.json");
  // a baseline twice as fast as now: regressions, still valid
  json b = json::parse(std::ifstream(base));
  for (auto &e : b["entries"])
    e["time_ms"] = e["time_ms"].get<double>() / 2;
  std::ofstream(base) << b.dump(2);
  auto r = run({"check", suite, "--baseline", base, "--format", "json"});
  EXPECT_EQ(r.rc, 1);
  json v = json::parse(r.out);
  std::vector<std::string> errs;
  validate(v, schema("check.schema.json"), "", errs);
  for (const auto &e : errs)
    ADD_FAILURE() << "check.schema.json: " << e;
  EXPECT_EQ(v["passed"], false);
  EXPECT_GT(v["summary"]["regressed"].get<int>(), 0);
  auto csv = run({"check", suite, "--baseline", base, "--format", "csv"});
  EXPECT_EQ(csv.out.substr(0, csv.out.find('\n')),
            "status,benchmark,kernel,gpu,old_time_ms,new_time_ms,old_speedup,new_speedup,"
            "time_regressed,speedup_regressed,fails,message");
  EXPECT_EQ(static_cast<size_t>(std::count(csv.out.begin(), csv.out.end(), '\n')),
            json::parse(run({"check", suite, "--baseline", base, "--format", "json"}).out)["entries"].size() + 1);
  std::filesystem::remove_all(dir);
}

TEST(Schema, EverySchemaFileIsTested) {
  // docs/schema/README.md lists each schema; each must be used above
  std::set<std::string> tested{"hw-list.schema.json", "hw-show.schema.json",
                               "validate-kernels.schema.json", "validate-programs.schema.json",
                               "project.schema.json", "project-gpus.schema.json",
                               "project-sweep.schema.json", "explain.schema.json", "skeletonize.schema.json",
                               "batch.schema.json", "check.schema.json"};
  for (const auto &e : std::filesystem::directory_iterator(kSrc + "/docs/schema"))
    if (e.path().extension() == ".json")
      EXPECT_TRUE(tested.count(e.path().filename().string())) << e.path();
}
