// `skelcast explain`: the quantities of explainProjection (Explanation.cpp) as text.
#include "Format.h"
#include "skelcast/report/Report.h"

namespace skelcast::report {
namespace {

void row(std::string &out, const std::string &name, const std::string &value,
         const std::string &where) {
  out += fmt::format("  {:<34} {:>14}   {}\n", name, value, where);
}

} // namespace

std::string renderExplain(const Explanation &x) {
  std::string out = fmt::format("kernel {} ({}) on {}, model {}\nlayout {}\n", x.kernel, x.file, x.gpu,
                                x.model, x.layout);
  if (!x.timing.empty())
    out += fmt::format("timing {} (the kernel alone, as validate projects a measured record so)\n", x.timing);
  for (const auto &s : x.sections) {
    out += "\n" + s.title + "\n";
    for (const auto &q : s.rows)
      row(out, q.name,
          !q.value ? q.text
          : q.digits == 0 ? std::to_string(static_cast<int64_t>(*q.value))
                          : num(*q.value, q.digits),
          q.where);
  }
  return out;
}

std::string renderLaunches(const model::RepeatedLaunches &l) {
  std::string out = fmt::format(
      "\nlaunches of the indexed repeat (docs/model.md, section 9)\n");
  row(out, fmt::format("values of '{}'", l.index),
      fmt::format("{}..{}", l.first, l.first + (l.iterations - 1) * l.step),
      fmt::format("step {}, {} iterations", l.step, l.iterations));
  row(out, "launches", std::to_string(l.launches),
      fmt::format("{} with an empty loop space skipped", l.iterations - l.launches));
  row(out, "quantities above at", fmt::format("{} = {}", l.index, l.characterizedAt),
      "the largest launch (first, middle, last)");
  out += "  representative iterations (the layouts are ranked on their weighted sum)\n";
  out += fmt::format("  {:>14} {:>10} {:>14} {:>14}\n", l.index, "weight", "threads", "time (ms)");
  for (const auto &s : l.ranking)
    out += fmt::format("  {:>14} {:>10} {:>14} {:>14}\n", s.value, num(s.weight, 6), s.threads,
                       num(s.timeMs, 6));
  if (l.exact)
    row(out, "sum over the launches (ms)", num(l.totalMs, 6), "every launch projected");
  else {
    row(out, "sum over the launches (ms)", num(l.totalMs, 6),
        fmt::format("piecewise linear between {} evenly spaced launches", l.summed.size()));
    row(out, "error bound (ms)", num(l.errorBoundMs, 4),
        "sum of (launches between samples) x |time difference|: time monotone between samples");
  }
  return out;
}

} // namespace skelcast::report
