// report.md of `skelcast batch`.
#include "Format.h"
#include "SpeedupFormat.h"
#include "skelcast/report/Batch.h"

#include <algorithm>

namespace skelcast::report {
namespace {

/// A table cell: no line breaks, `|` escaped.
std::string cell(const std::string &s) {
  std::string o;
  for (char c : s) {
    if (c == '|')
      o += "\\|";
    else if (c == '\n' || c == '\r')
      o += ' ';
    else
      o += c;
  }
  return o;
}

std::string speedupText(const std::optional<double> &s) {
  return s ? report::speedupText(*s) : std::string("-");
}

} // namespace

std::string renderBatchMarkdown(const BatchReport &r) {
  std::string gpuNames;
  for (size_t g = 0; g < r.gpus.size(); ++g)
    gpuNames += (g ? ", " : "") + r.gpus[g].name;
  std::vector<BatchFailure> fails = batchFailures(r);
  std::string out = "# skelcast batch report\n\n";
  out += fmt::format("Suite `{}`: {} benchmarks, {} kernels, projected on {} ({} projections, {} "
                     "failed). Model: {}; skelcast {}.\n\n",
                     r.suite, r.benchmarks.size(), kernelCount(r), gpuNames, projectionCount(r),
                     fails.size(), r.model, r.version);
  out += "| GPU | description | spec content hash |\n| --- | --- | --- |\n";
  for (const auto &g : r.gpus)
    out += fmt::format("| {} | {} | `{}` |\n", cell(g.name), cell(g.description), g.contentHash);
  for (const auto &g : r.gpus)
    if (!g.overrides.empty()) {
      std::string list;
      for (const auto &o : g.overrides)
        list += (list.empty() ? "`" : ", `") + o + "`";
      out += fmt::format("\nSpec fields overridden (`--set`) on {}: {}.\n", cell(g.name), list);
    }

  if (!fails.empty()) {
    out += "\n## Failures\n";
    for (const auto &f : fails) {
      out += f.kernel.empty() ? fmt::format("\n- benchmark `{}` (`{}`): the input failed\n\n", f.benchmark, f.input)
                              : fmt::format("\n- benchmark `{}`, kernel `{}` on {}\n\n", f.benchmark,
                                            f.kernel, f.gpu);
      out += "  ```\n";
      size_t start = 0;
      while (start <= f.message.size()) {
        size_t end = f.message.find('\n', start);
        if (end == std::string::npos)
          end = f.message.size();
        if (end > start)
          out += "  " + f.message.substr(start, end - start) + "\n";
        start = end + 1;
      }
      out += "  ```\n";
    }
  }

  bool anyWarning = std::any_of(r.benchmarks.begin(), r.benchmarks.end(),
                                [](const BenchmarkResult &b) { return !b.warnings.empty(); });
  if (anyWarning) {
    out += "\n## Warnings\n\n";
    for (const auto &b : r.benchmarks)
      for (const auto &w : b.warnings)
        out += fmt::format("- `{}`: {}\n", b.name, cell(w));
  }

  bool anyCpu = std::any_of(r.benchmarks.begin(), r.benchmarks.end(),
                            [](const BenchmarkResult &b) { return b.cpuMs.has_value(); });
  if (anyCpu) {
    out += "\n## Projected speedup over the CPU\n\nSpeedup = measured CPU time / projected program "
           "time (transfers in and out, and every kernel's best layout with its repeats and the "
           "fusion that wins: the speedup of `skelcast project --cpu-ms`).\n\n";
    out += "| benchmark | CPU (ms) |";
    std::string rule = "| --- | ---: |";
    for (const auto &g : r.gpus) {
      out += fmt::format(" {} (ms) | {} speedup |", cell(g.name), cell(g.name));
      rule += " ---: | ---: |";
    }
    out += "\n" + rule + "\n";
    for (const auto &b : r.benchmarks) {
      if (!b.cpuMs)
        continue;
      out += fmt::format("| {} | {} |", cell(b.name), num(*b.cpuMs, 5));
      for (size_t g = 0; g < r.gpus.size(); ++g) {
        std::optional<double> t = programTimeMs(b, g);
        out += fmt::format(" {} | {} |", t ? num(*t, 4) : "-", speedupText(speedup(b, g)));
      }
      out += "\n";
    }
  }

  out += "\n## Programs\n\nEach benchmark's kernels in order as one program (docs/model.md, section 9): "
         "host-to-device transfers, kernel time (repeats and winning fusion included), "
         "device-to-host transfers, and the transfers' share of the total.\n\n";
  out += "| benchmark | GPU | in (ms) | kernels (ms) | out (ms) | total (ms) | transfers | speedup | verdict |\n";
  out += "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |\n";
  for (const auto &b : r.benchmarks)
    for (size_t g = 0; g < b.programs.size() && g < r.gpus.size(); ++g) {
      if (!b.programs[g])
        continue;
      const model::ProgramProjection &p = *b.programs[g];
      std::string verdict = p.cpuMs ? p.verdict + (p.reason.empty() ? "" : ": " + p.reason) : "-";
      out += fmt::format("| {} | {} | {} | {} | {} | {} | {}% | {} | {} |\n", cell(b.name),
                         cell(r.gpus[g].name), num(p.h2dMs, 4), num(p.kernelsMs, 4), num(p.d2hMs, 4),
                         num(p.totalMs, 4), fixed(100 * transferShare(b, g).value_or(0), 0),
                         speedupText(speedup(b, g)), cell(verdict));
    }

  out += "\n## Best layout per kernel and GPU\n\n";
  out += "| benchmark | kernel | GPU | best layout | time (ms) | bound | memory share | speedup |\n";
  out += "| --- | --- | --- | --- | ---: | --- | ---: | ---: |\n";
  for (const auto &b : r.benchmarks) {
    if (!b.error.empty()) {
      out += fmt::format("| {} | - | - | input failed (see Failures) | - | - | - | - |\n", cell(b.name));
      continue;
    }
    for (const auto &k : b.kernels)
      for (size_t g = 0; g < k.gpus.size() && g < r.gpus.size(); ++g) {
        const auto &kg = k.gpus[g];
        if (!kg.ok()) {
          out += fmt::format("| {} | {} | {} | {} | - | - | - | - |\n", cell(b.name), cell(k.name),
                             cell(r.gpus[g].name), cell(kg.error));
          continue;
        }
        const auto &l = kg.layouts.front();
        out += fmt::format("| {} | {} | {} | `{}` | {} | {} | {}% | {} |\n", cell(b.name),
                           cell(k.name), cell(r.gpus[g].name), l.layoutString, num(l.result.timeMs, 4),
                           l.result.bound, fixed(100 * memoryShare(l, r.gpus[g].clockGHz), 0),
                           speedupText(speedup(b, g)));
      }
  }

  out += fmt::format("\n## Top {} layouts of each kernel\n", r.top);
  for (const auto &b : r.benchmarks)
    for (const auto &k : b.kernels)
      for (size_t g = 0; g < k.gpus.size() && g < r.gpus.size(); ++g) {
        const auto &kg = k.gpus[g];
        if (!kg.ok())
          continue;
        out += fmt::format("\n### {} / {} on {}\n\n`{}`: {} layouts explored, {} pruned.\n\n",
                           b.name, k.name, r.gpus[g].name, b.input, kg.layoutsExplored,
                           kg.layoutsPruned);
        out += "| rank | layout | time (ms) | bound | MWP | CWP | active warps |\n";
        out += "| ---: | --- | ---: | --- | ---: | ---: | ---: |\n";
        for (size_t i = 0; i < kg.layouts.size(); ++i) {
          const auto &l = kg.layouts[i];
          out += fmt::format("| {} | `{}` | {} | {} | {} | {} | {} |\n", i + 1, l.layoutString,
                             num(l.result.timeMs, 5), l.result.bound, fixed(l.result.mwp, 2),
                             fixed(l.result.cwp, 2), fixed(l.result.n, 1));
        }
      }
  return out;
}

} // namespace skelcast::report
