/// \file
/// The result of one `project` run as one immutable value, and the renderers
/// of it: each output format is a pure function of a Report (llvm-mca's views).
/// A report records what produced it: skelcast's version, the spec's name and
/// content hash, and the model.
#pragma once

#include "skelcast/model/Program.h"
#include "skelcast/model/Project.h"

#include <optional>
#include <string>
#include <vector>

namespace skelcast::report {

struct KernelReport {
  std::string file;
  model::KernelProjection projection;
};

struct ProgramReport {
  std::string file;
  model::ProgramProjection program;
};

struct Report {
  std::string version;
  std::string hwName, hwDescription, hwHash;
  std::string model;
  /// Spec fields overridden for this run (`--set`), "field=value" in the
  /// order given (HwSpec::overrides); the table's footer and the JSON's
  /// hw.overrides say so.
  std::vector<std::string> hwOverrides;
  size_t top = 10; ///< layouts shown per kernel
  std::vector<KernelReport> kernels;
  std::vector<ProgramReport> programs; ///< one per input file, when whole files are projected
};

/// Terminal table: rank, layout, projected time, MWP, CWP, active warps, bound.
///
///   kernel matmul (skeletons/matmul.skel) on fx5600, hong-kim: 1234 layouts explored, 56 pruned
///   rank  layout                                              time_ms    MWP    CWP  warps  bound
///      1  block=i:16,j:16 stage=k:16 cache=A,B unroll=k:16     1.234   2.50  20.00  24.0  compute
std::string renderTable(const Report &r);
std::string renderJson(const Report &r);
std::string renderCsv(const Report &r);
std::string renderMarkdown(const Report &r);

/// `project --hw h100,a100,v100`: the same inputs projected on several GPUs,
/// one Report each, in --hw order (every Report holds the same kernels and
/// programs). The table puts the GPUs side by side:
///
///   kernel matmul (skeletons/matmul.skel), model skelcast
///     gpu   time_ms  vs h100  bound    best layout
///     h100  0.03895    1.00x  compute  block=i:16,j:32 fold=i:4,j:2 cache=A,B unroll=k:16
///     a100  0.07013    1.80x  compute  block=i:16,j:32 ...
///
/// then each program's totals and verdict per GPU. JSON: {"gpus": [renderJson's
/// object of each GPU]}; CSV: renderCsv's rows of each GPU under one header;
/// Markdown: renderMarkdown of each GPU in turn.
std::string renderGpuTable(const std::vector<Report> &perGpu);
std::string renderGpuJson(const std::vector<Report> &perGpu);
std::string renderGpuCsv(const std::vector<Report> &perGpu);
std::string renderGpuMarkdown(const std::vector<Report> &perGpu);

/// The footer line of a run with overridden spec fields ("" without any):
///   spec fields overridden (--set) on h100: mem_bandwidth_gbps=8000
std::string overridesText(const Report &r);

/// One quantity `explain` prints: a number (shown to `digits` significant
/// digits; 0: a whole number) or a text (`bound`), and where it comes from.
struct ExplainQuantity {
  std::string name;
  std::optional<double> value;
  int digits = 6;
  std::string text; ///< when !value
  std::string where;
};

struct ExplainSection {
  std::string title; ///< "loop space", "data (GROPHECY eq. 1, 5, 6, 9, 12)", ...
  std::vector<ExplainQuantity> rows;
};

/// Every intermediate quantity of one layout's projection on one GPU, in the
/// order of docs/model.md: what `explain` prints as text and as JSON.
struct Explanation {
  std::string kernel, file, gpu, model, layout;
  double timeMs = 0;
  std::string bound;
  std::vector<ExplainSection> sections;
  std::optional<model::RepeatedLaunches> launches; ///< a kernel of an indexed repeat
  std::vector<std::string> hwOverrides;            ///< `--set`, "field=value"
  /// `explain --timing`: the kernel alone, launched so ("once", "alone",
  /// "back_to_back"); empty when the kernel is projected in its program.
  std::string timing;
};

/// The quantities of `p`, the projection of a layout of kernel `ki` on `hw`.
Explanation explainProjection(const layout::KernelInfo &ki, const model::LayoutProjection &p,
                              const hw::HwSpec &hw, const std::string &modelLabel);

/// `explain`'s text: a header, then each section's rows (name, value, where).
std::string renderExplain(const Explanation &x);

/// `explain --format json`: {"schema_version": 1, "skelcast_version",
/// "explanations": [one per GPU: kernel, file, gpu, model, layout, time_ms,
/// bound, sections [{title, quantities [{name, value, where}]}], repeat,
/// hw_overrides, timing]} (docs/schema/explain.schema.json).
std::string renderExplainJson(const std::vector<Explanation> &perGpu, const std::string &version);

/// A kernel of an indexed repeat: the representative iterations its layouts
/// were ranked on, and how its launches were summed (docs/model.md, section 9).
std::string renderLaunches(const model::RepeatedLaunches &l);

} // namespace skelcast::report

#include "skelcast/model/Validation.h"

namespace skelcast::report {

/// `skelcast validate`: per case measured, projected, error and the roofline's;
/// the geometric-mean summary; per kernel whether the projected favourite runs
/// within 10% of the fastest measured layout.
std::string renderValidation(const model::ValidationReport &v);
std::string renderValidationMarkdown(const model::ValidationReport &v);
std::string renderValidationJson(const model::ValidationReport &v);
std::string renderProgramValidation(const model::ProgramValidation &v);
/// The same as a Markdown table and as JSON (`validate --format markdown|json`
/// of a program measurement file).
std::string renderProgramValidationMarkdown(const model::ProgramValidation &v);
std::string renderProgramValidationJson(const model::ProgramValidation &v);

} // namespace skelcast::report
