#include "Csv.h"
#include "Format.h"
#include "skelcast/report/Report.h"

#include <algorithm>

namespace skelcast::report {

std::string renderProgramText(const ProgramReport &pr, const std::string &hw);
std::string launchesText(const model::RepeatedLaunches &l);

std::string launchesText(const model::RepeatedLaunches &l) {
  std::string out = fmt::format(
      "  launched once per {} = {}..{} step {}: {} launches ({} with an empty loop space "
      "skipped); rows describe the launch at {} = {}, time_ms is the sum over {} representative "
      "launches\n",
      l.index, l.first, l.first + (l.iterations - 1) * l.step, l.step, l.launches,
      l.iterations - l.launches, l.index, l.characterizedAt, l.ranking.size());
  out += fmt::format("  best layout over every launch: {} ms ({}{})\n", num(l.totalMs, 5),
                     l.exact ? "each launch projected" : fmt::format("integrated over {} launches", l.summed.size()),
                     l.exact ? "" : fmt::format(", error at most {} ms", num(l.errorBoundMs, 3)));
  return out;
}

std::string renderTable(const Report &r) {
  std::string out;
  for (const auto &k : r.kernels) {
    const auto &p = k.projection;
    out += fmt::format("kernel {} ({}) on {}, model {}: {} layouts explored, {} pruned\n", p.kernel,
                       k.file, r.hwName, r.model, p.layoutsExplored, p.layoutsPruned);
    size_t width = 6;
    size_t n = std::min(r.top, p.layouts.size());
    bool regs = false; // re-ranked with ptxas's registers: a column says whose count
    for (size_t i = 0; i < n; ++i) {
      width = std::max(width, p.layouts[i].layoutString.size());
      regs = regs || p.layouts[i].registers.has_value();
    }
    out += fmt::format("{:>4}  {:<{}}  {:>12}  {:>7}  {:>7}  {:>6}  {}{}\n", "rank", "layout", width,
                       "time_ms", "MWP", "CWP", "warps", regs ? "registers        " : "", "bound");
    std::string estimates;
    for (size_t i = 0; i < n; ++i) {
      const auto &l = p.layouts[i];
      std::string reg;
      if (regs) {
        reg = l.registers ? fmt::format("{:>4} ({})", num(l.effects.registersPerThread, 4),
                                        l.registers->ptxas ? "ptxas" : "estimate")
                          : std::string("-");
        reg = fmt::format("{:<17}", reg);
        if (l.registers && !l.registers->ptxas)
          estimates += fmt::format("  rank {} keeps the register estimate: {}\n", i + 1,
                                   firstLine(l.registers->why));
      }
      out += fmt::format("{:>4}  {:<{}}  {:>12}  {:>7}  {:>7}  {:>6}  {}{}\n", i + 1, l.layoutString,
                         width, num(l.launchesMs ? *l.launchesMs : l.result.timeMs, 5), fixed(l.result.mwp, 2),
                         fixed(l.result.cwp, 2), fixed(l.result.n, 1), reg, l.result.bound);
    }
    out += estimates;
    if (p.layouts.empty())
      out += "  no layout fits this GPU\n";
    if (p.launches)
      out += launchesText(*p.launches);
    out += '\n';
  }
  for (const auto &pr : r.programs)
    out += renderProgramText(pr, r.hwName);
  return out + overridesText(r);
}

std::string overridesText(const Report &r) {
  if (r.hwOverrides.empty())
    return "";
  std::string list;
  for (const auto &o : r.hwOverrides)
    list += (list.empty() ? "" : ", ") + o;
  return fmt::format("spec fields overridden (--set) on {}: {}\n", r.hwName, list);
}

std::string renderProgramText(const ProgramReport &pr, const std::string &hw) {
  const auto &p = pr.program;
  std::string out = fmt::format("program {} on {}: {} ms = {} ms in + {} ms kernels + {} ms out\n",
                                pr.file, hw, num(p.totalMs, 5), num(p.h2dMs, 4), num(p.kernelsMs, 4),
                                num(p.d2hMs, 4));
  // One copy's time; copies made more than once or for a host step say so.
  auto copies = [](const model::Transfer &t) -> std::string {
    if (t.count == 1 && !t.byHost)
      return "";
    return fmt::format("  x{}{}{}", num(t.count, 8), t.byHost ? " for a host step" : "",
                       t.eachRepeat ? ", each repeat" : "");
  };
  for (const auto &t : p.h2d)
    out += fmt::format("  to GPU    {:<14} {:>10} MB {:>10} ms{}\n", t.array, fixed(t.bytes / 1e6, 3),
                       num(t.ms, 4), copies(t));
  for (const auto &k : p.kernels) {
    out += fmt::format("  kernel    {:<14} x{:<6} {:>10} ms  {}\n", k.kernel, num(k.count, 6), num(k.timeMs, 4),
                       k.layout);
    if (k.launches) // the mean launch of an indexed repeat
      out += fmt::format("            one launch per {} with a non-empty loop space: {} ms summed "
                         "(each with its launch alone), {} ms a launch queued\n",
                         k.launches->index, num(k.launches->totalMs, 5), num(k.timeMs, 4));
  }
  for (const auto &t : p.d2h)
    out += fmt::format("  to host   {:<14} {:>10} MB {:>10} ms{}\n", t.array, fixed(t.bytes / 1e6, 3),
                       num(t.ms, 4), copies(t));
  for (const auto &g : p.fusion) {
    std::string names;
    for (const auto &k : g.kernels)
      names += (names.empty() ? "" : "+") + k;
    out += fmt::format("  fusion    {}: fused {} ms ({}) against unfused {} ms: {} wins; {}\n", names,
                       num(g.fusedMs, 4), g.fusedLayout, num(g.unfusedMs, 4), g.winner, g.why);
  }
  for (const auto &nf : p.notFused)
    out += fmt::format("  not fused {}\n", nf);
  std::string measured;
  if (p.cpuSource == "measured")
    measured = fmt::format(" (measured: median of {} calls, {} thread{})", p.cpuRuns, p.cpuThreads,
                           p.cpuThreads == 1 ? "" : "s");
  if (p.speedup)
    out += fmt::format("  CPU {} ms{}: speedup {}x: {}{}\n", num(*p.cpuMs, 5), measured, fixed(*p.speedup, 2), p.verdict,
                       p.reason.empty() ? "" : ": " + p.reason);
  else
    out += fmt::format("  verdict: {} ({})\n", p.verdict, p.reason);
  if (p.breakEvenRepeats)
    out += fmt::format("  the port pays off from {} repeats on\n", num(*p.breakEvenRepeats, 8));
  return out + "\n";
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
  for (const auto &pr : r.programs)
    out += "\n```\n" + renderProgramText(pr, r.hwName) + "```\n";
  if (!r.hwOverrides.empty())
    out += "\n" + overridesText(r);
  return out;
}

std::string renderCsv(const Report &r) {
  // After each layout, the program of its file (empty with --kernel or --layout,
  // which project no program): transfers in and out, total, CPU time, speedup,
  // verdict and reason, as Advisor's offload report gives them per region.
  // Re-ranked with ptxas's registers: two columns more, the count and whose.
  bool regs = false;
  for (const auto &k : r.kernels)
    for (const auto &l : k.projection.layouts)
      regs = regs || l.registers.has_value();
  std::string out = "kernel,file,gpu,rank,layout,time_ms,cycles,mwp,cwp,active_warps,bound,"
                    "transfer_in_ms,transfer_out_ms,program_ms,cpu_ms,speedup,verdict,reason";
  out += regs ? ",registers,registers_source\n" : "\n";
  for (const auto &k : r.kernels) {
    const auto &p = k.projection;
    std::vector<std::string> program(7);
    for (const auto &pr : r.programs)
      if (pr.file == k.file) {
        const auto &pp = pr.program;
        program = {num(pp.h2dMs, 8), num(pp.d2hMs, 8), num(pp.totalMs, 8),
                   pp.cpuMs ? num(*pp.cpuMs, 8) : "", pp.speedup ? num(*pp.speedup, 6) : "",
                   pp.verdict, pp.reason};
      }
    size_t n = std::min(r.top, p.layouts.size());
    for (size_t i = 0; i < n; ++i) {
      const auto &l = p.layouts[i];
      std::vector<std::string> fields{p.kernel, k.file, r.hwName, std::to_string(i + 1), l.layoutString,
                                      num(l.result.timeMs, 8), num(l.result.totalCycles, 10),
                                      num(l.result.mwp, 6), num(l.result.cwp, 6), num(l.result.n, 6),
                                      l.result.bound};
      fields.insert(fields.end(), program.begin(), program.end());
      if (regs) {
        fields.push_back(l.registers ? num(l.effects.registersPerThread, 6) : "");
        fields.push_back(l.registers ? (l.registers->ptxas ? "ptxas" : "estimate") : "");
      }
      out += csvRecord(fields);
    }
  }
  return out;
}

} // namespace skelcast::report
