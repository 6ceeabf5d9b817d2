#include "skelcast/model/Validation.h"

#include "skelcast/model/Program.h"
#include "skelcast/model/Rerank.h"
#include "skelcast/skeleton/Parser.h"
#include "skelcast/skeleton/Sample.h"
#include "skelcast/support/Diagnostic.h"
#include "skelcast/support/JsonText.h"
#include "skelcast/support/TextFile.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <tuple>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <map>

namespace skelcast::model {

const char *comparisonName(ProgramComparison c) {
  switch (c) {
  case ProgramComparison::Fingerprint:
    return "fingerprint";
  case ProgramComparison::Ptxas:
    return "ptxas";
  case ProgramComparison::None:
    break;
  }
  return "none";
}

namespace {

double ratioError(double p, double m) { return std::max(p / m, m / p) - 1.0; }

/// An emitted case whose program `--check-programs` can compare with today's:
/// its record carries emit's fingerprint or ptxas's report.
bool checkable(const MeasuredCase &mc) { return mc.emitted && (!mc.program.empty() || mc.recorded.has_value()); }

double geomean(const std::vector<double> &errs) {
  if (errs.empty())
    return 0;
  double s = 0;
  for (double e : errs)
    s += std::log1p(e);
  return std::expm1(s / static_cast<double>(errs.size()));
}

// Shared by both kinds of measurement files (kernel cases, programs).
void checkMeasurementFile(const nlohmann::json &j, const std::string &path) {
  if (!j.is_object())
    throw InputError({path, 0, 0}, "a measurement file must be a JSON object");
  if (!j.contains("schema_version") || j["schema_version"] != 1)
    throw InputError({path, 0, 0},
                     fmt::format("field 'schema_version': this skelcast reads version 1, the file has {}",
                                 j.contains("schema_version") ? j["schema_version"].dump() : "none"));
}

/// The directory the file's skeleton paths are relative to: "skeleton_root",
/// itself relative to the file (default: the file's directory).
std::string skeletonRoot(const nlohmann::json &j, const std::string &path) {
  if (j.contains("skeleton_root") && !j["skeleton_root"].is_string())
    throw InputError({path, 0, 0}, "field 'skeleton_root': not a string");
  return skeleton::resolveRelative(path, j.value("skeleton_root", std::string(".")));
}

/// A measured case names files that must exist (checked when the file is
/// read, so that the error names the field rather than only the missing path);
/// `what` says which kind ("skeleton file", "C file", "sample file").
void requireFile(const std::string &file, const std::string &path, const std::string &field,
                 const char *what = "skeleton file") {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(file, ec))
    throw InputError({path, 0, 0}, fmt::format("field '{}': no such {} '{}'", field, what, file));
}

/// A measured time: a positive number of milliseconds up to 1e9 (11.6 days).
double measuredMs(const nlohmann::json &c, const char *key, const std::string &path,
                  const std::string &at) {
  if (!c.contains(key) || !c[key].is_number() || !(c[key].get<double>() > 0))
    throw InputError({path, 0, 0}, fmt::format("field '{}.{}': missing or not a positive number", at, key));
  double v = c[key].get<double>();
  if (!std::isfinite(v) || v > 1e9)
    throw InputError({path, 0, 0}, fmt::format("field '{}.{}': {} is out of range (0, 1e+09]", at, key, v));
  return v;
}

/// The options a case's C file is read with ("c_args", "c_extent", "c_trip",
/// "c_function") and its kernel there ("c_kernel"), written by `validate --run`.
void readCOptions(const nlohmann::json &c, MeasuredCase &mc, const std::string &path,
                  const std::string &at) {
  auto fail = [&](const std::string &field, const std::string &msg) -> InputError {
    return InputError({path, 0, 0}, fmt::format("field '{}.{}': {}", at, field, msg));
  };
  for (const char *k : {"c_args", "c_extent", "c_trip", "c_function", "c_kernel"})
    if (c.contains(k) && mc.cSource.empty())
      throw fail(k, "applies beside a field 'c' only");
  auto integer = [&](const nlohmann::json &v, const std::string &field) {
    if (!v.is_number_integer() || v.get<int64_t>() < 1 || v.get<int64_t>() > (int64_t(1) << 40))
      throw fail(field, "not an integer in [1, 2^40]");
    return v.get<int64_t>();
  };
  if (c.contains("c_args")) {
    if (!c["c_args"].is_array())
      throw fail("c_args", "not an array of strings (Clang arguments)");
    for (const auto &a : c["c_args"]) {
      if (!a.is_string())
        throw fail("c_args", "not an array of strings (Clang arguments)");
      mc.cArgs.push_back(a.get<std::string>());
    }
  }
  if (c.contains("c_extent")) {
    if (!c["c_extent"].is_object())
      throw fail("c_extent", "not an object {\"NAME\": [N, ...]}");
    for (const auto &[name, v] : c["c_extent"].items()) {
      if (!v.is_array() || v.empty())
        throw fail("c_extent." + name, "not a non-empty array of integers");
      for (const auto &e : v)
        mc.cExtents[name].push_back(integer(e, "c_extent." + name));
    }
  }
  if (c.contains("c_trip")) {
    if (!c["c_trip"].is_object())
      throw fail("c_trip", "not an object {\"INDEX\": N}");
    for (const auto &[name, v] : c["c_trip"].items())
      mc.cTrips[name] = integer(v, "c_trip." + name);
  }
  if (c.contains("c_kernel")) {
    if (!c["c_kernel"].is_string() || c["c_kernel"].get<std::string>().empty())
      throw fail("c_kernel", "not a kernel name");
    mc.cKernel = c["c_kernel"].get<std::string>();
  }
  if (c.contains("c_function")) {
    if (!c["c_function"].is_string() || c["c_function"].get<std::string>().empty())
      throw fail("c_function", "not a function name");
    mc.cFunction = c["c_function"].get<std::string>();
  }
}

/// A path as one file, however it is spelled (validation/c/x.c, /work/main/validation/c/x.c).
std::string samePath(const std::string &p) {
  if (p.empty())
    return p;
  std::error_code ec;
  std::filesystem::path c = std::filesystem::weakly_canonical(p, ec);
  return ec ? p : c.string();
}

/// Cases share one analyzed kernel when they name the same source, kernel and
/// C options (a C file may hold several kernels; a skeleton holds one).
std::string sourceKey(const std::string &from, const MeasuredCase &mc) {
  std::string k = samePath(from) + '\x1f' + mc.kernel + '\x1f' + mc.cKernel + '\x1f' + mc.cFunction;
  for (const auto &[n, f] : mc.cSamples)
    k += '\x1f' + n + '=' + samePath(f);
  for (const auto &a : mc.cArgs)
    k += '\x1f' + a;
  for (const auto &[n, v] : mc.cExtents) {
    k += '\x1f' + n;
    for (auto e : v)
      k += ',' + std::to_string(e);
  }
  for (const auto &[n, v] : mc.cTrips)
    k += '\x1f' + n + '=' + std::to_string(v);
  k += '\x1f' + std::to_string(static_cast<int>(mc.timing));
  return k;
}

/// Field "timing" of a case or of the file; `fallback` when absent.
layout::LaunchTiming readTiming(const nlohmann::json &j, const std::string &path, const std::string &at,
                                layout::LaunchTiming fallback) {
  if (!j.contains("timing"))
    return fallback;
  const auto &t = j["timing"];
  if (t.is_string())
    if (auto named = layout::launchTimingNamed(t.get<std::string>()))
      return *named;
  throw InputError({path, 0, 0}, fmt::format("field '{}timing': expected \"alone\", \"back_to_back\" or \"once\", got {}",
                                             at.empty() ? "" : at + ".", t.dump()));
}

/// Whether the program was written by `skelcast emit`: field "method" of the
/// case, else of the file, begins so (the hand-written programs' says how they
/// were timed).
bool readEmitted(const nlohmann::json &c, const nlohmann::json &file) {
  const nlohmann::json &j = c.contains("method") ? c : file;
  return j.contains("method") && j["method"].is_string() &&
         j["method"].get<std::string>().rfind("skelcast emit", 0) == 0;
}

/// The measured program's ptxas report, where the record has one: fields
/// "regs_per_thread" (an integer in [0, 255]) and "static_smem_bytes"
/// (0 when absent; in [0, 2^20]).
std::optional<ProgramResources> readResources(const nlohmann::json &c, const std::string &path,
                                              const std::string &at) {
  if (!c.contains("regs_per_thread"))
    return std::nullopt;
  auto integer = [&](const char *key, int64_t hi) {
    const auto &v = c[key];
    if (!v.is_number_integer() || v.get<int64_t>() < 0 || v.get<int64_t>() > hi)
      throw InputError({path, 0, 0}, fmt::format("field '{}.{}': not an integer in [0, {}]", at, key, hi));
    return v.get<int64_t>();
  };
  ProgramResources r;
  r.registers = static_cast<int>(integer("regs_per_thread", 255));
  if (c.contains("static_smem_bytes"))
    r.staticSharedBytes = integer("static_smem_bytes", int64_t(1) << 20);
  return r;
}

} // namespace

