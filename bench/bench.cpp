// skelcast's own speed (issue 8): Google Benchmark programs for the stages a
// projection runs through. bench/run.sh runs them with repetitions (medians)
// and times whole `skelcast project` processes; docs/performance.md records
// the figures. ctest runs this program in a short mode that only prints them.
//
//   EnumerateProject/<kernel>  every layout of a kernel enumerated, characterized
//                              and projected as `skelcast project --top 10` does;
//                              layouts/s counts the candidates explored,
//                              projected/s those that reach the model,
//                              allocs/layout the heap allocations per candidate
//   LayoutWarm/<kernel>        one layout's characterization and model (Hong-Kim
//                              with the modern terms) with the caches of its shape
//                              warm: the enumerator's cost per layout
//   LayoutCold/<kernel>        the same from nothing (projectLayout: what explain
//                              and validate pay for one layout)
//   Parse/<file>               parsing and checking a skeleton's text
//   Analyze/<file>             parsing plus the kernel analysis (KernelInfo)
//   ProgramProject/<n>         a generated file of n kernels projected as
//                              `skelcast project FILE --top 10` does: every
//                              kernel analyzed in the program (reuse distances)
//                              and ranked, then the whole program (dataflow,
//                              transfers, fusion of neighbours); kernels/s
//   Skeletonize/<benchmark>    a C example through the Clang frontend
//                              (skeletonize.cpp; only with the frontend)
#include "skelcast/layout/Characterize.h"
#include "skelcast/layout/Enumerate.h"
#include "skelcast/model/Program.h"
#include "skelcast/model/Project.h"
#include "skelcast/skeleton/Parser.h"
#include "skelcast/support/TextFile.h"

#include <benchmark/benchmark.h>

#include <cstdlib>
#include <new>
#include <string>
#include <vector>

using namespace skelcast;

// Every heap allocation of this program is counted, so that EnumerateProject
// can report allocations per layout (the enumerator's hot loop allocates
// nothing; what remains is per block shape, per tile and per kept layout).
namespace {
size_t gAllocations = 0;
}
void *operator new(std::size_t n) {
  ++gAllocations;
  if (void *p = std::malloc(n ? n : 1))
    return p;
  throw std::bad_alloc();
}
void operator delete(void *p) noexcept { std::free(p); }
void operator delete(void *p, std::size_t) noexcept { std::free(p); }

