// `skelcast validate` (issue 17): every --format for program files too (item
// 11), a measurement taken on another GPU than the spec's is an error unless
// --force (item 12), and a missed target says which and by how much (item 18).
#include "../support/CliRun.h"
#include "../support/CudaStandIns.h"
#include "../support/TempDir.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <set>

namespace {

using skelcast::testsupport::CliRun;
using skelcast::testsupport::run;

const std::string kSrc = SKELCAST_SOURCE_DIR;
const std::string kKernels = "validation/results/h100_kernels.json";
const std::string kPrograms = "validation/results/h100_programs.json";

TEST(ValidateCommand, ProgramFilesInEveryFormat) {
  std::filesystem::current_path(kSrc);
  CliRun table = run({"validate", kPrograms});
  ASSERT_EQ(table.rc, 0) << table.err;
  CliRun json = run({"validate", kPrograms, "--format", "json"});
  ASSERT_EQ(json.rc, 0) << json.err;
  nlohmann::json j = nlohmann::json::parse(json.out);
  EXPECT_EQ(j["hw"], "h100");
  EXPECT_EQ(j["gpu"], "NVIDIA H100 80GB HBM3");
  ASSERT_TRUE(j["checks"].is_array());
  EXPECT_GT(j["checks"].size(), 3u);
  EXPECT_TRUE(j["checks"][0].contains("quantity"));
  EXPECT_TRUE(j.contains("transfers_within_15pct"));
  CliRun md = run({"validate", kPrograms, "--format", "markdown"});
  ASSERT_EQ(md.rc, 0) << md.err;
  EXPECT_NE(md.out.find("| program | quantity |"), std::string::npos) << md.out;
  EXPECT_NE(md.out, table.out);
}

TEST(ValidateCommand, AnotherGpuThanTheSpecsIsAnErrorUnlessForced) {
  std::filesystem::current_path(kSrc);
  for (const std::string &file : {kKernels, kPrograms}) {
    CliRun r = run({"validate", file, "--hw", "a100"});
    EXPECT_EQ(r.rc, 1) << file << "\n" << r.out;
    EXPECT_EQ(r.err, file + ": error: field 'gpu.name': measured on 'NVIDIA H100 80GB HBM3', not on "
                            "the spec's GPU 'a100': give its spec with --hw, or --force to compare "
                            "anyway\n");
    EXPECT_EQ(r.out, "");
    r = run({"validate", file, "--hw", "a100", "--force"});
    EXPECT_EQ(r.rc, 0) << r.err;
  }
  EXPECT_EQ(run({"validate", kKernels, "--hw", "h100"}).rc, 0);
  EXPECT_EQ(run({"validate", "validation/results/h200_kernels.json", "--hw", "h200"}).rc, 0);
}

TEST(ValidateCommand, AMissedTargetSaysWhichAndByHowMuch) {
  std::filesystem::current_path(kSrc);
  CliRun r = run({"validate", kKernels, "--max-error", "1"});
  EXPECT_EQ(r.rc, 1);
  EXPECT_EQ(r.err.rfind("skelcast: validation targets not met: geometric-mean error ", 0), 0u) << r.err;
  EXPECT_NE(r.err.find("% exceeds --max-error 1%"), std::string::npos) << r.err;
  r = run({"validate", kPrograms, "--max-error", "1"});
  EXPECT_EQ(r.rc, 2) << r.err;
  EXPECT_NE(r.err.find("--max-error"), std::string::npos) << r.err;
}

} // namespace

// Issue 19, item 1: the user's path is the headline. Every committed case names
// its C version; validate projects from it by default and prints the hand
// skeletons' figure beside it, labelled "model only".
TEST(ValidateCommand, ProjectsFromTheCFilesWithTheModelOnlyFigureBeside) {
  std::filesystem::current_path(kSrc);
  CliRun c = run({"validate", kKernels});
  ASSERT_EQ(c.rc, 0) << c.err;
  EXPECT_NE(c.out.find("kernels from the C files (skeletonizer and model: the user's path)"),
            std::string::npos) << c.out;
  EXPECT_NE(c.out.find("\nfrom the hand skeletons (model only"), std::string::npos) << c.out;
  CliRun alone = run({"validate", kKernels, "--model-only"});
  ASSERT_EQ(alone.rc, 0) << alone.err;
  EXPECT_NE(alone.out.find("kernels from the hand skeletons (model only"), std::string::npos) << alone.out;
  EXPECT_EQ(alone.out.find("C files"), std::string::npos) << alone.out;
  // The projections differ: the skeletonizer's counts are not the SASS's.
  EXPECT_NE(c.out, alone.out);
  CliRun json = run({"validate", kKernels, "--format", "json"});
  ASSERT_EQ(json.rc, 0) << json.err;
  nlohmann::json j = nlohmann::json::parse(json.out);
  EXPECT_EQ(j["source"], "C files (skeletonizer and model: the user's path)");
  ASSERT_EQ(j["other_sources"].size(), 1u) << json.out;
  EXPECT_EQ(j["other_sources"][0]["cases"], j["cases"].size());
}

