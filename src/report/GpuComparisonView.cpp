// `project --hw h100,a100,v100`: the GPUs side by side (Report.h shows the table).
#include "Csv.h"
#include "Format.h"
#include "JsonFields.h"
#include "SpeedupFormat.h"
#include "skelcast/report/Report.h"

#include <nlohmann/json.hpp>

#include <algorithm>

namespace skelcast::report {
namespace {

std::optional<double> bestMs(const model::KernelProjection &p) {
  if (p.layouts.empty())
    return std::nullopt;
  const auto &l = p.layouts.front();
  return l.launchesMs ? *l.launchesMs : l.result.timeMs;
}

std::string ratio(std::optional<double> t, std::optional<double> first) {
  if (!t || !first || *first <= 0)
    return "-";
  return fmt::format("{:.2f}x", *t / *first);
}

} // namespace

std::string renderGpuTable(const std::vector<Report> &perGpu) {
  if (perGpu.empty())
    return "";
  const Report &first = perGpu.front();
  size_t gw = 3;
  for (const auto &r : perGpu)
    gw = std::max(gw, r.hwName.size());
  std::string vs = "vs " + first.hwName;
  std::string out;
  for (size_t k = 0; k < first.kernels.size(); ++k) {
    const auto &fk = first.kernels[k];
    out += fmt::format("kernel {} ({}), model {}\n", fk.projection.kernel, fk.file, first.model);
    out += fmt::format("  {:<{}}  {:>12}  {:>{}}  {:<8}  {}\n", "gpu", gw, "time_ms", vs,
                       std::max<size_t>(7, vs.size()), "bound", "best layout");
    std::optional<double> base = bestMs(fk.projection);
    for (const auto &r : perGpu) {
      const auto &p = r.kernels[k].projection;
      std::optional<double> t = bestMs(p);
      if (!t) {
        out += fmt::format("  {:<{}}  {:>12}  {:>{}}  {:<8}  no layout fits this GPU\n", r.hwName, gw,
                           "-", "-", std::max<size_t>(7, vs.size()), "-");
        continue;
      }
      out += fmt::format("  {:<{}}  {:>12}  {:>{}}  {:<8}  {}\n", r.hwName, gw, num(*t, 5),
                         ratio(t, base), std::max<size_t>(7, vs.size()),
                         p.layouts.front().result.bound, p.layouts.front().layoutString);
    }
    out += '\n';
  }
  for (size_t i = 0; i < first.programs.size(); ++i) {
    out += fmt::format("program {}\n", first.programs[i].file);
    out += fmt::format("  {:<{}}  {:>12}  {:>10}  {:>10}  {:>10}  {:>{}}  {:>9}  {}\n", "gpu", gw,
                       "total_ms", "in_ms", "kernels_ms", "out_ms", vs,
                       std::max<size_t>(7, vs.size()), "speedup", "verdict");
    double base = first.programs[i].program.totalMs;
    for (const auto &r : perGpu) {
      const auto &p = r.programs[i].program;
      out += fmt::format("  {:<{}}  {:>12}  {:>10}  {:>10}  {:>10}  {:>{}}  {:>9}  {}{}\n", r.hwName,
                         gw, num(p.totalMs, 5), num(p.h2dMs, 4), num(p.kernelsMs, 4), num(p.d2hMs, 4),
                         ratio(p.totalMs, base), std::max<size_t>(7, vs.size()),
                         p.speedup ? speedupText(*p.speedup) : "-", p.verdict,
                         p.reason.empty() ? "" : " (" + p.reason + ")");
    }
    const auto &fp = first.programs[i].program;
    if (fp.cpuMs)
      out += fmt::format("  CPU {} ms ({})\n", num(*fp.cpuMs, 5), fp.cpuSource);
    out += '\n';
  }
  for (const auto &r : perGpu)
    out += overridesText(r);
  return out;
}

std::string renderGpuJson(const std::vector<Report> &perGpu) {
  nlohmann::json root;
  root["schema_version"] = 1; // docs/schema/project-gpus.schema.json
  root["skelcast_version"] = perGpu.empty() ? "" : perGpu.front().version;
  nlohmann::json gpus = nlohmann::json::array();
  for (const auto &r : perGpu)
    gpus.push_back(reportJson(r));
  root["gpus"] = std::move(gpus);
  return root.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

std::string renderGpuCsv(const std::vector<Report> &perGpu) {
  std::string out;
  for (size_t g = 0; g < perGpu.size(); ++g) {
    std::string csv = renderCsv(perGpu[g]);
    out += g == 0 ? csv : csv.substr(csv.find('\n') + 1); // one header
  }
  return out;
}

std::string renderGpuMarkdown(const std::vector<Report> &perGpu) {
  std::string out;
  for (size_t g = 0; g < perGpu.size(); ++g)
    out += (g ? "\n" : "") + renderMarkdown(perGpu[g]);
  return out;
}

} // namespace skelcast::report
