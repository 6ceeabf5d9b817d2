#include "SuiteCommand.h"

#include "OptionChecks.h"
#include "Suite.h"
#include "SuiteRunner.h"
#include "skelcast/cli/Cli.h"
#include "skelcast/model/HwSpec.h"
#include "skelcast/support/AtomicFile.h"
#include "skelcast/support/Diagnostic.h"

#include <fmt/format.h>

#include <filesystem>
#include <iostream>
#include <memory>
#include <set>
#include <thread>
#include <unistd.h>

namespace skelcast::cli {
namespace {

/// `[=========>          ]  23/42 projections` redrawn in place on a terminal.
class ProgressBar {
public:
  explicit ProgressBar(std::ostream &err) : err_(err) {}
  void update(size_t done, size_t total) {
    constexpr size_t width = 30;
    size_t filled = total ? done * width / total : width;
    std::string bar(filled, '=');
    if (filled < width)
      bar += '>' + std::string(width - filled - 1, ' ');
    err_ << fmt::format("\r[{}] {:>{}}/{} projections", bar, done, std::to_string(total).size(), total)
         << std::flush;
    drawn_ = true;
  }
  ~ProgressBar() {
    if (drawn_)
      err_ << "\r\033[K" << std::flush; // erase the bar: the summary follows on stdout
  }

private:
  std::ostream &err_;
  bool drawn_ = false;
};

} // namespace

std::string SuiteCommandOptions::modelLabel() const {
  std::set<std::string> terms(without.begin(), without.end());
  std::string s = model;
  size_t i = 0;
  for (const auto &t : terms)
    s += (i++ ? "," : " without ") + t;
  return s;
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
  cmd->add_option("-j,--jobs", o.jobs, "Projections run in parallel (default: all cores)")
      ->check(integerWithin(1, kMaxJobs));
  cmd->add_option("--top", o.top, "Layouts kept per kernel and GPU in the reports")
      ->capture_default_str()
      ->check(integerWithin(1, kMaxTop));
}

report::BatchReport projectSuite(Context &ctx, const SuiteCommandOptions &o, const std::string &outDir) {
  Suite suite = loadSuite(o.suite);
  SuiteRunOptions ro;
  std::set<std::string> names;
  for (const auto &h : o.hw) {
    model::HwSpec spec = model::resolveHwSpec(h, ctx.specDir);
    if (!names.insert(spec.name).second)
      throw InputError({"--hw", 0, 0}, fmt::format("GPU '{}' is given twice", spec.name));
    ro.gpus.push_back(std::move(spec));
  }
  if (ro.gpus.empty())
    throw InputError({"--hw", 0, 0}, "no GPU to project on");
  ro.model.model = o.model;
  ro.model.disabledTerms.insert(o.without.begin(), o.without.end());
  ro.modelLabel = o.modelLabel();
  ro.top = o.top;
  unsigned hc = std::thread::hardware_concurrency();
  ro.jobs = o.jobs ? o.jobs : (hc ? hc : 1);
  if (!outDir.empty())
    prepareOutputDir(outDir); // before the run, so that it does not end on a bad --out
  // A bar only for a person watching: stderr is the process's own and a terminal.
  std::unique_ptr<ProgressBar> bar;
  if (&ctx.err == &std::cerr && ::isatty(2)) {
    bar = std::make_unique<ProgressBar>(ctx.err);
    ro.progress = [&bar](size_t done, size_t total) { bar->update(done, total); };
  }
  report::BatchReport r = runSuite(suite, ro);
  bar.reset();
  return r;
}

void prepareOutputDir(const std::string &dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec || !std::filesystem::is_directory(dir))
    throw InputError({dir, 0, 0}, fmt::format("cannot create the output directory{}",
                                              ec ? ": " + ec.message() : ""));
}

std::vector<std::string> writeReports(const std::string &dir, const report::BatchReport &r) {
  prepareOutputDir(dir);
  std::vector<std::pair<std::string, std::string>> files{
      {"report.md", report::renderBatchMarkdown(r)},
      {"report.html", report::renderBatchHtml(r)},
      {"report.json", report::renderBatchJson(r)},
      {"report.csv", report::renderBatchCsv(r)},
  };
  std::vector<std::string> written;
  for (const auto &[name, content] : files) {
    std::string path = (std::filesystem::path(dir) / name).string();
    writeFileAtomically(path, content);
    written.push_back(path);
  }
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