TEST(ValidateCommand, MeasurementsWithoutCFilesSaySoInsteadOfPassingForTheUsersPath) {
  std::filesystem::current_path(kSrc);
  std::ifstream in(kSrc + "/" + kKernels);
  nlohmann::json j = nlohmann::json::parse(in);
  for (auto &c : j["cases"]) {
    c.erase("c");
    c.erase("c_sample");
  }
  j["skeleton_root"] = kSrc;
  skelcast::testsupport::TempDir dir;
  CliRun r = run({"validate", dir.write("no_c.json", j.dump(1))});
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("kernels from the hand skeletons"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("the measurements name no C files (field 'c'): the skeletons they name are "
                       "projected as they are; the skeletonizer is not checked on C here"),
            std::string::npos) << r.out;
}

// What `validate --run` writes: cases naming a C file of several kernels and
// the options it was read with (c_args, c_extent). Each case is projected from
// its own kernel of that file, at the size the options give, not the file's
// default; options without a C file are an error naming the field.
TEST(ValidateCommand, CasesOfAManyKernelCFileWithItsOptionsProjectTheirOwnKernel) {
  skelcast::testsupport::TempDir dir;
  std::string c = dir.write("two.c", "#ifndef N\n#define N 64\n#endif\n"
                                     "void twice(int m, float a[N], float b[N], float x[m]) {\n"
                                     "#pragma omp parallel for\n"
                                     "  for (int i = 0; i < N; i++) a[i] = 2.0f * b[i];\n"
                                     "#pragma omp parallel for\n"
                                     "  for (int i = 0; i < m; i++) x[i] = x[i] + 1.0f;\n"
                                     "}\n");
  auto meas = [&](nlohmann::json extra) {
    nlohmann::json j = {{"schema_version", 1},
                        {"gpu", {{"name", "NVIDIA H100 80GB HBM3"}}},
                        {"cases", nlohmann::json::array()}};
    for (std::string k : {"twice", "twice_1"}) {
      nlohmann::json cs = {{"kernel", k}, {"size", "x"}, {"layout", "block=i:256"},
                           {"c", c},      {"c_kernel", k}, {"time_ms", 0.01}};
      cs.update(extra);
      j["cases"].push_back(cs);
    }
    return j.dump(1);
  };
  CliRun small = run({"validate", dir.write("small.json", meas({{"c_extent", {{"m", {4096}}}}})),
                      "--format", "json"});
  ASSERT_EQ(small.rc, 0) << small.err;
  CliRun big = run({"validate",
                    dir.write("big.json", meas({{"c_args", {"-DN=67108864"}},
                                                {"c_extent", {{"m", {4096}}}}})),
                    "--format", "json"});
  ASSERT_EQ(big.rc, 0) << big.err;
  nlohmann::json s = nlohmann::json::parse(small.out), b = nlohmann::json::parse(big.out);
  ASSERT_EQ(s["cases"].size(), 2u) << small.out;
  ASSERT_EQ(b["cases"].size(), 2u) << big.out;
  // The first kernel's size follows -DN; the second kernel's (extent m) does not.
  EXPECT_GT(b["cases"][0]["projected_ms"].get<double>(), 10 * s["cases"][0]["projected_ms"].get<double>())
      << "small:\n" << small.out << "\nbig:\n" << big.out;
  EXPECT_DOUBLE_EQ(b["cases"][1]["projected_ms"].get<double>(), s["cases"][1]["projected_ms"].get<double>());
  // Without the extent, m is unknown and the second kernel is refused: its
  // case is an error, not projected from the file's one remaining kernel.
  CliRun unknown = run({"validate", dir.write("nom.json", meas(nlohmann::json::object()))});
  EXPECT_EQ(unknown.rc, 1) << unknown.out;
  EXPECT_NE(unknown.err.find("'m'"), std::string::npos) << unknown.err;
  EXPECT_NE(unknown.err.find("no kernel of this file is named 'twice_1' (it has: twice)"), std::string::npos)
      << unknown.err;
  // A kernel the file does not have.
  nlohmann::json j = nlohmann::json::parse(meas({{"c_extent", {{"m", {4096}}}}}));
  j["cases"][1]["c_kernel"] = "thrice";
  CliRun missing = run({"validate", dir.write("missing.json", j.dump())});
  EXPECT_EQ(missing.rc, 1);
  EXPECT_NE(missing.err.find("error: measured case twice_1 x: no kernel of this file is named 'thrice' (it has: twice, twice_1)"),
            std::string::npos) << missing.err;
  // Options without a C file.
  j = nlohmann::json::parse(meas({{"c_args", {"-DN=8"}}}));
  j["cases"][0].erase("c");
  j["cases"][0]["skeleton"] = kSrc + "/skeletons/matmul.skel";
  CliRun stray = run({"validate", dir.write("stray.json", j.dump())});
  EXPECT_EQ(stray.rc, 1);
  EXPECT_NE(stray.err.find("field 'cases[0].c_args': applies beside a field 'c' only"), std::string::npos)
      << stray.err;
}