Measurements loadMeasurements(const std::string &path) {
  nlohmann::json j = parseJsonText(readTextFile(path), path);
  auto fail = [&](const std::string &field, const std::string &msg) -> InputError {
    return InputError({path, 0, 0}, fmt::format("field '{}': {}", field, msg));
  };
  checkMeasurementFile(j, path);
  if (!j.contains("cases") || !j["cases"].is_array())
    throw fail("cases", "missing or not an array");
  Measurements m;
  m.path = path;
  if (j.contains("gpu") && j["gpu"].is_object() && j["gpu"].contains("name")) {
    if (!j["gpu"]["name"].is_string())
      throw fail("gpu.name", "not a string");
    m.gpuName = j["gpu"]["name"].get<std::string>();
  }
  std::string root = skeletonRoot(j, path);
  // validate --check-programs builds today's programs for sm_90 (CompileCache):
  // a record of another GPU generation keeps only its fingerprint to compare.
  const bool sm90 = !j.contains("gpu") || !j["gpu"].is_object() || !j["gpu"].contains("compute_capability") ||
                    j["gpu"]["compute_capability"] == "9.0";
  const layout::LaunchTiming fileTiming = readTiming(j, path, "", layout::LaunchTiming::RepeatedAlone);
  size_t i = 0;
  for (const auto &c : j["cases"]) {
    std::string at = fmt::format("cases[{}]", i++);
    if (!c.is_object())
      throw fail(at, "not an object");
    if (c.contains("verified") && c["verified"] == false)
      continue; // a case that failed its check has no time
    MeasuredCase mc;
    for (const char *k : {"kernel", "size", "layout"}) {
      if (!c.contains(k) || !c[k].is_string())
        throw fail(at + "." + k, "missing or not a string");
    }
    mc.kernel = c["kernel"];
    mc.size = c["size"];
    mc.layout = c["layout"];
    // A case has a hand skeleton, a C file, or both (kernels written from C
    // have no skeleton counted from their SASS).
    if (c.contains("skeleton") || !c.contains("c")) {
      if (!c.contains("skeleton") || !c["skeleton"].is_string())
        throw fail(at + ".skeleton", "missing or not a string (a case names its skeleton, its C file "
                                     "in field 'c', or both)");
      mc.skeleton = skeleton::resolveRelative(root + "/", c["skeleton"].get<std::string>());
      requireFile(mc.skeleton, path, at + ".skeleton");
    }
    if (c.contains("c")) {
      if (!c["c"].is_string())
        throw fail(at + ".c", "not a string (the path of the case's C version)");
      mc.cSource = skeleton::resolveRelative(root + "/", c["c"].get<std::string>());
      requireFile(mc.cSource, path, at + ".c", "C file");
    }
    if (c.contains("c_sample")) {
      if (!c["c_sample"].is_object() || mc.cSource.empty())
        throw fail(at + ".c_sample", "must be an object {\"ARRAY\": \"FILE\"} beside a field 'c'");
      for (const auto &[array, file] : c["c_sample"].items()) {
        if (!file.is_string())
          throw fail(at + ".c_sample." + array, "not a string");
        std::string resolved = skeleton::resolveRelative(root + "/", file.get<std::string>());
        requireFile(resolved, path, at + ".c_sample." + array, "sample file");
        mc.cSamples[array] = resolved;
      }
    }
    readCOptions(c, mc, path, at);
    mc.timing = readTiming(c, path, at, fileTiming);
    mc.timeMs = measuredMs(c, "time_ms", path, at);
    mc.emitted = readEmitted(c, j);
    mc.recorded = readResources(c, path, at);
    if (!sm90)
      mc.recorded.reset(); // ptxas's report of another architecture: not today's sm_90 build's to compare
    if (c.contains("program")) {
      if (!c["program"].is_string() || c["program"].get<std::string>().size() != 16 ||
          c["program"].get<std::string>().find_first_not_of("0123456789abcdef") != std::string::npos)
        throw fail(at + ".program", "not a program fingerprint (16 lower-case hex digits, as emit prints it)");
      mc.program = c["program"].get<std::string>();
    }
    m.cases.push_back(mc);
  }
  return m;
}

