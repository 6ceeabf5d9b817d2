#include "PtxasRegisters.h"

#ifdef SKELCAST_HAVE_FRONTEND
#include "skelcast/emit/CompiledCounts.h"
#endif

#include <fmt/format.h>

namespace skelcast::cli {

/// ptxas's registers go into the ranking: `--counts` not `table`, and a model
/// that reads them.
static bool wantsRegisters(const InputOptions &io, const model::ModelOptions &mo) {
  return io.counts != toolchain::CountSource::Table && model::readsRegisters(mo);
}

/// The SASS's load groups go into the ranking: `--load-groups sass`, and a
/// model that reads them.
static bool wantsLoadGroups(const InputOptions &io, const model::ModelOptions &mo) {
  return io.sassLoadGroups && model::readsLoadGroups(mo);
}

bool layoutBuildsOn(const InputOptions &io, const model::ModelOptions &mo) {
#ifdef SKELCAST_HAVE_FRONTEND
  // Without nvcc, `--counts` falls back to the table with a warning of its own
  // (Inputs.cpp); `--load-groups sass` goes on, and each layout's reason (no
  // nvcc, no cuobjdump) reaches the warning of estimatesKept.
  return io.compileCache && ((wantsRegisters(io, mo) && io.compileCache->tools().hasPtxas()) ||
                             wantsLoadGroups(io, mo));
#else
  (void)io, (void)mo;
  return false;
#endif
}

std::optional<Warning> loadGroupsNotRead(const InputOptions &io, const std::string &path,
                                         const model::ModelOptions &mo) {
  if (!wantsLoadGroups(io, mo))
    return std::nullopt;
  bool c = readsAsC(io, path);
  if (c && path != "-")
    return std::nullopt;
  return Warning{{inputName(path), 0, 0},
                 std::string("load groups from the model's estimate, not the compiled code (--load-groups sass): ") +
                     (c ? "standard input is not emitted" : "a skeleton has no C to emit")};
}

bool readsLayoutBuilds(const InputOptions &io, const std::string &path, const model::ModelOptions &mo) {
  return readsAsC(io, path) && path != "-" && layoutBuildsOn(io, mo);
}

std::vector<model::CompiledCounts> compiledLayoutCounts(const InputOptions &io,
                                                         const model::ModelOptions &mo,
                                                         const frontend::SkeletonizeOptions &so,
                                                         const std::string &path, size_t k,
                                                         const std::vector<layout::Layout> &layouts,
                                                         std::ostream &diagnostics) {
  std::vector<model::CompiledCounts> out(layouts.size());
#ifdef SKELCAST_HAVE_FRONTEND
  std::vector<std::string> why;
  toolchain::CompileCache &cache = *io.compileCache;
  bool registers = wantsRegisters(io, mo), groups = wantsLoadGroups(io, mo);
  if (!registers && groups && !cache.tools().hasSass()) {
    // Nothing to read without nvcc and cuobjdump: no build, one reason each.
    std::string why1 = cache.tools().hasPtxas() ? "cuobjdump (with nvdisasm) is not found: no SASS to read"
                                                : "the CUDA toolkit's nvcc is not found: no SASS to read";
    for (auto &c : out)
      c.whyNoGroups = why1;
    return out;
  }
  std::vector<std::optional<emit::CompiledLayout>> res =
      emit::compiledResources(path, so, k, layouts, cache, groups, diagnostics, why);
  for (size_t i = 0; i < layouts.size(); ++i) {
    if (registers) {
      out[i].why = why[i];
      if (res[i]) {
        out[i].registers = res[i]->usage.registers;
        out[i].stackBytes = res[i]->usage.stackFrameBytes;
        out[i].spillBytes = res[i]->usage.spillStoreBytes + res[i]->usage.spillLoadBytes;
        out[i].spillStoreBytes = res[i]->usage.spillStoreBytes;
      }
    }
    if (!groups)
      continue;
    if (res[i] && res[i]->loadGroups)
      out[i].registersPerWait = res[i]->loadGroups->registersPerGroup();
    else if (!res[i])
      out[i].whyNoGroups = why[i].empty() ? "not built" : why[i];
    else
      out[i].whyNoGroups = res[i]->whyNoGroups; // empty: no load waited for, nothing to count
  }
#else
  (void)io, (void)so, (void)path, (void)k, (void)diagnostics;
  for (auto &c : out)
    c.why = "this skelcast has no C frontend";
#endif
  return out;
}

std::vector<std::optional<model::ProgramIdentity>> programIdentities(toolchain::CompileCache *cache,
                                                                  const frontend::SkeletonizeOptions &so,
                                                                  const std::string &path, size_t k,
                                                                  const std::vector<layout::Layout> &layouts,
                                                                  const std::vector<bool> &build,
                                                                  std::ostream &diagnostics,
                                                                  std::vector<std::string> &why) {
  std::vector<std::optional<model::ProgramIdentity>> out(layouts.size());
#ifdef SKELCAST_HAVE_FRONTEND
  std::vector<std::optional<emit::TodaysProgram>> t =
      emit::todaysPrograms(path, so, k, layouts, cache, build, diagnostics, why);
  for (size_t i = 0; i < layouts.size() && i < t.size(); ++i) {
    if (!t[i])
      continue;
    out[i] = model::ProgramIdentity{t[i]->fingerprint, std::nullopt};
    if (t[i]->usage)
      out[i]->resources = model::ProgramResources{t[i]->usage->registers, t[i]->usage->sharedBytes};
    else if (i < build.size() && build[i])
      why[i] = !cache ? "the CUDA toolkit's nvcc is not found, and the record has no fingerprint"
                      : "not built: " + t[i]->whyNoUsage;
  }
#else
  (void)cache, (void)so, (void)path, (void)k, (void)build, (void)diagnostics;
  why.assign(layouts.size(), "this skelcast has no C frontend");
#endif
  return out;
}

std::vector<std::string> estimatesKept(const InputOptions &io, const model::ModelOptions &mo,
                                       const std::vector<model::CompiledCounts> &counts,
                                       const std::string &which) {
  std::vector<std::string> out;
  auto summary = [&](const char *what, auto kept, auto why) {
    size_t missing = 0;
    std::string first;
    for (const auto &c : counts)
      if (kept(c) && missing++ == 0)
        first = why(c).substr(0, why(c).find('\n'));
    if (missing > 0)
      out.push_back(fmt::format("{} from the model's estimate, not the compiled code, for {} of the {} {} ({})",
                                what, missing, counts.size(), which, first));
  };
  if (wantsRegisters(io, mo))
    summary("registers per thread", [](const model::CompiledCounts &c) { return !c.registers; },
            [](const model::CompiledCounts &c) { return c.why; });
  if (wantsLoadGroups(io, mo))
    summary("load groups", [](const model::CompiledCounts &c) { return !c.whyNoGroups.empty(); },
            [](const model::CompiledCounts &c) { return c.whyNoGroups; });
  return out;
}

model::KernelProjection rerankedWithCompiled(const InputOptions &io,
                                          const frontend::SkeletonizeOptions &so, const std::string &path,
                                          const model::ProgramAnalysis &analysis, size_t k,
                                          const hw::HwSpec &hw, const model::ModelOptions &mo,
                                          model::KernelProjection kp, size_t keep,
                                          std::ostream &diagnostics,
                                          const std::function<void(const Warning &)> &warn) {
  std::vector<layout::Layout> layouts;
  for (const auto &p : kp.layouts)
    layouts.push_back(p.layout);
  std::vector<model::CompiledCounts> counts =
      compiledLayoutCounts(io, mo, so, path, k, layouts, diagnostics);
  for (const std::string &m : estimatesKept(io, mo, counts, "layouts re-ranked with the compiler's"))
    warn({{path, 0, 0}, fmt::format("kernel '{}' on {}: {}", analysis.file().kernelName(k), hw.name, m)});
  return model::rerankWithCompiled(analysis, k, hw, {}, mo, std::move(kp), counts, keep);
}

} // namespace skelcast::cli
