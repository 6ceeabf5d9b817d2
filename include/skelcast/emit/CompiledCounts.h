/// \file
/// The skeletonizer with its `comp` counts from a compiler (docs/skeletonizer.md,
/// "Counts from a compiler"): the C file is skeletonized once, each kernel's
/// naive layout emitted as CUDA (EmitCuda), compiled (toolchain::CompileCache:
/// SASS of nvcc, or PTX of clang-19) and counted, and its `comp`s set from the
/// counts (toolchain::applyCompiledCounts). A kernel that cannot be emitted,
/// compiled or matched keeps the table's counts (CostModel.cpp), and the file
/// gets one warning that says which and why.
#pragma once

#include "skelcast/frontend/Skeletonizer.h"
#include "skelcast/layout/Layout.h"
#include "skelcast/toolchain/InstructionCounts.h"
#include "skelcast/toolchain/Toolchain.h"

#include <optional>
#include <vector>

#include <iosfwd>
#include <string>

namespace skelcast::emit {

/// `source` is Sass or Ptx (resolved); Table skeletonizes as skeletonizeFile.
frontend::SkeletonizeResult skeletonizeWithCompiledCounts(const std::string &cpath,
                                                          const frontend::SkeletonizeOptions &opts,
                                                          toolchain::CountSource source,
                                                          toolchain::CompileCache &cache,
                                                          std::ostream &diagnostics);

/// What the compiler made of one layout's emitted kernel.
struct CompiledLayout {
  toolchain::ResourceUsage usage; ///< ptxas's registers, stack frame, spills
  /// The SASS's load groups, where they were asked for and cuobjdump read them
  /// (docs/model.md, `mlp`, "Load groups from the SASS").
  std::optional<toolchain::SassLoadGroups> loadGroups;
  /// Asked for and not read: why (cuobjdump missing or failing). Empty where
  /// read, or where the SASS waits for no global load.
  std::string whyNoGroups;
};

/// ptxas's registers per thread, stack frame and spills of kernel `k` of the C
/// file in each of `layouts` (docs/model.md, "Registers from ptxas"), and with
/// `sassLoadGroups` the load groups of its SASS: all emitted by one emitCuda
/// call, each built with nvcc (the cache's); nullopt where that fails, with the
/// reason in `why[i]` (empty where it was read).
std::vector<std::optional<CompiledLayout>> compiledResources(const std::string &cpath,
                                                             const frontend::SkeletonizeOptions &opts,
                                                             size_t k,
                                                             const std::vector<layout::Layout> &layouts,
                                                             toolchain::CompileCache &cache,
                                                             bool sassLoadGroups,
                                                             std::ostream &diagnostics,
                                                             std::vector<std::string> &why);

/// The program today's emit writes for one layout: its fingerprint
/// (programFingerprint, no compiler needed) and, where it was built, ptxas's
/// report (or why not).
struct TodaysProgram {
  std::string fingerprint;
  std::optional<toolchain::ResourceUsage> usage;
  std::string whyNoUsage;
};

/// Kernel `k` of the C file in each of `layouts` as today's emit writes it
/// (validate --check-programs): every emitted one's fingerprint, and where
/// build[i] asks and `cache` is given, ptxas's report of its nvcc build;
/// nullopt where it was not emitted, with the reason in `why[i]`.
std::vector<std::optional<TodaysProgram>> todaysPrograms(const std::string &cpath,
                                                         const frontend::SkeletonizeOptions &opts, size_t k,
                                                         const std::vector<layout::Layout> &layouts,
                                                         toolchain::CompileCache *cache,
                                                         const std::vector<bool> &build,
                                                         std::ostream &diagnostics, std::vector<std::string> &why);

} // namespace skelcast::emit
