#include "Format.h"
#include "skelcast/report/Report.h"

#include <algorithm>

namespace skelcast::report {

std::string renderTable(const Report &r) {
  std::string out;
  for (const auto &k : r.kernels) {
    const auto &p = k.projection;
    out += fmt::format("kernel {} ({}) on {}, model {}: {} layouts explored, {} pruned\n", p.kernel,
                       k.file, r.hwName, r.model, p.layoutsExplored, p.layoutsPruned);
    size_t width = 6;
    size_t n = std::min(r.top, p.layouts.size());
    for (size_t i = 0; i < n; ++i)
      width = std::max(width, p.layouts[i].layoutString.size());
    out += fmt::format("{:>4}  {:<{}}  {:>12}  {:>7}  {:>7}  {:>6}  {}\n", "rank", "layout", width,
                       "time_ms", "MWP", "CWP", "warps", "bound");
    for (size_t i = 0; i < n; ++i) {
      const auto &l = p.layouts[i];
      out += fmt::format("{:>4}  {:<{}}  {:>12}  {:>7}  {:>7}  {:>6}  {}\n", i + 1, l.layoutString,
                         width, num(l.result.timeMs, 5), fixed(l.result.mwp, 2),
                         fixed(l.result.cwp, 2), fixed(l.result.n, 1), l.result.bound);
    }
    if (p.layouts.empty())
      out += "  no layout fits this GPU\n";
    out += '\n';
  }
  return out;
}

std::string renderMarkdown(const Report &r) {
  std::string out = fmt::format("# skelcast projection on {}\n\nModel: {}; skelcast {}.\n", r.hwName,
                                r.model, r.version);
  for (const auto &k : r.kernels) {
    const auto &p = k.projection;
    out += fmt::format("\n## {} ({})\n\n{} layouts explored, {} pruned.\n\n", p.kernel, k.file,
                       p.layoutsExplored, p.layoutsPruned);
    out += "| rank | layout | time (ms) | MWP | CWP | active warps | bound |\n";
    out += "| ---: | --- | ---: | ---: | ---: | ---: | --- |\n";
    size_t n = std::min(r.top, p.layouts.size());
    for (size_t i = 0; i < n; ++i) {
      const auto &l = p.layouts[i];
      out += fmt::format("| {} | `{}` | {} | {} | {} | {} | {} |\n", i + 1, l.layoutString,
                         num(l.result.timeMs, 5), fixed(l.result.mwp, 2), fixed(l.result.cwp, 2),
                         fixed(l.result.n, 1), l.result.bound);
    }
  }
  return out;
}

std::string renderCsv(const Report &r) {
  std::string out = "kernel,file,gpu,rank,layout,time_ms,cycles,mwp,cwp,active_warps,bound\n";
  for (const auto &k : r.kernels) {
    const auto &p = k.projection;
    size_t n = std::min(r.top, p.layouts.size());
    for (size_t i = 0; i < n; ++i) {
      const auto &l = p.layouts[i];
      out += fmt::format("{},{},{},{},\"{}\",{},{},{},{},{},{}\n", p.kernel, k.file, r.hwName, i + 1,
                         l.layoutString, num(l.result.timeMs, 8), num(l.result.totalCycles, 10),
                         num(l.result.mwp, 6), num(l.result.cwp, 6), num(l.result.n, 6),
                         l.result.bound);
    }
  }
  return out;
}

} // namespace skelcast::report