Measurements mergeRuns(const std::vector<Measurements> &runs) {
  Measurements m;
  std::map<std::string, size_t> seen; // a case's key: its index in m.cases
  for (const auto &r : runs) {
    m.path += (m.path.empty() ? "" : " + ") + r.path;
    if (m.gpuName.empty())
      m.gpuName = r.gpuName;
    for (const auto &c : r.cases) {
      // The same case: the same layout of the same kernel, read from the same
      // source with the same options (a float and a double triad share a name).
      // And the same program: a record of another one (another fingerprint or
      // ptxas report, validate --check-programs) is a case of its own.
      std::string key = samePath(c.cSource) + '\x1f' + samePath(c.skeleton) + '\x1f' + sourceKey("", c) +
                        '\x1f' + c.size + '\x1f' + c.layout + '\x1f' + c.program;
      if (c.recorded)
        key += fmt::format("\x1f{}\x1f{}", c.recorded->registers, c.recorded->staticSharedBytes);
      auto [at, fresh] = seen.emplace(key, m.cases.size());
      if (fresh)
        m.cases.push_back(c);
      else
        m.cases[at->second].timeMs = std::min(m.cases[at->second].timeMs, c.timeMs);
    }
  }
  return m;
}

KernelSource handSkeletons() {
  return {"hand skeletons (model only: counted from the measured kernels' SASS)",
          [](const MeasuredCase &c) { return c.skeleton; },
          [](const MeasuredCase &c) {
            if (c.skeleton.empty())
              throw InputError({c.cSource, 0, 0},
                               fmt::format("measured case {} {} has no hand skeleton, only this C file",
                                           c.kernel, c.size));
            return skeleton::parseSkeletonFile(c.skeleton);
          },
          {},
          {}};
}

