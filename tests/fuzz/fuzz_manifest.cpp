// libFuzzer target: the suite manifest (skelcast::cli::parseManifest).
// Any text must load or be refused with an InputError. The seeds are
// tests/fuzz/manifest/ and bench/suite.json.
#include "FuzzCommon.h"

#include "Suite.h"

#include <cstddef>
#include <cstdint>
#include <string>

using namespace skelcast;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string text(reinterpret_cast<const char *>(data), size);
  // Anchored in tests/fuzz/manifest/ so that relative inputs of the seeds resolve.
  static const std::string path = std::string(SKELCAST_SOURCE_DIR) + "/tests/fuzz/manifest/fuzz.json";
  fuzz::onlyInputErrors([&] { cli::parseManifest(text, path); });
  return 0;
}
