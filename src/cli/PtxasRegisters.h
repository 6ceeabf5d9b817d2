// ptxas's registers per thread for the layouts a command ranks or validates
// (docs/model.md, "Registers from ptxas"): shared by project, batch and
// validate. The C file's layouts are emitted once per kernel and each built
// with nvcc (emit::compiledRegisters, through the run's CompileCache); the
// model gets the counts as values (model::rerankWithRegisters, validate).
#pragma once

#include "Inputs.h"
#include "skelcast/model/Rerank.h"

#include <functional>
#include <iosfwd>
#include <string>
#include <vector>

namespace skelcast::cli {

/// Whether ptxas's registers can go into a ranking: `--counts` not `table`,
/// nvcc found (the cache's tools), and a model that reads registers
/// (model::readsRegisters).
bool ptxasRegistersOn(const InputOptions &io, const model::ModelOptions &mo);

/// ptxasRegistersOn, for `path`'s kernels: a C file (not standard input).
bool readsPtxasRegisters(const InputOptions &io, const std::string &path, const model::ModelOptions &mo);

/// ptxas's registers per thread of `layouts` of kernel `k` of the C file
/// `path`, read with the skeletonizer's options `so` and the run's compile
/// cache, or why each keeps the estimate.
std::vector<model::CompiledRegisterCount> ptxasRegisters(toolchain::CompileCache &cache,
                                                         const frontend::SkeletonizeOptions &so,
                                                         const std::string &path, size_t k,
                                                         const std::vector<layout::Layout> &layouts,
                                                         std::ostream &diagnostics);

/// `kp`, ranked by the estimate with keepTop = model::rerankCandidates(keep),
/// re-ranked with ptxas's registers of its layouts and cut to `keep`; a warning
/// (through `warn`) says how many kept the estimate and why the first did.
model::KernelProjection rerankedWithPtxas(toolchain::CompileCache &cache,
                                          const frontend::SkeletonizeOptions &so, const std::string &path,
                                          const model::ProgramAnalysis &analysis, size_t k,
                                          const hw::HwSpec &hw, const model::ModelOptions &mo,
                                          model::KernelProjection kp, size_t keep,
                                          std::ostream &diagnostics,
                                          const std::function<void(const Warning &)> &warn);

} // namespace skelcast::cli
