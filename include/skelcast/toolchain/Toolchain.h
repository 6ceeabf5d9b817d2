/// \file
/// The GPU compilers skelcast may call (docs/skeletonizer.md, "Counts from a
/// compiler"): clang-19's NVPTX backend (CUDA to PTX, no CUDA toolkit needed)
/// and, where the CUDA toolkit is installed, nvcc (CUDA to a cubin) with
/// cuobjdump (the cubin's SASS and ptxas's register and shared-memory use).
/// The only place skelcast starts another program for a projection; the
/// model gets the results as values. Every use has a fallback: a tool that is
/// not found or fails gives an error string, never an exception.
#pragma once

#include "skelcast/toolchain/InstructionCounts.h"

#include <map>
#include <mutex>
#include <optional>
#include <string>

namespace skelcast::toolchain {

/// Where each tool is; empty when not found.
struct Tools {
  std::string clang;     ///< clang-19 (or $SKELCAST_CLANG)
  std::string nvcc;      ///< nvcc
  std::string cuobjdump; ///< cuobjdump, with nvdisasm beside it or on PATH (it needs one)
  bool hasSass() const { return !nvcc.empty() && !cuobjdump.empty(); }
  bool hasPtxas() const { return !nvcc.empty(); }
  bool hasPtx() const { return !clang.empty(); }
};

/// Look for the tools on PATH, then in $CUDA_HOME/bin and /usr/local/cuda/bin.
Tools findTools();

/// Where instruction counts come from (`--counts`).
enum class CountSource { Auto, Sass, Ptx, Table };
/// "auto", "sass", "ptx", "table"; nullopt for anything else.
std::optional<CountSource> parseCountSource(const std::string &s);
const char *countSourceName(CountSource s);
/// Auto resolved with the tools at hand: sass if nvcc and cuobjdump, else ptx
/// if clang-19, else table. The others as they are.
CountSource resolve(CountSource s, const Tools &t);

/// One compilation's result: the text (PTX, SASS, resource usage) or why there is none.
struct Compiled {
  bool ok = false;
  std::string text;  ///< ok: the compiler's output
  std::string error; ///< !ok: the command and what it printed (its first lines)
};

/// Compilations of emitted CUDA sources, each done once per source text and
/// kind (a hash of the text and the command is the key): a batch of files,
/// or a validation of several layouts of one file, compiles each nest once.
/// One per command run; its calls may come from several threads (one
/// compilation at a time).
class CompileCache {
public:
  explicit CompileCache(Tools tools) : tools_(std::move(tools)) {}
  const Tools &tools() const { return tools_; }

  /// `clang -x cuda --cuda-device-only --cuda-gpu-arch=sm_90 -nocudainc -nocudalib -O3 -S`.
  Compiled ptx(const std::string &cuda);
  /// `nvcc -cubin -arch=sm_90 -O3`, then `cuobjdump -sass`.
  Compiled sass(const std::string &cuda);
  /// The same compilation's `-Xptxas -v` report (registers, shared memory; needs nvcc only).
  Compiled resourceUsage(const std::string &cuda);
  /// How many compilers were run, and how many answers came from the cache.
  int runs() const { return runs_; }
  int hits() const { return hits_; }
  CompileCache(const CompileCache &) = delete;
  CompileCache &operator=(const CompileCache &) = delete;

private:
  Compiled cached(const std::string &kind, const std::string &cuda);
  Compiled compile(const std::string &kind, const std::string &cuda);
  Tools tools_;
  std::map<std::string, Compiled> done_;
  std::mutex mutex_;
  int runs_ = 0, hits_ = 0;
};

} // namespace skelcast::toolchain
