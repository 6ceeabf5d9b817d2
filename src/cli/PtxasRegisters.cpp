#include "PtxasRegisters.h"

#ifdef SKELCAST_HAVE_FRONTEND
#include "skelcast/emit/CompiledCounts.h"
#endif

#include <fmt/format.h>

namespace skelcast::cli {

bool ptxasRegistersOn(const InputOptions &io, const model::ModelOptions &mo) {
#ifdef SKELCAST_HAVE_FRONTEND
  return io.counts != toolchain::CountSource::Table && io.compileCache &&
         io.compileCache->tools().hasPtxas() && model::readsRegisters(mo);
#else
  (void)io, (void)mo;
  return false;
#endif
}

bool readsPtxasRegisters(const InputOptions &io, const std::string &path, const model::ModelOptions &mo) {
  bool c = io.language.empty() ? isCInput(path) : io.language == "c";
  return c && path != "-" && ptxasRegistersOn(io, mo);
}

std::vector<model::CompiledRegisterCount> ptxasRegisters(toolchain::CompileCache &cache,
                                                         const frontend::SkeletonizeOptions &so,
                                                         const std::string &path, size_t k,
                                                         const std::vector<layout::Layout> &layouts,
                                                         std::ostream &diagnostics) {
  std::vector<model::CompiledRegisterCount> out(layouts.size());
#ifdef SKELCAST_HAVE_FRONTEND
  std::vector<std::string> why;
  std::vector<std::optional<toolchain::ResourceUsage>> res =
      emit::compiledResources(path, so, k, layouts, cache, diagnostics, why);
  for (size_t i = 0; i < layouts.size(); ++i) {
    out[i].why = why[i];
    if (res[i]) {
      out[i].registers = res[i]->registers;
      out[i].stackBytes = res[i]->stackFrameBytes;
      out[i].spillBytes = res[i]->spillStoreBytes + res[i]->spillLoadBytes;
    }
  }
#else
  (void)cache, (void)so, (void)path, (void)k, (void)diagnostics;
  for (auto &c : out)
    c.why = "this skelcast has no C frontend";
#endif
  return out;
}

model::KernelProjection rerankedWithPtxas(toolchain::CompileCache &cache,
                                          const frontend::SkeletonizeOptions &so, const std::string &path,
                                          const model::ProgramAnalysis &analysis, size_t k,
                                          const hw::HwSpec &hw, const model::ModelOptions &mo,
                                          model::KernelProjection kp, size_t keep,
                                          std::ostream &diagnostics,
                                          const std::function<void(const Warning &)> &warn) {
  std::vector<layout::Layout> layouts;
  for (const auto &p : kp.layouts)
    layouts.push_back(p.layout);
  std::vector<model::CompiledRegisterCount> counts =
      ptxasRegisters(cache, so, path, k, layouts, diagnostics);
  size_t missing = 0;
  std::string first;
  for (const auto &c : counts)
    if (!c.registers && missing++ == 0)
      first = c.why.substr(0, c.why.find('\n'));
  if (missing > 0)
    warn({{path, 0, 0},
          fmt::format("kernel '{}' on {}: registers per thread from the model's estimate, not "
                      "ptxas, for {} of the {} layouts re-ranked with ptxas's ({})",
                      analysis.file().kernelName(k), hw.name, missing, counts.size(), first)});
  return model::rerankWithRegisters(analysis, k, hw, {}, mo, std::move(kp), counts, keep);
}

} // namespace skelcast::cli