// Two C files may hold kernels of one name and size (a float triad and a
// double one, validation/c/streaming_1M.c and streaming_fp64_1M.c): their
// layouts are not each other's alternatives, so the favourite of each is
// checked against the fastest of its own file, not the other's.
TEST(ValidateCommand, KernelsOfOneNameAndSizeInTwoFilesAreCheckedApart) {
  skelcast::testsupport::TempDir dir;
  auto triad = [&](const std::string &name, const std::string &type) {
    return dir.write(name, "#define N 1048576\n" + type + " a[N], b[N], c[N];\n"
                           "void triad(" + type + " s) {\n"
                           "#pragma omp parallel for\n"
                           "  for (int i = 0; i < N; i++) a[i] = b[i] + s * c[i];\n"
                           "}\n");
  };
  std::string f32 = triad("f32.c", "float"), f64 = triad("f64.c", "double");
  nlohmann::json j = {{"schema_version", 1},
                      {"gpu", {{"name", "NVIDIA H100 80GB HBM3"}}},
                      {"cases", nlohmann::json::array()}};
  // Each file's slower layout is the one the model ranks first (one-warp
  // blocks); the double file's both run slower than the float file's.
  for (const auto &[c, ms256, ms32] : {std::tuple{f32, 0.010, 0.020}, std::tuple{f64, 0.030, 0.031}}) {
    j["cases"].push_back({{"kernel", "triad"}, {"size", "1048576"}, {"layout", "block=i:256"}, {"c", c},
                          {"time_ms", ms256}});
    j["cases"].push_back({{"kernel", "triad"}, {"size", "1048576"}, {"layout", "block=i:32"}, {"c", c},
                          {"time_ms", ms32}});
  }
  CliRun r = run({"validate", dir.write("two.json", j.dump(1)), "--format", "json"});
  ASSERT_EQ(r.rc, 0) << r.err;
  nlohmann::json out = nlohmann::json::parse(r.out);
  // Four cases: the same layout of the two files is two cases, not one run of
  // one case measured twice (which keeps the lower time).
  ASSERT_EQ(out["cases"].size(), 4u) << r.out;
  ASSERT_EQ(out["kernels"].size(), 2u) << r.out;
  // and each case names its file, the one thing that tells them apart
  std::set<std::string> caseSources;
  for (const auto &c : out["cases"])
    caseSources.insert(c.value("source", std::string("(none)")));
  EXPECT_EQ(caseSources, (std::set<std::string>{f32, f64})) << r.out;
  for (size_t k = 0; k < 2; ++k) {
    const nlohmann::json &kc = out["kernels"][k];
    EXPECT_EQ(kc["source"], k == 0 ? f32 : f64) << r.out;
    EXPECT_EQ(kc["fastest_measured"], "block=i:256") << "kernel " << k << ": its own fastest, not the other "
                                                        "file's\n" << r.out;
  }
  CliRun table = run({"validate", dir.write("two.json", j.dump(1))});
  EXPECT_NE(table.out.find("; " + f64 + "\n"), std::string::npos) << table.out;
  // One file, however its path is spelled, is one source: a second run of the
  // same cases naming dir/./f32.c merges with the first (the lower time kept).
  nlohmann::json again = j;
  for (auto &c : again["cases"]) {
    std::string p = c["c"].get<std::string>();
    c["c"] = p.substr(0, p.rfind('/')) + "/./" + p.substr(p.rfind('/') + 1);
  }
  CliRun both = run({"validate", dir.write("two.json", j.dump(1)), dir.write("again.json", again.dump(1)),
                     "--format", "json"});
  ASSERT_EQ(both.rc, 0) << both.err;
  EXPECT_EQ(nlohmann::json::parse(both.out)["cases"].size(), 4u) << both.out;
}