/// The candidates for the layout the user's `project FILE.c --top 1` ranks
/// first: the estimate's favourite, or, where the compiled code is read
/// (ptxas's registers, the SASS's load groups), the estimate's best
/// rerankCandidates(1), which favourite() ranks again once they are built.
static std::vector<LayoutProjection> favouriteCandidates(const layout::KernelInfo &ki, const hw::HwSpec &hw,
                                                         const ModelOptions &mo, bool compiled) {
  ModelOptions first = mo;
  first.keepTop = compiled ? rerankCandidates(1) : 1;
  return projectKernel(ki, hw, {}, first).layouts;
}

/// The best of the candidates projected again with their compiled counts
/// (model::rerankWithCompiled's order), so that the favourite compared is the
/// one the same options show.
static std::string favourite(const layout::KernelInfo &ki, std::vector<layout::Layout> candidates,
                             const std::vector<CompiledCounts> &counts, const hw::HwSpec &hw,
                             const ModelOptions &mo) {
  std::optional<LayoutProjection> best;
  for (size_t i = 0; i < candidates.size(); ++i) {
    applyCompiled(i < counts.size() ? &counts[i] : nullptr, candidates[i]);
    LayoutProjection p = projectLayout(ki, candidates[i], hw, mo);
    if (!best || rankedBefore(p, *best))
      best = std::move(p);
  }
  return best ? best->layoutString : "";
}

namespace {

/// The figures of `cases` (keys[i]: cases[i]'s sourceKey, tops: the enumerator's
/// first layout by sourceKey): the errors' geometric mean and max, and per
/// kernel and size whether the projection's favourite among the measured
/// layouts runs within 10% of the fastest measured one. Cases whose measured
/// program today's emit no longer writes count only `withChanged`.
struct Summary {
  size_t cases = 0;
  double geomean = 0, roofline = 0, max = 0;
  std::vector<KernelCheck> kernels;
  int topWithinTen = 0;
};
Summary summarize(const std::vector<CaseResult> &cases, const std::vector<std::string> &keys,
                         const std::map<std::string, std::string> &tops, bool withChanged) {
  Summary s;
  std::vector<double> errs, rerrs;
  auto counted = [&](size_t i) { return withChanged || !cases[i].programChanged; };
  for (size_t i = 0; i < cases.size(); ++i)
    if (counted(i)) {
      errs.push_back(cases[i].error);
      rerrs.push_back(cases[i].rooflineError);
      s.max = std::max(s.max, cases[i].error);
    }
  s.cases = errs.size();
  s.geomean = geomean(errs);
  s.roofline = geomean(rerrs);
  // Per kernel and size (and timing: times taken alone and back to back are
  // not compared with each other): does the projection's favourite among the
  // measured layouts run within 10% of the fastest measured one?
  // Per source too: two C files may hold kernels of one name and size (a float
  // and a double triad) whose layouts are not each other's alternatives.
  std::vector<std::pair<std::string, std::string>> groups; // (sourceKey, size)
  for (size_t i = 0; i < cases.size(); ++i) {
    auto key = std::make_pair(keys[i], cases[i].measured.size);
    if (counted(i) && std::find(groups.begin(), groups.end(), key) == groups.end())
      groups.push_back(key);
  }
  for (const auto &[source, size] : groups) {
    KernelCheck kc;
    kc.size = size;
    const CaseResult *fast = nullptr, *pick = nullptr;
    for (size_t i = 0; i < cases.size(); ++i) {
      const CaseResult &c = cases[i];
      if (c.measured.size != size || keys[i] != source || !counted(i))
        continue;
      kc.kernel = c.measured.kernel;
      kc.source = c.skeletonPath;
      if (!fast || c.measured.timeMs < fast->measured.timeMs)
        fast = &c;
      if (!pick || rankedBefore(c.projection, pick->projection)) // as `project` ranks them
        pick = &c;
      const std::string &top = tops.at(source);
      kc.enumeratedTop = top;
      if (top == c.measured.layout) {
        if (!kc.enumeratedTopMeasured || c.measured.timeMs < kc.enumeratedTopMs)
          kc.enumeratedTopMs = c.measured.timeMs;
        kc.enumeratedTopMeasured = true;
      }
    }
    kc.fastestMeasured = fast->measured.layout;
    kc.fastestMs = fast->measured.timeMs;
    kc.projectedBest = pick->measured.layout;
    kc.projectedBestMeasuredMs = pick->measured.timeMs;
    kc.withinTenPercent = withinTenPercentOf(pick->measured.timeMs, fast->measured.timeMs);
    s.topWithinTen += kc.withinTenPercent ? 1 : 0;
    s.kernels.push_back(kc);
  }
  return s;
}

} // namespace

