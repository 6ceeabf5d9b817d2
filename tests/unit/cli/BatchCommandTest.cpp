// `skelcast batch` and `skelcast check`, run in-process: suites from a
// directory and from a manifest, manifest errors that name the field, failing
// inputs that do not stop the others, -j that does not change a byte, and the
// check's exit codes.
#include "skelcast/cli/Cli.h"

#include "../support/CliRun.h"
#include "SuiteRunner.h"
#include "skelcast/hw/HwSpec.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <set>
#include <thread>

namespace fs = std::filesystem;
using skelcast::cli::runCli;

namespace {

using skelcast::testsupport::CliRun;
using skelcast::testsupport::run;

const std::string kSrc = SKELCAST_SOURCE_DIR;

std::string slurp(const fs::path &p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void spit(const fs::path &p, const std::string &text) {
  std::ofstream out(p, std::ios::binary);
  out << text;
}

/// A fresh directory per test, removed afterwards.
class BatchTest : public ::testing::Test {
protected:
  void SetUp() override {
    const auto *info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() /
           (std::string("skelcast_") + info->test_suite_name() + "_" + info->name() + "_" +
            std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string path(const std::string &name) const { return (dir_ / name).string(); }
  /// A manifest in the temp directory; inputs refer to the repository.
  std::string manifest(const std::string &benchmarks, const std::string &name = "suite.json") {
    spit(dir_ / name, "{\"schema_version\": 1, \"benchmarks\": [" + benchmarks + "]}");
    return path(name);
  }
  fs::path dir_;
};

std::string bench(const std::string &name, const std::string &input, const std::string &extra = "") {
  return "{\"name\": \"" + name + "\", \"input\": \"" + input + "\"" + extra + "}";
}

const std::string kMatmul = kSrc + "/skeletons/matmul.skel";
const std::string kHotspot = kSrc + "/skeletons/hotspot.skel";
const std::string kTriad = kSrc + "/validation/skeletons/streaming_1M.skel";
const std::string kIspinex = kSrc + "/skeletons/ispinex_real.skel";

} // namespace

TEST_F(BatchTest, WritesTheFourReports) {
  std::string suite = manifest(bench("matmul", kMatmul, ", \"cpu_ms\": 230") + "," + bench("triad", kTriad));
  CliRun r = run({"batch", suite, "--hw", "h100,a100", "--out", path("out"), "-j", "2"});
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_TRUE(r.err.empty()) << r.err; // no progress bar when stderr is not a terminal
  EXPECT_NE(r.out.find("2 benchmarks, 2 kernels on h100, a100: 4 projections, 0 failed"), std::string::npos)
      << r.out;
  for (const char *f : {"report.md", "report.html", "report.json", "report.csv"})
    EXPECT_TRUE(fs::is_regular_file(dir_ / "out" / f)) << f;
  // Atomic writes leave no temporary file behind.
  size_t files = 0;
  for (const auto &e : fs::directory_iterator(dir_ / "out"))
    files += e.is_regular_file() ? 1 : 0;
  EXPECT_EQ(files, 4u);
  auto j = nlohmann::json::parse(slurp(dir_ / "out" / "report.json"));
  EXPECT_EQ(j["benchmarks"][0]["input"], kMatmul);
  EXPECT_TRUE(j["benchmarks"][0]["gpus"][1]["speedup"].is_number());
  EXPECT_TRUE(j["benchmarks"][1]["gpus"][1]["speedup"].is_null());
  EXPECT_EQ(j["gpus"][1]["name"], "a100");
  EXPECT_EQ(j["gpus"][1]["content_hash"].get<std::string>().size(), 16u);
}

TEST_F(BatchTest, OutputDoesNotDependOnTheNumberOfThreads) {
  std::string suite = kSrc + "/skeletons";
  CliRun one = run({"batch", suite, "--hw", "h100,a100", "--out", path("j1"), "-j", "1"});
  CliRun four = run({"batch", suite, "--hw", "h100,a100", "--out", path("j4"), "-j", "4"});
  ASSERT_EQ(one.rc, 0) << one.err;
  ASSERT_EQ(four.rc, 0) << four.err;
  for (const char *f : {"report.md", "report.html", "report.json", "report.csv"}) {
    std::string a = slurp(dir_ / "j1" / f), b = slurp(dir_ / "j4" / f);
    EXPECT_FALSE(a.empty()) << f;
    EXPECT_TRUE(a == b) << f << " differs between -j 1 and -j 4";
  }
}

#ifdef SKELCAST_HAVE_FRONTEND
// C inputs are parsed on the -j threads (issue 20, item 9): several C files
// (one that Clang refuses, one with no portable nest, one with warnings) beside
// a .skel, read in whatever order the threads take them, must give the same
// bytes in every report, and the same stdout and stderr, at -j 1 and -j 4.
TEST_F(BatchTest, CInputsParsedInParallelGiveTheSameBytesAtEveryJ) {
  fs::create_directories(dir_ / "suite");
  for (const char *f : {"matmul.c", "hotspot.c", "stencil2d.c", "lu.c", "transpose.c", "reduction.c",
                        "unsupported.c", "triangular.c"})
    fs::copy_file(fs::path(kSrc) / "examples" / f, dir_ / "suite" / f);
  fs::copy_file(kIspinex, dir_ / "suite" / "ispinex_real.skel");
  spit(dir_ / "suite" / "broken.c", "void f(int n, float *x) { for (int i = 0; i < n; i++) x[i] = ; }\n");
  std::vector<CliRun> runs;
  for (const char *j : {"1", "4"})
    runs.push_back(run({"batch", path("suite"), "--hw", "h100,a100", "--out", path(std::string("j") + j), "-j",
                        j, "-q"}));
  // broken.c does not compile; hotspot.c needs --extent row=... col=...
  EXPECT_EQ(runs[0].rc, 1) << runs[0].out << runs[0].err;
  EXPECT_EQ(runs[1].rc, runs[0].rc);
  auto sameButDir = [&](std::string text, const char *j) {
    for (size_t at; (at = text.find(path(std::string("j") + j))) != std::string::npos;)
      text.replace(at, path(std::string("j") + j).size(), "OUT");
    return text;
  };
  EXPECT_EQ(sameButDir(runs[0].out, "1"), sameButDir(runs[1].out, "4"));
  EXPECT_EQ(runs[0].err, runs[1].err);
  auto j = nlohmann::json::parse(slurp(dir_ / "j1" / "report.json"));
  ASSERT_EQ(j["benchmarks"].size(), 10u);
  size_t failed = 0, projected = 0;
  for (const auto &b : j["benchmarks"])
    (b["error"].is_null() ? projected : failed) += 1;
  EXPECT_EQ(failed, 2u) << "broken.c and hotspot.c";
  EXPECT_EQ(projected, 8u);
  for (const char *f : {"report.md", "report.html", "report.json", "report.csv"}) {
    std::string a = slurp(dir_ / "j1" / f), b = slurp(dir_ / "j4" / f);
    EXPECT_FALSE(a.empty()) << f;
    EXPECT_TRUE(a == b) << f << " differs between -j 1 and -j 4";
  }
}
#endif

// A program that cannot be projected where every kernel has a projection (here
// a spec without `host_link`, which the transfers need) was dropped without a
// word: the report had no program and no reason, and batch exited 0. It is a
// warning at the error's position in every report, a message on stderr, and
// exit code 1.
TEST_F(BatchTest, AProgramThatFailsIsReportedAndFailsTheRun) {
  auto spec = nlohmann::json::parse(slurp(fs::path(kSrc) / "hwspecs" / "h100.json"));
  spec.erase("host_link");
  spec["name"] = "nolink";
  spit(dir_ / "nolink.json", spec.dump(2));
  std::string suite = manifest(bench("matmul", kMatmul, ", \"cpu_ms\": 230"));
  CliRun r = run({"batch", suite, "--hw", "h100," + path("nolink.json"), "--out", path("out"), "-q"});
  EXPECT_EQ(r.rc, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("2 projections, 0 failed; 1 program without projection"), std::string::npos) << r.out;
  std::string want = path("nolink.json") +
                     ": warning: no program projection of 'matmul' on nolink: field 'host_link': missing";
  EXPECT_NE(r.err.find("benchmark 'matmul', the program on nolink failed:\n" + want), std::string::npos)
      << "expected on stderr: " << want << "\ngot: " << r.err;
  auto j = nlohmann::json::parse(slurp(dir_ / "out" / "report.json"));
  const auto &b = j["benchmarks"][0];
  ASSERT_EQ(b["warnings"].size(), 1u) << b["warnings"];
  EXPECT_EQ(b["warnings"][0].get<std::string>().rfind(want, 0), 0u) << b["warnings"][0];
  EXPECT_FALSE(b["gpus"][0]["program"].is_null()) << "h100 has its host link";
  EXPECT_TRUE(b["gpus"][1]["program"].is_null());
  EXPECT_NE(slurp(dir_ / "out" / "report.md").find(want), std::string::npos);

  skelcast::cli::SuiteRunOptions o;
  o.gpus.push_back(skelcast::hw::loadHwSpec(path("nolink.json")));
  auto failures = skelcast::cli::programFailures(
      skelcast::cli::runSuite(skelcast::cli::loadSuite(suite), o));
  ASSERT_EQ(failures.size(), 1u);
  EXPECT_EQ(failures[0].benchmark, "matmul");
  EXPECT_EQ(failures[0].gpu, "nolink");
  EXPECT_EQ(failures[0].message.rfind(want, 0), 0u) << failures[0].message;
}

// The same failure fails `check` too, and keeps --update-baseline from writing
// a baseline without the program.
TEST_F(BatchTest, AProgramThatFailsFailsTheCheckAndTheBaselineUpdate) {
  auto spec = nlohmann::json::parse(slurp(fs::path(kSrc) / "hwspecs" / "h100.json"));
  spec.erase("host_link");
  spec["name"] = "nolink";
  spit(dir_ / "nolink.json", spec.dump(2));
  std::string suite = manifest(bench("matmul", kMatmul, ", \"cpu_ms\": 230"));
  std::string base = path("base.json");
  CliRun good = run({"check", suite, "--baseline", base, "--update-baseline", "--hw", "h100"});
  ASSERT_EQ(good.rc, 0) << good.out << good.err;
  std::string before = slurp(base);
  std::string want = path("nolink.json") +
                     ": warning: no program projection of 'matmul' on nolink: field 'host_link': missing";
  CliRun update = run({"check", suite, "--baseline", base, "--update-baseline", "--hw",
                       "h100," + path("nolink.json")});
  EXPECT_EQ(update.rc, 1) << update.out << update.err;
  EXPECT_NE(update.err.find("benchmark 'matmul', the program on nolink failed:\n" + want), std::string::npos)
      << "expected on stderr: " << want << "\ngot: " << update.err;
  EXPECT_NE(update.err.find("is left as it was"), std::string::npos) << update.err;
  EXPECT_EQ(slurp(base), before) << "the baseline must not change";
  // a baseline of h100 only, checked on h100 and nolink: the program's failure fails the check
  CliRun check = run({"check", suite, "--baseline", base, "--hw", "h100," + path("nolink.json")});
  EXPECT_EQ(check.rc, 1) << check.out << check.err;
  EXPECT_NE(check.err.find("the program on nolink failed"), std::string::npos) << check.err;
}

// Two runs writing into the same --out (issue 17, item 1): a user saw report.md
// and report.html of one run beside report.json and report.csv of the other,
// both exiting 0. Whatever the interleaving, the four files must be one run's:
// the second writer is refused while the first holds the directory.
TEST_F(BatchTest, ConcurrentWritersLeaveOneRunsReports) {
  std::string suite = manifest(bench("matmul", kMatmul) + "," + bench("triad", kTriad));
  std::string out = path("shared");
  const char *gpus[2] = {"h100", "a100"};
  int refused = 0;
  for (int trial = 0; trial < 20; ++trial) {
    CliRun runs[2];
    std::thread writers[2];
    for (int w = 0; w < 2; ++w)
      writers[w] = std::thread([&, w] { runs[w] = run({"batch", suite, "--hw", gpus[w], "--out", out, "-j", "1"}); });
    for (auto &t : writers)
      t.join();
    int ok = 0;
    for (int w = 0; w < 2; ++w) {
      if (runs[w].rc == 0) {
        ++ok;
        continue;
      }
      ++refused;
      EXPECT_EQ(runs[w].rc, 1) << runs[w].err;
      EXPECT_EQ(runs[w].err, out + ": error: another skelcast is writing reports into this directory; "
                                   "wait for it to finish or choose another --out\n");
    }
    EXPECT_GE(ok, 1) << "trial " << trial;
    // Which GPU the reports are of: the JSON names it; every other file names it and not the other.
    auto j = nlohmann::json::parse(slurp(fs::path(out) / "report.json"));
    ASSERT_EQ(j["gpus"].size(), 1u);
    std::string gpu = j["gpus"][0]["name"], other = gpu == "h100" ? "a100" : "h100";
    for (const char *f : {"report.md", "report.html", "report.csv"}) {
      std::string text = slurp(fs::path(out) / f);
      EXPECT_NE(text.find(gpu), std::string::npos) << "trial " << trial << ": " << f << " is not of the " << gpu << " run";
      EXPECT_EQ(text.find(other), std::string::npos) << "trial " << trial << ": " << f << " is of the " << other << " run";
    }
    size_t files = 0;
    for (const auto &e : fs::directory_iterator(out))
      files += 1 + 0 * e.is_regular_file();
    EXPECT_EQ(files, 4u) << "trial " << trial << ": a temporary file was left";
  }
  std::cout << refused << " of 40 runs refused\n";
}

// The progress count (issue 17, item 21): its total was the jobs of the inputs
// read so far, so it grew (4/4, 5/22 ... 220/220) and reached 100% many times.
// Now it counts inputs, all of them known before anything is read: one call per
// input, done = 1, 2, ..., total, and the total never changes.
TEST_F(BatchTest, ProgressCountsInputsAgainstAFixedTotal) {
  std::string suite = manifest(bench("matmul", kMatmul) + "," + bench("missing", "no_such.skel") + "," +
                               bench("hotspot", kHotspot) + "," + bench("triad", kTriad));
  skelcast::cli::SuiteRunOptions o;
  for (const char *g : {"h100", "a100"})
    o.gpus.push_back(skelcast::hw::loadHwSpec(kSrc + "/hwspecs/" + g + ".json"));
  o.jobs = 3;
  std::vector<skelcast::cli::InputProgress> seen;
  o.progress = [&](const skelcast::cli::InputProgress &p) { seen.push_back(p); };
  skelcast::cli::runSuite(skelcast::cli::loadSuite(suite), o);
  ASSERT_EQ(seen.size(), 4u);
  std::set<std::string> names;
  for (size_t i = 0; i < seen.size(); ++i) {
    EXPECT_EQ(seen[i].done, i + 1);
    EXPECT_EQ(seen[i].total, 4u);
    EXPECT_EQ(seen[i].gpus, 2u);
    names.insert(seen[i].name);
    EXPECT_EQ(seen[i].failed, seen[i].name == "missing") << seen[i].name;
    if (seen[i].name == "matmul") {
      EXPECT_EQ(seen[i].input, kMatmul);
      EXPECT_EQ(seen[i].kernels, 1u);
    }
  }
  EXPECT_EQ(names, (std::set<std::string>{"matmul", "missing", "hotspot", "triad"}));
}

TEST_F(BatchTest, DirectorySuiteTakesEveryCAndSkelFile) {
  fs::create_directories(dir_ / "suite");
  fs::copy_file(kMatmul, dir_ / "suite" / "matmul.skel");
  fs::copy_file(kHotspot, dir_ / "suite" / "hotspot.skel");
  spit(dir_ / "suite" / "hotspot.c", "void f(void) {}\n");
  spit(dir_ / "suite" / "notes.txt", "not an input\n");
  CliRun r = run({"batch", path("suite"), "--out", path("out")});
  // The C file fails (it has no loop nest, or there is no frontend) and is listed; the others ran.
  EXPECT_EQ(r.rc, 1) << r.out << r.err;
  auto j = nlohmann::json::parse(slurp(dir_ / "out" / "report.json"));
  ASSERT_EQ(j["benchmarks"].size(), 3u);
  EXPECT_EQ(j["benchmarks"][0]["name"], "hotspot.c"); // same stem twice: names keep the extension
  EXPECT_EQ(j["benchmarks"][1]["name"], "hotspot.skel");
  EXPECT_EQ(j["benchmarks"][2]["name"], "matmul");
  std::string err = j["benchmarks"][0]["error"].get<std::string>();
  EXPECT_TRUE(err.find("skeletonizer") != std::string::npos ||
              err.find("no loop nest") != std::string::npos)
      << err;
  EXPECT_TRUE(j["benchmarks"][2]["error"].is_null());
  EXPECT_EQ(j["gpus"][0]["name"], "h100"); // the default GPU
  EXPECT_NE(r.err.find("benchmark 'hotspot.c' failed"), std::string::npos) << r.err;
  EXPECT_NE(slurp(dir_ / "out" / "report.md").find("## Failures"), std::string::npos);
}

#ifdef SKELCAST_HAVE_FRONTEND
TEST_F(BatchTest, CInputOptionsApplyToEveryCFile) {
  // PolyBench's way: the sizes come from a header chosen by a -D, through -I
  fs::create_directories(dir_ / "suite" / "inc");
  spit(dir_ / "suite" / "inc" / "sizes.h", "#ifdef LARGE\n#define N 4096\n#else\n#define N 64\n#endif\n");
  spit(dir_ / "suite" / "a.c", "#include \"sizes.h\"\nfloat x[N], y[N];\n"
                               "void a(void) { for (int i = 0; i < N; i++) y[i] = 2 * x[i]; }\n");
  spit(dir_ / "suite" / "b.c", "#include \"sizes.h\"\nvoid b(int n, float *y) {\n"
                               "  for (int i = 0; i < n; i++) y[i] += 1; }\n");
  CliRun r = run({"batch", path("suite"), "--out", path("out"), "-I", path("suite/inc"), "-D",
                  "LARGE", "--extent", "n=1000", "-q"});
  EXPECT_EQ(r.rc, 0) << r.out << r.err;
  std::string md = slurp(dir_ / "out" / "report.json");
  // x and y of 4096 floats each (64 each without the -D)
  EXPECT_NE(md.find("\"compulsory_bytes\": 32768"), std::string::npos) << "the -D did not reach a.c";
  auto j = nlohmann::json::parse(md);
  ASSERT_EQ(j["benchmarks"].size(), 2u);
  EXPECT_TRUE(j["benchmarks"][0]["error"].is_null()) << j["benchmarks"][0]["error"];
  EXPECT_TRUE(j["benchmarks"][1]["error"].is_null()) << j["benchmarks"][1]["error"];
}
#endif

TEST_F(BatchTest, AFailingInputDoesNotStopTheOthers) {
  spit(dir_ / "bad.skel", "parallel_for (N) : i {\n");
  std::string suite = manifest(bench("missing", "nope.skel") + "," + bench("bad", "bad.skel") + "," +
                               bench("c", "prog.c") + "," + bench("matmul", kMatmul));
  CliRun r = run({"batch", suite, "--out", path("out")});
  EXPECT_EQ(r.rc, 1);
  auto j = nlohmann::json::parse(slurp(dir_ / "out" / "report.json"));
  EXPECT_EQ(j["summary"]["failures"], 3);
  EXPECT_EQ(j["summary"]["projections"], 1);
  std::string missing = j["benchmarks"][0]["error"];
  EXPECT_NE(missing.find("suite.json: error: field 'benchmarks[0].input': cannot read"), std::string::npos)
      << missing;
  std::string bad = j["benchmarks"][1]["error"];
  EXPECT_NE(bad.find("bad.skel:2:1: error: "), std::string::npos) << bad;
  EXPECT_TRUE(j["benchmarks"][3]["error"].is_null());
}

TEST_F(BatchTest, ManifestErrorsNameTheField) {
  struct Case {
    std::string text, expected, position; ///< position: ":line:col" where the text has one
  };
  std::vector<Case> cases{
      {"{", "invalid JSON", ":1:2"},
      {"[]", "a suite manifest is a JSON object"},
      {R"({"benchmarks": []})", "field 'schema_version': missing"},
      {R"({"schema_version": 2, "benchmarks": []})", "field 'schema_version': 2 is not supported"},
      {R"({"schema_version": 1})", "field 'benchmarks': missing"},
      {R"({"schema_version": 1, "benchmarks": []})", "field 'benchmarks': is empty"},
      {R"({"schema_version": 1, "benchmarks": [], "extra": 1})", "field 'extra': unknown field"},
      {R"({"schema_version": 1, "benchmarks": [{"input": "a.skel"}]})", "field 'benchmarks[0].name': missing"},
      {R"({"schema_version": 1, "benchmarks": [{"name": "a"}]})", "field 'benchmarks[0].input': missing"},
      {R"({"schema_version": 1, "benchmarks": [{"name": "a", "input": "a.skel", "cpu_ms": "12"}]})",
       "field 'benchmarks[0].cpu_ms': must be a positive number of milliseconds, is \"12\""},
      {R"({"schema_version": 1, "benchmarks": [{"name": "a", "input": "a.skel", "cpu_ms": 0}]})",
       "field 'benchmarks[0].cpu_ms': must be a positive number"},
      {R"({"schema_version": 1, "benchmarks": [{"name": "a", "input": "a.skel", "trip": {"n": -1}}]})",
       "field 'benchmarks[0].trip.n': must be a non-negative integer"},
      {R"({"schema_version": 1, "benchmarks": [{"name": "a", "input": "a.skel", "sample": {"M": 3}}]})",
       "field 'benchmarks[0].sample.M': must be a file name"},
      {R"({"schema_version": 1, "benchmarks": [{"name": "a", "input": "a.skel", "args": "-O2"}]})",
       "field 'benchmarks[0].args': must be an array of strings"},
      {R"({"schema_version": 1, "benchmarks": [{"name": "a", "input": "a.skel", "cpu": 1}]})",
       "field 'benchmarks[0].cpu': unknown field"},
      {R"({"schema_version": 1, "benchmarks": [{"name": "a", "input": "a.skel"}, {"name": "a", "input": "b.skel"}]})",
       "field 'benchmarks[1].name': 'a' is already the name of benchmarks[0]"},
  };
  for (const auto &c : cases) {
    spit(dir_ / "m.json", c.text);
    CliRun r = run({"batch", path("m.json"), "--out", path("out")});
    EXPECT_EQ(r.rc, 1) << c.text;
    EXPECT_NE(r.err.find(path("m.json") + c.position + ": error: " + c.expected), std::string::npos)
        << c.text << "\n" << r.err;
  }
  EXPECT_FALSE(fs::exists(dir_ / "out")); // nothing is written for an unusable suite
}

TEST_F(BatchTest, TripAndSampleOptionsReachTheSkeleton) {
  std::string suite = manifest(bench("as_written", kIspinex) + "," +
                               bench("longer_rows", kIspinex, ", \"trip\": {\"n\": 28}") + "," +
                               bench("bad_loop", kIspinex, ", \"trip\": {\"q\": 3}") + "," +
                               bench("bad_sample", kIspinex, ", \"sample\": {\"I\": \"nope.txt\"}") + "," +
                               bench("args_for_skel", kIspinex, ", \"args\": [\"-O2\"]"));
  CliRun r = run({"batch", suite, "--out", path("out")});
  EXPECT_EQ(r.rc, 1);
  auto j = nlohmann::json::parse(slurp(dir_ / "out" / "report.json"));
  double written = j["benchmarks"][0]["gpus"][0]["time_ms"], longer = j["benchmarks"][1]["gpus"][0]["time_ms"];
  EXPECT_GT(longer, written * 1.2); // twice the nonzeros per row
  EXPECT_NE(j["benchmarks"][2]["error"].get<std::string>().find("no loop has that index"), std::string::npos);
  EXPECT_NE(j["benchmarks"][3]["error"].get<std::string>().find("field 'benchmarks[3].sample.I': cannot read sample file"),
            std::string::npos)
      << j["benchmarks"][3]["error"];
  EXPECT_NE(j["benchmarks"][4]["error"].get<std::string>().find("not a C or C++ input"), std::string::npos);
}

TEST_F(BatchTest, SampleFileFromTheManifestIsUsed) {
  // spinflap's index array M, given again from the manifest's directory.
  fs::copy_file(kSrc + "/skeletons/spinflap_M.txt", dir_ / "M.txt");
  std::string suite = manifest(bench("spinflap", kSrc + "/skeletons/spinflap.skel", ", \"sample\": {\"M\": \"M.txt\"}"));
  CliRun r = run({"batch", suite, "--out", path("out")});
  EXPECT_EQ(r.rc, 0) << r.err;
}

TEST_F(BatchTest, UnwritableOutputIsAnInputError) {
  spit(dir_ / "file", "x");
  std::string suite = manifest(bench("triad", kTriad));
  CliRun r = run({"batch", suite, "--out", path("file") + "/sub"});
  EXPECT_EQ(r.rc, 1);
  EXPECT_NE(r.err.find("cannot create the output directory"), std::string::npos) << r.err;
}

TEST_F(BatchTest, UsageErrors) {
  EXPECT_EQ(run({"batch", "x"}).rc, 2); // --out is required
  EXPECT_EQ(run({"batch", "x", "--out", "o", "-j", "0"}).rc, 2);
  EXPECT_EQ(run({"check", "x"}).rc, 2); // --baseline is required
  CliRun t = run({"check", "x", "--baseline", "b.json", "--tolerance", "5"});
  EXPECT_EQ(t.rc, 2);
  EXPECT_NE(t.err.find("ambiguous"), std::string::npos) << t.err;
  EXPECT_EQ(run({"check", "x", "--baseline", "b", "--update-baseline", "--junit", "j.xml"}).rc, 2);
}

TEST_F(BatchTest, CheckPassesAgainstItsOwnBaselineAndFailsOnARegression) {
  fs::copy_file(kTriad, dir_ / "triad.skel");
  fs::copy_file(kMatmul, dir_ / "matmul.skel");
  std::string suite = manifest(bench("triad", "triad.skel", ", \"cpu_ms\": 0.5") + "," +
                               bench("matmul", "matmul.skel", ", \"cpu_ms\": 230"));
  std::string base = path("baseline.json");
  CliRun missing = run({"check", suite, "--baseline", base});
  EXPECT_EQ(missing.rc, 1);
  EXPECT_NE(missing.err.find("create it with --update-baseline"), std::string::npos) << missing.err;
  CliRun noHw = run({"check", suite, "--baseline", base, "--update-baseline"});
  EXPECT_EQ(noHw.rc, 1);
  EXPECT_NE(noHw.err.find("--hw"), std::string::npos);

  CliRun up = run({"check", suite, "--baseline", base, "--hw", "h100,a100", "--update-baseline"});
  ASSERT_EQ(up.rc, 0) << up.err;
  EXPECT_NE(up.out.find("wrote 4 entries"), std::string::npos) << up.out;

  // Without --hw the baseline's GPUs are checked.
  CliRun same = run({"check", suite, "--baseline", base, "--junit", path("junit.xml")});
  EXPECT_EQ(same.rc, 0) << same.out << same.err;
  EXPECT_NE(same.out.find("GPUs h100, a100"), std::string::npos) << same.out;
  EXPECT_NE(same.out.find("4 kernel/GPU entries: 4 unchanged within 5%"), std::string::npos) << same.out;
  EXPECT_NE(slurp(dir_ / "junit.xml").find("tests=\"4\" failures=\"0\""), std::string::npos);

  // One more array streamed through the triad: every layout must move more data.
  std::string triad = slurp(dir_ / "triad.skel");
  triad.replace(triad.find("float c[N]"), 10, "float c[N]\nfloat d[N]");
  triad.replace(triad.find("ld c[i]"), 7, "ld c[i]\n  ld d[i]");
  spit(dir_ / "triad.skel", triad);
  CliRun worse = run({"check", suite, "--baseline", base, "--hw", "h100,a100", "--junit", path("junit.xml"),
                      "--out", path("reports")});
  EXPECT_EQ(worse.rc, 1) << worse.out;
  EXPECT_NE(worse.out.find("REGRESSED  triad: kernel 'kernel0' on h100: time"), std::string::npos) << worse.out;
  EXPECT_NE(worse.out.find("REGRESSED  triad: kernel 'kernel0' on a100: time"), std::string::npos) << worse.out;
  EXPECT_EQ(worse.out.find("matmul: kernel"), std::string::npos) << worse.out;
  EXPECT_NE(worse.out.find("check FAILED"), std::string::npos);
  std::string junit = slurp(dir_ / "junit.xml");
  EXPECT_NE(junit.find("tests=\"4\" failures=\"2\""), std::string::npos) << junit;
  EXPECT_NE(junit.find("<testcase classname=\"triad\" name=\"kernel0 on h100\">\n      <failure"),
            std::string::npos)
      << junit;
  EXPECT_TRUE(fs::is_regular_file(dir_ / "reports" / "report.html"));
  // A generous tolerance accepts it.
  EXPECT_EQ(run({"check", suite, "--baseline", base, "--tolerance", "90%"}).rc, 0);
  // The baseline file was not touched by the checks.
  EXPECT_NE(slurp(base).find("\"schema_version\": 1"), std::string::npos);
}

// batch's speedup is the program's, as `project --cpu-ms` gives it: transfers
// in and out and the kernel's 10 repeats (HotSpot's time steps).
TEST_F(BatchTest, SpeedupIsTheProgramsWithItsTransfers) {
  std::string skel = kSrc + "/validation/skeletons/hotspot_program_1024_10.skel";
  std::string suite = manifest(bench("steps", skel, ", \"cpu_ms\": 40"));
  CliRun b = run({"batch", suite, "--hw", "h100", "--out", path("out")});
  ASSERT_EQ(b.rc, 0) << b.err;
  auto j = nlohmann::json::parse(slurp(dir_ / "out" / "report.json"));
  const auto &g = j["benchmarks"][0]["gpus"][0];
  CliRun p = run({"project", skel, "--hw", "h100", "--cpu-ms", "40", "--format", "json"});
  ASSERT_EQ(p.rc, 0) << p.err;
  auto pj = nlohmann::json::parse(p.out)["program"];
  EXPECT_DOUBLE_EQ(g["speedup"].get<double>(), pj["speedup"].get<double>());
  EXPECT_DOUBLE_EQ(g["program_ms"].get<double>(), pj["total_ms"].get<double>());
  double share = (pj["h2d_ms"].get<double>() + pj["d2h_ms"].get<double>()) / pj["total_ms"].get<double>();
  EXPECT_GT(share, 0.05) << "the 12 MB of transfers are a visible share";
  EXPECT_DOUBLE_EQ(g["transfer_share"].get<double>(), share);
  EXPECT_NE(slurp(dir_ / "out" / "report.md").find("## Programs"), std::string::npos);
}

// A change that only adds a transfer (the kernel's time stays) lowers the
// program's speedup: check fails on the speedup and names benchmark and GPU.
TEST_F(BatchTest, CheckFailsWhenOnlyTheTransfersGrow) {
  std::string text = slurp(fs::path(kSrc) / "validation/skeletons/hotspot_program_1024_10.skel");
  spit(dir_ / "steps.skel", text);
  std::string suite = manifest(bench("steps", "steps.skel", ", \"cpu_ms\": 40"));
  std::string base = path("baseline.json");
  ASSERT_EQ(run({"check", suite, "--baseline", base, "--hw", "h100", "--update-baseline"}).rc, 0);
  // The host now also reads the input grid back: 4 MB more over the link.
  text.replace(text.find("in float t[ROWS][COLS]"), 22, "inout float t[ROWS][COLS]");
  spit(dir_ / "steps.skel", text);
  CliRun worse = run({"check", suite, "--baseline", base});
  EXPECT_EQ(worse.rc, 1) << worse.out << worse.err;
  EXPECT_NE(worse.out.find("REGRESSED  steps: kernel 'kernel0' on h100: speedup"), std::string::npos)
      << worse.out;
  EXPECT_TRUE(worse.out.find("(+0.0%)") != std::string::npos ||
              worse.out.find("(-0.0%)") != std::string::npos)
      << "the kernel's time is unchanged\n"
      << worse.out;
}

TEST_F(BatchTest, CheckRefusesABaselineOfAnotherFormatOrModel) {
  std::string suite = manifest(bench("triad", kTriad));
  std::string base = path("baseline.json");
  ASSERT_EQ(run({"check", suite, "--baseline", base, "--hw", "h100", "--update-baseline"}).rc, 0);
  CliRun other = run({"check", suite, "--baseline", base, "--model", "roofline"});
  EXPECT_EQ(other.rc, 1);
  EXPECT_NE(other.err.find("field 'model': the baseline was made with model 'skelcast'"), std::string::npos)
      << other.err;
  ASSERT_EQ(run({"batch", suite, "--out", path("out")}).rc, 0);
  CliRun report = run({"check", suite, "--baseline", path("out/report.json")});
  EXPECT_EQ(report.rc, 1);
  EXPECT_NE(report.err.find("this is a batch report"), std::string::npos) << report.err;
}
