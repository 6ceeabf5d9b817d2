#include "skelcast/cli/Cli.h"

#include "Commands.h"
#include "skelcast/support/Diagnostic.h"

#include <algorithm>
#include <fmt/format.h>

#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <ostream>
#include <unistd.h>

namespace skelcast::cli {

int guarded(Context &ctx, const std::function<int()> &body) {
  try {
    return body();
  } catch (const InputError &e) {
    ctx.err << ctx.diag.error(e);
    return InputFailure;
  } catch (const CLI::Error &e) {
    // A malformed option value noticed while running (e.g. --extent a=x).
    ctx.err << "skelcast: error: " << e.what() << '\n';
    return UsageFailure;
  } catch (const std::bad_alloc &) {
    ctx.err << "skelcast: error: out of memory\n";
    return InputFailure;
  }
}

namespace {

/// "skelcast", or "skelcast project", "skelcast hw show": the (sub)command the
/// parser was in, whose --help explains the options.
std::string commandPath(const CLI::App &app) {
  std::string path = app.get_name();
  const CLI::App *at = &app;
  while (true) {
    const CLI::App *next = nullptr;
    for (const CLI::App *sub : at->get_subcommands())
      if (sub->parsed())
        next = sub;
    if (!next)
      return path;
    path += " " + next->get_name();
    at = next;
  }
}

/// CLI11's message in words a person reads: "--hw: At Most 1 required but
/// received 2" becomes "--hw: takes one value, was given 2".
std::string usageMessage(const CLI::ParseError &e) {
  std::string m = e.what();
  auto colon = m.find(": ");
  std::string opt = colon == std::string::npos ? "" : m.substr(0, colon);
  std::string rest = colon == std::string::npos ? m : m.substr(colon + 2);
  const std::string atMost = "At Most 1 required but received ";
  if (rest.rfind(atMost, 0) == 0)
    return fmt::format("{}: takes one value, was given {}", opt, rest.substr(atMost.size()));
  if (rest.size() > 8 && rest.compare(rest.size() - 8, 8, " missing") == 0 &&
      rest.find(" required ") != std::string::npos)
    return fmt::format("{}: needs a value", opt);
  return m;
}

} // namespace

std::string defaultSpecDir() {
  namespace fs = std::filesystem;
  if (const char *env = std::getenv("SKELCAST_HWSPEC_DIR"); env && *env)
    return env;
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    fs::path installed = (exe.parent_path() / ".." / "share" / "skelcast" / "hwspecs").lexically_normal();
    if (fs::is_directory(installed, ec))
      return installed.string();
  }
  return SKELCAST_HWSPEC_DIR;
}

int runCli(const std::vector<std::string> &args, std::ostream &out, std::ostream &err) {
  CLI::App app{"skelcast: project the GPU performance of CPU loop nests (GROPHECY)", "skelcast"};
  app.set_version_flag("--version", std::string("skelcast ") + SKELCAST_VERSION);
  app.require_subcommand(1);
  Context ctx{out, err, defaultSpecDir(), {}, {}};
  // Global options, accepted before or after the subcommand.
  app.fallthrough();
  std::string colorMode = "auto";
  app.add_option("--color", colorMode,
                 "Colour diagnostics: auto (stderr is a terminal and NO_COLOR is unset), always, never")
      ->check(CLI::IsMember({"auto", "always", "never"}))
      ->capture_default_str();
  app.add_flag("--warnings-as-errors", ctx.diag.warningsAsErrors,
               "Any warning is an error: exit code 1 and nothing on stdout (for CI)");
  registerFmt(app, ctx);
  registerHw(app, ctx);
  registerProject(app, ctx);
  registerExplain(app, ctx);
  registerValidate(app, ctx);
#ifdef SKELCAST_HAVE_FRONTEND
  registerSkeletonize(app, ctx);
  registerEmit(app, ctx);
#endif
  registerBatch(app, ctx);
  registerCheck(app, ctx);

  std::vector<std::string> parsed = args;
  if (!parsed.empty() && (parsed[0] == "project" || parsed[0] == "explain")) {
    auto dashes = std::find(parsed.begin(), parsed.end(), "--");
    if (dashes != parsed.end()) {
      ctx.clangArgs.assign(dashes + 1, parsed.end());
      parsed.erase(dashes, parsed.end());
    }
  }
  // CLI11 wants argv order reversed when given a vector.
  std::vector<std::string> rev(parsed.rbegin(), parsed.rend());
  try {
    app.parse(rev);
  } catch (const CLI::CallForHelp &) {
    out << app.help();
    return Success;
  } catch (const CLI::CallForAllHelp &) {
    out << app.help("", CLI::AppFormatMode::All);
    return Success;
  } catch (const CLI::CallForVersion &) {
    out << app.version() << '\n';
    return Success;
  } catch (const CLI::ParseError &e) {
    // A subcommand's --help is reported through the same exception type.
    if (e.get_exit_code() == static_cast<int>(CLI::ExitCodes::Success)) {
      for (const CLI::App *sub : app.get_subcommands())
        if (sub->parsed()) {
          out << sub->help();
          return Success;
        }
      out << app.help();
      return Success;
    }
    err << "skelcast: error: " << usageMessage(e) << '\n';
    err << "run '" << commandPath(app) << " --help' for usage\n";
    return UsageFailure;
  }
  ctx.diag.color = useColor(colorMode, &err == &std::cerr && isatty(STDERR_FILENO));
  if (!ctx.action) {
    err << "skelcast: error: no subcommand given\n";
    return UsageFailure;
  }
  return ctx.action();
}

} // namespace skelcast::cli