ValidationReport validate(const Measurements &m, const hw::HwSpec &hw, const ModelOptions &mo,
                          const std::string &modelLabel, const KernelSource &source) {
  ValidationReport r;
  r.source = source.label;
  r.hwName = hw.name;
  r.model = modelLabel;
  r.measurementsPath = m.path;
  r.gpuName = m.gpuName;
  std::map<std::string, layout::KernelInfo> kernels; // by skeleton path
  std::map<std::string, size_t> kernelIndex;          // by skeleton path: the case's kernel in its file
  std::map<std::string, std::string> tops;
  // The measured layouts, parsed against their kernels, before any is projected:
  // ptxas's registers (source.registers) come for all layouts of a kernel at once.
  std::vector<std::string> keys;
  std::vector<layout::Layout> layouts;
  for (const auto &mc : m.cases) {
    const std::string from = source.path(mc);
    const std::string key = sourceKey(from, mc);
    auto it = kernels.find(key);
    if (it == kernels.end()) {
      skeleton::SkeletonFile f = source.load(mc);
      // A C file may hold several kernels: the case's is the one its field
      // "c_kernel" names (written by `validate --run`), else the one of its
      // name; a file of one kernel without "c_kernel" is that kernel.
      size_t k = 0;
      const std::string &want = mc.cKernel.empty() ? mc.kernel : mc.cKernel;
      if (f.kernels.size() > 1 || !mc.cKernel.empty()) {
        while (k < f.kernels.size() && f.kernelName(k) != want)
          ++k;
        if (k == f.kernels.size()) {
          std::string names;
          for (size_t i = 0; i < f.kernels.size(); ++i)
            names += (i ? ", " : "") + f.kernelName(i);
          throw InputError({from, 0, 0}, fmt::format("measured case {} {}: no kernel of this file is "
                                                     "named '{}' (it has: {})",
                                                     mc.kernel, mc.size, want, names));
        }
      } else if (f.kernels.empty()) {
        throw InputError({from, 0, 0}, fmt::format("measured case {} {}: this file holds no kernel",
                                                   mc.kernel, mc.size));
      }
      layout::KernelInfo analyzed = layout::analyzeKernel(f, k);
      analyzed.timing = mc.timing; // repeated over the same arrays, alone or back to back
      it = kernels.emplace(key, std::move(analyzed)).first;
      kernelIndex[key] = k;
    }
    const layout::KernelInfo &ki = it->second;
    try {
      layouts.push_back(layout::parseLayout(ki, mc.layout, hw));
    } catch (const InputError &e) {
      // The layout comes from the measurement file, not from --layout.
      throw InputError({m.path, 0, 0},
                       fmt::format("measured case {} {}: {}", mc.kernel, mc.size, e.message()));
    }
    keys.push_back(key);
  }
  // Each kernel's favourite; with ptxas's registers or the SASS's load groups,
  // one call per kernel builds all its measured layouts and the favourite's
  // candidates.
  bool compiled = source.registers && (readsRegisters(mo) || readsLoadGroups(mo));
  std::vector<std::optional<LayoutProjection::RegisterSource>> regSource(layouts.size());
  for (size_t i = 0; i < layouts.size(); ++i) {
    if (tops.count(keys[i]))
      continue;
    const layout::KernelInfo &ki = kernels.at(keys[i]);
    std::vector<LayoutProjection> candidates = favouriteCandidates(ki, hw, mo, compiled);
    if (!compiled) {
      tops[keys[i]] = candidates.empty() ? "" : candidates.front().layoutString;
      continue;
    }
    std::vector<size_t> at;
    std::vector<layout::Layout> ls;
    for (size_t j = i; j < layouts.size(); ++j)
      if (keys[j] == keys[i]) {
        at.push_back(j);
        ls.push_back(layouts[j]);
      }
    for (const auto &c : candidates)
      ls.push_back(c.layout);
    std::vector<CompiledCounts> counts = source.registers(m.cases[i], kernelIndex[keys[i]], ls);
    for (size_t n = 0; n < at.size(); ++n)
      regSource[at[n]] = applyCompiled(n < counts.size() ? &counts[n] : nullptr, layouts[at[n]]);
    std::vector<layout::Layout> tried(ls.begin() + static_cast<std::ptrdiff_t>(at.size()), ls.end());
    std::vector<CompiledCounts> theirs;
    if (counts.size() > at.size())
      theirs.assign(counts.begin() + static_cast<std::ptrdiff_t>(at.size()), counts.end());
    tops[keys[i]] = favourite(ki, std::move(tried), theirs, hw, mo);
  }
  // validate --check-programs: the program today's emit writes for each
  // emitted case's layout, one call per kernel; built with nvcc only where the
  // record has no fingerprint to compare.
  std::vector<std::optional<ProgramIdentity>> today(layouts.size());
  if (source.programs) {
    r.programs.checked = true;
    std::vector<bool> asked(layouts.size(), false);
    for (size_t i = 0; i < layouts.size(); ++i) {
      if (asked[i] || !checkable(m.cases[i]))
        continue;
      std::vector<size_t> at;
      std::vector<layout::Layout> ls;
      std::vector<bool> build;
      for (size_t j = i; j < layouts.size(); ++j)
        if (keys[j] == keys[i] && checkable(m.cases[j])) {
          at.push_back(j);
          ls.push_back(layouts[j]);
          build.push_back(m.cases[j].program.empty());
          asked[j] = true;
        }
      std::vector<std::optional<ProgramIdentity>> built =
          source.programs(m.cases[i], kernelIndex[keys[i]], ls, build);
      for (size_t n = 0; n < at.size() && n < built.size(); ++n)
        today[at[n]] = built[n];
    }
  }
  for (size_t i = 0; i < m.cases.size(); ++i) {
    const MeasuredCase &mc = m.cases[i];
    const layout::KernelInfo &ki = kernels.at(keys[i]);
    LayoutProjection p = projectLayout(ki, layouts[i], hw, mo);
    p.registers = regSource[i];
    CaseResult cr;
    cr.measured = mc;
    cr.skeletonPath = source.path(mc);
    cr.projection = p;
    cr.projectedMs = p.result.timeMs;
    cr.rooflineMs = p.roofline.timeMs;
    cr.error = ratioError(cr.projectedMs, mc.timeMs);
    cr.rooflineError = ratioError(cr.rooflineMs, mc.timeMs);
    cr.bound = p.result.bound;
    cr.today = today[i];
    if (cr.today && !mc.program.empty() && !cr.today->fingerprint.empty()) {
      cr.comparedBy = ProgramComparison::Fingerprint;
      cr.programChanged = cr.today->fingerprint != mc.program;
    } else if (cr.today && mc.recorded && cr.today->resources) {
      cr.comparedBy = ProgramComparison::Ptxas;
      cr.programChanged = !(*cr.today->resources == *mc.recorded);
    } else if (r.programs.checked && checkable(mc)) {
      ++r.programs.notCompared;
      cr.notComparedWhy = !cr.today ? "today's emit does not write this layout"
                                    : "the record has no fingerprint, and today's program was not built with nvcc";
    }
    if (cr.comparedBy != ProgramComparison::None) {
      ++r.programs.compared;
      r.programs.changed += cr.programChanged ? 1 : 0;
    }
    r.cases.push_back(cr);
  }
  Summary now = summarize(r.cases, keys, tops, false);
  r.geomeanError = now.geomean;
  r.rooflineGeomeanError = now.roofline;
  r.maxError = now.max;
  r.kernels = std::move(now.kernels);
  r.topWithinTen = now.topWithinTen;
  if (r.programs.changed > 0) {
    Summary all = summarize(r.cases, keys, tops, true);
    r.programs.withChanged = {r.source, all.cases, all.kernels.size(), all.geomean, all.max, all.topWithinTen};
    r.programs.withChangedRooflineError = all.roofline;
    for (const KernelCheck &k : all.kernels)
      if (std::none_of(r.kernels.begin(), r.kernels.end(), [&](const KernelCheck &n) {
            return n.kernel == k.kernel && n.size == k.size && n.source == k.source;
          }))
        r.programs.kernelsSetApart.push_back(k.kernel + " " + k.size);
  }
  return r;
}

} // namespace skelcast::model

