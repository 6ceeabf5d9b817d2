// `skelcast validate FILE.json --hw NAME`: projected against measured times,
// from each case's C file by default (the user's path: skeletonizer and
// model), with the hand skeletons' figure (the model alone) beside it.
#include "Commands.h"
#include "Inputs.h"
#include "OptionChecks.h"
#include "PtxasRegisters.h"
#include "ValidateRun.h"
#include "skelcast/cli/Cli.h"
#include "skelcast/model/Validation.h"
#include "skelcast/report/Report.h"

#include <fmt/format.h>

#include <algorithm>
#include <memory>

#include <ostream>

namespace skelcast::cli {
namespace {

#ifdef SKELCAST_HAVE_FRONTEND
constexpr bool kHaveFrontend = true;
#else
constexpr bool kHaveFrontend = false;
#endif

bool noSkeleton(const model::MeasuredCase &c) { return c.skeleton.empty(); }

/// The cases' C files through the skeletonizer, as `project FILE.c` reads them:
/// their warnings through the one printer (caret, --warnings-as-errors).
/// With --counts not `table` and nvcc found, each measured layout is projected
/// with ptxas's registers per thread (docs/model.md, "Registers from ptxas").
/// With `checkPrograms` (validate --check-programs), the program today's emit
/// writes for each emitted case's layout is compared with the measured one:
/// by emit's fingerprints, or where the record has none by ptxas's reports
/// (built with `programs`' nvcc; null where there is none).
model::KernelSource cFiles(Context &ctx, const InputOptions &counts, const model::ModelOptions &mo,
                           bool checkPrograms, std::shared_ptr<toolchain::CompileCache> programs) {
  auto options = [&ctx, counts](const model::MeasuredCase &c) {
    InputOptions opts;
    opts.counts = counts.counts;
    opts.compileCache = counts.compileCache;
    opts.samples = c.cSamples;
    opts.compilerArgs = c.cArgs;
    opts.extents = c.cExtents;
    opts.trips = c.cTrips;
    opts.function = c.cFunction;
    opts.renderWarning = ctx.diag.renderer();
    opts.colorDiagnostics = ctx.diag.color;
    return opts;
  };
  model::KernelSource s{"C files (skeletonizer and model: the user's path)",
                        [](const model::MeasuredCase &c) { return c.cSource; },
                        [&ctx, options](const model::MeasuredCase &c) {
                          LoadedInput in = loadSkeleton(c.cSource, options(c), ctx.err);
                          ctx.diag.emit(in.warnings, ctx.err);
                          return std::move(in.file);
                        },
                        {},
                        {}};
  if (layoutBuildsOn(counts, mo))
    s.registers = [&ctx, options, counts, mo](const model::MeasuredCase &c, size_t k,
                                  const std::vector<layout::Layout> &layouts) {
      std::vector<model::CompiledCounts> n =
          compiledLayoutCounts(counts, mo, skeletonizeOptions(options(c)), c.cSource, k, layouts, ctx.err);
      for (const std::string &m : estimatesKept(counts, mo, n, "measured layouts"))
        ctx.diag.emit({{{c.cSource, 0, 0}, fmt::format("kernel '{}': {}", c.kernel, m)}}, ctx.err);
      return n;
    };
  if (checkPrograms)
    s.programs = [&ctx, options, programs](const model::MeasuredCase &c, size_t k,
                                           const std::vector<layout::Layout> &layouts,
                                           const std::vector<bool> &build) {
      std::vector<std::string> why;
      std::vector<std::optional<model::ProgramIdentity>> today =
          programIdentities(programs.get(), skeletonizeOptions(options(c)), c.cSource, k, layouts, build, ctx.err, why);
      size_t missing = 0;
      std::string first;
      for (size_t i = 0; i < today.size(); ++i) {
        bool compared = today[i] && (!(i < build.size() && build[i]) || today[i]->resources);
        if (!compared && missing++ == 0)
          first = i < why.size() && !why[i].empty() ? why[i].substr(0, why[i].find('\n')) : "not emitted";
      }
      if (missing > 0)
        ctx.diag.emit({{{c.cSource, 0, 0},
                        fmt::format("kernel '{}': {} of the {} measured layouts not compared with today's "
                                    "program (--check-programs): {}",
                                    c.kernel, missing, today.size(), first)}},
                      ctx.err);
      return today;
    };
  return s;
}

} // namespace

void registerValidate(CLI::App &app, Context &ctx) {
  struct Opts {
    std::vector<std::string> files;
    std::string hw = "h100", model = "skelcast", format = "table";
    std::vector<std::string> without;
    std::optional<double> maxError;
    bool requireTop = false, force = false, modelOnly = false;
    bool checkPrograms = false; ///< --check-programs
    bool run = false; ///< --run: the files are C files to emit, build and run
    std::vector<std::string> layouts;
    size_t top = 0;
    std::string nvcc, outDir;
#ifdef SKELCAST_HAVE_FRONTEND
    SkeletonizeCliOptions c;
#endif
  };
  auto o = std::make_shared<Opts>();
  auto *cmd = app.add_subcommand("validate", "Compare projections with GPU times measured in validation/");
  cmd->add_option("files", o->files,
                  "Measurements (validation/results/*_kernels.json); several runs of the same "
                  "cases keep each case's lowest median")
      ->required();
  cmd->add_option("--hw", o->hw, "GPU spec")->capture_default_str();
  cmd->add_option("--model", o->model, "Performance model")
      ->check(CLI::IsMember(model::modelNames()))
      ->capture_default_str();
  cmd->add_option("--without", o->without, "Switch off a term of the skelcast model (repeatable)")
      ->check(CLI::IsMember(model::modernTermNames()));
  cmd->add_option("--format", o->format, "Output format")
      ->check(CLI::IsMember({"table", "markdown", "json"}))
      ->capture_default_str();
  cmd->add_option("--max-error", o->maxError,
                  "Exit 1 when the geometric-mean error exceeds this percentage")
      ->check(numberWithin(0, kMaxErrorPercent));
  cmd->add_flag("--require-top", o->requireTop,
                "Exit 1 unless every kernel's projected favourite is within 10% of the fastest");
  cmd->add_flag("--model-only", o->modelOnly,
                "Project the hand skeletons (counted from the measured kernels' SASS) instead of "
                "the cases' C files: a check of the model alone");
  cmd->add_flag("--check-programs", o->checkPrograms,
                "Compare each emitted case's program with the one today's emit writes for its layout "
                "(emit's fingerprint of the program; for records without one, ptxas's registers "
                "and shared memory, built with nvcc) and set apart the cases measured on another "
                "program: the figures count the others (docs/validation.md)");
  cmd->add_flag("--force", o->force,
                "Compare even when the measurements were taken on another GPU than --hw's");
  cmd->add_flag("--run", o->run,
                "The files are C files: emit their layouts, build them with nvcc, run them on "
                "this machine's GPU and validate against those times (docs/emit.md)");
  cmd->add_option("--top", o->top, "With --run: the N best projected layouts of each kernel "
                                   "(default 3, with the naive one)")
      ->check(integerWithin(1, 1000));
  cmd->add_option("--layouts", o->layouts,
                  "With --run: these layouts (canonical strings, or 'naive') instead");
  cmd->add_option("--nvcc", o->nvcc, "With --run: the nvcc to build with (default: PATH, then "
                                     "/usr/local/cuda/bin/nvcc)");
  cmd->add_option("-o,--out-dir", o->outDir,
                  "With --run: keep the emitted programs and measurements.json here");
#ifdef SKELCAST_HAVE_FRONTEND
  o->c.addFlags(cmd);
  o->c.addCounts(cmd);
  o->c.addLoadGroups(cmd);
#endif
  cmd->callback([&ctx, o] {
    ctx.action = [&ctx, o] {
      return guarded(ctx, [&] {
        if (!o->run && (o->top || !o->layouts.empty() || !o->nvcc.empty() || !o->outDir.empty()))
          throw CLI::ValidationError("--top/--layouts/--nvcc/--out-dir", "apply with --run only");
        // --run: the C files are emitted, built and run here first; their
        // measurements are then validated as any measurement file is.
        std::vector<std::string> files = o->files;
        std::shared_ptr<void> runDir;
        std::string ranOn, keptAt;
        if (o->run) {
#ifdef SKELCAST_HAVE_FRONTEND
          ValidateRunOptions r;
          r.files = o->files;
          r.skeletonize = o->c.finish();
          r.choice.layouts = o->layouts;
          if (o->layouts.empty()) {
            r.choice.layouts = {"naive"};
            r.choice.top = o->top ? o->top : 3;
          } else {
            r.choice.top = o->top;
          }
          r.choice.skipUnsupported = o->layouts.empty(); // what it chose itself may be skipped
          r.hw = o->hw;
          r.nvcc = o->nvcc;
          r.outDir = o->outDir;
          r.model = model::ModelOptions{model::parseModelSpec(o->model, o->without)};
          r.counts = o->c.inputOptions(); // --counts: the top N after ptxas's re-rank
          RunMeasurements m = runAndMeasure(ctx, r);
          files = {m.path};
          runDir = m.cleanup;
          (o->format == "table" ? ctx.out : ctx.err) << fmt::format("ran on: {}\n", m.gpuName);
          if (!o->outDir.empty())
            keptAt = m.path;
#else
          throw InputError({"--run", 0, 0}, "this skelcast was built without the C frontend");
#endif
        }
        hw::HwSpec hw = hw::resolveHwSpec(o->hw, ctx.specDir);
        model::ModelOptions mo{model::parseModelSpec(o->model, o->without)};
        const std::string &label = mo.model.label;
        if (!o->force)
          for (const auto &f : files)
            model::requireSameGpu(f, hw);
        // Each target missed, with its figure: "geometric-mean error 23.4% exceeds --max-error 10%".
        std::vector<std::string> missed;
        if (model::isProgramMeasurements(files.front())) {
          if (o->maxError)
            throw CLI::ValidationError("--max-error", "applies to kernel measurements; a program "
                                                      "file's targets are checked by --require-top");
          if (o->checkPrograms)
            throw CLI::ValidationError("--check-programs", "applies to kernel measurements, not a "
                                                           "program file");
          auto pv = model::validatePrograms(files, hw, mo, label);
          if (o->format == "json")
            ctx.out << report::renderProgramValidationJson(pv);
          else if (o->format == "markdown")
            ctx.out << report::renderProgramValidationMarkdown(pv);
          else
            ctx.out << report::renderProgramValidation(pv);
          if (o->requireTop) {
            if (!pv.transfersWithin15)
              missed.push_back("a transfer is off by more than 15%");
            if (!pv.winnersRight)
              missed.push_back("a fused/unfused winner is wrong");
            if (!pv.totalsWithin25)
              missed.push_back("a program total is off by more than 25%");
          }
        } else {
          std::vector<model::Measurements> runs;
          for (const auto &f : files)
            runs.push_back(model::loadMeasurements(f));
          model::Measurements all = model::mergeRuns(runs);
          size_t withC = 0;
          for (const auto &c : all.cases)
            withC += c.cSource.empty() ? 0 : 1;
          model::ValidationReport v;
          if (o->modelOnly || withC == 0 || withC != all.cases.size() || !kHaveFrontend) {
            if (o->checkPrograms)
              throw CLI::ValidationError("--check-programs", "applies to the C path (cases that all name a "
                                                             "C file, without --model-only): today's "
                                                             "programs are emitted from the C files");
            if (o->modelOnly)
              all.cases.erase(std::remove_if(all.cases.begin(), all.cases.end(), noSkeleton),
                              all.cases.end());
            if (all.cases.empty())
              throw InputError({files.front(), 0, 0},
                               "--model-only: no measured case has a hand skeleton (field 'skeleton')");
            v = model::validate(all, hw, mo, label);
            if (!o->modelOnly)
              v.note = withC == 0 ? "the measurements name no C files (field 'c'): the skeletons they "
                                    "name are projected as they are; the skeletonizer is not checked "
                                    "on C here"
                       : withC != all.cases.size()
                           ? fmt::format("only {} of {} cases name a C file (field 'c'): all are "
                                         "projected from their hand skeletons, the model alone",
                                         withC, all.cases.size())
                           : "this skelcast has no C frontend: the hand skeletons are projected, the "
                             "model alone";
          } else {
            InputOptions counts; // --counts, and one compilation cache for all the cases
#ifdef SKELCAST_HAVE_FRONTEND
            counts = o->c.inputOptions();
#endif
            // Records without a fingerprint are compared by ptxas's reports:
            // without nvcc they are not compared, with a warning.
            std::shared_ptr<toolchain::CompileCache> programs;
            if (o->checkPrograms) {
              programs = counts.compileCache ? counts.compileCache
                                             : std::make_shared<toolchain::CompileCache>(
                                                   toolchain::findTools(), toolchain::defaultBuildStore());
              if (!programs->tools().hasPtxas())
                programs.reset();
            }
            v = model::validate(all, hw, mo, label, cFiles(ctx, counts, mo, o->checkPrograms, programs));
            // The model alone, on the cases that have a hand skeleton.
            model::Measurements skeletons = all;
            skeletons.cases.erase(
                std::remove_if(skeletons.cases.begin(), skeletons.cases.end(), noSkeleton),
                skeletons.cases.end());
            if (skeletons.cases.empty()) {
              v.note = "no case has a hand skeleton: there is no model-only figure";
            } else {
              model::ValidationReport alone = model::validate(skeletons, hw, mo, label);
              v.otherFigures.push_back({alone.source, alone.cases.size(), alone.kernels.size(),
                                        alone.geomeanError, alone.maxError, alone.topWithinTen});
            }
          }
          if (o->format == "json")
            ctx.out << report::renderValidationJson(v);
          else if (o->format == "markdown")
            ctx.out << report::renderValidationMarkdown(v);
          else
            ctx.out << report::renderValidation(v);
          if (!keptAt.empty() && o->format == "table")
            ctx.out << fmt::format("measurements: {}\n", keptAt);
          // --check-programs may leave nothing to check a target on.
          if ((o->maxError || o->requireTop) && v.programs.changed > 0 &&
              v.programs.changed == v.cases.size())
            missed.push_back(fmt::format("no case is left: --check-programs set apart all {} (measured on "
                                         "programs today's emit no longer writes)",
                                         v.programs.changed));
          else if (o->requireTop && !v.programs.kernelsSetApart.empty())
            missed.push_back(fmt::format("{} kernels have no case left to check (every one set apart by "
                                         "--check-programs)",
                                         v.programs.kernelsSetApart.size()));
          if (o->maxError && 100 * v.geomeanError > *o->maxError)
            missed.push_back(fmt::format("geometric-mean error {:.1f}% exceeds --max-error {}%",
                                         100 * v.geomeanError, *o->maxError));
          if (o->requireTop && v.topWithinTen != static_cast<int>(v.kernels.size()))
            missed.push_back(fmt::format("the projected favourite is within 10% of the fastest "
                                         "measured layout for {} of {} kernels (--require-top wants all)",
                                         v.topWithinTen, v.kernels.size()));
        }
        if (missed.empty())
          return static_cast<int>(Success);
        std::string all;
        for (const auto &m : missed)
          all += (all.empty() ? "" : "; ") + m;
        ctx.err << "skelcast: validation targets not met: " << all << '\n';
        return static_cast<int>(InputFailure);
      });
    };
  });
}

} // namespace skelcast::cli
