// `skelcast project FILE... --hw NAME` and `skelcast explain FILE --layout STRING`.
#include "Commands.h"
#include "CpuHarness.h"
#include "Inputs.h"
#include "OptionChecks.h"
#include "ProjectConfig.h"
#include "SkeletonizeOptions.h"
#include "skelcast/cli/Cli.h"
#include "skelcast/model/Project.h"
#include "skelcast/report/Report.h"
#include "skelcast/support/Diagnostic.h"

#include <fmt/format.h>

#include <ostream>

namespace skelcast::cli {
namespace {

struct ProjectOpts {
  std::vector<std::string> files;
  std::string hw = "h100";
  std::string layout;
  std::string kernel;
  std::string format = "table";
  std::string model = "skelcast";
  std::vector<std::string> without;
  size_t top = 10;
  std::optional<double> cpuMs;
  bool measureCpu = false;
  int cpuRepeats = 5;
#ifdef SKELCAST_HAVE_FRONTEND
  SkeletonizeCliOptions c; ///< for C inputs
#endif
  InputOptions cInput() const {
#ifdef SKELCAST_HAVE_FRONTEND
    return c.inputOptions();
#else
    return {};
#endif
  }
  double minSpeedup = 2;
  bool pinned = false;
  bool hwGiven = false;  ///< --hw was on the command line (else .skelcast.json's may apply)
  std::string language;  ///< --language c|skel (`-` is a skeleton unless c)
  /// The GPU: --hw, else the `hw` of the first input's .skelcast.json, else h100.
  std::string hwName() const {
    if (!hwGiven && !files.empty())
      if (auto cfg = findProjectConfig(files.front()); cfg && cfg->hw)
        return *cfg->hw;
    return hw;
  }
  InputOptions inputs(Context &ctx) const {
    InputOptions in = cInput();
    in.language = language;
    in.renderWarning = ctx.diag.renderer();
    in.colorDiagnostics = ctx.diag.color;
    return in;
  }
  model::ModelOptions modelOptions() const {
    model::ModelOptions mo;
    mo.model = model;
    mo.disabledTerms.insert(without.begin(), without.end());
    return mo;
  }
  std::string modelLabel() const {
    std::string s = model;
    for (size_t i = 0; i < without.size(); ++i)
      s += (i ? "," : " without ") + without[i];
    return s;
  }
};

/// The kernels of `f` selected by --kernel (all when empty).
std::vector<size_t> selectKernels(const skeleton::SkeletonFile &f, const std::string &name) {
  std::vector<size_t> ks;
  for (size_t k = 0; k < f.kernels.size(); ++k)
    if (name.empty() || f.kernelName(k) == name)
      ks.push_back(k);
  if (ks.empty() && !name.empty())
    throw InputError({f.path, 0, 0}, fmt::format("no kernel named '{}'", name));
  if (f.kernels.empty())
    throw InputError({f.path, 0, 0}, "no parallel_for kernel in this file");
  return ks;
}

int runProject(Context &ctx, const ProjectOpts &o) {
  hw::HwSpec hw = hw::resolveHwSpec(o.hwName(), ctx.specDir);
  model::ModelOptions mo = o.modelOptions();
  mo.keepTop = o.top; // only the layouts shown are kept
  report::Report rep;
  rep.version = SKELCAST_VERSION;
  rep.hwName = hw.name;
  rep.hwDescription = hw.description;
  rep.hwHash = hw.contentHash;
  rep.model = o.modelLabel();
  rep.top = o.top;
  InputOptions ci = o.inputs(ctx);
  for (const auto &path : o.files) {
    LoadedInput in = loadSkeleton(path, ci, ctx.err);
    ctx.diag.emit(in.warnings, ctx.err);
    skeleton::SkeletonFile f = std::move(in.file);
    std::vector<model::KernelProjection> all;
    model::ProgramAnalysis analysis(f); // the program's reuse, once for all its kernels
    for (size_t k : selectKernels(f, o.kernel)) {
      // The kernel as part of its program: reuse in L2 across kernels counts;
      // in an indexed repeat, every launch.
      std::optional<layout::Layout> only;
      if (!o.layout.empty())
        only = layout::parseLayout(analysis.kernel(k), o.layout, hw);
      all.push_back(model::projectProgramKernel(analysis, k, hw, {}, mo, only));
      rep.kernels.push_back({inputName(path), all.back()});
    }
    // The whole program, when every kernel of the file was ranked.
    if (o.kernel.empty() && o.layout.empty()) {
      model::ProgramOptions po;
      po.cpuMs = o.cpuMs;
      if (o.cpuMs)
        po.cpuSource = "--cpu-ms";
      if (o.measureCpu) {
        // the CPU's own time: the function compiled and timed in a harness
        if (!isCInput(path))
          throw InputError({path, 0, 0}, "--measure-cpu needs a C input (a .c file)");
        CpuMeasureOptions cm;
        cm.compilerArgs = ci.compilerArgs;
        cm.repeats = o.cpuRepeats;
        CpuMeasurement m = measureCpu(path, functionToMeasure(in.functions, path), f, cm);
        po.cpuMs = m.medianMs;
        po.cpuSource = "measured";
        po.cpuThreads = m.threads;
        po.cpuRuns = static_cast<int>(m.timesMs.size());
      }
      po.minSpeedup = o.minSpeedup;
      po.pinned = o.pinned;
      rep.programs.push_back({inputName(path), model::projectProgram(f, all, hw, {}, mo, po)});
    }
  }
  if (o.format == "json")
    ctx.out << report::renderJson(rep);
  else if (o.format == "csv")
    ctx.out << report::renderCsv(rep);
  else if (o.format == "markdown")
    ctx.out << report::renderMarkdown(rep);
  else
    ctx.out << report::renderTable(rep);
  return Success;
}

int runExplain(Context &ctx, const ProjectOpts &o) {
  hw::HwSpec hw = hw::resolveHwSpec(o.hwName(), ctx.specDir);
  LoadedInput in = loadSkeleton(o.files.front(), o.inputs(ctx), ctx.err);
  ctx.diag.emit(in.warnings, ctx.err);
  skeleton::SkeletonFile f = std::move(in.file);
  std::vector<size_t> ks = selectKernels(f, o.kernel);
  if (ks.size() > 1)
    throw InputError({f.path, 0, 0}, "the file holds several kernels: choose one with --kernel");
  layout::KernelInfo ki = model::analyzeProgramKernel(f, ks.front());
  layout::Layout l = layout::parseLayout(ki, o.layout, hw);
  model::KernelProjection kp = model::projectProgramKernel(f, ks.front(), hw, {}, o.modelOptions(), l);
  if (kp.layouts.empty()) // an indexed repeat's launch where it does not fit
    throw InputError({"--layout", 0, 0},
                     fmt::format("layout '{}' does not fit every launch of kernel '{}'", o.layout,
                                 f.kernelName(ks.front())));
  ctx.out << report::renderExplain(ki, kp.layouts.front(), hw, o.modelLabel());
  if (kp.launches)
    ctx.out << report::renderLaunches(*kp.launches);
  return Success;
}

void addCommon(CLI::App *cmd, ProjectOpts &o) {
  cmd->add_option("--language", o.language,
                  "Read the inputs as C or as skeletons, whatever their names ('-', standard "
                  "input, is a skeleton unless 'c')")
      ->check(CLI::IsMember({"c", "skel"}));
  cmd->add_option("--hw", o.hw, "GPU spec: a name from hwspecs/ or a JSON file")
      ->capture_default_str();
  cmd->add_option("--kernel", o.kernel, "Only the kernel of this name");
  cmd->add_option("--model", o.model,
                  "Performance model: skelcast (Hong-Kim with the modern terms), hong-kim (the "
                  "paper's), roofline (the baseline)")
      ->check(CLI::IsMember(model::modelNames()))
      ->capture_default_str();
  cmd->add_option("--without", o.without, "Switch off a term of the skelcast model (repeatable)")
      ->check(CLI::IsMember(model::modernTermNames()));
}

} // namespace

void registerProject(CLI::App &app, Context &ctx) {
  auto o = std::make_shared<ProjectOpts>();
  auto *cmd = app.add_subcommand("project", "Rank the GPU code layouts of each kernel by projected time");
  cmd->add_option("files", o->files, "C or skeleton files (.c, .skel)")->required();
  addCommon(cmd, *o);
  cmd->add_option("--layout", o->layout, "Project exactly this layout");
  cmd->add_option("--top", o->top, "Layouts shown per kernel")->capture_default_str()
      ->check(integerWithin(1, kMaxTop));
  cmd->add_option("--format", o->format, "Output format")
      ->check(CLI::IsMember({"table", "json", "csv", "markdown"}))
      ->capture_default_str();
  cmd->add_option("--cpu-ms", o->cpuMs, "The CPU's time for the whole program, for the speedup")
      ->check(numberWithin(0, kMaxCpuMs, true));
  cmd->add_option("--min-speedup", o->minSpeedup, "Worth porting from this speedup on")
      ->capture_default_str()
      ->check(numberWithin(0, kMaxSpeedup, true));
  cmd->add_flag("--pinned", o->pinned, "Host buffers are pinned (default: pageable)");
  auto *measure = cmd->add_flag("--measure-cpu", o->measureCpu,
                                "C input: compile the function with clang-19 -O3 -march=native and "
                                "time it for the speedup");
  measure->excludes("--cpu-ms");
  cmd->add_option("--cpu-repeats", o->cpuRepeats, "Timed calls for --measure-cpu (the median is used)")
      ->capture_default_str()
      ->check(integerWithin(1, kMaxCpuRepeats));
#ifdef SKELCAST_HAVE_FRONTEND
  o->c.addFlags(cmd); // for C inputs: -D, -I, -std, -p, --function, --extent, --trip, --sample
#endif
  cmd->callback([&ctx, o, cmd] {
    o->hwGiven = cmd->count("--hw") > 0;
    ctx.action = [&ctx, o] { return guarded(ctx, [&] { return runProject(ctx, *o); }); };
  });
}

void registerExplain(CLI::App &app, Context &ctx) {
  auto o = std::make_shared<ProjectOpts>();
  auto *cmd = app.add_subcommand("explain", "Print every intermediate quantity of one layout's projection");
  cmd->add_option("file", o->files, "C or skeleton file (.c, .skel)")->required()->expected(1);
  addCommon(cmd, *o);
#ifdef SKELCAST_HAVE_FRONTEND
  o->c.addFlags(cmd); // the same C input options as project
#endif
  cmd->add_option("--layout", o->layout, "The layout, e.g. 'block=i:16,j:16 stage=k:16 cache=A,B'")
      ->required();
  cmd->callback([&ctx, o, cmd] {
    o->hwGiven = cmd->count("--hw") > 0;
    ctx.action = [&ctx, o] { return guarded(ctx, [&] { return runExplain(ctx, *o); }); };
  });
}

} // namespace skelcast::cli
