// The text of `skelcast check` that CI logs show: what is not unchanged, then
// one summary line.
#include "Format.h"
#include "SpeedupFormat.h"
#include "skelcast/report/Check.h"

namespace skelcast::report {
namespace {

std::string pct(double from, double to) { return fmt::format("{:+.1f}%", 100 * (to / from - 1)); }

std::string timeChange(const CheckEntry &e) {
  return fmt::format("time {} ms -> {} ms ({})", num(*e.oldTimeMs, 4), num(*e.newTimeMs, 4),
                     pct(*e.oldTimeMs, *e.newTimeMs));
}

std::string speedupChange(const CheckEntry &e) {
  if (e.oldSpeedup && e.newSpeedup)
    return fmt::format("speedup {} -> {} ({})", speedupText(*e.oldSpeedup), speedupText(*e.newSpeedup),
                       pct(*e.oldSpeedup, *e.newSpeedup));
  if (e.oldSpeedup)
    return fmt::format("speedup {} -> none (the suite no longer gives a CPU time)", speedupText(*e.oldSpeedup));
  return "";
}

/// `message` indented under a heading line.
std::string indented(const std::string &message) {
  std::string out;
  size_t start = 0;
  while (start < message.size()) {
    size_t end = message.find('\n', start);
    if (end == std::string::npos)
      end = message.size();
    out += "           " + message.substr(start, end - start) + "\n";
    start = end + 1;
  }
  return out;
}

} // namespace

std::string renderCheckText(const CheckReport &c) {
  std::string gpus;
  for (size_t g = 0; g < c.gpus.size(); ++g)
    gpus += (g ? ", " : "") + c.gpus[g];
  std::string tol = fmt::format("{:g}%", 100 * c.options.tolerance);
  std::string out = fmt::format("skelcast check: {} against {} (model {}, tolerance {}, GPUs {})\n",
                                c.suite, c.baselinePath, c.model, tol, gpus);
  for (const auto &f : c.inputFailures)
    out += fmt::format("FAILED     input of benchmark '{}' ({}):\n", f.benchmark, f.input) +
           indented(f.message);
  auto who = [](const CheckEntry &e) {
    return fmt::format("{}: kernel '{}' on {}", e.benchmark, e.kernel, e.gpu);
  };
  auto list = [&](CheckStatus s) {
    for (const auto &e : c.entries) {
      if (e.status != s)
        continue;
      switch (s) {
      case CheckStatus::Regressed: {
        std::string what;
        if (e.timeRegressed)
          what = timeChange(e);
        if (e.speedupRegressed)
          what += (what.empty() ? "" : "; ") + speedupChange(e);
        if (!e.timeRegressed)
          what += "; " + timeChange(e);
        out += fmt::format("REGRESSED  {}: {}\n", who(e), what);
        break;
      }
      case CheckStatus::Gone:
        out += fmt::format("GONE       {}: in the baseline ({} ms), not projected now\n", who(e),
                           num(*e.oldTimeMs, 4));
        break;
      case CheckStatus::New:
        out += fmt::format("NEW        {}: not in the baseline ({} ms){}\n", who(e), num(*e.newTimeMs, 4),
                           c.options.strict ? "" : " (passes; fails with --strict)");
        break;
      case CheckStatus::Failed:
        out += fmt::format("FAILED     {}: no projection now{}\n", who(e),
                           e.oldTimeMs ? fmt::format(" (baseline {} ms)", num(*e.oldTimeMs, 4)) : "") +
               indented(e.message);
        break;
      case CheckStatus::Improved: {
        std::string what = timeChange(e);
        if (e.oldSpeedup && e.newSpeedup)
          what += "; " + speedupChange(e);
        out += fmt::format("improved   {}: {}\n", who(e), what);
        break;
      }
      case CheckStatus::Unchanged:
        break;
      }
    }
  };
  list(CheckStatus::Regressed);
  list(CheckStatus::Gone);
  list(CheckStatus::Failed);
  list(CheckStatus::New);
  list(CheckStatus::Improved);
  for (const auto &n : c.notes)
    out += "note: " + n + "\n";
  out += fmt::format("{} kernel/GPU entries: {} unchanged within {}, {} improved, {} regressed, {} new, "
                     "{} gone, {} failed; {} input{} failed\n",
                     c.entries.size(), c.count(CheckStatus::Unchanged), tol,
                     c.count(CheckStatus::Improved), c.count(CheckStatus::Regressed),
                     c.count(CheckStatus::New), c.count(CheckStatus::Gone),
                     c.count(CheckStatus::Failed), c.inputFailures.size(),
                     c.inputFailures.size() == 1 ? "" : "s");
  if (c.failed())
    out += "check FAILED\n";
  else if (c.count(CheckStatus::Improved) || c.count(CheckStatus::New))
    out += "check passed (record the improved and new entries with --update-baseline)\n";
  else
    out += "check passed\n";
  return out;
}

} // namespace skelcast::report
