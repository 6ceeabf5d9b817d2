// `skelcast batch SUITE --hw h100,a100 --out DIR`: every kernel of a suite on
// every GPU, into report.md, report.html, report.json and report.csv; with
// `--sweep N=...`, at each size, into sweep.txt, sweep.json, sweep.csv and
// sweep.svg instead, and report.html of the last size with the sweep's plot.
#include "SuiteCommand.h"
#include "SuiteRunner.h"

#include "Suite.h"
#include "SweepSpec.h"
#include "Work.h"
#include "skelcast/cli/Cli.h"
#include "skelcast/report/Sweep.h"
#include "skelcast/support/Diagnostic.h"

#include <fmt/format.h>

#include <filesystem>
#include <map>
#include <ostream>
#include <sstream>

namespace skelcast::cli {
namespace {

struct BatchOpts : SuiteCommandOptions {
  std::string out;
  std::string sweep; ///< `--sweep N=1024..65536:log`
};

/// The rows of one size of a sweep, from that size's batch report.
void addSweepRows(report::SweepReport &sr, const report::BatchReport &r, int64_t value) {
  std::vector<ProgramFailure> programs = programFailures(r);
  for (const auto &b : r.benchmarks)
    for (size_t g = 0; g < r.gpus.size(); ++g) {
      report::SweepRow row;
      row.input = b.name;
      row.value = value;
      row.gpu = g;
      row.error = b.error;
      for (const auto &k : b.kernels) {
        const auto &kg = k.gpus[g];
        if (!kg.ok()) {
          if (row.error.empty())
            row.error = fmt::format("kernel '{}': {}", k.name, kg.error.empty() ? "no layout fits" : kg.error);
          row.kernels.push_back({k.name, "", "", 0});
          continue;
        }
        const auto &l = kg.layouts.front();
        row.kernels.push_back({k.name, l.layoutString, l.result.bound, l.launchesMs ? *l.launchesMs : l.result.timeMs});
      }
      if (g < b.programs.size() && b.programs[g])
        row.program = b.programs[g];
      else if (row.error.empty()) {
        row.error = "no program projection";
        for (const auto &p : programs)
          if (p.benchmark == b.name && p.gpu == r.gpus[g].name)
            row.error = p.message; // why, at its position
      }
      // The first line of a multi-line diagnostic is enough for a table cell.
      row.error = row.error.substr(0, row.error.find('\n'));
      sr.rows.push_back(std::move(row));
    }
}

int runBatchSweep(Context &ctx, BatchOpts &o) {
  SweepSpec sw = parseSweepSpec(o.sweep);
  DirectoryLock lock = prepareOutputDir(o.out);
  report::SweepReport sr;
  sr.version = SKELCAST_VERSION;
  sr.model = o.modelSpec().label;
  sr.name = sw.name;
  sr.rule = sw.rule;
  sr.values = sw.values;
  std::map<std::string, double> baseWork; // benchmark -> work as written
  bool anyCpu = false;
  std::vector<report::BatchReport> runs;
  for (int64_t v : sw.values) {
    std::optional<DirectoryLock> none;
    report::BatchReport r = projectSuite(ctx, o, "", none, [&](Suite &suite) {
      for (BenchmarkSpec &b : suite.benchmarks) {
        if (!b.error.empty())
          continue;
        try {
          std::ostringstream quiet;
          InputOptions at = withSize(b.options, b.input, sw.name, v);
          if (b.cpuMs) {
            anyCpu = true;
            if (!baseWork.count(b.name))
              baseWork[b.name] = programWork(loadSkeleton(b.input, b.options, quiet).file);
            double w = programWork(loadSkeleton(b.input, at, quiet).file);
            b.cpuMs = baseWork[b.name] > 0 ? std::optional<double>(*b.cpuMs * w / baseWork[b.name]) : std::nullopt;
          }
          b.options = std::move(at);
        } catch (const InputError &e) {
          b.error = e.what();
        }
      }
    });
    if (sr.gpus.empty())
      for (const auto &g : r.gpus)
        sr.gpus.push_back(g.name);
    addSweepRows(sr, r, v);
    if (v == sw.values.back())
      runs.push_back(std::move(r)); // report.html's tables: the last size
  }
  if (anyCpu)
    sr.cpuRule = "the manifest's cpu_ms of each benchmark as written, scaled to each size by the "
                 "program's work W (launches x tasks x the comp, ld and st of a task): cpu_ms x "
                 "W(size) / W(as written)";
  sr.hwOverrides = o.sets;
  std::vector<std::pair<std::string, std::string>> files{
      {"sweep.txt", report::renderSweepTable(sr)},
      {"sweep.json", report::renderSweepJson(sr)},
      {"sweep.csv", report::renderSweepCsv(sr)},
      {"sweep.svg", report::renderSweepSvg(sr)},
  };
  if (!runs.empty()) // the page of the last size, with the sweep's plot
    files.push_back({"report.html", report::renderBatchHtml(runs.back(), &sr)});
  std::vector<std::string> written;
  for (auto &[name, content] : files) {
    name = (std::filesystem::path(o.out) / name).string();
    written.push_back(name);
  }
  writeFilesAtomically(files);
  size_t failed = 0;
  for (const auto &row : sr.rows)
    if (!row.program) {
      ++failed;
      ctx.err << fmt::format("skelcast: benchmark '{}' at {} = {} on {} failed: {}\n", row.input, sw.name,
                             row.value, sr.gpus[row.gpu], row.error);
    }
  ctx.out << fmt::format("skelcast batch: sweep of {} over {} ({} sizes) on {} GPU{}: {} projections, {} failed\n",
                         sw.name, sw.rule, sw.values.size(), sr.gpus.size(), sr.gpus.size() == 1 ? "" : "s",
                         sr.rows.size() - failed, failed);
  for (const auto &f : written)
    ctx.out << "wrote " << f << '\n';
  return failed ? static_cast<int>(InputFailure) : static_cast<int>(Success);
}

} // namespace

void registerBatch(CLI::App &app, Context &ctx) {
  auto o = std::make_shared<BatchOpts>();
  auto *cmd = app.add_subcommand("batch", "Project every kernel of a suite on several GPUs and write "
                                          "Markdown, HTML, JSON and CSV reports");
  cmd->add_option("suite", o->suite, "A directory of .c/.skel files or a JSON manifest (docs/batch.md)")
      ->required();
  cmd->add_option("--out", o->out, "Directory for report.{md,html,json,csv} (created if missing)")
      ->required();
  addSuiteOptions(cmd, *o, "h100");
  cmd->add_option("--set", o->sets,
                  "Override a field of every GPU spec for this run, e.g. mem_bandwidth_gbps=8000 "
                  "(repeatable; validated as the spec file's field)");
  cmd->add_option("--sweep", o->sweep,
                  "Project at each size: NAME=LO..HI[:log[:FACTOR]|:lin:STEP] or NAME=V1,V2,...; "
                  "writes sweep.{txt,json,csv,svg} and report.html (the last size, with the sweep's "
                  "plot) instead of the reports");
  cmd->callback([&ctx, o] {
    ctx.action = [&ctx, o] {
      return guarded(ctx, [&] {
        if (o->hw.empty())
          o->hw = {"h100"};
        if (!o->sweep.empty())
          return runBatchSweep(ctx, *o);
        std::optional<DirectoryLock> lock; // held until the reports are in place
        report::BatchReport r = projectSuite(ctx, *o, o->out, lock);
        std::vector<std::string> files = writeReports(o->out, r);
        printFailures(ctx, r);
        size_t failures = report::batchFailures(r).size();
        // A program without projection (every kernel has one) fails the run too:
        // the reports hold it as a warning of its benchmark.
        std::vector<ProgramFailure> programs = programFailures(r);
        for (const auto &p : programs)
          ctx.err << fmt::format("skelcast: benchmark '{}', the program on {} failed:\n{}\n", p.benchmark,
                                 p.gpu, p.message);
        std::string gpus;
        for (size_t g = 0; g < r.gpus.size(); ++g)
          gpus += (g ? ", " : "") + r.gpus[g].name;
        ctx.out << fmt::format("skelcast batch: {} benchmarks, {} kernels on {}: {} projections, {} "
                               "failed{}\n",
                               r.benchmarks.size(), report::kernelCount(r), gpus,
                               report::projectionCount(r), failures,
                               programs.empty() ? "" : fmt::format("; {} program{} without projection",
                                                                   programs.size(),
                                                                   programs.size() == 1 ? "" : "s"));
        failures += programs.size();
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
