// libFuzzer target: the skeleton parser (skeleton::parseSkeleton) and the
// printer. Any text must parse or be refused with an InputError; what parses
// must print to text that parses back to the same IR and prints the same again
// (docs/skeleton-language.md: "print then parse gives the same IR").
#include "FuzzCommon.h"

#include "skelcast/skeleton/Parser.h"
#include "skelcast/skeleton/Printer.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

using namespace skelcast;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  // Anchored in skeletons/ so that the seeds' sample files (spinflap_M.txt) resolve.
  static const std::string path = std::string(SKELCAST_SOURCE_DIR) + "/skeletons/fuzz.skel";
  std::string_view text(reinterpret_cast<const char *>(data), size);
  fuzz::onlyInputErrors([&] {
    skeleton::SkeletonFile f = skeleton::parseSkeleton(text, path);
    std::string canon = skeleton::printSkeleton(f);
    fuzz::mustSucceed("parsing the canonical form", [&] {
      skeleton::SkeletonFile g = skeleton::parseSkeleton(canon, path);
      if (!(g == f))
        fuzz::die("print then parse changed the IR; canonical form:\n" + canon);
      if (skeleton::printSkeleton(g) != canon)
        fuzz::die("printing the re-parsed IR gave other text; canonical form:\n" + canon);
    });
  });
  return 0;
}
