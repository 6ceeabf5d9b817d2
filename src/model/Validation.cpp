#include "skelcast/model/Validation.h"

#include "skelcast/skeleton/Parser.h"
#include "skelcast/skeleton/Sample.h"
#include "skelcast/support/Diagnostic.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <map>

namespace skelcast::model {
namespace {

double ratioError(double p, double m) { return std::max(p / m, m / p) - 1.0; }

double geomean(const std::vector<double> &errs) {
  if (errs.empty())
    return 0;
  double s = 0;
  for (double e : errs)
    s += std::log1p(e);
  return std::expm1(s / static_cast<double>(errs.size()));
}

} // namespace

Measurements loadMeasurements(const std::string &path) {
  std::string text = skeleton::readTextFile(path);
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error &e) {
    throw InputError({path, 0, 0}, fmt::format("invalid JSON: {}", e.what()));
  }
  auto fail = [&](const std::string &field, const std::string &msg) -> InputError {
    return InputError({path, 0, 0}, fmt::format("field '{}': {}", field, msg));
  };
  if (!j.is_object() || !j.contains("cases") || !j["cases"].is_array())
    throw fail("cases", "missing or not an array");
  if (!j.contains("schema_version") || j["schema_version"] != 1)
    throw fail("schema_version", "this skelcast reads version 1");
  Measurements m;
  m.path = path;
  if (j.contains("gpu") && j["gpu"].is_object() && j["gpu"].contains("name"))
    m.gpuName = j["gpu"]["name"].get<std::string>();
  std::string root = j.value("skeleton_root", std::string("."));
  size_t i = 0;
  for (const auto &c : j["cases"]) {
    std::string at = fmt::format("cases[{}]", i++);
    if (!c.is_object())
      throw fail(at, "not an object");
    if (c.contains("verified") && c["verified"] == false)
      continue; // a case that failed its check has no time
    MeasuredCase mc;
    for (const char *k : {"kernel", "size", "skeleton", "layout"}) {
      if (!c.contains(k) || !c[k].is_string())
        throw fail(at + "." + k, "missing or not a string");
    }
    mc.kernel = c["kernel"];
    mc.size = c["size"];
    mc.layout = c["layout"];
    mc.skeleton = skeleton::resolveRelative(
        skeleton::resolveRelative(path, root) + "/", c["skeleton"].get<std::string>());
    if (!c.contains("time_ms") || !c["time_ms"].is_number() || !(c["time_ms"].get<double>() > 0))
      throw fail(at + ".time_ms", "missing or not a positive number");
    mc.timeMs = c["time_ms"];
    m.cases.push_back(mc);
  }
  return m;
}

Measurements mergeRuns(const std::vector<Measurements> &runs) {
  Measurements m;
  for (const auto &r : runs) {
    m.path += (m.path.empty() ? "" : " + ") + r.path;
    if (m.gpuName.empty())
      m.gpuName = r.gpuName;
    for (const auto &c : r.cases) {
      auto it = std::find_if(m.cases.begin(), m.cases.end(), [&](const MeasuredCase &x) {
        return x.kernel == c.kernel && x.size == c.size && x.layout == c.layout;
      });
      if (it == m.cases.end())
        m.cases.push_back(c);
      else
        it->timeMs = std::min(it->timeMs, c.timeMs);
    }
  }
  return m;
}

ValidationReport validate(const Measurements &m, const HwSpec &hw, const ModelOptions &mo,
                          const std::string &modelLabel) {
  ValidationReport r;
  r.hwName = hw.name;
  r.model = modelLabel;
  r.measurementsPath = m.path;
  r.gpuName = m.gpuName;
  std::map<std::string, layout::KernelInfo> kernels; // by skeleton path
  std::map<std::string, std::string> tops;
  std::vector<double> errs, rerrs;
  for (const auto &mc : m.cases) {
    auto it = kernels.find(mc.skeleton);
    if (it == kernels.end()) {
      skeleton::SkeletonFile f = skeleton::parseSkeletonFile(mc.skeleton);
      if (f.kernels.size() != 1)
        throw InputError({mc.skeleton, 0, 0}, "a measured skeleton must hold exactly one kernel");
      it = kernels.emplace(mc.skeleton, layout::analyzeKernel(f, 0)).first;
      ModelOptions first = mo;
      first.keepTop = 1; // only the enumerator's favourite is compared
      auto kp = projectKernel(it->second, hw, {}, first);
      tops[mc.skeleton] = kp.layouts.empty() ? "" : kp.layouts.front().layoutString;
    }
    const layout::KernelInfo &ki = it->second;
    layout::Layout l = layout::parseLayout(ki, mc.layout, hw);
    LayoutProjection p = projectLayout(ki, l, hw, mo);
    CaseResult cr;
    cr.measured = mc;
    cr.skeletonPath = mc.skeleton;
    cr.projectedMs = p.result.timeMs;
    cr.rooflineMs = p.roofline.timeMs;
    cr.error = ratioError(cr.projectedMs, mc.timeMs);
    cr.rooflineError = ratioError(cr.rooflineMs, mc.timeMs);
    cr.bound = p.result.bound;
    errs.push_back(cr.error);
    rerrs.push_back(cr.rooflineError);
    r.maxError = std::max(r.maxError, cr.error);
    r.cases.push_back(cr);
  }
  r.geomeanError = geomean(errs);
  r.rooflineGeomeanError = geomean(rerrs);

  // Per kernel and size: does the projection's favourite among the measured
  // layouts run within 10% of the fastest measured one?
  std::vector<std::pair<std::string, std::string>> groups;
  for (const auto &c : r.cases) {
    auto key = std::make_pair(c.measured.kernel, c.measured.size);
    if (std::find(groups.begin(), groups.end(), key) == groups.end())
      groups.push_back(key);
  }
  for (const auto &[kernel, size] : groups) {
    KernelCheck kc;
    kc.kernel = kernel;
    kc.size = size;
    const CaseResult *fast = nullptr, *pick = nullptr;
    for (const auto &c : r.cases) {
      if (c.measured.kernel != kernel || c.measured.size != size)
        continue;
      if (!fast || c.measured.timeMs < fast->measured.timeMs)
        fast = &c;
      if (!pick || c.projectedMs < pick->projectedMs)
        pick = &c;
      kc.enumeratedTop = tops[c.skeletonPath];
      if (tops[c.skeletonPath] == c.measured.layout)
        kc.enumeratedTopMeasured = true;
    }
    kc.fastestMeasured = fast->measured.layout;
    kc.fastestMs = fast->measured.timeMs;
    kc.projectedBest = pick->measured.layout;
    kc.projectedBestMeasuredMs = pick->measured.timeMs;
    kc.withinTenPercent = pick->measured.timeMs <= 1.10 * fast->measured.timeMs;
    r.topWithinTen += kc.withinTenPercent ? 1 : 0;
    r.kernels.push_back(kc);
  }
  return r;
}

} // namespace skelcast::model
