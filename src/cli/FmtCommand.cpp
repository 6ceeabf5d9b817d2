// `skelcast fmt FILE.skel...`: print the canonical form; `--check` lists files
// that are not canonical and exits 1.
#include "Commands.h"
#include "skelcast/cli/Cli.h"

#include "skelcast/skeleton/Parser.h"
#include "skelcast/skeleton/Printer.h"
#include "skelcast/support/TextFile.h"

#include <ostream>

namespace skelcast::cli {

void registerFmt(CLI::App &app, Context &ctx) {
  auto *cmd = app.add_subcommand("fmt", "Print skeleton files in canonical form");
  struct Opts {
    std::vector<std::string> files;
    bool check = false;
  };
  auto o = std::make_shared<Opts>();
  cmd->add_option("files", o->files, "Skeleton files (.skel)")->required();
  cmd->add_flag("--check", o->check, "Print nothing; exit 1 listing the files not in canonical form");
  cmd->callback([&ctx, o] {
    ctx.action = [&ctx, o] {
      return guarded(ctx, [&] {
        int rc = Success;
        for (const auto &path : o->files) {
          std::string text = readTextFile(path);
          std::string canon = skeleton::printSkeleton(skeleton::parseSkeleton(text, path));
          if (!o->check) {
            ctx.out << canon;
          } else if (canon != text) {
            ctx.out << path << ": not in canonical form\n";
            rc = InputFailure;
          }
        }
        return rc;
      });
    };
  });
}

} // namespace skelcast::cli
