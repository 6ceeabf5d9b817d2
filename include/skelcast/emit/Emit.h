/// \file
/// `skelcast emit`: the CUDA of a layout (docs/emit.md). For each chosen kernel
/// and layout, one self-contained `.cu` file: the kernel with the layout's
/// thread mapping (B, F, cached data through shared memory, S, L) whose
/// statements are the C nest's own, printed from Clang's AST, and a host driver
/// that fills the arrays, runs the C nest on the host for reference, launches,
/// checks and times the kernel and prints a measurement record that
/// `skelcast validate` reads (docs/validation.md).
///
/// The interface is free of Clang: the chooser sees the skeletons (and so can
/// enumerate and rank with the core library) and says what to emit; the AST is
/// used inside, while it lives. A layout or C construct the emitter cannot
/// write is an InputError naming the part, never a kernel that computes
/// something else.
#pragma once

#include "skelcast/frontend/Skeletonizer.h"
#include "skelcast/layout/Layout.h"
#include "skelcast/skeleton/Skeleton.h"

#include <functional>
#include <optional>
#include <iosfwd>
#include <string>
#include <vector>

namespace skelcast::emit {

/// One kernel (index into the file's kernels) in one layout.
struct KernelChoice {
  size_t kernel = 0;
  layout::Layout layout;
  std::string tag; ///< a short name for files: "naive", "top1", ...
  /// The kernel as the chooser analysed it (in its program); analysed again
  /// from the file when absent.
  std::optional<layout::KernelInfo> info;
};

/// The naive layout of a kernel, the start of every port: one task per thread,
/// 256 threads per block (16 x 16 in 2-D, 4 x 8 x 8 in 3-D, each side at most
/// the dimension's size rounded up to a power of two), nothing folded, staged,
/// cached or unrolled.
layout::Layout naiveLayout(const layout::KernelInfo &ki);

struct EmittedKernel {
  size_t kernelIndex = 0;   ///< into the file's kernels
  std::string kernel;       ///< the skeleton kernel's name
  std::string tag;
  std::string layoutString; ///< canonical
  std::string size;         ///< the loop space, "800x800"
  std::string cuda;         ///< the whole .cu file
  std::string skeleton;     ///< a .skel holding this kernel alone (the record's "skeleton")
  std::string fileStem;     ///< "<kernel>_<tag>"
  std::string fingerprint;  ///< programFingerprint(cuda): the record's field "program"
};

/// What identifies an emitted program: FNV-1a (16 hex digits) of the whole
/// `.cu` text (the kernel and the host driver that launches it and fills its
/// arrays) with its tag and size placeholders unfilled, comments dropped, runs
/// of blank space made one space, and the line that prints the fingerprint
/// left out. The driver prints it in its record (field "program"), so that
/// `validate --check-programs` can tell whether today's emit still writes the
/// program that was measured (docs/validation.md).
std::string programFingerprint(const std::string &cuda);

/// Decides what to emit once the C file is skeletonized.
using Chooser = std::function<std::vector<KernelChoice>(const frontend::SkeletonizeResult &)>;

struct EmitOptions {
  /// Where the written `.skel` files go relative to the `.cu` files' directory
  /// (the record names `<stem>.skel`); sample files are named relative to it.
  std::string outDir = ".";
  /// A layout the emitter cannot write is skipped (EmitResult::skipped says
  /// why) instead of failing the whole run.
  bool skipUnsupported = false;
};

struct EmitResult {
  std::vector<EmittedKernel> kernels;
  std::vector<Warning> skipped; ///< with skipUnsupported: what was not written, and why
  frontend::SkeletonizeResult source; ///< the file as the skeletonizer read it
};

/// Skeletonize `cpath` and emit what `choose` asks for; the skeletonizer's
/// warnings are returned in `warnings`.
EmitResult emitCuda(const std::string &cpath,
                                    const frontend::SkeletonizeOptions &opts,
                                    const EmitOptions &eo, const Chooser &choose,
                                    std::ostream &diagnostics, std::vector<Warning> &warnings);

/// The block shape as CUDA takes it (x = the last parallel dimension) and the
/// grid for a layout: ceil(size_d / (B_d x F_d)) per dimension.
struct LaunchShape {
  int64_t block[3] = {1, 1, 1};
  int64_t grid[3] = {1, 1, 1};
};
LaunchShape launchShape(const layout::KernelInfo &ki, const layout::Layout &l);

} // namespace skelcast::emit