namespace skelcast::model {
namespace {

nlohmann::json readJson(const std::string &path) {
  return parseJsonText(readTextFile(path), path);
}

/// `j[key]["cases"]`, which must be an array of objects.
const nlohmann::json &caseList(const nlohmann::json &j, const char *key, const std::string &path) {
  const nlohmann::json &part = j[key];
  if (!part.is_object() || !part.contains("cases") || !part["cases"].is_array())
    throw InputError({path, 0, 0}, fmt::format("field '{}.cases': missing or not an array", key));
  for (size_t i = 0; i < part["cases"].size(); ++i)
    if (!part["cases"][i].is_object())
      throw InputError({path, 0, 0}, fmt::format("field '{}.cases[{}]': not an object", key, i));
  return part["cases"];
}

/// An optional integer field (`n`, `steps`), 0 when absent.
int64_t count(const nlohmann::json &c, const char *key, const std::string &path, const std::string &at) {
  if (!c.contains(key))
    return 0;
  if (!c[key].is_number_integer())
    throw InputError({path, 0, 0}, fmt::format("field '{}.{}': not an integer", at, key));
  int64_t v = c[key].get<int64_t>();
  if (v < 0 || v > (int64_t{1} << 31))
    throw InputError({path, 0, 0},
                     fmt::format("field '{}.{}': {} is out of range [0, 2^31]", at, key, c[key].dump()));
  return v;
}

double number(const nlohmann::json &c, const char *key, const std::string &path, const std::string &at) {
  return measuredMs(c, key, path, at);
}

std::string text(const nlohmann::json &c, const char *key, const std::string &path, const std::string &at) {
  if (!c.contains(key) || !c[key].is_string())
    throw InputError({path, 0, 0}, fmt::format("field '{}.{}': missing or not a string", at, key));
  return c[key].get<std::string>();
}

/// Project a whole skeleton file as `project` does.
ProgramProjection programOf(const std::string &skel, const hw::HwSpec &hw, const ModelOptions &mo,
                            bool pinned) {
  skeleton::SkeletonFile f = skeleton::parseSkeletonFile(skel);
  std::vector<KernelProjection> kps;
  for (const auto &ki : analyzeProgram(f))
    kps.push_back(projectKernel(ki, hw, {}, mo));
  ProgramOptions po;
  po.pinned = pinned;
  return projectProgram(f, kps, hw, {}, mo, po);
}

} // namespace

std::string measuredGpuName(const std::string &path) {
  nlohmann::json j = readJson(path);
  if (!j.is_object() || !j.contains("gpu") || !j["gpu"].is_object() || !j["gpu"].contains("name"))
    return "";
  if (!j["gpu"]["name"].is_string())
    throw InputError({path, 0, 0}, "field 'gpu.name': not a string");
  return j["gpu"]["name"].get<std::string>();
}

bool gpuMatchesSpec(const std::string &gpuName, const hw::HwSpec &hw) {
  auto squash = [](const std::string &s) {
    std::string out;
    for (unsigned char c : s)
      if (std::isalnum(c))
        out += static_cast<char>(std::tolower(c));
    return out;
  };
  std::string spec = squash(hw.name);
  return !spec.empty() && squash(gpuName).find(spec) != std::string::npos;
}

void requireSameGpu(const std::string &path, const hw::HwSpec &hw) {
  std::string gpu = measuredGpuName(path);
  if (!gpu.empty() && !gpuMatchesSpec(gpu, hw))
    throw InputError({path, 0, 0},
                     fmt::format("field 'gpu.name': measured on '{}', not on the spec's GPU '{}': give "
                                 "its spec with --hw, or --force to compare anyway",
                                 gpu, hw.name));
}

bool isProgramMeasurements(const std::string &path) {
  nlohmann::json j = readJson(path);
  return j.is_object() && (j.contains("fusion") || j.contains("hotspot_steps"));
}

ProgramValidation validatePrograms(const std::vector<std::string> &paths, const hw::HwSpec &hw,
                                   const ModelOptions &mo, const std::string &modelLabel) {
  ProgramValidation v;
  v.hwName = hw.name;
  v.model = modelLabel;
  // Each measured quantity keeps its lowest median over the runs.
  std::map<std::string, double> best;
  std::map<std::string, std::string> skel;
  std::map<std::string, bool> pinnedCase;
  std::vector<std::string> order;
  auto note = [&](const std::string &key, double ms) {
    auto it = best.find(key);
    if (it == best.end()) {
      best[key] = ms;
      order.push_back(key);
    } else {
      it->second = std::min(it->second, ms);
    }
  };
  for (const auto &path : paths) {
    v.path += (v.path.empty() ? "" : " + ") + path;
    nlohmann::json j = readJson(path);
    checkMeasurementFile(j, path);
    if (v.gpuName.empty())
      v.gpuName = measuredGpuName(path);
    if (!j.contains("fusion") && !j.contains("hotspot_steps"))
      throw InputError({path, 0, 0}, "field 'fusion': missing; a program measurement file has "
                                     "'fusion' or 'hotspot_steps'");
    std::string root = skeletonRoot(j, path);
    size_t i = 0;
    if (j.contains("fusion"))
      for (const auto &c : caseList(j, "fusion", path)) {
        std::string at = fmt::format("fusion.cases[{}]", i++);
        if (c.contains("verified") && c["verified"] == false)
          continue;
        std::string what = fmt::format("fusion chain n={}", count(c, "n", path, at));
        std::string variant = text(c, "variant", path, at);
        if (variant != "unfused" && variant != "fused")
          throw InputError({path, 0, 0}, fmt::format("field '{}.variant': must be \"unfused\" or "
                                                     "\"fused\", is \"{}\"", at, variant));
        note(what + "|" + variant, number(c, "time_ms", path, at));
        skel[what] = skeleton::resolveRelative(root + "/", text(c, "skeleton", path, at));
        requireFile(skel[what], path, at + ".skeleton");
      }
    i = 0;
    if (j.contains("hotspot_steps"))
      for (const auto &c : caseList(j, "hotspot_steps", path)) {
        std::string at = fmt::format("hotspot_steps.cases[{}]", i++);
        if (c.contains("verified") && c["verified"] == false)
          continue;
        int64_t steps = count(c, "steps", path, at);
        // host_memory (optional, pageable when absent): the host buffers' kind.
        std::string memory = c.contains("host_memory") ? text(c, "host_memory", path, at) : "pageable";
        if (memory != "pageable" && memory != "pinned")
          throw InputError({path, 0, 0}, fmt::format("field '{}.host_memory': must be \"pageable\" "
                                                     "or \"pinned\", is \"{}\"", at, memory));
        std::string what = fmt::format("hotspot {}, {} step{}{}", text(c, "size", path, at), steps,
                                       steps == 1 ? "" : "s", memory == "pinned" ? ", pinned" : "");
        pinnedCase[what] = memory == "pinned";
        note(what + "|h2d", number(c, "h2d_t_ms", path, at) + number(c, "h2d_power_ms", path, at));
        note(what + "|d2h", number(c, "d2h_ms", path, at));
        note(what + "|kernels", number(c, "kernels_ms", path, at));
        note(what + "|total", number(c, "total_ms", path, at));
        skel[what] = skeleton::resolveRelative(root + "/", text(c, "program_skeleton", path, at));
        requireFile(skel[what], path, at + ".program_skeleton");
      }
  }
  std::map<std::string, ProgramProjection> projections;
  for (const auto &key : order) {
    // The quantity never holds '|'; the case's text (a size) might.
    std::string what = key.substr(0, key.rfind('|')), q = key.substr(key.rfind('|') + 1);
    auto it = projections.find(what);
    if (it == projections.end())
      it = projections.emplace(what, programOf(skel[what], hw, mo, pinnedCase[what])).first;
    const ProgramProjection &pp = it->second;
    ProgramCheck c;
    c.what = what;
    c.quantity = q;
    c.measuredMs = best[key];
    c.pinned = pinnedCase[what];
    if (q == "unfused")
      c.projectedMs = pp.kernelsUnfusedMs;
    else if (q == "fused")
      c.projectedMs = pp.fusion.empty() ? pp.kernelsUnfusedMs : pp.fusion.front().fusedMs;
    else if (q == "h2d")
      c.projectedMs = pp.h2dMs;
    else if (q == "d2h")
      c.projectedMs = pp.d2hMs;
    else if (q == "kernels")
      c.projectedMs = pp.kernelsMs;
    else
      c.projectedMs = pp.totalMs;
    c.error = std::max(c.projectedMs / c.measuredMs, c.measuredMs / c.projectedMs) - 1.0;
    if (q == "h2d" || q == "d2h") {
      c.ok = c.error <= 0.15;
      v.transfersWithin15 = v.transfersWithin15 && c.ok;
    } else if (q == "total") {
      c.ok = c.error <= 0.25;
      v.totalsWithin25 = v.totalsWithin25 && c.ok;
    }
    v.checks.push_back(c);
    if (q == "fused" && best.count(what + "|unfused")) {
      ProgramCheck w;
      w.what = what;
      w.quantity = "winner";
      w.measuredWinner = best[what + "|fused"] < best[what + "|unfused"] ? "fused" : "unfused";
      w.projectedWinner = pp.fusion.empty() ? "unfused" : pp.fusion.front().winner;
      w.ok = w.measuredWinner == w.projectedWinner;
      v.winnersRight = v.winnersRight && w.ok;
      v.checks.push_back(w);
    }
  }
  return v;
}

} // namespace skelcast::model
