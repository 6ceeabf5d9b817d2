// skelcast's own speed (issue 8): skeletonizing each C example of the bundled
// suite, as `skelcast batch bench/suite.json` does (the Clang parse included).
// Built only with the frontend (bench/CMakeLists.txt).
//
//   Skeletonize/<benchmark>  one C file through loadSkeleton with the options
//                            bench/suite.json gives it (extent, trip, sample,
//                            args); kernels counts the parallel_for kernels found
#include "Inputs.h"
#include "Suite.h"

#include <benchmark/benchmark.h>

#include <sstream>
#include <string>

using namespace skelcast;

namespace {

void Skeletonize(benchmark::State &state, const cli::BenchmarkSpec &spec) {
  size_t kernels = 0;
  for (auto _ : state) {
    std::ostringstream diagnostics;
    cli::LoadedInput in = cli::loadSkeleton(spec.input, spec.options, diagnostics);
    kernels = in.file.kernels.size();
    benchmark::DoNotOptimize(in.file.kernels.data());
  }
  state.counters["kernels"] = benchmark::Counter(static_cast<double>(kernels));
}

int registerSkeletonize() {
  // The manifest's inputs resolve against its own directory, so an absolute
  // manifest path makes the benchmark independent of the working directory.
  static const cli::Suite suite = cli::loadSuite(std::string(SKELCAST_SOURCE_DIR) + "/bench/suite.json");
  for (const cli::BenchmarkSpec &spec : suite.benchmarks)
    if (cli::isCInput(spec.input))
      benchmark::RegisterBenchmark(("Skeletonize/" + spec.name).c_str(), Skeletonize, spec)
          ->Unit(benchmark::kMillisecond);
  return 0;
}

const int kRegistered = registerSkeletonize();

} // namespace
