#include "SuiteCommand.h"

#include "OptionChecks.h"
#include "Suite.h"
#include "SuiteRunner.h"
#include "skelcast/cli/Cli.h"
#include "skelcast/hw/HwSpec.h"
#include "skelcast/support/AtomicFile.h"
#include "skelcast/support/Diagnostic.h"

#include <fmt/format.h>

#include <chrono>
#include <filesystem>
#include <iostream>
#include <memory>
#include <set>
#include <thread>
#include <unistd.h>

namespace skelcast::cli {
namespace {

/// Progress by input, against the suite's count of inputs. On a terminal one
/// line redrawn in place:
///   [=========>                    ]  5/22 inputs, 12.3 s: examples/hotspot.c
/// elsewhere (CI logs, pipes, files) a line per finished input:
///   skelcast: [ 5/22] examples/hotspot.c: 1 kernel on 2 GPUs, 12.3 s
class Progress {
public:
  Progress(std::ostream &err, bool terminal)
      : err_(err), terminal_(terminal), start_(std::chrono::steady_clock::now()) {}
  /// Before anything is read: the count, so that a long first input is not silence.
  void begin(size_t inputs, size_t gpus) {
    if (terminal_) {
      update({0, inputs, "", "reading the first input", 0, gpus, false});
      return;
    }
    err_ << fmt::format("skelcast: {} input{} on {} GPU{}\n", inputs, inputs == 1 ? "" : "s", gpus,
                        gpus == 1 ? "" : "s")
         << std::flush;
  }
  void update(const InputProgress &p) {
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    int w = static_cast<int>(std::to_string(p.total).size());
    if (!terminal_) {
      std::string what = p.failed ? "failed"
                                  : fmt::format("{} kernel{} on {} GPU{}", p.kernels, p.kernels == 1 ? "" : "s",
                                                p.gpus, p.gpus == 1 ? "" : "s");
      err_ << fmt::format("skelcast: [{:>{}}/{}] {}: {}, {:.1f} s\n", p.done, w, p.total, p.input, what, s)
           << std::flush;
      return;
    }
    constexpr size_t width = 30;
    size_t filled = p.total ? p.done * width / p.total : width;
    std::string bar(filled, '=');
    if (filled < width)
      bar += '>' + std::string(width - filled - 1, ' ');
    std::string name = p.input.size() > 40 ? "..." + p.input.substr(p.input.size() - 37) : p.input;
    err_ << fmt::format("\r[{}] {:>{}}/{} inputs, {:.1f} s: {}{}\033[K", bar, p.done, w, p.total, s, name,
                        p.failed ? " (failed)" : "")
         << std::flush;
    drawn_ = true;
  }
  ~Progress() {
    if (drawn_)
      err_ << "\r\033[K" << std::flush; // erase the bar: the summary follows on stdout
  }

private:
  std::ostream &err_;
  bool terminal_;
  std::chrono::steady_clock::time_point start_;
  bool drawn_ = false;
};

} // namespace

model::ModelSpec SuiteCommandOptions::modelSpec() const {
  return model::parseModelSpec(model, without, model::LabelOrder::Sorted);
}

void addSuiteOptions(CLI::App *cmd, SuiteCommandOptions &o, const std::string &hwDefault) {
  cmd->add_option("--hw", o.hw,
                  "GPU specs, comma-separated: names from hwspecs/ or JSON files (default: " +
                      hwDefault + ")")
      ->delimiter(',');
  cmd->add_option("--model", o.model,
                  "Performance model: skelcast (Hong-Kim with the modern terms), hong-kim, roofline")
      ->check(CLI::IsMember(model::modelNames()))
      ->capture_default_str();
  cmd->add_option("--without", o.without, "Switch off a term of the skelcast model (repeatable)")
      ->check(CLI::IsMember(model::modernTermNames()));
  cmd->add_option("-j,--jobs", o.jobs,
                  "Threads: inputs (C files through Clang) are read and projections run in parallel "
                  "(default: all cores)")
      ->check(integerWithin(1, kMaxJobs));
  cmd->add_option("--top", o.top, "Layouts kept per kernel and GPU in the reports")
      ->capture_default_str()
      ->check(integerWithin(1, kMaxTop));
  cmd->add_flag("-q,--quiet", o.quiet,
                "No progress on stderr (by default a bar on a terminal, else a line per input)");
#ifdef SKELCAST_HAVE_FRONTEND
  o.c.addFlags(cmd); // for every C input of the suite: -D, -I, -std, -p, --extent, ...
  o.c.addCounts(cmd);
  cmd->add_option("clang_args", o.c.rest, "Arguments for Clang for every C input (after --)");
#endif
}

report::BatchReport projectSuite(Context &ctx, const SuiteCommandOptions &o, const std::string &outDir,
                                 std::optional<DirectoryLock> &outLock,
                                 const std::function<void(Suite &)> &adjust) {
  Suite suite = loadSuite(o.suite);
#ifdef SKELCAST_HAVE_FRONTEND
  const InputOptions cli = o.c.inputOptions();
  for (BenchmarkSpec &b : suite.benchmarks)
    if (isCInput(b.input))
      b.options = withCommandLine(std::move(b.options), cli);
#endif
  if (adjust)
    adjust(suite);
  std::vector<hw::FieldOverride> sets;
  for (const auto &s : o.sets)
    sets.push_back(hw::parseFieldOverride(s));
  SuiteRunOptions ro;
  std::set<std::string> names;
  for (const auto &h : o.hw) {
    hw::HwSpec spec = hw::overrideHwSpec(hw::resolveHwSpec(h, ctx.specDir), sets);
    if (!names.insert(spec.name).second)
      throw InputError({"--hw", 0, 0}, fmt::format("GPU '{}' is given twice", spec.name));
    ro.gpus.push_back(std::move(spec));
  }
  if (ro.gpus.empty())
    throw InputError({"--hw", 0, 0}, "no GPU to project on");
  ro.model.model = o.modelSpec();
  ro.top = o.top;
  unsigned hc = std::thread::hardware_concurrency();
  ro.jobs = o.jobs ? o.jobs : (hc ? hc : 1);
  if (!outDir.empty())
    outLock = prepareOutputDir(outDir); // before the run, so that it does not end on a bad --out
  // Progress on the process's own stderr: a bar on a terminal, else a line per input.
  std::unique_ptr<Progress> progress;
  if (!o.quiet && &ctx.err == &std::cerr) {
    progress = std::make_unique<Progress>(ctx.err, ::isatty(2));
    ro.progress = [&progress](const InputProgress &p) { progress->update(p); };
    progress->begin(suite.benchmarks.size(), ro.gpus.size());
  }
  report::BatchReport r = runSuite(suite, ro);
  progress.reset();
  return r;
}

DirectoryLock prepareOutputDir(const std::string &dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec || !std::filesystem::is_directory(dir))
    throw InputError({dir, 0, 0}, fmt::format("cannot create the output directory{}",
                                              ec ? ": " + ec.message() : ""));
  // Two runs into one directory would each rename their reports over the
  // other's: the set could end up half of each (issue 17). The second is refused.
  std::optional<DirectoryLock> lock = DirectoryLock::tryLock(dir);
  if (!lock)
    throw InputError({dir, 0, 0}, "another skelcast is writing reports into this directory; wait for "
                                  "it to finish or choose another --out");
  return std::move(*lock);
}

std::vector<std::string> writeReports(const std::string &dir, const report::BatchReport &r) {
  std::vector<std::pair<std::string, std::string>> files{
      {"report.md", report::renderBatchMarkdown(r)},
      {"report.html", report::renderBatchHtml(r)},
      {"report.json", report::renderBatchJson(r)},
      {"report.csv", report::renderBatchCsv(r)},
  };
  std::vector<std::string> written;
  for (auto &[name, content] : files) {
    name = (std::filesystem::path(dir) / name).string();
    written.push_back(name);
  }
  writeFilesAtomically(files);
  return written;
}

void printFailures(Context &ctx, const report::BatchReport &r) {
  for (const auto &f : report::batchFailures(r)) {
    if (f.kernel.empty())
      ctx.err << fmt::format("skelcast: benchmark '{}' failed:\n{}\n", f.benchmark, f.message);
    else
      ctx.err << fmt::format("skelcast: benchmark '{}', kernel '{}' on {} failed:\n{}\n", f.benchmark,
                             f.kernel, f.gpu, f.message);
  }
}

} // namespace skelcast::cli
