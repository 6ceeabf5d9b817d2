/// \file
/// `--sweep N=1024..65536:log` (project, batch): the same inputs projected at
/// several values of one size, on one or more GPUs, as one immutable value, and
/// its views, each a pure function of it (SweepView.cpp): a table, JSON, CSV
/// and a self-contained SVG plot (time and speedup against the size, one line
/// per GPU, log axes; no script, no network).
///
/// The table (renderSweepTable):
///
///   sweep of N over 1024..65536, doubling (7 sizes), model skelcast
///   CPU time: --cpu-ms 120 ms at the size of the file as given, scaled ...
///
///   skeletons/matmul.skel
///         N  gpu       total_ms   transfers_ms    kernels_ms  bound     cpu_ms  speedup  verdict      best layout (kernel matmul)
///      1024  h100        0.5413         0.4413        0.1000  compute    12.1    22.4x  port         block=...
///   ...
///   break-even (verdict port, speedup >= 2x): h100 from N = 1024 on ...
#pragma once

#include "skelcast/model/Program.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace skelcast::report {

/// The best layout of one kernel at one size on one GPU.
struct SweepKernel {
  std::string name, layout, bound;
  double timeMs = 0; ///< one launch (an indexed repeat: its launches summed)
};

/// One input (a file, or a suite's benchmark) at one size on one GPU.
struct SweepRow {
  std::string input;  ///< the file (project) or the benchmark (batch)
  int64_t value = 0;  ///< the size
  size_t gpu = 0;     ///< into SweepReport::gpus
  std::vector<SweepKernel> kernels;          ///< in file order
  std::optional<model::ProgramProjection> program;
  std::string error;  ///< why there is no projection at this size (then no program)
};

struct SweepReport {
  std::string version, model;
  std::string name;    ///< the swept macro or --extent name
  std::string rule;    ///< how the sizes were chosen: "1024..65536, doubling"
  std::vector<int64_t> values;
  std::vector<std::string> gpus;
  std::vector<std::string> hwOverrides; ///< `--set`, as Report::hwOverrides
  std::string cpuRule; ///< how the CPU time of each size was had; empty: none
  double minSpeedup = 2;
  std::vector<SweepRow> rows; ///< by input, then size, then GPU
};

/// Where the port starts to pay for one input on one GPU: the smallest swept
/// size from which the verdict is "port" at every larger swept size.
struct BreakEven {
  std::string input;
  size_t gpu = 0;
  enum class Kind { Everywhere, Nowhere, Between, Unknown } kind = Kind::Unknown;
  int64_t below = 0, above = 0; ///< Between: the last "do not port" and the first "port" size
  /// Between, with both speedups known: the size where the speedup crosses
  /// minSpeedup, interpolated on log-log axes.
  std::optional<double> estimate;
};
std::vector<BreakEven> breakEvens(const SweepReport &r);

/// The kernel of a row that takes the most time (launches x one launch), the
/// one whose layout and bound the table and the CSV show; nullptr without kernels.
const SweepKernel *longestKernel(const SweepRow &row);

std::string renderSweepTable(const SweepReport &r);
std::string renderSweepJson(const SweepReport &r);
/// One row per input, size, GPU and kernel; the program's columns repeat on
/// each kernel's row.
std::string renderSweepCsv(const SweepReport &r);
/// Time (total, ms) and, when there is a CPU time, speedup against the size; one
/// line per GPU (and input, when several), log axes.
std::string renderSweepSvg(const SweepReport &r);

} // namespace skelcast::report
