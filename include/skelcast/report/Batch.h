/// \file
/// The result of one `skelcast batch` (or `check`) run over a suite as one
/// immutable value, and its renderers, each a pure function in its own file
/// (src/report/Batch*View.cpp). Like the single-file Report it records what
/// produced it: skelcast's version, each spec's name and content hash, the model.
///
/// The value holds, per benchmark of the suite (in suite order), per kernel (in
/// file order) and per GPU (in `--hw` order), the best `top` layouts with every
/// quantity of their projection, or the reason there is none. An input that
/// could not be read is a benchmark with `error` set and no kernels.
///
/// `report.md` (renderBatchMarkdown) looks like:
///
///   | benchmark | kernel | GPU | best layout | time (ms) | bound | memory share | speedup |
///   | --- | --- | --- | --- | ---: | --- | ---: | ---: |
///   | matmul | matmul | h100 | `block=i:16,j:32 fold=i:4,j:2 cache=A,B unroll=k:16` | 0.03895 | compute | 40% | 5961x |
#pragma once

#include "skelcast/model/Program.h"
#include "skelcast/model/Project.h"

#include <optional>
#include <string>
#include <vector>

namespace skelcast::report {

/// A GPU's roofs as the roofline chart draws them, from its spec.
struct GpuRoofs {
  double memBandwidthGBs = 0, peakSpGflops = 0, peakDpGflops = 0;
};

/// A GPU spec as the report records it.
struct GpuInfo {
  std::string name, description, contentHash;
  double clockGHz = 0; ///< the spec's SM clock, to turn the model's cycles into time
  std::vector<std::string> overrides; ///< `batch --set`: fields overridden, "field=value"
  GpuRoofs roofs;                     ///< the spec's bandwidth and peaks, for the roofline
};

/// One kernel projected on one GPU.
struct KernelGpuResult {
  int64_t layoutsExplored = 0, layoutsPruned = 0;
  std::vector<model::LayoutProjection> layouts; ///< the best `top`, best first
  std::string error; ///< why there is no projection ("no layout fits", a bad sample...); empty if ok
  bool ok() const { return error.empty() && !layouts.empty(); }
  /// The best layout's projected kernel time; nullopt when !ok().
  std::optional<double> timeMs() const;
};

struct KernelResult {
  std::string name;
  std::vector<KernelGpuResult> gpus; ///< indexed like BatchReport::gpus
};

struct BenchmarkResult {
  std::string name;
  std::string input;           ///< the input file, as a path from the working directory
  std::optional<double> cpuMs; ///< measured CPU time, when the suite gives it
  std::string error;           ///< the input could not be read (full diagnostic); then no kernels
  std::vector<std::string> warnings;
  std::vector<KernelResult> kernels;
  /// Per GPU (indexed like BatchReport::gpus): the whole program, i.e. transfers
  /// over the host link, repeats and fusion (docs/model.md section 9), when every
  /// kernel has a projection on it.
  std::vector<std::optional<model::ProgramProjection>> programs;
};

struct BatchReport {
  std::string version; ///< skelcast's
  std::string model;   ///< model label, e.g. "skelcast" or "skelcast without caches"
  std::string suite;   ///< the suite as given on the command line
  std::vector<GpuInfo> gpus;
  size_t top = 5; ///< layouts kept per kernel and GPU
  std::vector<BenchmarkResult> benchmarks;
};

/// Projected GPU time of a benchmark: the sum over its kernels of the best
/// layout's time; nullopt when the input failed or a kernel has no projection.
std::optional<double> benchmarkTimeMs(const BenchmarkResult &b, size_t gpu);

/// The program's projected time: transfers in and out plus its kernels, with
/// repeats and the fusion that wins (what `project --cpu-ms` divides by);
/// nullopt when there is no program projection on that GPU.
std::optional<double> programTimeMs(const BenchmarkResult &b, size_t gpu);

/// Share of programTimeMs spent on the host link (0..1); nullopt without it.
std::optional<double> transferShare(const BenchmarkResult &b, size_t gpu);

/// cpu_ms / programTimeMs, the program's speedup as `project --cpu-ms` gives it;
/// nullopt without a CPU time or a program projection.
std::optional<double> speedup(const BenchmarkResult &b, size_t gpu);

/// cpu_ms / benchmarkTimeMs: the kernels alone (best layout of each, summed,
/// without transfers or launches); nullopt without a CPU time or a kernel time.
std::optional<double> kernelSpeedup(const BenchmarkResult &b, size_t gpu);

/// Something that did not produce a projection: an input (kernel and gpu
/// empty) or one kernel on one GPU.
struct BatchFailure {
  std::string benchmark, input, kernel, gpu, message;
};
std::vector<BatchFailure> batchFailures(const BatchReport &r);

/// Number of kernels (over all benchmarks) and of kernel x GPU projections that succeeded.
size_t kernelCount(const BatchReport &r);
size_t projectionCount(const BatchReport &r);

/// Share of memory in a layout's projected work (0..1), from Hong-Kim's
/// quantities per SM: the memory demand Mem_cycles x N / MWP (the memory
/// periods of the N active warps, MWP of them at a time; Mem_cycles as CWP_full
/// counts it, (CWP_full - 1) x Comp_cycles) against the compute demand
/// Comp_cycles x N (their instructions through the issue port). It is
/// above one half exactly when MWP < CWP_full - 1, so it agrees with the bound
/// the model names whenever CWP is not capped by N (a latency-bound layout, where
/// neither saturates, still shows which is larger). When a term of the model
/// raised the time above Hong-Kim's (a memory floor: the kernel time minus launch
/// exceeds Total_cycles at `clockGHz`), the memory demand is at least that time.
/// For a projection of the roofline model (LayoutProjection::model): its memory
/// time against its compute time.
double memoryShare(const model::LayoutProjection &p, double clockGHz);

/// A kernel's best layout on the roofline (docs/batch.md): its operations are
/// the skeleton's arithmetic instructions (`comp`, Func_insts of eq. 17 per
/// thread) over all threads, FP64 ones among them; its bytes the compulsory
/// DRAM bytes; its rate the operations over the projected time.
struct RooflinePoint {
  double operations = 0, fp64Operations = 0, bytes = 0, timeMs = 0;
  double intensity() const { return bytes > 0 ? operations / bytes : 0; }  ///< operations per byte
  double gops() const { return timeMs > 0 ? operations / (timeMs * 1e6) : 0; } ///< 10^9 operations/s
  bool fp64() const { return fp64Operations > 0.5 * operations; } ///< mostly FP64: under the FP64 roof
};
RooflinePoint rooflinePoint(const model::LayoutProjection &l);

/// report.md: summary, failures, one table row per benchmark, kernel and GPU
/// (best layout, time, bound, speedup), then the top layouts of each kernel.
std::string renderBatchMarkdown(const BatchReport &r);
struct SweepReport;
/// report.html: one self-contained page (inline CSS, an inline script that sorts
/// and filters the tables, inline SVG charts drawn here; nothing fetched): the
/// program of every benchmark per GPU, speedup per GPU, the memory/compute split
/// and the top layouts of each kernel, a roofline per GPU, the GPUs against each
/// other, the warnings once each, and `sweep`'s plot when given (`batch --sweep`,
/// whose last size `r` is).
std::string renderBatchHtml(const BatchReport &r, const SweepReport *sweep = nullptr);
/// report.json: everything, including each spec's content hash.
std::string renderBatchJson(const BatchReport &r);
/// report.csv: one row per benchmark, kernel, GPU and layout rank with every
/// number; a failure is a row with `error` set.
std::string renderBatchCsv(const BatchReport &r);

} // namespace skelcast::report
