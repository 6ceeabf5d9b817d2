#include "skelcast/cli/Cli.h"
#include "skelcast/support/Interrupt.h"

#include <iostream>

int main(int argc, char **argv) {
  // Before any thread starts: SIGINT, SIGTERM and SIGHUP end every command with
  // 128 + the signal, its children killed and its temporary files removed.
  skelcast::installInterruptHandling();
  std::vector<std::string> args(argv + 1, argv + argc);
  return skelcast::cli::runCli(args, std::cout, std::cerr);
}
