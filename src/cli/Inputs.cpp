#include "Inputs.h"
#include "ProjectConfig.h"

#include "skelcast/skeleton/Parser.h"
#include "skelcast/skeleton/Sample.h"
#include "skelcast/support/Diagnostic.h"
#include "skelcast/support/SourceFiles.h"
#include "skelcast/support/TextFile.h"
#ifdef SKELCAST_HAVE_FRONTEND
#include "skelcast/frontend/Skeletonizer.h"
#ifdef SKELCAST_HAVE_FRONTEND
#include "skelcast/emit/CompiledCounts.h"
#endif
#include <optional>
#endif

#include <fmt/format.h>

#include "skelcast/support/TextFile.h"

#include <filesystem>
#include <regex>
#include <ostream>
#include <sstream>

namespace skelcast::cli {
namespace {

/// Set the trip-count hint of every loop indexed `index`; returns how many.
int setTrip(std::vector<skeleton::Stmt> &body, const std::string &index, int64_t trip) {
  int n = 0;
  for (auto &s : body) {
    if (s.kind == skeleton::Stmt::Kind::Loop) {
      if (s.loop.index == index) {
        s.loop.tripHint = trip;
        ++n;
      }
      n += setTrip(s.loop.body, index, trip);
    } else if (s.kind == skeleton::Stmt::Kind::Branch) {
      n += setTrip(s.branch.thenBody, index, trip);
      n += setTrip(s.branch.elseBody, index, trip);
    }
  }
  return n;
}

} // namespace

std::string relativeTo(const std::string &anchorFile, const std::string &target) {
  namespace fs = std::filesystem;
  fs::path t(target), base = fs::path(anchorFile).parent_path();
  if (t.is_absolute() == base.is_absolute()) {
    fs::path r = t.lexically_relative(base.empty() ? fs::path(".") : base);
    if (!r.empty())
      return r.string();
  }
  return fs::absolute(t).lexically_normal().string();
}

namespace {

void applyOptions(skeleton::SkeletonFile &f, const InputOptions &opts) {
  for (const auto &[name, value] : opts.macroValues) {
    skeleton::Macro *m = nullptr;
    std::string names;
    for (auto &x : f.macros) {
      names += (names.empty() ? "" : ", ") + x.name;
      if (x.name == name)
        m = &x;
    }
    if (!m)
      throw InputError({"--sweep", 0, 0},
                       fmt::format("'{}' is not a macro of {} ({})", name, f.path,
                                   names.empty() ? "it has none" : "its macros: " + names));
    m->value = skeleton::Expr::lit(value, m->loc);
  }
  for (const auto &[index, trip] : opts.trips) {
    if (trip < 0)
      throw InputError({f.path, 0, 0},
                       fmt::format("trip count of loop '{}' must not be negative, is {}", index, trip));
    int n = 0;
    for (auto &k : f.kernels)
      n += setTrip(k.body, index, trip);
    if (n == 0)
      throw InputError({f.path, 0, 0},
                       fmt::format("a trip count is given for loop '{}', but no loop has that index",
                                   index));
  }
  for (const auto &[array, file] : opts.samples) {
    skeleton::Array *a = nullptr;
    for (auto &x : f.arrays)
      if (x.name == array)
        a = &x;
    if (!a)
      throw InputError({f.path, 0, 0},
                       fmt::format("a sample is given for array '{}', but no array has that name", array));
    a->sampleFile = relativeTo(f.path, file);
    // Read it now so that a bad file is reported here, not by the first kernel.
    skeleton::loadSample(skeleton::resolveRelative(f.path, *a->sampleFile), a->loc);
  }
}

} // namespace

InputOptions withSize(InputOptions opts, const std::string &path, const std::string &name,
                      int64_t value) {
  if (!isCInput(path)) {
    opts.macroValues[name] = value;
    return opts;
  }
  if (auto it = opts.extents.find(name); it != opts.extents.end()) {
    for (auto &e : it->second)
      e = value;
    return opts;
  }
  // `#define NAME` and `#ifndef NAME` (or `defined(NAME)`) in the file's text.
  std::string text = readTextFile(path);
  auto has = [&](const std::string &re) {
    return std::regex_search(text, std::regex(re));
  };
  bool defines = has("(^|\\n)[ \\t]*#[ \\t]*define[ \\t]+" + name + "\\b");
  bool tests = has("#[ \\t]*ifndef[ \\t]+" + name + "\\b") || has("defined[ \\t]*\\(?[ \\t]*" + name + "\\b");
  if (!defines && !tests)
    throw InputError({"--sweep", 0, 0},
                     fmt::format("'{}' is neither a macro of {} nor an --extent name", name, path));
  if (defines && !tests)
    throw InputError({"--sweep", 0, 0},
                     fmt::format("{} defines '{}' without '#ifndef {}' around it, so -D {}=... "
                                 "cannot change it: add the guard, or give the size as --extent",
                                 path, name, name, name));
  opts.compilerArgs.push_back(fmt::format("-D{}={}", name, value));
  return opts;
}

bool isCInput(const std::string &path) { return isCSource(path); }

bool readsAsC(const InputOptions &io, const std::string &path) {
  return io.language.empty() ? isCInput(path) : io.language == "c";
}

std::string inputName(const std::string &path) { return path == "-" ? kStdinName : path; }

#ifdef SKELCAST_HAVE_FRONTEND
frontend::SkeletonizeResult skeletonizeInput(const std::string &path,
                                             frontend::SkeletonizeOptions so,
                                             std::ostream &diagnostics,
                                             toolchain::CountSource counts,
                                             toolchain::CompileCache *cache) {
  if (auto cfg = findProjectConfig(path)) // the project's flags first: the command line wins
    so.clangArgs.insert(so.clangArgs.begin(), cfg->flags.begin(), cfg->flags.end());
  if (so.compilationDbDir.empty())
    if (auto db = findCompilationDatabase(path))
      so.compilationDbDir = *db;
  if (path == "-") {
    frontend::SkeletonizeResult r =
        frontend::skeletonizeCode(readStandardInput(), kStdinName, so, diagnostics);
    if (counts != toolchain::CountSource::Table) {
      Warning w;
      w.loc = SourceLoc{kStdinName, 0, 0};
      w.message = fmt::format("instruction counts from the table, not a compiler (--counts={}): "
                              "standard input is not emitted",
                              toolchain::countSourceName(counts));
      r.warnings.push_back(std::move(w));
    }
    return r;
  }
  if (counts == toolchain::CountSource::Table)
    return frontend::skeletonizeFile(path, so, diagnostics);
  std::optional<toolchain::CompileCache> own;
  if (!cache)
    cache = &own.emplace(toolchain::findTools(), toolchain::defaultBuildStore());
  toolchain::CountSource src = toolchain::resolve(counts, cache->tools());
  if (src == toolchain::CountSource::Table) { // auto, and no compiler at all
    frontend::SkeletonizeResult r = frontend::skeletonizeFile(path, so, diagnostics);
    Warning w;
    w.loc = SourceLoc{path, 0, 0};
    w.message = "instruction counts from the table: neither nvcc with cuobjdump nor clang-19 is "
                "installed (--counts=auto)";
    r.warnings.push_back(std::move(w));
    return r;
  }
  return emit::skeletonizeWithCompiledCounts(path, so, src, *cache, diagnostics);
}
#endif

frontend::SkeletonizeOptions skeletonizeOptions(const InputOptions &opts) {
  frontend::SkeletonizeOptions so;
  so.clangArgs = opts.compilerArgs;
  so.function = opts.function;
  so.compilationDbDir = opts.compilationDbDir;
  so.extents = opts.extents;
  so.trips = opts.trips;
  so.samples = opts.samples;
  so.assumeAliasing = opts.assumeAliasing;
  so.renderWarning = opts.renderWarning;
  so.colorDiagnostics = opts.colorDiagnostics;
  return so;
}

skeleton::SkeletonFile loadSkeleton(const std::string &path) {
  std::ostringstream ignored;
  return loadSkeleton(path, {}, ignored).file;
}

LoadedInput loadSkeleton(const std::string &path, const InputOptions &opts,
                         std::ostream &diagnostics) {
  if (readsAsC(opts, path)) {
#ifdef SKELCAST_HAVE_FRONTEND
    frontend::SkeletonizeOptions so = skeletonizeOptions(opts);
    frontend::SkeletonizeResult r =
        skeletonizeInput(path, so, diagnostics, opts.counts, opts.compileCache.get());
    return {std::move(r.file), std::move(r.warnings), std::move(r.functions)};
#else
    throw InputError({path, 0, 0}, "C input needs the skeletonizer, which is not part of this build");
#endif
  }
  if (!opts.compilerArgs.empty())
    throw InputError({path, 0, 0}, fmt::format("compiler arguments are given, but this is not a C or C++ input ({})", kCSourceExtensionList));
  LoadedInput in;
  in.file = path == "-" ? skeleton::parseSkeleton(readStandardInput(), kStdinName)
                        : skeleton::parseSkeletonFile(path);
  applyOptions(in.file, opts);
  return in;
}

} // namespace skelcast::cli
