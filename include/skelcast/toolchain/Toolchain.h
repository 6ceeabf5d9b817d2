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

#include <future>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace skelcast::toolchain {

/// Where each tool is; empty when not found.
struct Tools {
  std::string clang;     ///< clang-19 (or $SKELCAST_CLANG)
  std::string nvcc;      ///< nvcc
  std::string cuobjdump; ///< cuobjdump, with nvdisasm beside it or on PATH (it needs one)
  std::string nvdisasm;  ///< the nvdisasm cuobjdump runs (beside it, else on PATH)
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

/// Where builds are kept between runs (docs/performance.md, "The build
/// cache"): $SKELCAST_BUILD_CACHE (a directory, or "none" for no store), else
/// $XDG_CACHE_HOME/skelcast/builds, else $HOME/.cache/skelcast/builds; empty
/// when none of them is set.
std::string defaultBuildStore();

/// Compilations of emitted CUDA sources, each done once per source text and
/// kind: a batch of files, or a validation of several layouts of one file,
/// compiles each nest once. One per command run; its calls may come from
/// several threads, and builds of different sources run at the same time.
/// With a store directory, each successful build is also kept on disk under a
/// hash of the tools' identity (each binary's path, size and time, those of the
/// code generators they run, the flags and the environment variables that add
/// flags), the kind and the source, and read back by a later run only where all
/// three match exactly: a store that cannot be read or written only costs the
/// build again.
class CompileCache {
public:
  explicit CompileCache(Tools tools, std::string store = "")
      : tools_(std::move(tools)), store_(std::move(store)) {}
  const Tools &tools() const { return tools_; }
  /// `clang -x cuda --cuda-device-only --cuda-gpu-arch=sm_90 -nocudainc -nocudalib -O3 -S`.
  Compiled ptx(const std::string &cuda);
  /// `nvcc -cubin -arch=sm_90 -O3`, then `cuobjdump -sass`.
  Compiled sass(const std::string &cuda);
  /// The same compilation's `-Xptxas -v` report (registers, shared memory; needs nvcc only).
  Compiled resourceUsage(const std::string &cuda);
  /// Build the sources' nvcc compilations (resource usage and SASS) on up to
  /// `jobs` threads (0: one per core), so that the calls above find them done.
  void buildAll(const std::vector<std::string> &cudas, unsigned jobs = 0);

  /// How many compilers were run, how many answers came from this run's
  /// builds, and how many builds were read from the store.
  int runs() const { return runs_; }
  int hits() const { return hits_; }
  int stored() const { return stored_; }
  const std::string &store() const { return store_; }

  CompileCache(const CompileCache &) = delete;
  CompileCache &operator=(const CompileCache &) = delete;

private:
  /// A build gives one answer ("ptx") or two ("res" and "sass": one nvcc run).
  using Answers = std::map<std::string, Compiled>;
  Compiled cached(const std::string &kind, const std::string &cuda);
  Answers compile(const std::string &build, const std::string &cuda);
  std::string identity(const std::string &build);
  std::optional<Answers> load(const std::string &build, const std::string &id, const std::string &cuda) const;
  void keep(const std::string &build, const std::string &id, const std::string &cuda, const Answers &a) const;
  Tools tools_;
  std::string store_;
  std::map<std::string, Compiled> done_;
  std::map<std::string, std::shared_future<void>> building_;
  std::map<std::string, std::string> identities_; ///< per build kind, computed once
  std::mutex mutex_;
  int runs_ = 0, hits_ = 0, stored_ = 0;
};

} // namespace skelcast::toolchain
