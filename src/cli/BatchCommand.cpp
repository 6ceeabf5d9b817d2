// `skelcast batch SUITE --hw h100,a100 --out DIR`: every kernel of a suite on
// every GPU, into report.md, report.html, report.json and report.csv.
#include "SuiteCommand.h"
#include "skelcast/cli/Cli.h"

#include <fmt/format.h>

#include <ostream>

namespace skelcast::cli {

void registerBatch(CLI::App &app, Context &ctx) {
  struct Opts : SuiteCommandOptions {
    std::string out;
  };
  auto o = std::make_shared<Opts>();
  auto *cmd = app.add_subcommand("batch", "Project every kernel of a suite on several GPUs and write "
                                          "Markdown, HTML, JSON and CSV reports");
  cmd->add_option("suite", o->suite, "A directory of .c/.skel files or a JSON manifest (docs/batch.md)")
      ->required();
  cmd->add_option("--out", o->out, "Directory for report.{md,html,json,csv} (created if missing)")
      ->required();
  addSuiteOptions(cmd, *o, "h100");
  cmd->callback([&ctx, o] {
    ctx.action = [&ctx, o] {
      return guarded(ctx, [&] {
        if (o->hw.empty())
          o->hw = {"h100"};
        std::optional<DirectoryLock> lock; // held until the reports are in place
        report::BatchReport r = projectSuite(ctx, *o, o->out, lock);
        std::vector<std::string> files = writeReports(o->out, r);
        printFailures(ctx, r);
        size_t failures = report::batchFailures(r).size();
        std::string gpus;
        for (size_t g = 0; g < r.gpus.size(); ++g)
          gpus += (g ? ", " : "") + r.gpus[g].name;
        ctx.out << fmt::format("skelcast batch: {} benchmarks, {} kernels on {}: {} projections, {} "
                               "failed\n",
                               r.benchmarks.size(), report::kernelCount(r), gpus,
                               report::projectionCount(r), failures);
        for (const auto &f : files)
          ctx.out << "wrote " << f << '\n';
        std::vector<std::string> warnings;
        for (const auto &b : r.benchmarks)
          warnings.insert(warnings.end(), b.warnings.begin(), b.warnings.end());
        if (ctx.diag.failOnWarnings(warnings, ctx.err))
          return static_cast<int>(InputFailure);
        return failures ? static_cast<int>(InputFailure) : static_cast<int>(Success);
      });
    };
  });
}

} // namespace skelcast::cli