namespace {

const std::string kSrc = SKELCAST_SOURCE_DIR;

struct Case {
  const char *name;
  const char *path; ///< relative to the source tree
  const char *layout; ///< a typical layout for the one-layout benchmarks
};

// MatMul and HotSpot (GROPHECY's benchmarks), a 3-D loop space with two
// streaming loops, one with three, and one at the bound on the space
// (bench/skeletons/).
const Case kCases[] = {
    {"matmul", "skeletons/matmul.skel", "block=i:16,j:16 stage=k:16 cache=A,B unroll=k:16"},
    {"hotspot", "skeletons/hotspot.skel", "block=i:16,j:16 cache=temp"},
    {"conv2d_batched", "bench/skeletons/conv2d_batched.skel",
     "block=b:1,y:8,x:32 fold=y:2 cache=in,w unroll=i:5,j:5"},
    {"conv3d", "bench/skeletons/conv3d.skel",
     "block=z:1,y:8,x:32 fold=z:2 stage=i:1 cache=in,w unroll=j:3,k:3"},
    {"bounded", "bench/skeletons/bounded.skel", "block=z:1,y:8,x:32 stage=i:1 cache=w0,w1"},
};

const char *kParseFiles[] = {
    "skeletons/matmul.skel",        "skeletons/hotspot.skel", "skeletons/ispinex_complex.skel",
    "skeletons/ispinex_real.skel",  "skeletons/spinflap.skel", "bench/skeletons/conv3d.skel",
};

hw::HwSpec h100() { return hw::resolveHwSpec("h100", kSrc + "/hwspecs"); }

layout::KernelInfo kernelOf(const char *path) {
  return layout::analyzeKernel(skeleton::parseSkeletonFile(kSrc + "/" + path), 0);
}

void EnumerateProject(benchmark::State &state, const Case &c) {
  layout::KernelInfo ki = kernelOf(c.path);
  hw::HwSpec hw = h100();
  model::ModelOptions mo;
  mo.keepTop = 10; // what `skelcast project` keeps by default
  int64_t explored = 0, projected = 0;
  size_t allocations = gAllocations;
  for (auto _ : state) {
    model::KernelProjection kp = model::projectKernel(ki, hw, {}, mo);
    benchmark::DoNotOptimize(kp.layouts.data());
    explored += kp.layoutsExplored;
    projected += kp.layoutsExplored - kp.layoutsPruned;
  }
  allocations = gAllocations - allocations;
  state.counters["layouts"] = benchmark::Counter(static_cast<double>(explored) / state.iterations());
  state.counters["allocs/layout"] =
      benchmark::Counter(static_cast<double>(allocations) / static_cast<double>(explored));
  state.counters["layouts/s"] = benchmark::Counter(static_cast<double>(explored), benchmark::Counter::kIsRate);
  state.counters["projected/s"] =
      benchmark::Counter(static_cast<double>(projected), benchmark::Counter::kIsRate);
}

void LayoutWarm(benchmark::State &state, const Case &c) {
  layout::KernelInfo ki = kernelOf(c.path);
  hw::HwSpec hw = h100();
  layout::Layout l = layout::parseLayout(ki, c.layout, hw);
  layout::Characterizer z(ki, hw);
  z.setShape(l.block, l.fold);
  layout::Characterization ch;
  model::ModelOptions mo;
  model::TermMask terms = mo.model.enabledTerms();
  model::AdjustedInputs adj{{}, hw, {}};
  model::TermScratch scratch;
  z.characterize(l, ch); // storage grows once
  model::applyModernTerms(ch, ki, l, hw, terms, adj, scratch);
  size_t allocations = gAllocations;
  for (auto _ : state) {
    z.characterize(l, ch);
    model::applyModernTerms(ch, ki, l, hw, terms, adj, scratch);
    model::HongKimResult r = model::hongKim(adj.workload, adj.hw);
    model::RooflineResult rf = model::roofline(ch, hw);
    benchmark::DoNotOptimize(r.timeMs);
    benchmark::DoNotOptimize(rf.timeMs);
  }
  state.SetItemsProcessed(state.iterations());
  state.counters["allocs/layout"] = benchmark::Counter(
      static_cast<double>(gAllocations - allocations) / static_cast<double>(state.iterations()));
}

void LayoutCold(benchmark::State &state, const Case &c) {
  layout::KernelInfo ki = kernelOf(c.path);
  hw::HwSpec hw = h100();
  layout::Layout l = layout::parseLayout(ki, c.layout, hw);
  model::ModelOptions mo;
  for (auto _ : state) {
    model::LayoutProjection p = model::projectLayout(ki, l, hw, mo);
    benchmark::DoNotOptimize(p.result.timeMs);
  }
  state.SetItemsProcessed(state.iterations());
}

void Parse(benchmark::State &state, const char *path) {
  std::string text = readTextFile(kSrc + "/" + path);
  std::string name = kSrc + "/" + path; // sample files resolve against it
  for (auto _ : state) {
    skeleton::SkeletonFile f = skeleton::parseSkeleton(text, name);
    benchmark::DoNotOptimize(f.kernels.data());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * text.size()));
}

void Analyze(benchmark::State &state, const char *path) {
  std::string text = readTextFile(kSrc + "/" + path);
  std::string name = kSrc + "/" + path;
  for (auto _ : state) {
    skeleton::SkeletonFile f = skeleton::parseSkeleton(text, name);
    layout::KernelInfo ki = layout::analyzeKernel(f, 0);
    benchmark::DoNotOptimize(ki.accesses.data());
  }
}

