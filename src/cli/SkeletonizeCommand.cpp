// `skelcast skeletonize FILE.c [-D X=1] [-I dir] [-std=c11] [-p DIR]
//  [--function NAME] [--extent a=N,N] [--trip n=14] [--sample M=FILE] [-- clang args]`:
// print the skeletons of the file's parallel loop nests in canonical form;
// warnings (skipped nests, assumed probabilities and trip counts) on stderr.
#ifdef SKELCAST_HAVE_FRONTEND

#include "Commands.h"
#include "SkeletonizeOptions.h"
#include "skelcast/cli/Cli.h"

#include "skelcast/skeleton/Printer.h"
#include "skelcast/skeleton/Sample.h"
#include "skelcast/support/AtomicFile.h"
#include "skelcast/support/Diagnostic.h"

#include "skelcast/report/SkeletonJson.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <ostream>

namespace skelcast::cli {
namespace {

/// `name=value`; a usage error (exit 2) if malformed.
std::pair<std::string, std::string> splitAssign(const std::string &s, const char *option) {
  auto eq = s.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == s.size())
    throw CLI::ValidationError(option, "expected NAME=VALUE, got '" + s + "'");
  return {s.substr(0, eq), s.substr(eq + 1)};
}

int64_t parseInt(const std::string &s, const char *option) {
  errno = 0;
  char *end = nullptr;
  long long v = std::strtoll(s.c_str(), &end, 10);
  if (s.empty() || errno == ERANGE || !end || *end != '\0')
    throw CLI::ValidationError(option, "expected an integer, got '" + s + "'");
  return v;
}

} // namespace

void SkeletonizeCliOptions::add(CLI::App *cmd) {
  cmd->add_option("file", file, "The C file")->required();
  cmd->add_option("clang_args", rest, "Arguments for Clang (after --)");
  addFlags(cmd);
}

void SkeletonizeCliOptions::addFlags(CLI::App *cmd) {
  cmd->add_option("-D", defines, "Define a macro for Clang (-D N=800)")->allow_extra_args(false);
  cmd->add_option("-I", includes, "Add an include directory for Clang")->allow_extra_args(false);
  cmd->add_option("-s,--std", std, "The C standard (-std=c11)");
  cmd->add_option("-p", db, "Read compile flags from DIR/compile_commands.json");
  cmd->add_option("--function", function, "Only this function's loop nests");
  cmd->add_option("--extent", extents,
                  "Extents of an array (a=N,M) or the value of a scalar (n=512)")
      ->allow_extra_args(false);
  cmd->add_option("--trip", trips,
                  "Trip count of loops with this index whose bounds depend on data (n=14)")
      ->allow_extra_args(false);
  cmd->add_option("--sample", samples, "Sample contents of an index array (M=FILE)")
      ->allow_extra_args(false);
  cmd->add_flag("--assume-aliasing", assumeAliasing,
                "Any two pointers may overlap unless declared 'restrict' (refuse such loops "
                "instead of tracing where the pointers come from)");
}

frontend::SkeletonizeOptions SkeletonizeCliOptions::finish() const {
  frontend::SkeletonizeOptions opts;
  for (const auto &d : defines)
    opts.clangArgs.push_back("-D" + d);
  for (const auto &i : includes)
    opts.clangArgs.push_back("-I" + i);
  if (!std.empty()) {
    // CLI11 reads `-std=c11` as `-s` with the value `td=c11`
    std::string v = std.rfind("td=", 0) == 0 ? std.substr(3) : std;
    opts.clangArgs.push_back("-std=" + v);
  }
  opts.clangArgs.insert(opts.clangArgs.end(), rest.begin(), rest.end());
  opts.compilationDbDir = db;
  opts.function = function;
  opts.assumeAliasing = assumeAliasing;
  for (const auto &e : extents) {
    auto [name, values] = splitAssign(e, "--extent");
    std::vector<int64_t> v;
    size_t pos = 0;
    while (pos <= values.size()) {
      size_t comma = values.find(',', pos);
      if (comma == std::string::npos)
        comma = values.size();
      v.push_back(parseInt(values.substr(pos, comma - pos), "--extent"));
      pos = comma + 1;
    }
    opts.extents[name] = v;
  }
  for (const auto &t : trips) {
    auto [name, value] = splitAssign(t, "--trip");
    int64_t v = parseInt(value, "--trip");
    if (v < 0)
      throw CLI::ValidationError("--trip", "a trip count must not be negative");
    opts.trips[name] = v;
  }
  for (const auto &s : samples) {
    auto [name, path] = splitAssign(s, "--sample");
    opts.samples[name] = path;
  }
  return opts;
}

void SkeletonizeCliOptions::addCounts(CLI::App *cmd) {
  cmd->add_option("--counts", counts,
                  "Where the skeleton's instruction counts come from: 'sass' (nvcc and cuobjdump), "
                  "'ptx' (clang-19's NVPTX backend), both of the kernel's naive layout as emitted, "
                  "'table' (the operation table of docs/skeletonizer.md), 'auto' (sass, else ptx, "
                  "else table)")
      ->check(CLI::IsMember({"auto", "sass", "ptx", "table"}))
      ->capture_default_str();
}

