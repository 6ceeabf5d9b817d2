// ptxas's registers per thread, and the load groups of the SASS, for the
// layouts a command ranks or validates (docs/model.md, "Registers from ptxas",
// "Load groups from the SASS"): shared by project, explain and validate. The C
// file's layouts are emitted once per kernel and each built with nvcc
// (emit::compiledResources, through the run's CompileCache); the model gets
// the counts as values (model::rerankWithCompiled, validate).
#pragma once

#include "Inputs.h"
#include "skelcast/model/Rerank.h"
#include "skelcast/model/Validation.h"

#include <functional>
#include <optional>
#include <iosfwd>
#include <string>
#include <vector>

namespace skelcast::cli {

/// Whether the layouts are built for the ranking: ptxas's registers with
/// `--counts` not `table`, nvcc found (the cache's tools) and a model that
/// reads registers (model::readsRegisters); or the SASS's load groups with
/// `--load-groups sass` and a model that reads them (model::readsLoadGroups),
/// where a missing nvcc or cuobjdump is each layout's reason for the estimate.
bool layoutBuildsOn(const InputOptions &io, const model::ModelOptions &mo);

/// `--load-groups sass` asked for an input that has no C to emit (standard
/// input, a skeleton): the warning that says the estimate stays.
std::optional<Warning> loadGroupsNotRead(const InputOptions &io, const std::string &path,
                                         const model::ModelOptions &mo);

/// layoutBuildsOn, for `path`'s kernels: a C file (not standard input).
bool readsLayoutBuilds(const InputOptions &io, const std::string &path, const model::ModelOptions &mo);

/// ptxas's registers per thread of `layouts` of kernel `k` of the C file
/// `path`, read with the skeletonizer's options `so` and the run's compile
/// cache (io.compileCache), or why each keeps the estimate; where io.counts
/// resolves to `sass`, the load groups of each layout's SASS too.
std::vector<model::CompiledCounts> compiledLayoutCounts(const InputOptions &io,
                                                         const model::ModelOptions &mo,
                                                         const frontend::SkeletonizeOptions &so,
                                                         const std::string &path, size_t k,
                                                         const std::vector<layout::Layout> &layouts,
                                                         std::ostream &diagnostics);

/// The program today's `emit` writes for each of `layouts` of kernel `k` of
/// the C file `path` (validate --check-programs): its fingerprint, and where
/// build[i] asks and `cache` (nvcc) is given, ptxas's report; nullopt where it
/// was not emitted, with the reason in `why[i]` (or why it was not built).
std::vector<std::optional<model::ProgramIdentity>> programIdentities(toolchain::CompileCache *cache,
                                                                  const frontend::SkeletonizeOptions &so,
                                                                  const std::string &path, size_t k,
                                                                  const std::vector<layout::Layout> &layouts,
                                                                  const std::vector<bool> &build,
                                                                  std::ostream &diagnostics,
                                                                  std::vector<std::string> &why);

/// One line for each kind of count asked for (ptxas's registers with
/// `--counts` not table, the SASS's load groups with `--load-groups sass`) that
/// some of `counts` lack: how many of the `which` kept the model's estimate and
/// why the first did. Empty when nothing was missing.
std::vector<std::string> estimatesKept(const InputOptions &io, const model::ModelOptions &mo,
                                       const std::vector<model::CompiledCounts> &counts,
                                       const std::string &which);

/// `kp`, ranked by the estimate with keepTop = model::rerankCandidates(keep),
/// re-ranked with ptxas's registers of its layouts and cut to `keep`; a warning
/// (through `warn`) says how many kept the estimate and why the first did.
model::KernelProjection rerankedWithCompiled(const InputOptions &io,
                                          const frontend::SkeletonizeOptions &so, const std::string &path,
                                          const model::ProgramAnalysis &analysis, size_t k,
                                          const hw::HwSpec &hw, const model::ModelOptions &mo,
                                          model::KernelProjection kp, size_t keep,
                                          std::ostream &diagnostics,
                                          const std::function<void(const Warning &)> &warn);

} // namespace skelcast::cli
