// What `emit` and `validate --run` share: choosing the layouts of a C file's
// kernels and writing their CUDA files.
#pragma once

#ifdef SKELCAST_HAVE_FRONTEND

#include "Diagnostics.h"
#include "SkeletonizeOptions.h"
#include "skelcast/emit/Emit.h"
#include "skelcast/model/Project.h"

#include <iosfwd>
#include <map>
#include <string>
#include <vector>

namespace skelcast::cli {

struct EmitChoice {
  std::string kernel;               ///< --kernel, empty = all
  std::vector<std::string> layouts; ///< layout strings or "naive"
  size_t top = 0;                   ///< the N best of the projection
  bool skipUnsupported = false;
  /// With `top`: kernel index -> its N best, ranked beforehand (validate --run's
  /// re-rank with ptxas's registers); kernels not here are ranked by the estimate.
  std::map<size_t, std::vector<layout::Layout>> ranked;
};

/// The kernels and layouts `c` names, for emitCuda's chooser.
std::vector<emit::KernelChoice> chooseLayouts(const frontend::SkeletonizeResult &res,
                                              const EmitChoice &c, const hw::HwSpec &hw,
                                              const model::ModelOptions &mo);

struct EmittedSet {
  std::vector<std::string> cudaFiles; ///< written, one per kernel
  std::vector<emit::EmittedKernel> kernels;
};

/// Emit and write `<stem>.cu` and `<stem>.skel` for each choice into `dir`
/// (created if missing), all files or none. The skeletonizer's warnings and
/// the layouts skipped are printed on `err` through `diag` (source line, caret,
/// --warnings-as-errors), as project prints them.
EmittedSet emitFiles(const std::string &cfile, const frontend::SkeletonizeOptions &so,
                     const EmitChoice &choice, const hw::HwSpec &hw,
                     const model::ModelOptions &mo, const std::string &dir,
                     DiagnosticPrinter &diag, std::ostream &err);

} // namespace skelcast::cli

#endif
