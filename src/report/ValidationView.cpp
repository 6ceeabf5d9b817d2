#include "Format.h"
#include "skelcast/report/Report.h"

#include <nlohmann/json.hpp>

namespace skelcast::report {

namespace {

/// The other figures (the model-only one beside the C path's) and the note.
std::string otherFigures(const model::ValidationReport &v, const char *bullet) {
  std::string out;
  for (const auto &f : v.otherFigures)
    out += fmt::format("{}from the {}: {} cases: geometric-mean error {}% (max {}%); projected "
                       "favourite within 10% of the fastest measured: {} of {} kernels\n",
                       bullet, f.source, f.cases, fixed(100 * f.geomeanError, 1),
                       fixed(100 * f.maxError, 1), f.topWithinTen, f.kernels);
  if (!v.note.empty())
    out += fmt::format("{}{}\n", bullet, v.note);
  return out;
}

/// validate --check-programs: what was compared, and the figure with the
/// cases set apart put back.
std::string programsLine(const model::ValidationReport &v, const char *bullet) {
  const auto &p = v.programs;
  if (!p.checked)
    return "";
  std::string out = fmt::format("{}programs (--check-programs): {} emitted cases compared with the program "
                                "today's emit writes (emit's fingerprint, or ptxas's registers and shared "
                                "memory), {} not compared; {} measured another program and are set apart "
                                "from the figures above\n",
                                bullet, p.compared, p.notCompared, p.changed);
  if (p.changed > 0)
    out += fmt::format("{}with them: {} cases, geometric-mean error {}% (max {}%); roofline {}%; projected "
                       "favourite within 10% of the fastest measured: {} of {} kernels\n",
                       bullet, p.withChanged.cases, fixed(100 * p.withChanged.geomeanError, 1),
                       fixed(100 * p.withChanged.maxError, 1), fixed(100 * p.withChangedRooflineError, 1),
                       p.withChanged.topWithinTen, p.withChanged.kernels);
  if (!p.kernelsSetApart.empty()) {
    std::string names;
    for (const auto &k : p.kernelsSetApart)
      names += (names.empty() ? "" : ", ") + k;
    out += fmt::format("{}kernels whose every case is set apart (not in the ranking above): {}\n", bullet, names);
  }
  return out;
}

/// How many kernels' enumerator's top (what `project` recommends) is
/// measured, and how many of those tops run within 10% of the fastest
/// measured layout: the figure. topWithinTen judges every kernel by
/// the measured layout the projection ranks first instead, which is not always
/// the top even when the top is measured (the measured cases are projected as
/// they were timed, the enumerator ranks its own candidates).
std::pair<int, int> enumeratedTopFigures(const model::ValidationReport &v) {
  int measured = 0, within = 0;
  for (const auto &k : v.kernels)
    if (k.enumeratedTopMeasured) {
      ++measured;
      within += model::withinTenPercentOf(k.enumeratedTopMs, k.fastestMs) ? 1 : 0;
    }
  return {measured, within};
}

/// The last column of a case set apart (what told the two programs apart), or
/// of one not compared (why).
std::string changedMark(const model::CaseResult &c) {
  if (!c.notComparedWhy.empty())
    return fmt::format("  [not compared: {}]", c.notComparedWhy);
  if (!c.programChanged)
    return "";
  if (c.comparedBy == model::ProgramComparison::Fingerprint)
    return fmt::format("  [set apart: measured program {}, today's {}]", c.measured.program,
                       c.today->fingerprint);
  return fmt::format("  [set apart: measured {} registers, {} B shared; today's {}, {} B]",
                     c.measured.recorded->registers, c.measured.recorded->staticSharedBytes,
                     c.today->resources->registers, c.today->resources->staticSharedBytes);
}

} // namespace

std::string renderValidation(const model::ValidationReport &v) {
  std::string out = fmt::format("validation of {} (measured on {}) with spec {}, model {}\n"
                                "kernels from the {}\n\n",
                                v.measurementsPath, v.gpuName, v.hwName, v.model, v.source);
  out += fmt::format("{:<16} {:<15} {:<58} {:>10} {:>10} {:>7} {:>10} {:>7}  {}\n", "kernel", "size",
                     "layout", "meas_ms", "proj_ms", "err", "roof_ms", "r_err", "bound");
  for (const auto &c : v.cases)
    out += fmt::format("{:<16} {:<15} {:<58} {:>10} {:>10} {:>6}% {:>10} {:>6}%  {}{}\n",
                       c.measured.kernel, c.measured.size, c.measured.layout,
                       num(c.measured.timeMs, 5), num(c.projectedMs, 5), fixed(100 * c.error, 1),
                       num(c.rooflineMs, 5), fixed(100 * c.rooflineError, 1), c.bound, changedMark(c));
  out += fmt::format("\n{} cases: geometric-mean error {}% (max {}%); roofline {}%\n",
                     v.cases.size() - v.programs.changed, fixed(100 * v.geomeanError, 1),
                     fixed(100 * v.maxError, 1), fixed(100 * v.rooflineGeomeanError, 1));
  out += programsLine(v, "");
  size_t ptxas = 0, asked = 0;
  for (const auto &c : v.cases)
    if (c.projection.registers) {
      ++asked;
      ptxas += c.projection.registers->ptxas ? 1 : 0;
    }
  if (asked > 0) // --counts not table with nvcc (docs/model.md, "Registers from ptxas")
    out += ptxas == v.cases.size()
               ? fmt::format("registers per thread from ptxas for all {} cases\n", ptxas)
               : fmt::format("registers per thread from ptxas for {} of the {} cases, the estimate "
                             "for the others (not emitted or not built)\n",
                             ptxas, v.cases.size());
  size_t sass = 0;
  for (const auto &c : v.cases)
    sass += c.projection.layout.compiledRegistersPerWait ? 1 : 0;
  if (sass > 0) // --load-groups sass (docs/model.md, "Load groups from the SASS")
    out += sass == v.cases.size()
               ? fmt::format("load groups from the SASS for all {} cases\n", sass)
               : fmt::format("load groups from the SASS for {} of the {} cases, the estimate for the "
                             "others (see the warnings)\n",
                             sass, v.cases.size());
  out += fmt::format("\nranking: the measured layout the projection ranks first, against the fastest "
                     "measured\n");
  for (const auto &k : v.kernels)
    out += fmt::format("  {:<16} {:<15} {} {} ({} ms) vs fastest {} ({} ms); enumerator's top: {}{}; {}\n",
                       k.kernel, k.size, k.withinTenPercent ? "ok  " : "MISS", k.projectedBest,
                       num(k.projectedBestMeasuredMs, 4), k.fastestMeasured, num(k.fastestMs, 4),
                       k.enumeratedTop, k.enumeratedTopMeasured ? " (measured)" : "", k.source);
  out += fmt::format("{} of {} kernels: projected favourite within 10% of the fastest measured\n",
                     v.topWithinTen, v.kernels.size());
  auto [topMeasured, topWithin] = enumeratedTopFigures(v);
  out += fmt::format("{} of {} kernels: the enumerator's top itself measured, {} of those tops within "
                     "10% of the fastest (the line above judges each kernel by the measured layout the "
                     "projection ranks first)\n",
                     topMeasured, v.kernels.size(), topWithin);
  std::string others = otherFigures(v, "");
  return others.empty() ? out : out + "\n" + others;
}

std::string renderProgramValidation(const model::ProgramValidation &v) {
  std::string out = fmt::format("programs of {} with spec {}, model {}\n\n", v.path, v.hwName, v.model);
  out += fmt::format("{:<30} {:<8} {:>10} {:>10} {:>7}  {}\n", "program", "quantity", "meas_ms",
                     "proj_ms", "err", "");
  for (const auto &c : v.checks) {
    if (c.quantity == "winner")
      out += fmt::format("{:<30} {:<8} {:>10} {:>10} {:>7}  {}\n", c.what, "winner", c.measuredWinner,
                         c.projectedWinner, "", c.ok ? "ok" : "WRONG");
    else
      out += fmt::format("{:<30} {:<8} {:>10} {:>10} {:>6}%  {}\n", c.what, c.quantity,
                         num(c.measuredMs, 5), num(c.projectedMs, 5), fixed(100 * c.error, 1),
                         c.ok ? "" : "over target");
  }
  // Per kind of host memory: pinned copies are DMA at the link's rate, pageable
  // ones also the host's memcpy, whose time varies from run to run.
  auto byMemory = [&](auto isQuantity) {
    int n[2] = {0, 0}, ok[2] = {0, 0};
    for (const auto &c : v.checks)
      if (isQuantity(c.quantity)) {
        ++n[c.pinned];
        ok[c.pinned] += c.ok ? 1 : 0;
      }
    std::string s;
    for (int pinned = 1; pinned >= 0; --pinned)
      if (n[pinned])
        s += fmt::format("{}{} {} of {}", s.empty() ? " (" : ", ", pinned ? "pinned" : "pageable",
                         ok[pinned], n[pinned]);
    return s.empty() ? s : s + ")";
  };
  out += fmt::format("\ntransfers within 15%: {}{}; fused/unfused winner right: {}; program totals "
                     "within 25%: {}{}\n",
                     v.transfersWithin15 ? "yes" : "no",
                     byMemory([](const std::string &q) { return q == "h2d" || q == "d2h"; }),
                     v.winnersRight ? "yes" : "no", v.totalsWithin25 ? "yes" : "no",
                     byMemory([](const std::string &q) { return q == "total"; }));
  return out;
}

std::string renderValidationMarkdown(const model::ValidationReport &v) {
  std::string out = fmt::format("Measured on {}; spec `{}`; model `{}`; kernels from the {}.\n\n",
                                v.gpuName, v.hwName, v.model, v.source);
  out += "| kernel | size | layout | measured (ms) | projected (ms) | error | roofline (ms) | roofline error |\n";
  out += "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: |\n";
  for (const auto &c : v.cases)
    out += fmt::format("| {} | {} | `{}`{} | {} | {} | {}% | {} | {}% |\n", c.measured.kernel,
                       c.measured.size, c.measured.layout,
                       c.programChanged ? " (set apart: another program)" : "", num(c.measured.timeMs, 4),
                       num(c.projectedMs, 4), fixed(100 * c.error, 1), num(c.rooflineMs, 4),
                       fixed(100 * c.rooflineError, 1));
  out += fmt::format("\nGeometric-mean error {}% (max {}%); roofline {}%. Projected favourite within "
                     "10% of the fastest measured: {} of {} kernels.\n",
                     fixed(100 * v.geomeanError, 1), fixed(100 * v.maxError, 1),
                     fixed(100 * v.rooflineGeomeanError, 1), v.topWithinTen, v.kernels.size());
  auto [topMeasured, topWithin] = enumeratedTopFigures(v);
  out += fmt::format("The enumerator's top itself measured: {} of {} kernels, {} of those tops within "
                     "10% of the fastest.\n",
                     topMeasured, v.kernels.size(), topWithin);
  std::string others = programsLine(v, "- ") + otherFigures(v, "- ");
  return others.empty() ? out : out + "\n" + others;
}

std::string renderValidationJson(const model::ValidationReport &v) {
  using nlohmann::json;
  json j;
  j["schema_version"] = 1; // docs/schema/validate-kernels.schema.json
  j["hw"] = v.hwName;
  j["model"] = v.model;
  j["measurements"] = v.measurementsPath;
  j["source"] = v.source;
  json others = json::array();
  for (const auto &f : v.otherFigures)
    others.push_back({{"source", f.source}, {"cases", f.cases}, {"geomean_error", f.geomeanError},
                      {"max_error", f.maxError}, {"top_within_10pct", f.topWithinTen},
                      {"kernels", f.kernels}});
  j["other_sources"] = others;
  if (!v.note.empty())
    j["note"] = v.note;
  j["geomean_error"] = v.geomeanError;
  j["max_error"] = v.maxError;
  j["roofline_geomean_error"] = v.rooflineGeomeanError;
  j["top_within_10pct"] = v.topWithinTen;
  auto [topMeasured, topWithin] = enumeratedTopFigures(v);
  j["top_measured"] = topMeasured;
  j["top_measured_within_10pct"] = topWithin;
  if (v.programs.checked) {
    const auto &p = v.programs;
    j["programs"] = {{"compared", p.compared}, {"not_compared", p.notCompared}, {"changed", p.changed}};
    j["programs"]["kernels_set_apart"] = p.kernelsSetApart;
    if (p.changed > 0)
      j["programs"]["with_changed"] = {{"cases", p.withChanged.cases},
                                       {"geomean_error", p.withChanged.geomeanError},
                                       {"max_error", p.withChanged.maxError},
                                       {"roofline_geomean_error", p.withChangedRooflineError},
                                       {"top_within_10pct", p.withChanged.topWithinTen},
                                       {"kernels", p.withChanged.kernels}};
  }
  json cases = json::array();
  for (const auto &c : v.cases) {
    json x = {{"kernel", c.measured.kernel}, {"size", c.measured.size}, {"source", c.skeletonPath},
              {"layout", c.measured.layout}, {"measured_ms", c.measured.timeMs},
              {"projected_ms", c.projectedMs}, {"error", c.error},
              {"roofline_ms", c.rooflineMs}, {"roofline_error", c.rooflineError}};
    if (c.comparedBy != model::ProgramComparison::None) { // --check-programs
      json p = {{"compared_by", model::comparisonName(c.comparedBy)}, {"changed", c.programChanged}};
      if (c.comparedBy == model::ProgramComparison::Fingerprint) {
        p["measured_fingerprint"] = c.measured.program;
        p["today_fingerprint"] = c.today->fingerprint;
      } else {
        p["measured_registers"] = c.measured.recorded->registers;
        p["measured_static_smem_bytes"] = c.measured.recorded->staticSharedBytes;
        p["today_registers"] = c.today->resources->registers;
        p["today_static_smem_bytes"] = c.today->resources->staticSharedBytes;
      }
      x["program"] = p;
    } else if (!c.notComparedWhy.empty()) {
      x["program"] = {{"compared_by", model::comparisonName(model::ProgramComparison::None)},
                      {"changed", false},
                      {"why", c.notComparedWhy}};
    }
    if (const auto &reg = c.projection.registers) { // with ptxas's registers (docs/model.md)
      x["registers"] = {{"per_thread", static_cast<int64_t>(c.projection.effects.registersPerThread)},
                        {"source", reg->ptxas ? "ptxas" : "estimate"}};
      if (!reg->ptxas)
        x["registers"]["why"] = reg->why;
    }
    cases.push_back(std::move(x));
  }
  j["cases"] = cases;
  json ks = json::array();
  for (const auto &k : v.kernels)
    ks.push_back({{"kernel", k.kernel}, {"size", k.size}, {"source", k.source},
                  {"fastest_measured", k.fastestMeasured}, {"projected_best", k.projectedBest},
                  {"within_10pct", k.withinTenPercent}, {"enumerated_top", k.enumeratedTop},
                  {"enumerated_top_measured", k.enumeratedTopMeasured}});
  j["kernels"] = ks;
  // File names come from the command line and need not be UTF-8: replace what is not.
  return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

std::string renderProgramValidationMarkdown(const model::ProgramValidation &v) {
  std::string out = fmt::format("Programs measured on {}; spec `{}`; model `{}`.\n\n",
                                v.gpuName.empty() ? "an unnamed GPU" : v.gpuName, v.hwName, v.model);
  out += "| program | quantity | host memory | measured | projected | error | target met |\n";
  out += "| --- | --- | --- | ---: | ---: | ---: | --- |\n";
  for (const auto &c : v.checks) {
    const char *memory = c.pinned ? "pinned" : "pageable";
    if (c.quantity == "winner")
      out += fmt::format("| {} | winner | {} | {} | {} | | {} |\n", c.what, memory, c.measuredWinner,
                         c.projectedWinner, c.ok ? "yes" : "no");
    else
      out += fmt::format("| {} | {} | {} | {} ms | {} ms | {}% | {} |\n", c.what, c.quantity, memory,
                         num(c.measuredMs, 5), num(c.projectedMs, 5), fixed(100 * c.error, 1),
                         c.ok ? "yes" : "no");
  }
  out += fmt::format("\nTransfers within 15%: {}. Fused/unfused winner right: {}. Program totals "
                     "within 25%: {}.\n",
                     v.transfersWithin15 ? "yes" : "no", v.winnersRight ? "yes" : "no",
                     v.totalsWithin25 ? "yes" : "no");
  return out;
}

std::string renderProgramValidationJson(const model::ProgramValidation &v) {
  using nlohmann::json;
  json j;
  j["schema_version"] = 1; // docs/schema/validate-programs.schema.json
  j["hw"] = v.hwName;
  j["gpu"] = v.gpuName;
  j["model"] = v.model;
  j["measurements"] = v.path;
  j["transfers_within_15pct"] = v.transfersWithin15;
  j["winners_right"] = v.winnersRight;
  j["totals_within_25pct"] = v.totalsWithin25;
  json checks = json::array();
  for (const auto &c : v.checks) {
    json x = {{"program", c.what}, {"quantity", c.quantity},
              {"host_memory", c.pinned ? "pinned" : "pageable"}, {"target_met", c.ok}};
    if (c.quantity == "winner") {
      x["measured_winner"] = c.measuredWinner;
      x["projected_winner"] = c.projectedWinner;
    } else {
      x["measured_ms"] = c.measuredMs;
      x["projected_ms"] = c.projectedMs;
      x["error"] = c.error;
    }
    checks.push_back(x);
  }
  j["checks"] = checks;
  return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

} // namespace skelcast::report
