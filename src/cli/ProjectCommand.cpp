// `skelcast project FILE... --hw NAME` and `skelcast explain FILE --layout STRING`.
#include "Commands.h"
#include "CpuHarness.h"
#include "Inputs.h"
#include "OptionChecks.h"
#include "ProjectConfig.h"
#include "PtxasRegisters.h"
#include "SkeletonizeOptions.h"
#include "SweepSpec.h"
#include "Work.h"
#include "skelcast/cli/Cli.h"
#include "skelcast/model/Project.h"
#include "skelcast/report/Report.h"
#include "skelcast/report/Sweep.h"
#include "skelcast/support/AtomicFile.h"
#include "skelcast/support/Diagnostic.h"
#include "skelcast/support/SourceFiles.h"

#include <fmt/format.h>

#include <functional>
#include <ostream>
#include <set>
#include <sstream>

namespace skelcast::cli {
namespace {

struct ProjectOpts {
  std::vector<std::string> files;
  std::vector<std::string> hw{"h100"}; ///< `--hw h100,a100`: one or more GPUs
  std::vector<std::string> sets;       ///< `--set FIELD=VALUE`
  std::string sweep;                   ///< `--sweep N=1024..65536:log`
  std::string plot;                    ///< `--plot FILE.svg` (with --sweep)
  std::string layout;
  std::string timing = "once"; ///< explain --timing: how the kernel is launched
  bool timingGiven = false;     ///< --timing given: the kernel alone, as validate projects it
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
  /// The GPUs: --hw, else the `hw` of the first input's .skelcast.json, else h100.
  std::vector<std::string> hwNames() const {
    if (!hwGiven && !files.empty())
      if (auto cfg = findProjectConfig(files.front()); cfg && cfg->hw)
        return {*cfg->hw};
    return hw;
  }
  InputOptions inputs(Context &ctx) const {
    InputOptions in = cInput();
    in.language = language;
    in.renderWarning = ctx.diag.renderer();
    in.colorDiagnostics = ctx.diag.color;
    return in;
  }
  /// --model and --without, parsed once per run.
  model::ModelOptions modelOptions() const { return {model::parseModelSpec(model, without)}; }
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

/// The CPU time of one input for the program's speedup.
struct CpuTime {
  std::optional<double> ms;
  std::string source;
  int threads = 0, runs = 0;
};

/// --measure-cpu: the function of `in` compiled with `compilerArgs` and timed.
CpuTime measuredCpu(const ProjectOpts &o, const std::string &path, const LoadedInput &in,
                    const std::vector<std::string> &compilerArgs) {
  if (!isCInput(path))
    throw InputError({path, 0, 0}, fmt::format("--measure-cpu needs a C or C++ input ({})", kCSourceExtensionList));
  CpuMeasureOptions cm;
  cm.compilerArgs = compilerArgs;
  cm.repeats = o.cpuRepeats;
  CpuMeasurement m = measureCpu(path, functionToMeasure(in.functions, path), in.file, cm);
  return {m.medianMs, "measured", m.threads, static_cast<int>(m.timesMs.size())};
}

/// The GPUs of --hw, each with the --set overrides applied.
std::vector<hw::HwSpec> resolveGpus(const Context &ctx, const ProjectOpts &o) {
  std::vector<hw::FieldOverride> sets;
  for (const auto &s : o.sets)
    sets.push_back(hw::parseFieldOverride(s));
  std::vector<hw::HwSpec> gpus;
  std::set<std::string> names;
  for (const auto &name : o.hwNames()) {
    gpus.push_back(hw::overrideHwSpec(hw::resolveHwSpec(name, ctx.specDir), sets));
    if (!names.insert(gpus.back().name).second)
      throw InputError({"--hw", 0, 0}, fmt::format("GPU '{}' is given twice", gpus.back().name));
  }
  return gpus;
}

report::Report emptyReport(const ProjectOpts &o, const hw::HwSpec &hw) {
  report::Report rep;
  rep.version = SKELCAST_VERSION;
  rep.hwName = hw.name;
  rep.hwDescription = hw.description;
  rep.hwHash = hw.contentHash;
  rep.hwOverrides = hw.overrides;
  rep.model = o.modelOptions().model.label;
  rep.top = o.top;
  return rep;
}

/// One input projected on every GPU, into reps[g]: its kernels, then (when
/// whole files are projected) the program with the CPU time `cpu` gives.
/// `ptxas`: the best layouts by the estimate re-ranked with ptxas's registers
/// (readsLayoutBuilds; `io` and `ctx` serve it).
void projectInput(Context &ctx, const ProjectOpts &o, const InputOptions &io, const std::string &path,
                  const LoadedInput &in, const std::vector<hw::HwSpec> &gpus,
                  std::vector<report::Report> &reps, const std::function<CpuTime()> &cpu, bool ptxas) {
  const skeleton::SkeletonFile &f = in.file;
  model::ModelOptions mo = o.modelOptions();
  // Only the layouts shown are kept; with ptxas, the max(2 x shown, 10) best by
  // the estimate, re-ranked with the compiler's registers and then cut.
  mo.keepTop = ptxas ? model::rerankCandidates(o.top) : o.top;
  model::ProgramAnalysis analysis(f); // the program's reuse, once for all its kernels and GPUs
  std::vector<std::vector<model::KernelProjection>> all(gpus.size());
  for (size_t k : selectKernels(f, o.kernel)) {
    for (size_t g = 0; g < gpus.size(); ++g) {
      // The kernel as part of its program: reuse in L2 across kernels counts;
      // in an indexed repeat, every launch.
      std::optional<layout::Layout> only;
      if (!o.layout.empty())
        only = layout::parseLayout(analysis.kernel(k), o.layout, gpus[g]);
      model::KernelProjection kp = model::projectProgramKernel(analysis, k, gpus[g], {}, mo, only);
      if (ptxas && !kp.layouts.empty())
        kp = rerankedWithCompiled(io, skeletonizeOptions(io), path, analysis, k, gpus[g],
                               o.modelOptions(), std::move(kp), o.top, ctx.err,
                               [&](const Warning &w) { ctx.diag.emit({w}, ctx.err); });
      all[g].push_back(std::move(kp));
      reps[g].kernels.push_back({inputName(path), all[g].back()});
    }
  }
  // The whole program, when every kernel of the file was ranked.
  if (o.kernel.empty() && o.layout.empty()) {
    CpuTime c = cpu();
    model::ProgramOptions po;
    po.cpuMs = c.ms;
    po.cpuSource = c.source;
    po.cpuThreads = c.threads;
    po.cpuRuns = c.runs;
    po.minSpeedup = o.minSpeedup;
    po.pinned = o.pinned;
    for (size_t g = 0; g < gpus.size(); ++g)
      reps[g].programs.push_back({inputName(path), model::projectProgram(f, all[g], gpus[g], {}, mo, po)});
  }
}

int runSweep(Context &ctx, const ProjectOpts &o, const std::vector<hw::HwSpec> &gpus);

int runProject(Context &ctx, const ProjectOpts &o) {
  std::vector<hw::HwSpec> gpus = resolveGpus(ctx, o);
  if (!o.sweep.empty())
    return runSweep(ctx, o, gpus);
  std::vector<report::Report> reps;
  for (const auto &hw : gpus)
    reps.push_back(emptyReport(o, hw));
  InputOptions ci = o.inputs(ctx);
  for (const auto &path : o.files) {
    LoadedInput in = loadSkeleton(path, ci, ctx.err);
    ctx.diag.emit(in.warnings, ctx.err);
    if (auto w = loadGroupsNotRead(ci, path, o.modelOptions()))
      ctx.diag.emit({*w}, ctx.err);
    projectInput(ctx, o, ci, path, in, gpus, reps, [&] {
      if (o.measureCpu) // the CPU's own time: the function compiled and timed in a harness
        return measuredCpu(o, path, in, ci.compilerArgs);
      return CpuTime{o.cpuMs, o.cpuMs ? "--cpu-ms" : "", 0, 0};
    }, readsLayoutBuilds(ci, path, o.modelOptions()));
  }
  if (reps.size() == 1) {
    const report::Report &rep = reps.front();
    if (o.format == "json")
      ctx.out << report::renderJson(rep);
    else if (o.format == "csv")
      ctx.out << report::renderCsv(rep);
    else if (o.format == "markdown")
      ctx.out << report::renderMarkdown(rep);
    else
      ctx.out << report::renderTable(rep);
  } else if (o.format == "json")
    ctx.out << report::renderGpuJson(reps);
  else if (o.format == "csv")
    ctx.out << report::renderGpuCsv(reps);
  else if (o.format == "markdown")
    ctx.out << report::renderGpuMarkdown(reps);
  else
    ctx.out << report::renderGpuTable(reps);
  return Success;
}

/// `--sweep`: every input at each size on every GPU, one project run per size.
int runSweep(Context &ctx, const ProjectOpts &o, const std::vector<hw::HwSpec> &gpus) {
  SweepSpec sw = parseSweepSpec(o.sweep);
  report::SweepReport sr;
  sr.version = SKELCAST_VERSION;
  sr.model = o.modelOptions().model.label;
  sr.name = sw.name;
  sr.rule = sw.rule;
  sr.values = sw.values;
  sr.minSpeedup = o.minSpeedup;
  for (const auto &g : gpus)
    sr.gpus.push_back(g.name);
  if (!gpus.empty())
    sr.hwOverrides = gpus.front().overrides;
  if (o.measureCpu)
    sr.cpuRule = fmt::format("measured at each size (the function compiled with clang-19 -O3 "
                             "-march=native, the median of {} calls)",
                             o.cpuRepeats);
  else if (o.cpuMs)
    sr.cpuRule = fmt::format("--cpu-ms {} ms for each file as written, scaled to each size by the "
                             "program's work W (launches x tasks x the comp, ld and st of a task): "
                             "cpu_ms x W(size) / W(as written)",
                             fmt::format("{:g}", *o.cpuMs));
  InputOptions ci = o.inputs(ctx);
  for (const auto &path : o.files) {
    std::optional<double> baseWork;
    if (o.cpuMs && !o.measureCpu) {
      std::ostringstream quiet; // its warnings come again at each size
      baseWork = programWork(loadSkeleton(path, ci, quiet).file);
      if (!(*baseWork > 0))
        throw InputError({path, 0, 0}, "--sweep with --cpu-ms: the program as written has no work "
                                       "to scale the CPU time by");
    }
    for (int64_t v : sw.values) {
      InputOptions at = withSize(ci, path, sw.name, v);
      LoadedInput in = loadSkeleton(path, at, ctx.err);
      if (v == sw.values.front()) // the same warnings come at every size: once
        ctx.diag.emit(in.warnings, ctx.err);
      std::optional<CpuTime> cpu; // once per size, whatever the GPUs
      bool measuring = false;
      auto cpuAt = [&] {
        if (!cpu) {
          measuring = true;
          if (o.measureCpu)
            cpu = measuredCpu(o, path, in, at.compilerArgs);
          else if (baseWork)
            cpu = CpuTime{*o.cpuMs * programWork(in.file) / *baseWork, "--cpu-ms scaled by work", 0, 0};
          else
            cpu = CpuTime{};
          measuring = false;
        }
        return *cpu;
      };
      for (size_t g = 0; g < gpus.size(); ++g) {
        report::SweepRow row;
        row.input = path;
        row.value = v;
        row.gpu = g;
        // A size the GPU cannot take (arrays beyond its memory, FP64 on a GPU
        // without it) is a row that says why; the sweep goes on.
        std::vector<report::Report> reps{emptyReport(o, gpus[g])};
        try {
          // --sweep ranks with the estimate: ptxas at every size would build
          // max(2 x top, 10) layouts per kernel and size (docs/model.md).
          projectInput(ctx, o, at, path, in, {gpus[g]}, reps, cpuAt, false);
        } catch (const InputError &e) {
          if (measuring) // the CPU measurement's own failure ends the sweep
            throw;
          row.error = e.what();
          sr.rows.push_back(std::move(row));
          continue;
        }
        for (const auto &k : reps.front().kernels) {
          const auto &p = k.projection;
          if (p.layouts.empty()) {
            row.kernels.push_back({p.kernel, "", "", 0});
            continue;
          }
          const auto &l = p.layouts.front();
          row.kernels.push_back({p.kernel, l.layoutString, l.result.bound, l.launchesMs ? *l.launchesMs : l.result.timeMs});
        }
        row.program = reps.front().programs.front().program;
        sr.rows.push_back(std::move(row));
      }
    }
  }
  if (!o.plot.empty())
    writeFileAtomically(o.plot, report::renderSweepSvg(sr));
  if (o.format == "json")
    ctx.out << report::renderSweepJson(sr);
  else if (o.format == "csv")
    ctx.out << report::renderSweepCsv(sr);
  else
    ctx.out << report::renderSweepTable(sr);
  return Success;
}

/// ptxas's registers per thread for layout `l` of kernel `k` of a C input,
/// where --counts is not `table` and nvcc is found (docs/model.md, "Registers
/// from ptxas"); the model's estimate otherwise, which explain then names.
void readRegisters(Context &ctx, const ProjectOpts &o, const InputOptions &io, size_t k,
                   layout::Layout &l) {
  const std::string &path = o.files.front();
  if (!readsLayoutBuilds(io, path, o.modelOptions()))
    return;
  std::vector<model::CompiledCounts> n =
      compiledLayoutCounts(io, o.modelOptions(), skeletonizeOptions(io), path, k, {l}, ctx.err);
  n.front().applyTo(l);
  for (const std::string &m : estimatesKept(io, o.modelOptions(), n, "layouts explained"))
    ctx.diag.emit({{{path, 0, 0}, m}}, ctx.err);
}

int runExplain(Context &ctx, const ProjectOpts &o) {
  std::vector<hw::HwSpec> gpus = resolveGpus(ctx, o);
  const InputOptions io = o.inputs(ctx);
  LoadedInput in = loadSkeleton(o.files.front(), io, ctx.err);
  ctx.diag.emit(in.warnings, ctx.err);
  if (auto w = loadGroupsNotRead(io, o.files.front(), o.modelOptions()))
    ctx.diag.emit({*w}, ctx.err);
  skeleton::SkeletonFile f = std::move(in.file);
  std::vector<size_t> ks = selectKernels(f, o.kernel);
  if (ks.size() > 1)
    throw InputError({f.path, 0, 0}, "the file holds several kernels: choose one with --kernel");
  // --timing: the kernel alone, launched as a measurement record says (how
  // validate projects each case, whatever the file's other kernels); a kernel
  // of an indexed repeat is launched as its program runs it.
  const skeleton::Repeat *rep = f.repeatOf(ks.front());
  if (o.timingGiven && rep && rep->indexed())
    throw InputError({"--timing", 0, 0},
                     fmt::format("kernel '{}' is launched by its program's indexed repeat: its timing is "
                                 "the program's, not '{}'",
                                 f.kernelName(ks.front()), o.timing));
  layout::KernelInfo ki =
      o.timingGiven ? layout::analyzeKernel(f, ks.front()) : model::analyzeProgramKernel(f, ks.front());
  ki.timing = layout::launchTimingNamed(o.timing).value_or(layout::LaunchTiming::Once);
  model::ModelOptions mo = o.modelOptions();
  std::vector<report::Explanation> explained; // --format json: one per GPU
  for (size_t g = 0; g < gpus.size(); ++g) {
    const hw::HwSpec &hw = gpus[g];
    if (gpus.size() > 1 && o.format != "json")
      ctx.out << fmt::format("{}=== on {} ===\n", g ? "\n" : "", hw.name);
    layout::Layout l = layout::parseLayout(ki, o.layout, hw);
    readRegisters(ctx, o, io, ks.front(), l);
    model::KernelProjection kp = o.timingGiven ? model::projectKernel(ki, hw, {}, mo, l)
                                         : model::projectProgramKernel(f, ks.front(), hw, {}, mo, l);
    if (kp.layouts.empty()) // an indexed repeat's launch where it does not fit
      throw InputError({"--layout", 0, 0},
                       fmt::format("layout '{}' does not fit every launch of kernel '{}'", o.layout,
                                   f.kernelName(ks.front())));
    report::Explanation x = report::explainProjection(ki, kp.layouts.front(), hw, mo.model.label);
    if (o.timingGiven)
      x.timing = o.timing;
    if (o.format == "json") {
      x.launches = kp.launches;
      x.hwOverrides = hw.overrides;
      explained.push_back(std::move(x));
      continue;
    }
    ctx.out << report::renderExplain(x);
    if (kp.launches)
      ctx.out << report::renderLaunches(*kp.launches);
    if (!hw.overrides.empty()) {
      report::Report r;
      r.hwName = hw.name;
      r.hwOverrides = hw.overrides;
      ctx.out << report::overridesText(r);
    }
  }
  if (o.format == "json")
    ctx.out << report::renderExplainJson(explained, SKELCAST_VERSION);
  return Success;
}

void addCommon(CLI::App *cmd, ProjectOpts &o) {
  cmd->add_option("--language", o.language,
                  "Read the inputs as C or as skeletons, whatever their names ('-', standard "
                  "input, is a skeleton unless 'c')")
      ->check(CLI::IsMember({"c", "skel"}));
  cmd->add_option("--hw", o.hw, "GPU specs: names from hwspecs/ or JSON files, e.g. h100,a100,v100")
      ->delimiter(',')
      ->capture_default_str();
  cmd->add_option("--set", o.sets,
                  "Override a field of every GPU spec for this run, e.g. mem_bandwidth_gbps=8000 or "
                  "host_link.h2d_pinned_gbps=64 (repeatable; validated as the spec file's field)");
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
  cmd->add_option("files", o->files, "C or C++ sources (.c, .cpp, .cc, .cxx) or skeleton files (.skel); after --, arguments for Clang")->required();
  addCommon(cmd, *o);
  cmd->add_option("--layout", o->layout, "Project exactly this layout");
  cmd->add_option("--top", o->top, "Layouts shown per kernel")->capture_default_str()
      ->check(integerWithin(1, kMaxTop));
  cmd->add_option("--format", o->format, "Output format")
      ->check(CLI::IsMember({"table", "json", "csv", "markdown"}))
      ->capture_default_str();
  auto *sweep = cmd->add_option("--sweep", o->sweep,
                                "Project at each size: NAME=LO..HI[:log[:FACTOR]|:lin:STEP] or "
                                "NAME=V1,V2,... (a macro, or an --extent name of a C input)");
  cmd->add_option("--plot", o->plot, "With --sweep: write an SVG plot of time and speedup against the size")
      ->needs(sweep);
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
  o->c.addCounts(cmd);
  o->c.addLoadGroups(cmd);
#endif
  sweep->excludes("--layout")->excludes("--kernel");
  cmd->callback([&ctx, o, cmd] {
    o->hwGiven = cmd->count("--hw") > 0;
#ifdef SKELCAST_HAVE_FRONTEND
    o->c.rest = ctx.clangArgs; // `-- ARGS`, taken off by runCli
#else
    if (!ctx.clangArgs.empty())
      throw CLI::ValidationError("--", "arguments for Clang, but this skelcast was built without the C frontend");
#endif
    ctx.action = [&ctx, o] {
      return guarded(ctx, [&] {
        if (!o->sweep.empty() && o->format == "markdown")
          throw InputError({"--sweep", 0, 0}, "--format markdown has no sweep view: use table, json or csv");
        return runProject(ctx, *o);
      });
    };
  });
}

void registerExplain(CLI::App &app, Context &ctx) {
  auto o = std::make_shared<ProjectOpts>();
  auto *cmd = app.add_subcommand("explain", "Print every intermediate quantity of one layout's projection");
  cmd->add_option("file", o->files, "C or C++ source (.c, .cpp, .cc, .cxx) or skeleton file (.skel); after --, arguments for Clang")->required()->expected(1);
  addCommon(cmd, *o);
#ifdef SKELCAST_HAVE_FRONTEND
  o->c.addFlags(cmd); // the same C input options as project
  o->c.addCounts(cmd);
  o->c.addLoadGroups(cmd);
#endif
  cmd->add_option("--layout", o->layout, "The layout, e.g. 'block=i:16,j:16 stage=k:16 cache=A,B'")
      ->required();
  cmd->add_option("--timing", o->timing,
                  "How the kernel is launched: once (as project projects it), alone (repeated over the same "
                  "arrays, each launch timed alone) or back_to_back (launched in a stream of its own launches), "
                  "as a measurement record's \"timing\" says (validate projects each case so)")
      ->check(CLI::IsMember([] {
        std::vector<std::string> names;
        for (layout::LaunchTiming t : layout::kLaunchTimings)
          names.emplace_back(layout::launchTimingName(t));
        return names;
      }()))
      ->capture_default_str();
  o->format = "text";
  cmd->add_option("--format", o->format, "Output format: text, or json (docs/schema/explain.schema.json)")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();
  cmd->callback([&ctx, o, cmd] {
    o->hwGiven = cmd->count("--hw") > 0;
    o->timingGiven = cmd->count("--timing") > 0;
#ifdef SKELCAST_HAVE_FRONTEND
    o->c.rest = ctx.clangArgs; // `-- ARGS`, taken off by runCli
#else
    if (!ctx.clangArgs.empty())
      throw CLI::ValidationError("--", "arguments for Clang, but this skelcast was built without the C frontend");
#endif
    ctx.action = [&ctx, o] { return guarded(ctx, [&] { return runExplain(ctx, *o); }); };
  });
}

} // namespace skelcast::cli