#ifdef SKELCAST_HAVE_FRONTEND
// --check-programs (docs/validation.md, "Programs today's emit no longer writes"): the
// program today's emit writes for each emitted case's layout is built (here by
// a stand-in nvcc whose ptxas reports 32 registers) and compared with the
// measured program's report; a case measured on another program is listed,
// marked, and left out of the figures, which are given with it too. Hand-written
// programs (no "skelcast emit" method) are not compared.
TEST(ValidateCommand, CasesMeasuredOnAProgramTodaysEmitNoLongerWritesAreSetApart) {
  skelcast::testsupport::CudaStandIns tools("\tcode for sm_90\n\t\tFunction : skelcast_scale\n"
                                            "        /*0000*/                   EXIT ;\n",
                                            32);
  const skelcast::testsupport::TempDir &dir = tools.dir();
  std::string c = dir.write("scale.c", "#define N 1048576\n"
                                       "void scale(float a[N], float b[N]) {\n"
                                       "#pragma omp parallel for\n"
                                       "  for (int i = 0; i < N; i++) a[i] = 2.0f * b[i];\n"
                                       "}\n");
  nlohmann::json j = {{"schema_version", 1},
                      {"gpu", {{"name", "NVIDIA H100 80GB HBM3"}}},
                      {"method", "skelcast emit: 30 repeats"},
                      {"timing", "back_to_back"},
                      {"cases", nlohmann::json::array()}};
  auto add = [&](const char *layout, double ms, int regs) {
    j["cases"].push_back({{"kernel", "scale"}, {"size", "1M"}, {"layout", layout}, {"c", c},
                          {"time_ms", ms}, {"regs_per_thread", regs}, {"static_smem_bytes", 0}});
  };
  add("block=i:256", 0.01, 32);         // today's program
  add("block=i:128", 10.0, 40);         // another program, 1000x slower: set apart
  add("block=i:512 fold=i:2", 0.01, 32); // today's program
  std::string file = dir.write("m.json", j.dump(1));

  CliRun plain = run({"validate", file, "--format", "json"});
  CliRun checked = run({"validate", file, "--format", "json", "--check-programs"});
  ASSERT_EQ(plain.rc, 0) << plain.err;
  ASSERT_EQ(checked.rc, 0) << checked.err;
  nlohmann::json p = nlohmann::json::parse(plain.out), x = nlohmann::json::parse(checked.out);
  EXPECT_FALSE(p.contains("programs")) << "not asked for: not checked\n" << plain.out;
  ASSERT_TRUE(x.contains("programs")) << checked.out;
  EXPECT_EQ(x["programs"]["compared"], 3) << checked.out;
  EXPECT_EQ(x["programs"]["not_compared"], 0) << checked.out;
  EXPECT_EQ(x["programs"]["changed"], 1) << checked.out;
  EXPECT_EQ(x["cases"][1]["program"]["changed"], true) << checked.out;
  EXPECT_EQ(x["cases"][1]["program"]["measured_registers"], 40) << checked.out;
  EXPECT_EQ(x["cases"][1]["program"]["today_registers"], 32) << checked.out;
  EXPECT_EQ(x["cases"][0]["program"]["changed"], false) << checked.out;
  // The figures leave the changed case out; "with_changed" has the plain run's.
  EXPECT_LT(x["max_error"].get<double>(), 100.0) << checked.out;
  EXPECT_GT(p["max_error"].get<double>(), 100.0) << plain.out;
  EXPECT_DOUBLE_EQ(x["programs"]["with_changed"]["max_error"].get<double>(), p["max_error"].get<double>());
  EXPECT_DOUBLE_EQ(x["programs"]["with_changed"]["geomean_error"].get<double>(),
                   p["geomean_error"].get<double>());
  EXPECT_EQ(x["programs"]["with_changed"]["cases"], 3) << checked.out;
  EXPECT_LT(x["geomean_error"].get<double>(), p["geomean_error"].get<double>());
  for (const auto &k : x["kernels"])
    EXPECT_NE(k["fastest_measured"], "block=i:128") << "a changed case is no layout's measurement\n"
                                                     << checked.out;

  // The text table marks it and says what was compared.
  CliRun text = run({"validate", file, "--check-programs"});
  ASSERT_EQ(text.rc, 0) << text.err;
  EXPECT_NE(text.out.find("[set apart: measured 40 registers, 0 B shared; today's 32, 0 B]"), std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("2 cases: geometric-mean error"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("3 emitted cases compared with the program today's emit writes"), std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("with them: 3 cases"), std::string::npos) << text.out;

  // Records printed by today's emitted programs carry emit's fingerprint of
  // their GPU code (field "program"): compared by it, no compiler needed.
  CliRun emitted = run({"emit", c, "--layout", "block=i:256", "-o", "-"});
  ASSERT_EQ(emitted.rc, 0) << emitted.err;
  const std::string key = "\\\"program\\\": \\\"";
  size_t at = emitted.out.find(key);
  ASSERT_NE(at, std::string::npos) << "the driver prints the fingerprint\n" << emitted.out;
  std::string fingerprint = emitted.out.substr(at + key.size(), 16);
  nlohmann::json f = j;
  f["cases"][0]["program"] = fingerprint;          // today's
  f["cases"][0]["regs_per_thread"] = 99;            // ptxas is not asked where the fingerprint tells
  f["cases"][2]["program"] = "0123456789abcdef";    // another program's
  CliRun byPrint = run({"validate", dir.write("f.json", f.dump(1)), "--format", "json", "--check-programs"});
  ASSERT_EQ(byPrint.rc, 0) << byPrint.err;
  nlohmann::json y = nlohmann::json::parse(byPrint.out);
  EXPECT_EQ(y["cases"][0]["program"]["compared_by"], "fingerprint") << byPrint.out;
  EXPECT_EQ(y["cases"][0]["program"]["changed"], false) << byPrint.out;
  EXPECT_EQ(y["cases"][1]["program"]["compared_by"], "ptxas") << byPrint.out;
  EXPECT_EQ(y["cases"][2]["program"]["changed"], true) << byPrint.out;
  EXPECT_EQ(y["cases"][0]["program"]["today_fingerprint"], fingerprint) << byPrint.out;
  EXPECT_EQ(y["cases"][2]["program"]["measured_fingerprint"], "0123456789abcdef") << byPrint.out;
  EXPECT_EQ(y["programs"]["changed"], 2) << byPrint.out;
  f["cases"][2]["program"] = "not hex";
  CliRun badPrint = run({"validate", dir.write("bad.json", f.dump(1))});
  EXPECT_EQ(badPrint.rc, 1);
  EXPECT_NE(badPrint.err.find("field 'cases[2].program': not a program fingerprint"), std::string::npos)
      << badPrint.err;

  // Two files with the same layout measured on two programs: two cases, not
  // one case with the other program's lowest time.
  nlohmann::json a = j, b = j;
  a["cases"] = nlohmann::json::array({j["cases"][0]});
  a["cases"][0]["program"] = fingerprint;
  b["cases"] = nlohmann::json::array({j["cases"][0]});
  b["cases"][0]["regs_per_thread"] = 40;
  b["cases"][0]["time_ms"] = 0.0001; // an old program's time, faster than today's
  CliRun merged = run({"validate", dir.write("a.json", a.dump(1)), dir.write("b.json", b.dump(1)), "--format",
                       "json", "--check-programs"});
  ASSERT_EQ(merged.rc, 0) << merged.err;
  nlohmann::json z = nlohmann::json::parse(merged.out);
  ASSERT_EQ(z["cases"].size(), 2u) << merged.out;
  EXPECT_EQ(z["programs"]["changed"], 1) << merged.out;
  EXPECT_DOUBLE_EQ(z["max_error"].get<double>(), z["cases"][0]["error"].get<double>())
      << "the figures count today's program's time only\n" << merged.out;

  // Every case set apart: the kernel is named, and the targets fail.
  nlohmann::json gone = j;
  for (auto &cs : gone["cases"])
    cs["regs_per_thread"] = 40;
  std::string goneFile = dir.write("gone.json", gone.dump(1));
  CliRun none = run({"validate", goneFile, "--check-programs", "--format", "json"});
  ASSERT_EQ(none.rc, 0) << none.err;
  EXPECT_EQ(nlohmann::json::parse(none.out)["programs"]["kernels_set_apart"],
            nlohmann::json::array({"scale 1M"})) << none.out;
  CliRun target = run({"validate", goneFile, "--check-programs", "--max-error", "50", "--require-top"});
  EXPECT_EQ(target.rc, 1) << target.out;
  EXPECT_NE(target.err.find("no case is left: --check-programs set apart all 3"), std::string::npos) << target.err;
  EXPECT_NE(target.out.find("kernels whose every case is set apart (not in the ranking above): scale 1M"),
            std::string::npos) << target.out;

  // ptxas's report of another GPU generation is not compared with today's
  // sm_90 build.
  nlohmann::json older = j;
  older["gpu"]["compute_capability"] = "8.0";
  CliRun a100 = run({"validate", dir.write("a100.json", older.dump(1)), "--format", "json", "--check-programs",
                     "--force"});
  ASSERT_EQ(a100.rc, 0) << a100.err;
  EXPECT_EQ(nlohmann::json::parse(a100.out)["programs"]["compared"], 0) << a100.out;

  // A build that fails leaves a record without a fingerprint not compared:
  // the case says why, and stays in the figures.
  {
    skelcast::testsupport::CudaStandIns failing("", -1);
    CliRun unbuilt = run({"validate", file, "--format", "json", "--check-programs"});
    ASSERT_EQ(unbuilt.rc, 0) << unbuilt.err;
    nlohmann::json u = nlohmann::json::parse(unbuilt.out);
    EXPECT_EQ(u["programs"]["not_compared"], 3) << unbuilt.out;
    EXPECT_EQ(u["cases"][1]["program"]["compared_by"], "none") << unbuilt.out;
    EXPECT_NE(u["cases"][1]["program"]["why"].get<std::string>().find("no fingerprint"), std::string::npos)
        << unbuilt.out;
    EXPECT_DOUBLE_EQ(u["max_error"].get<double>(), p["max_error"].get<double>()) << unbuilt.out;
    EXPECT_NE(unbuilt.err.find("not compared with today's program"), std::string::npos) << unbuilt.err;
  }

  // Hand-written programs are not compared.
  j["method"] = "CUDA events around each kernel launch";
  CliRun hand = run({"validate", dir.write("hand.json", j.dump(1)), "--format", "json", "--check-programs"});
  ASSERT_EQ(hand.rc, 0) << hand.err;
  EXPECT_EQ(nlohmann::json::parse(hand.out)["programs"]["compared"], 0) << hand.out;

  // Only on the C path, and only for kernel measurements.
  CliRun modelOnly = run({"validate", kSrc + "/" + kKernels, "--model-only", "--check-programs"});
  EXPECT_EQ(modelOnly.rc, 2) << modelOnly.out;
  EXPECT_NE(modelOnly.err.find("--check-programs"), std::string::npos) << modelOnly.err;
  CliRun programs = run({"validate", kSrc + "/" + kPrograms, "--check-programs"});
  EXPECT_EQ(programs.rc, 2) << programs.out;
  EXPECT_NE(programs.err.find("--check-programs"), std::string::npos) << programs.err;
}
#endif

// `explain --timing` shows the projection validate makes of a measured case:
// the kernel alone, launched as the record's "timing" says; each timing gives
// validate's own figure, and an indexed repeat's kernel keeps its program's.
TEST(ValidateCommand, ExplainWithTheRecordsTimingGivesValidatesProjection) {
  std::filesystem::current_path(kSrc);
  skelcast::testsupport::TempDir dir;
  const std::string layout = "block=i:1,j:32 fold=i:8,j:2 cache=A unroll=k:16";
  std::set<double> seen;
  for (std::string timing : {"once", "alone", "back_to_back"}) {
    nlohmann::json m = {{"schema_version", 1},
                        {"gpu", {{"name", "NVIDIA H200"}}},
                        {"timing", timing},
                        {"cases", {{{"kernel", "matmul"}, {"size", "800"}, {"layout", layout},
                                    {"c", kSrc + "/validation/c/matmul_800.c"}, {"time_ms", 0.03}}}}};
    CliRun v = run({"validate", dir.write(timing + ".json", m.dump()), "--hw", "h200", "--format", "json"});
    ASSERT_EQ(v.rc, 0) << v.err;
    double validated = nlohmann::json::parse(v.out)["cases"][0]["projected_ms"].get<double>();
    CliRun e = run({"explain", "validation/c/matmul_800.c", "--hw", "h200", "--layout", layout, "--timing",
                    timing, "--format", "json"});
    ASSERT_EQ(e.rc, 0) << e.err;
    nlohmann::json x = nlohmann::json::parse(e.out);
    double explained = x["explanations"][0]["time_ms"].get<double>();
    EXPECT_NEAR(explained, validated, 1e-9 * validated) << timing << ": explain " << explained
                                                          << " ms, validate " << validated << " ms";
    seen.insert(explained);
  }
  EXPECT_EQ(seen.size(), 3u) << "the three timings should project three times";
  // The second kernel of a program that writes its input first: validate
  // projects it alone, and so does explain with any --timing, once included
  // (without --timing, explain projects it in its program, where L2 may hold
  // what the first kernel wrote).
  std::string two = dir.write("two.skel", "#define N 1048576\nfloat a[N]\nfloat b[N]\n"
                                          "parallel_for k1(N) : i {\n  ld a[i]\n  comp 2\n  st b[i]\n}\n"
                                          "parallel_for k2(N) : i {\n  ld b[i]\n  comp 2\n  st a[i]\n}\n");
  nlohmann::json m2 = {{"schema_version", 1},
                       {"gpu", {{"name", "NVIDIA H200"}}},
                       {"timing", "once"},
                       {"cases", {{{"kernel", "k2"}, {"size", "x"}, {"layout", "block=i:256"}, {"skeleton", two},
                                   {"time_ms", 0.01}}}}};
  CliRun v2 = run({"validate", dir.write("two.json", m2.dump()), "--hw", "h200", "--format", "json"});
  ASSERT_EQ(v2.rc, 0) << v2.err;
  double alone = nlohmann::json::parse(v2.out)["cases"][0]["projected_ms"].get<double>();
  CliRun e2 = run({"explain", two, "--kernel", "k2", "--hw", "h200", "--layout", "block=i:256", "--timing", "once",
                   "--format", "json"});
  ASSERT_EQ(e2.rc, 0) << e2.err;
  nlohmann::json x2 = nlohmann::json::parse(e2.out)["explanations"][0];
  EXPECT_NEAR(x2["time_ms"].get<double>(), alone, 1e-9 * alone) << e2.out;
  EXPECT_EQ(x2["timing"], "once");
  CliRun inProgram = run({"explain", two, "--kernel", "k2", "--hw", "h200", "--layout", "block=i:256", "--format", "json"});
  ASSERT_EQ(inProgram.rc, 0) << inProgram.err;
  nlohmann::json x3 = nlohmann::json::parse(inProgram.out)["explanations"][0];
  EXPECT_FALSE(x3.contains("timing"));
  EXPECT_LT(x3["time_ms"].get<double>(), alone) << "in its program, k2 should find b in L2";
  // A kernel its program launches from an indexed repeat has no timing of its own.
  std::string skel = dir.write("rep.skel", "#define N 64\n"
                                           "inout float A[N][N]\n"
                                           "repeat k = 0:N {\n"
                                           "  parallel_for sweep(k + 1:N) : i {\n"
                                           "    ld A[i][k]\n"
                                           "    comp 2\n"
                                           "    st A[i][k]\n"
                                           "  }\n"
                                           "}\n");
  CliRun rep = run({"explain", skel, "--layout", "block=i:32", "--timing", "alone"});
  EXPECT_EQ(rep.rc, 1) << rep.out;
  EXPECT_NE(rep.err.find("--timing: error: kernel 'sweep' is launched by its program's indexed repeat"),
            std::string::npos)
      << rep.err;
  CliRun bad = run({"explain", "validation/c/matmul_800.c", "--layout", layout, "--timing", "twice"});
  EXPECT_NE(bad.rc, 0);
  EXPECT_NE(bad.err.find("--timing"), std::string::npos) << bad.err;
}
