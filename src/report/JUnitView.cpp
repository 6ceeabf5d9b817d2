// JUnit XML of `skelcast check`, as CI servers (GitHub Actions test reporters,
// GitLab's `artifacts:reports:junit`, Jenkins) read it: one testsuite per GPU,
// one testcase per kernel (classname: the benchmark), <failure> for each
// regression, gone kernel or missing projection; failed inputs in their own suite.
#include "Format.h"
#include "SpeedupFormat.h"
#include "skelcast/report/Check.h"

#include <algorithm>
#include <map>

namespace skelcast::report {
namespace {

std::string xml(const std::string &s) {
  std::string o;
  for (char c : s) {
    switch (c) {
    case '&': o += "&amp;"; break;
    case '<': o += "&lt;"; break;
    case '>': o += "&gt;"; break;
    case '"': o += "&quot;"; break;
    case '\'': o += "&apos;"; break;
    default:
      // XML 1.0 allows no control characters but tab, LF and CR.
      if (static_cast<unsigned char>(c) < 0x20 && c != '\t' && c != '\n' && c != '\r')
        o += '?';
      else
        o += c;
    }
  }
  return o;
}

std::string pct(double from, double to) { return fmt::format("{:+.1f}%", 100 * (to / from - 1)); }

/// The failure message of an entry that fails, empty otherwise.
std::string failureOf(const CheckEntry &e, const CheckReport &c) {
  std::string tol = fmt::format("{:g}%", 100 * c.options.tolerance);
  switch (e.status) {
  case CheckStatus::Regressed: {
    std::string m;
    if (e.timeRegressed)
      m = fmt::format("projected time grew {} ({} ms -> {} ms), more than {}",
                      pct(*e.oldTimeMs, *e.newTimeMs), num(*e.oldTimeMs, 4), num(*e.newTimeMs, 4), tol);
    if (e.speedupRegressed) {
      if (!m.empty())
        m += "; ";
      m += e.newSpeedup ? fmt::format("projected speedup fell {} ({} -> {}), more than {}",
                                      pct(*e.oldSpeedup, *e.newSpeedup), speedupText(*e.oldSpeedup),
                                      speedupText(*e.newSpeedup), tol)
                        : std::string("the suite no longer gives a CPU time");
    }
    return m;
  }
  case CheckStatus::Gone:
    return fmt::format("in the baseline ({} ms) but not projected now", num(*e.oldTimeMs, 4));
  case CheckStatus::Failed:
    return "no projection: " + e.message;
  case CheckStatus::New:
    return c.options.strict ? fmt::format("not in the baseline ({} ms) and --strict is set",
                                          num(*e.newTimeMs, 4))
                            : "";
  default:
    return "";
  }
}

} // namespace

std::string renderJUnit(const CheckReport &c) {
  // GPUs in run order, then those only gone entries name.
  std::vector<std::string> gpus = c.gpus;
  std::map<std::string, std::vector<const CheckEntry *>> byGpu;
  for (const auto &e : c.entries) {
    if (!byGpu.count(e.gpu) && std::find(gpus.begin(), gpus.end(), e.gpu) == gpus.end())
      gpus.push_back(e.gpu);
    byGpu[e.gpu].push_back(&e);
  }
  size_t tests = c.entries.size() + c.inputFailures.size(), failures = c.inputFailures.size();
  for (const auto &e : c.entries)
    failures += e.fails(c.options.strict) ? 1 : 0;
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out += fmt::format("<testsuites name=\"skelcast check {}\" tests=\"{}\" failures=\"{}\" errors=\"0\">\n",
                     xml(c.suite), tests, failures);
  if (!c.inputFailures.empty()) {
    out += fmt::format("  <testsuite name=\"inputs\" tests=\"{}\" failures=\"{}\" errors=\"0\" skipped=\"0\">\n",
                       c.inputFailures.size(), c.inputFailures.size());
    for (const auto &f : c.inputFailures)
      out += fmt::format("    <testcase classname=\"{}\" name=\"input {}\">\n      <failure "
                         "message=\"the input failed\" type=\"input\">{}</failure>\n    </testcase>\n",
                         xml(f.benchmark), xml(f.input), xml(f.message));
    out += "  </testsuite>\n";
  }
  for (const auto &g : gpus) {
    const auto &es = byGpu[g];
    size_t nf = 0;
    for (const auto *e : es)
      nf += e->fails(c.options.strict) ? 1 : 0;
    out += fmt::format("  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"0\" skipped=\"0\">\n",
                       xml(g), es.size(), nf);
    for (const auto *e : es) {
      out += fmt::format("    <testcase classname=\"{}\" name=\"{} on {}\"", xml(e->benchmark),
                         xml(e->kernel), xml(g));
      std::string f = failureOf(*e, c);
      std::string props;
      if (e->newTimeMs)
        props += fmt::format("projected {} ms", num(*e->newTimeMs, 6));
      if (e->oldTimeMs)
        props += fmt::format("{}baseline {} ms", props.empty() ? "" : ", ", num(*e->oldTimeMs, 6));
      props += fmt::format(" ({})", checkStatusName(e->status));
      if (f.empty()) {
        out += fmt::format(">\n      <system-out>{}</system-out>\n    </testcase>\n", xml(props));
      } else {
        out += fmt::format(">\n      <failure message=\"{}\" type=\"{}\">{}</failure>\n    </testcase>\n",
                           xml(f), checkStatusName(e->status), xml(f));
      }
    }
    out += "  </testsuite>\n";
  }
  out += "</testsuites>\n";
  return out;
}

} // namespace skelcast::report