void SkeletonizeCliOptions::addLoadGroups(CLI::App *cmd) {
  cmd->add_option("--load-groups", loadGroups,
                  "How many global loads a thread has in flight per wait (term mlp): 'estimate' "
                  "(16 registers of loads a wait, up to 32 in blocks of 32 threads), 'sass' (each ranked or measured layout emitted, "
                  "built with nvcc and its SASS read with cuobjdump; the estimate where that fails)")
      ->check(CLI::IsMember({"estimate", "sass"}))
      ->capture_default_str();
}

toolchain::CountSource SkeletonizeCliOptions::countSource() const {
  auto c = toolchain::parseCountSource(counts);
  if (!c)
    throw CLI::ValidationError("--counts", "expected auto, sass, ptx or table, got '" + counts + "'");
  return *c;
}

InputOptions SkeletonizeCliOptions::inputOptions() const {
  frontend::SkeletonizeOptions so = finish();
  InputOptions in;
  in.counts = countSource();
  in.sassLoadGroups = loadGroups == "sass";
  if (in.counts != toolchain::CountSource::Table || in.sassLoadGroups)
    in.compileCache = std::make_shared<toolchain::CompileCache>(toolchain::findTools(),
                                                                       toolchain::defaultBuildStore());
  in.compilerArgs = so.clangArgs;
  in.function = so.function;
  in.compilationDbDir = so.compilationDbDir;
  in.extents = so.extents;
  in.trips = so.trips;
  in.samples = so.samples;
  in.assumeAliasing = so.assumeAliasing;
  return in;
}

InputOptions withCommandLine(InputOptions base, const InputOptions &cli) {
  std::vector<std::string> args = cli.compilerArgs;
  args.insert(args.end(), base.compilerArgs.begin(), base.compilerArgs.end());
  base.compilerArgs = std::move(args);
  if (base.function.empty())
    base.function = cli.function;
  if (base.compilationDbDir.empty())
    base.compilationDbDir = cli.compilationDbDir;
  base.extents.insert(cli.extents.begin(), cli.extents.end()); // keeps the entry's
  base.trips.insert(cli.trips.begin(), cli.trips.end());
  base.samples.insert(cli.samples.begin(), cli.samples.end());
  base.assumeAliasing = base.assumeAliasing || cli.assumeAliasing;
  base.counts = cli.counts;
  base.sassLoadGroups = cli.sassLoadGroups;
  base.compileCache = cli.compileCache;
  return base;
}

void registerSkeletonize(CLI::App &app, Context &ctx) {
  auto *cmd = app.add_subcommand(
      "skeletonize", "Print the code skeletons of the parallel loop nests of a C file");
  auto o = std::make_shared<SkeletonizeCliOptions>();
  o->add(cmd);
  o->addCounts(cmd);
  auto output = std::make_shared<std::string>();
  cmd->add_option("-o,--output", *output,
                  "Write the skeleton to FILE (atomically) instead of stdout; sample paths are "
                  "made relative to FILE's directory");
  auto format = std::make_shared<std::string>("skeleton");
  cmd->add_option("--format", *format,
                  "Output format: skeleton (the text), or json (the text and its parts, "
                  "docs/schema/skeletonize.schema.json)")
      ->check(CLI::IsMember({"skeleton", "json"}))
      ->capture_default_str()
      ->excludes("--output");
  cmd->callback([&ctx, o, output, format] {
    frontend::SkeletonizeOptions opts = o->finish();
    ctx.action = [&ctx, o, opts, output, format] {
      return guarded(ctx, [&] {
        const std::string &f = o->file;
        if (f.size() > 5 && f.compare(f.size() - 5, 5, ".skel") == 0)
          throw InputError({f, 0, 0},
                           fmt::format("this is a skeleton already (.skel), not C: project it with "
                                       "'skelcast project {}'",
                                       f));
        frontend::SkeletonizeOptions so = opts;
        so.renderWarning = ctx.diag.renderer();
        so.colorDiagnostics = ctx.diag.color;
        frontend::SkeletonizeResult r = skeletonizeInput(o->file, so, ctx.err, o->countSource());
        ctx.diag.emit(r.warnings, ctx.err);
        if (*format == "json") {
          std::vector<std::string> functions;
          for (const auto &fn : r.functions)
            functions.push_back(fn.name);
          ctx.out << report::renderSkeletonJson(r.file, r.warnings, functions, SKELCAST_VERSION);
          return static_cast<int>(Success);
        }
        if (output->empty()) {
          ctx.out << skeleton::printSkeleton(r.file);
          return static_cast<int>(Success);
        }
        // Sample paths are relative to the C file; the skeleton lives beside FILE.
        namespace fs = std::filesystem;
        fs::path outDir = fs::absolute(*output).parent_path();
        for (skeleton::Array &a : r.file.arrays)
          if (a.sampleFile) {
            fs::path sample(skeleton::resolveRelative(r.file.path, *a.sampleFile));
            fs::path rel = fs::absolute(sample).lexically_normal().lexically_relative(outDir);
            a.sampleFile = rel.empty() ? fs::absolute(sample).string() : rel.string();
          }
        writeFileAtomically(*output, skeleton::printSkeleton(r.file));
        return static_cast<int>(Success);
      });
    };
  });
}

} // namespace skelcast::cli

#endif // SKELCAST_HAVE_FRONTEND
