// `skelcast emit FILE.c [--layout L | --top N] [--kernel K] [-o DIR]`: one
// self-contained CUDA file per chosen kernel and layout (docs/emit.md), with
// the one-kernel skeleton its measurement record names.
#ifdef SKELCAST_HAVE_FRONTEND

#include "Commands.h"
#include "EmitRun.h"
#include "OptionChecks.h"
#include "skelcast/cli/Cli.h"
#include "skelcast/model/Program.h"
#include "skelcast/model/Project.h"
#include "skelcast/support/AtomicFile.h"

#include <fmt/format.h>

#include <filesystem>
#include <ostream>

namespace skelcast::cli {

std::vector<emit::KernelChoice> chooseLayouts(const frontend::SkeletonizeResult &res,
                                              const EmitChoice &c, const hw::HwSpec &hw,
                                              const model::ModelOptions &mo) {
  const skeleton::SkeletonFile &f = res.file;
  std::vector<size_t> ks;
  for (size_t k = 0; k < f.kernels.size(); ++k)
    if (c.kernel.empty() || f.kernelName(k) == c.kernel)
      ks.push_back(k);
  if (ks.empty())
    throw InputError({"--kernel", 0, 0}, fmt::format("no kernel named '{}' in {}", c.kernel, f.path));
  model::ProgramAnalysis analysis(f);
  std::vector<emit::KernelChoice> out;
  for (size_t k : ks) {
    layout::KernelInfo ki = analysis.kernel(k);
    for (size_t i = 0; i < c.layouts.size(); ++i) {
      emit::KernelChoice ch;
      ch.kernel = k;
      ch.info = ki;
      if (c.layouts[i] == "naive") {
        ch.layout = emit::naiveLayout(ki);
        ch.tag = "naive";
      } else {
        ch.layout = layout::parseLayout(ki, c.layouts[i], hw);
        model::requireSharedMemoryFits(ki, ch.layout, hw); // else the program fails at its launch
        ch.tag = c.layouts.size() == 1 ? "layout" : fmt::format("layout{}", i + 1);
      }
      out.push_back(std::move(ch));
    }
    if (c.top > 0) {
      std::vector<layout::Layout> best;
      if (auto it = c.ranked.find(k); it != c.ranked.end()) {
        best = it->second;
      } else {
        model::ModelOptions m = mo;
        m.keepTop = c.top;
        for (auto &p : model::projectProgramKernel(analysis, k, hw, {}, m).layouts)
          best.push_back(std::move(p.layout));
      }
      for (size_t i = 0; i < best.size(); ++i) {
        emit::KernelChoice ch;
        ch.kernel = k;
        ch.info = ki;
        ch.layout = best[i];
        ch.tag = fmt::format("top{}", i + 1);
        out.push_back(std::move(ch));
      }
    }
  }
  return out;
}

EmittedSet emitFiles(const std::string &cfile, const frontend::SkeletonizeOptions &so,
                     const EmitChoice &choice, const hw::HwSpec &hw,
                     const model::ModelOptions &mo, const std::string &dir,
                     DiagnosticPrinter &diag, std::ostream &err) {
  emit::EmitOptions eo;
  eo.outDir = dir;
  eo.skipUnsupported = choice.skipUnsupported;
  std::vector<Warning> warnings;
  emit::EmitResult r = emit::emitCuda(
      cfile, so, eo,
      [&](const frontend::SkeletonizeResult &res) { return chooseLayouts(res, choice, hw, mo); },
      err, warnings);
  warnings.insert(warnings.end(), r.skipped.begin(), r.skipped.end());
  diag.emit(warnings, err);
  if (r.kernels.empty())
    throw InputError({cfile, 0, 0}, "no kernel could be emitted in the chosen layouts");
  EmittedSet set;
  std::vector<std::pair<std::string, std::string>> files;
  for (const auto &k : r.kernels) {
    std::string cu = (std::filesystem::path(dir) / (k.fileStem + ".cu")).string();
    std::string skel = (std::filesystem::path(dir) / (k.fileStem + ".skel")).string();
    files.push_back({cu, k.cuda});
    files.push_back({skel, k.skeleton});
    set.cudaFiles.push_back(cu);
    set.kernels.push_back(k);
  }
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec)
    throw InputError({dir, 0, 0}, fmt::format("cannot create the directory: {}", ec.message()));
  writeFilesAtomically(files);
  return set;
}

