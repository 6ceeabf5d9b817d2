// `skelcast fmt FILE.skel...`: print the canonical form; `--check` lists files
// that are not canonical and exits 1.
#include "Commands.h"
#include "skelcast/cli/Cli.h"

#include "skelcast/skeleton/Parser.h"
#include "skelcast/skeleton/Printer.h"
#include "skelcast/support/AtomicFile.h"
#include "skelcast/support/TextFile.h"

#include <ostream>

namespace skelcast::cli {

void registerFmt(CLI::App &app, Context &ctx) {
  auto *cmd = app.add_subcommand("fmt", "Print skeleton files in canonical form");
  struct Opts {
    std::vector<std::string> files;
    bool check = false;
    bool inPlace = false;
  };
  auto o = std::make_shared<Opts>();
  cmd->add_option("files", o->files, "Skeleton files (.skel; '-' reads standard input)")->required();
  auto *check =
      cmd->add_flag("--check", o->check, "Print nothing; exit 1 listing the files not in canonical form");
  cmd->add_flag("-i,--in-place", o->inPlace,
                "Rewrite each file in canonical form (atomically; a file already canonical is not "
                "touched)")
      ->excludes(check);
  cmd->callback([&ctx, o] {
    ctx.action = [&ctx, o] {
      return guarded(ctx, [&] {
        int rc = Success;
        if (o->inPlace)
          for (const auto &path : o->files)
            if (path == "-")
              throw InputError({"-i", 0, 0}, "cannot rewrite standard input in place");
        // -i: every file is parsed before any is rewritten, so a bad one leaves all as they were
        std::vector<std::pair<std::string, std::string>> rewrites;
        for (const auto &path : o->files) {
          std::string text = readTextFile(path);
          std::string name = path == "-" ? kStdinName : path;
          std::string canon = skeleton::printSkeleton(skeleton::parseSkeleton(text, name));
          if (o->inPlace) {
            if (canon != text)
              rewrites.emplace_back(path, canon);
          } else if (!o->check) {
            ctx.out << canon;
          } else if (canon != text) {
            ctx.out << name << ": not in canonical form\n";
            rc = InputFailure;
          }
        }
        if (!rewrites.empty())
          writeFilesAtomically(rewrites);
        return rc;
      });
    };
  });
}

} // namespace skelcast::cli