/// A program of `n` 1-D kernels over 32 arrays of 4 MB: runs of up to four
/// fusable neighbours (every fourth kernel has another loop space, which stops
/// a run), a `repeat 10` of three kernels every 50, a host step every 100.
std::string generatedProgram(size_t n) {
  std::string t = "// generated by bench/bench.cpp: ProgramProject\n#define N 1048576\n";
  for (int a = 0; a < 32; ++a)
    t += "float A" + std::to_string(a) + "[N]\n";
  auto kernel = [](size_t k) {
    std::string space = k % 4 == 3 ? "N/2" : "N";
    return "parallel_for k" + std::to_string(k) + "(" + space + ") : i {\n  ld A" + std::to_string(k % 32) +
           "[i]\n  ld A" + std::to_string((7 * k + 3) % 32) + "[i]\n  comp 2\n  st A" +
           std::to_string((k + 1) % 32) + "[i]\n}\n";
  };
  for (size_t k = 0; k < n;) {
    if (k % 50 == 10 && k + 3 <= n) {
      t += "repeat 10 {\n" + kernel(k) + kernel(k + 1) + kernel(k + 2) + "}\n";
      k += 3;
      continue;
    }
    t += kernel(k++);
    if (k % 100 == 0)
      t += "host reads A" + std::to_string(k % 32) + "\n";
  }
  return t;
}

void ProgramProject(benchmark::State &state) {
  size_t n = static_cast<size_t>(state.range(0));
  skeleton::SkeletonFile f = skeleton::parseSkeleton(generatedProgram(n), "generated.skel");
  hw::HwSpec hw = hw::resolveHwSpec("h100", kSrc + "/hwspecs");
  model::ModelOptions mo;
  mo.keepTop = 10;
  for (auto _ : state) {
    model::ProgramAnalysis analysis(f);
    std::vector<model::KernelProjection> kps;
    kps.reserve(n);
    for (size_t k = 0; k < n; ++k)
      kps.push_back(model::projectKernel(analysis.kernel(k), hw, {}, mo));
    model::ProgramProjection p = model::projectProgram(f, kps, hw, {}, mo, {});
    benchmark::DoNotOptimize(p.totalMs);
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * n));
  state.counters["kernels"] = static_cast<double>(n);
}

std::string stem(const char *path) {
  std::string s = path;
  s = s.substr(s.rfind('/') + 1);
  return s.substr(0, s.rfind('.'));
}

int registerAll() {
  for (const Case &c : kCases) {
    benchmark::RegisterBenchmark((std::string("EnumerateProject/") + c.name).c_str(), EnumerateProject, c)
        ->Unit(benchmark::kMillisecond);
  }
  for (const Case &c : kCases)
    benchmark::RegisterBenchmark((std::string("LayoutWarm/") + c.name).c_str(), LayoutWarm, c)
        ->Unit(benchmark::kNanosecond);
  for (const Case &c : kCases)
    benchmark::RegisterBenchmark((std::string("LayoutCold/") + c.name).c_str(), LayoutCold, c)
        ->Unit(benchmark::kMicrosecond);
  for (const char *p : kParseFiles)
    benchmark::RegisterBenchmark(("Parse/" + stem(p)).c_str(), Parse, p)->Unit(benchmark::kMicrosecond);
  for (const char *p : kParseFiles)
    benchmark::RegisterBenchmark(("Analyze/" + stem(p)).c_str(), Analyze, p)
        ->Unit(benchmark::kMicrosecond);
  for (int n : {1000, 10000})
    benchmark::RegisterBenchmark("ProgramProject", ProgramProject)
        ->Arg(n)
        ->Iterations(1)
        ->Unit(benchmark::kMillisecond);
  return 0;
}

const int kRegistered = registerAll();

} // namespace

BENCHMARK_MAIN();