void registerEmit(CLI::App &app, Context &ctx) {
  struct Opts {
    SkeletonizeCliOptions c;
    std::string layout, kernel, dir = ".", hw = "h100", model = "skelcast";
    std::vector<std::string> without;
    size_t top = 0;
    bool skip = false;
  };
  auto o = std::make_shared<Opts>();
  auto *cmd = app.add_subcommand(
      "emit", "Write the CUDA of a kernel's layouts: the kernel from the C nest and a host driver "
              "that checks and times it");
  o->c.add(cmd);
  auto *layoutOpt = cmd->add_option(
      "--layout", o->layout,
      "This layout (the canonical string, or 'naive'); default: the projected best");
  cmd->add_option("--top", o->top, "The N best layouts of the projection")
      ->check(integerWithin(1, 1000))
      ->excludes(layoutOpt);
  cmd->add_option("--kernel", o->kernel, "Only the kernel of this name");
  cmd->add_option("-o,--out-dir", o->dir, "Directory for the .cu and .skel files ('-': the .cu "
                                          "files on stdout)")
      ->capture_default_str();
  cmd->add_option("--hw", o->hw, "GPU spec that ranks the layouts")->capture_default_str();
  cmd->add_option("--model", o->model, "Performance model that ranks the layouts")
      ->check(CLI::IsMember(model::modelNames()))
      ->capture_default_str();
  cmd->add_option("--without", o->without, "Switch off a term of the skelcast model (repeatable)")
      ->check(CLI::IsMember(model::modernTermNames()));
  cmd->add_flag("--skip-unsupported", o->skip,
                "Skip (with a warning) the layouts emit cannot write instead of failing");
  cmd->callback([&ctx, o] {
    frontend::SkeletonizeOptions so = o->c.finish();
    ctx.action = [&ctx, o, so]() mutable {
      so.renderWarning = ctx.diag.renderer();
      so.colorDiagnostics = ctx.diag.color;
      return guarded(ctx, [&] {
        const std::string &f = o->c.file;
        if (f.size() > 5 && f.compare(f.size() - 5, 5, ".skel") == 0)
          throw InputError({f, 0, 0}, "emit writes the CUDA of C code, and a skeleton has none: "
                                      "give the C file it came from");
        hw::HwSpec hw = hw::resolveHwSpec(o->hw, ctx.specDir);
        model::ModelOptions mo{model::parseModelSpec(o->model, o->without)};
        EmitChoice choice;
        choice.kernel = o->kernel;
        choice.skipUnsupported = o->skip;
        if (!o->layout.empty())
          choice.layouts.push_back(o->layout);
        else
          choice.top = o->top ? o->top : 1;
        if (o->dir == "-") { // the CUDA on stdout, nothing written
          emit::EmitOptions eo;
          eo.skipUnsupported = o->skip;
          std::vector<Warning> warnings;
          emit::EmitResult r = emit::emitCuda(
              o->c.file, so, eo,
              [&](const frontend::SkeletonizeResult &res) {
                return chooseLayouts(res, choice, hw, mo);
              },
              ctx.err, warnings);
          warnings.insert(warnings.end(), r.skipped.begin(), r.skipped.end());
          ctx.diag.emit(warnings, ctx.err);
          if (r.kernels.empty())
            throw InputError({o->c.file, 0, 0}, "no kernel could be emitted in the chosen layouts");
          for (const auto &k : r.kernels)
            ctx.out << k.cuda;
          return static_cast<int>(Success);
        }
        EmittedSet set = emitFiles(o->c.file, so, choice, hw, mo, o->dir, ctx.diag, ctx.err);
        for (size_t i = 0; i < set.kernels.size(); ++i)
          ctx.out << fmt::format("{}  kernel {}  {}\n", set.cudaFiles[i], set.kernels[i].kernel,
                                 set.kernels[i].layoutString);
        return static_cast<int>(Success);
      });
    };
  });
}

} // namespace skelcast::cli

#endif // SKELCAST_HAVE_FRONTEND
