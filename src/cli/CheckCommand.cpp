// `skelcast check SUITE --baseline FILE.json`: the suite's projected times and
// speedups against a committed baseline, for CI.
#include "SuiteCommand.h"
#include "SuiteRunner.h"
#include "skelcast/cli/Cli.h"
#include "skelcast/report/Check.h"
#include "skelcast/skeleton/Parser.h"
#include "skelcast/support/AtomicFile.h"
#include "skelcast/support/Diagnostic.h"
#include "skelcast/support/TextFile.h"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <ostream>
#include <unistd.h>

namespace skelcast::cli {

void registerCheck(CLI::App &app, Context &ctx) {
  struct Opts : SuiteCommandOptions {
    std::string baseline, tolerance = "5%", junit, out, format = "text";
    bool update = false, strict = false;
  };
  auto o = std::make_shared<Opts>();
  auto *cmd = app.add_subcommand("check", "Compare a suite's projected times and speedups with a "
                                          "baseline; exit 1 on a regression");
  cmd->add_option("suite", o->suite, "A directory of .c/.skel files or a JSON manifest (docs/batch.md)")
      ->required();
  cmd->add_option("--baseline", o->baseline, "Baseline JSON (written by --update-baseline)")->required();
  addSuiteOptions(cmd, *o, "the baseline's GPUs");
  cmd->add_option("--tolerance", o->tolerance,
                  "Allowed growth of a projected time (and fall of a speedup): '5%' or '0.05'")
      ->capture_default_str()
      ->check([](const std::string &t) -> std::string {
        try {
          report::parseTolerance(t);
          return "";
        } catch (const InputError &e) {
          return e.message();
        }
      });
  auto *update = cmd->add_flag("--update-baseline", o->update,
                               "Write the baseline from this run instead of comparing");
  cmd->add_option("--junit", o->junit, "Also write JUnit XML: one testcase per kernel and GPU")
      ->excludes(update);
  cmd->add_flag("--strict", o->strict, "Kernels that are not in the baseline fail too")->excludes(update);
  cmd->add_option("--out", o->out, "Also write report.{md,html,json,csv} into this directory");
  cmd->add_option("--format", o->format,
                  "Output format of the comparison: text, json or csv (docs/schema/check.schema.json)")
      ->check(CLI::IsMember({"text", "json", "csv"}))
      ->capture_default_str()
      ->excludes(update);
  cmd->callback([&ctx, o] {
    ctx.action = [&ctx, o] {
      return guarded(ctx, [&]() -> int {
        std::optional<report::Baseline> base;
        bool exists = std::filesystem::exists(o->baseline);
        if (!o->update) {
          if (!exists)
            throw InputError({o->baseline, 0, 0},
                             "no such baseline: create it with --update-baseline");
          base = report::parseBaseline(readTextFile(o->baseline), o->baseline);
        } else if (o->hw.empty() && exists) {
          base = report::parseBaseline(readTextFile(o->baseline), o->baseline);
        }
        if (o->hw.empty()) {
          if (!base)
            throw InputError({"--hw", 0, 0}, "give the GPUs of the new baseline with --hw");
          // The baseline's GPUs in the order of its entries (then any spec without one).
          auto add = [&](const std::string &gpu) {
            if (std::find(o->hw.begin(), o->hw.end(), gpu) == o->hw.end())
              o->hw.push_back(gpu);
          };
          for (const auto &e : base->entries)
            add(e.gpu);
          for (const auto &[gpu, hash] : base->specs)
            add(gpu);
        }
        if (!o->junit.empty()) {
          // Refuse a JUnit file that cannot be written before the suite runs.
          std::filesystem::path dir = std::filesystem::path(o->junit).parent_path();
          if (dir.empty())
            dir = ".";
          errno = 0;
          if (::access(dir.c_str(), W_OK) != 0)
            throw InputError({o->junit, 0, 0},
                             fmt::format("cannot write: {}", std::strerror(errno ? errno : EACCES)));
        }
        std::optional<DirectoryLock> lock; // held until the reports are in place
        report::BatchReport run = projectSuite(ctx, *o, o->out, lock);
        if (!o->out.empty())
          for (const auto &f : writeReports(o->out, run)) // stdout is the JSON or CSV alone
            (o->format == "text" ? ctx.out : ctx.err) << "wrote " << f << '\n';
        lock.reset();
        // A program without projection (every kernel has one) fails the check,
        // as it fails batch: the reports hold it as a warning of its benchmark.
        std::vector<ProgramFailure> programs = programFailures(run);
        for (const auto &p : programs)
          ctx.err << fmt::format("skelcast: benchmark '{}', the program on {} failed:\n{}\n", p.benchmark,
                                 p.gpu, p.message);
        if (o->update) {
          if (!report::batchFailures(run).empty() || !programs.empty()) {
            printFailures(ctx, run);
            ctx.err << fmt::format("skelcast: the baseline {} is left as it was: fix the failures "
                                   "first\n",
                                   o->baseline);
            return InputFailure;
          }
          report::Baseline b = report::baselineFromReport(run);
          writeFileAtomically(o->baseline, report::renderBaselineJson(b));
          ctx.out << fmt::format("wrote {} entries ({} kernels on {} GPUs) to {}\n", b.entries.size(),
                                 report::kernelCount(run), run.gpus.size(), o->baseline);
          return Success;
        }
        report::CheckOptions co;
        co.tolerance = report::parseTolerance(o->tolerance);
        co.strict = o->strict;
        report::CheckReport c = report::compareWithBaseline(run, *base, co);
        // The JUnit file first: the verdict is printed only once everything is written.
        if (!o->junit.empty())
          writeFileAtomically(o->junit, report::renderJUnit(c));
        if (o->format == "json")
          ctx.out << report::renderCheckJson(c);
        else if (o->format == "csv")
          ctx.out << report::renderCheckCsv(c);
        else
          ctx.out << report::renderCheckText(c);
        std::vector<std::string> warnings;
        for (const auto &b : run.benchmarks)
          warnings.insert(warnings.end(), b.warnings.begin(), b.warnings.end());
        if (ctx.diag.failOnWarnings(warnings, ctx.err))
          return InputFailure;
        return c.failed() || !programs.empty() ? InputFailure : Success;
      });
    };
  });
}

} // namespace skelcast::cli
