#include "skelcast/emit/CompiledCounts.h"

#include "skelcast/emit/Emit.h"
#include "skelcast/layout/KernelInfo.h"
#include "skelcast/skeleton/Eval.h"
#include "skelcast/support/Hash.h"
#include "skelcast/toolchain/CompilerCounts.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <map>
#include <set>
#include <stdexcept>

namespace skelcast::emit {
namespace {

/// nvcc's builds of the emitted kernels, on one thread a core: the loops that
/// read them then find each one done.
void buildSideBySide(const std::vector<EmittedKernel> &kernels, toolchain::CompileCache &cache) {
  std::vector<std::string> sources;
  for (const EmittedKernel &e : kernels)
    sources.push_back(e.cuda);
  cache.buildAll(sources);
}

/// A layout's tag in the emitted code, from its content (a hash of its fields).
std::string contentTag(const layout::Layout &l) {
  std::string key = fmt::format("b{}f{}c{}", fmt::join(l.block, ","), fmt::join(l.fold, ","), fmt::join(l.cached, ","));
  for (const auto &[loop, size] : l.stages)
    key += fmt::format("s{}:{}", loop, size);
  for (const auto &[loop, factor] : l.unroll)
    key += fmt::format("u{}:{}", loop, factor);
  return "l" + fnv1aHex(key);
}

} // namespace

frontend::SkeletonizeResult skeletonizeWithCompiledCounts(const std::string &cpath,
                                                          const frontend::SkeletonizeOptions &opts,
                                                          toolchain::CountSource source,
                                                          toolchain::CompileCache &cache,
                                                          std::ostream &diagnostics) {
  using toolchain::CountSource;
  if (source == CountSource::Table || source == CountSource::Auto)
    return frontend::skeletonizeFile(cpath, opts, diagnostics);
  std::map<size_t, std::string> why; // kernel -> why the table stays
  EmitOptions eo;
  eo.skipUnsupported = true;
  std::vector<Warning> warnings;
  EmitResult er = emitCuda(
      cpath, opts, eo,
      [&](const frontend::SkeletonizeResult &res) {
        std::vector<KernelChoice> out;
        layout::FileContext fc = layout::fileContext(res.file);
        for (size_t k = 0; k < res.file.kernels.size(); ++k) {
          try {
            KernelChoice c;
            c.kernel = k;
            c.info = layout::analyzeKernel(res.file, res.file.kernels[k], res.file.kernelName(k), fc);
            c.layout = naiveLayout(*c.info);
            c.tag = "naive";
            out.push_back(std::move(c));
          } catch (const InputError &e) {
            why[k] = "its naive layout: " + e.message();
          }
        }
        return out;
      },
      diagnostics, warnings);
  frontend::SkeletonizeResult r = std::move(er.source);
  for (const Warning &w : er.skipped)
    for (size_t k = 0; k < r.file.kernels.size(); ++k)
      if (w.message.find("'" + r.file.kernelName(k) + "'") != std::string::npos && !why.count(k))
        why[k] = "not emitted: " + w.message;
  skeleton::MacroTable env;
  try {
    env = skeleton::evalMacros(r.file);
  } catch (const InputError &) {
  }
  bool sass = source == CountSource::Sass;
  std::string origin = sass ? "SASS (nvcc -O3 -arch=sm_90, cuobjdump -sass)"
                            : "PTX (clang-19 -O3 --cuda-gpu-arch=sm_90)";
  std::vector<bool> emitted(r.file.kernels.size(), false);
  if (sass)
    buildSideBySide(er.kernels, cache);
  for (const EmittedKernel &e : er.kernels) {
    if (e.kernelIndex >= r.file.kernels.size())
      continue;
    emitted[e.kernelIndex] = true;
    toolchain::Compiled c = sass ? cache.sass(e.cuda) : cache.ptx(e.cuda);
    if (!c.ok) {
      why[e.kernelIndex] = c.error;
      continue;
    }
    try {
      toolchain::CodeCounts cc = sass ? toolchain::countSass(c.text) : toolchain::countPtx(c.text);
      toolchain::AppliedCounts a = toolchain::applyCompiledCounts(
          r.file.kernels[e.kernelIndex], cc, origin, env, r.file.path,
          sass ? toolchain::LiteralMoves::InCount : toolchain::LiteralMoves::NotInCount);
      if (!a.ok)
        why[e.kernelIndex] = a.why;
    } catch (const std::runtime_error &err) {
      why[e.kernelIndex] = std::string("reading the compiled code: ") + err.what();
    }
  }
  for (size_t k = 0; k < r.file.kernels.size(); ++k)
    if (!emitted[k] && !why.count(k))
      why[k] = "its naive layout was not emitted";
  if (!why.empty()) {
    std::string msg = fmt::format("instruction counts from the table, not the {} (--counts):",
                                  sass ? "SASS" : "PTX");
    for (auto &[k, w] : why)
      msg += fmt::format(" kernel '{}': {};", r.file.kernelName(k), w);
    msg.pop_back();
    // at the kernel when the skeleton knows where it is, else at its function
    SourceLoc loc{cpath, 0, 0};
    if (const SourceLoc &kl = r.file.kernels[why.begin()->first].loc; !kl.file.empty() && kl.line > 0)
      loc = kl;
    else if (!r.functions.empty())
      loc = r.functions.front().loc;
    r.warnings.push_back({loc, msg});
  }
  return r;
}

namespace {

/// Kernel `k` of the C file in each of `layouts`, emitted by one emitCuda call
/// (the C file is read once), each distinct layout once; `at` maps an emitted
/// kernel's tag to the indices of its layouts, and why[i] says why layout i
/// was not emitted (empty where it was).
struct LayoutEmission {
  EmitResult er;
  std::map<std::string, std::vector<size_t>> at;
};
LayoutEmission emitLayouts(const std::string &cpath, const frontend::SkeletonizeOptions &opts, size_t k,
                           const std::vector<layout::Layout> &layouts, std::ostream &diagnostics,
                           std::vector<std::string> &why) {
  LayoutEmission le;
  why.assign(layouts.size(), "");
  // Each distinct layout once, tagged by its content: the tag is in the emitted
  // source, so the same layout emits the same source, and finds the same build
  // in the cache, whichever list or command asks for it.
  std::vector<std::string> distinct; // tags, in the order of first appearance
  for (size_t i = 0; i < layouts.size(); ++i) {
    std::string tag = contentTag(layouts[i]);
    if (le.at[tag].empty())
      distinct.push_back(tag);
    le.at[tag].push_back(i);
  }
  EmitOptions eo;
  eo.skipUnsupported = true;
  std::vector<Warning> warnings;
  le.er = emitCuda(
      cpath, opts, eo,
      [&](const frontend::SkeletonizeResult &) {
        std::vector<KernelChoice> choices;
        for (const std::string &tag : distinct) {
          KernelChoice c;
          c.kernel = k;
          c.layout = layouts[le.at[tag].front()];
          c.tag = tag;
          choices.push_back(std::move(c));
        }
        return choices;
      },
      diagnostics, warnings);
  // The emitter skips the layouts it cannot write in the order of the choices,
  // one warning each: the n-th choice not emitted is the n-th skipped.
  std::set<std::string> emitted;
  for (const EmittedKernel &e : le.er.kernels)
    emitted.insert(e.tag);
  size_t next = 0;
  for (const std::string &tag : distinct)
    if (!emitted.count(tag)) {
      std::string w = next < le.er.skipped.size() ? "not emitted: " + le.er.skipped[next++].message : "not emitted";
      for (size_t i : le.at[tag])
        why[i] = w;
    }
  return le;
}

/// ptxas's report of `cuda`'s nvcc build (the cache's), or nullopt with why
/// not: the build failed, or its report could not be read.
std::optional<toolchain::ResourceUsage> builtUsage(toolchain::CompileCache &cache, const std::string &cuda,
                                                   std::string &whyNot) {
  toolchain::Compiled c = cache.resourceUsage(cuda);
  if (!c.ok) {
    whyNot = c.error;
    return std::nullopt;
  }
  try {
    return toolchain::parseResourceUsage(c.text);
  } catch (const std::runtime_error &err) {
    whyNot = err.what();
    return std::nullopt;
  }
}

} // namespace

std::vector<std::optional<CompiledLayout>> compiledResources(const std::string &cpath,
                                                             const frontend::SkeletonizeOptions &opts,
                                                             size_t k,
                                                             const std::vector<layout::Layout> &layouts,
                                                             toolchain::CompileCache &cache,
                                                             bool sassLoadGroups,
                                                             std::ostream &diagnostics,
                                                             std::vector<std::string> &why) {
  std::vector<std::optional<CompiledLayout>> out(layouts.size());
  LayoutEmission le = emitLayouts(cpath, opts, k, layouts, diagnostics, why);
  EmitResult &er = le.er;
  std::map<std::string, std::vector<size_t>> &at = le.at;
  buildSideBySide(er.kernels, cache);
  for (const EmittedKernel &e : er.kernels) {
    std::optional<CompiledLayout> one;
    std::string whyNot;
    if (std::optional<toolchain::ResourceUsage> usage = builtUsage(cache, e.cuda, whyNot))
      one = CompiledLayout{*usage, std::nullopt};
    // The same build's SASS (the cache compiled both); without it the
    // estimate's groups stay, as they do where no load is waited for.
    if (one && sassLoadGroups) {
      toolchain::Compiled sass = cache.sass(e.cuda);
      if (!sass.ok) {
        one->whyNoGroups = sass.error;
      } else {
        try {
          toolchain::SassLoadGroups g = toolchain::countSassLoadGroups(sass.text);
          if (g.groups > 0)
            one->loadGroups = g;
        } catch (const std::runtime_error &err) {
          one->whyNoGroups = std::string("reading the SASS: ") + err.what();
        }
      }
    }
    for (size_t i : at[e.tag]) {
      out[i] = one;
      why[i] = whyNot;
    }
  }
  return out;
}

std::vector<std::optional<TodaysProgram>> todaysPrograms(const std::string &cpath,
                                                         const frontend::SkeletonizeOptions &opts, size_t k,
                                                         const std::vector<layout::Layout> &layouts,
                                                         toolchain::CompileCache *cache,
                                                         const std::vector<bool> &build,
                                                         std::ostream &diagnostics, std::vector<std::string> &why) {
  std::vector<std::optional<TodaysProgram>> out(layouts.size());
  LayoutEmission le = emitLayouts(cpath, opts, k, layouts, diagnostics, why);
  std::vector<EmittedKernel> toBuild;
  for (const EmittedKernel &e : le.er.kernels) {
    bool wanted = false;
    for (size_t i : le.at[e.tag]) {
      out[i] = TodaysProgram{e.fingerprint, std::nullopt, ""};
      wanted = wanted || (i < build.size() && build[i]);
    }
    if (wanted && cache)
      toBuild.push_back(e);
  }
  if (!cache)
    return out;
  buildSideBySide(toBuild, *cache);
  for (const EmittedKernel &e : toBuild) {
    std::string whyNot;
    std::optional<toolchain::ResourceUsage> usage = builtUsage(*cache, e.cuda, whyNot);
    for (size_t i : le.at[e.tag]) {
      out[i]->usage = usage;
      out[i]->whyNoUsage = whyNot;
    }
  }
  return out;
}

} // namespace skelcast::emit
