// Stand-ins for the CUDA toolkit's nvcc, cuobjdump and nvdisasm, first on PATH
// while the object lives: the tests of what skelcast reads from compiled code
// run the same with or without the toolkit.
#pragma once

#include "TempDir.h"

#include <cstdlib>
#include <filesystem>
#include <string>

namespace skelcast::testsupport {

/// PATH with stand-ins for nvcc (an empty cubin, ptxas's report of
/// `registers` registers; a failing build where negative) and cuobjdump (`sass`, or a failure when empty) first.
class CudaStandIns {
public:
  explicit CudaStandIns(const std::string &sass, int registers = 32) {
    dir_.write("nvcc", registers < 0 ? std::string("#!/bin/sh\necho 'nvcc fatal: no build here' >&2\nexit 1\n")
                                     : "#!/bin/sh\n"
                                       "while [ $# -gt 0 ]; do [ \"$1\" = -o ] && out=\"$2\"; shift; done\n"
                                       ": > \"$out\"\n"
                                       "echo 'ptxas info    : Used " + std::to_string(registers) +
                                           " registers, used 0 barriers, 0 bytes smem'\n");
    dir_.write("sass.txt", sass);
    dir_.write("cuobjdump", sass.empty() ? "#!/bin/sh\necho 'cuobjdump fatal: no cubin here'\nexit 1\n"
                                         : "#!/bin/sh\ncat '" + dir_.file("sass.txt") + "'\n");
    dir_.write("nvdisasm", "#!/bin/sh\nexit 0\n");
    for (const char *tool : {"nvcc", "cuobjdump", "nvdisasm"})
      std::filesystem::permissions(dir_.file(tool), std::filesystem::perms::owner_all);
    const char *path = std::getenv("PATH");
    old_ = path ? path : "";
    setenv("PATH", (dir_.path().string() + ":" + old_).c_str(), 1);
  }
  ~CudaStandIns() { setenv("PATH", old_.c_str(), 1); }
  const TempDir &dir() const { return dir_; }

private:
  TempDir dir_;
  std::string old_;
};

} // namespace skelcast::testsupport
