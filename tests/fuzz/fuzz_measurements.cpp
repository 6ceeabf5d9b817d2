// libFuzzer target: the JSON reading of validation measurement files
// (model::loadMeasurements, and for program measurements
// model::isProgramMeasurements and model::validatePrograms). Any file must
// load or be refused with an InputError.

#include "FuzzCommon.h"

#include "skelcast/hw/HwSpec.h"
#include "skelcast/model/Validation.h"

#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

using namespace skelcast;

namespace {

/// The loaders read files: each input goes to one scratch file of this process.
/// It lies outside the repository, so the seeds' skeleton paths do not resolve
/// and nothing is projected at length.
const std::string &scratchPath() {
  static const std::string p =
      (std::filesystem::temp_directory_path() /
       ("skelcast-fuzz-measurements-" + std::to_string(::getpid()) + ".json"))
          .string();
  return p;
}

void writeScratch(const uint8_t *data, size_t size) {
  static const bool cleanup = [] { return std::atexit([] { std::remove(scratchPath().c_str()); }) == 0; }();
  (void)cleanup;
  std::FILE *f = std::fopen(scratchPath().c_str(), "wb");
  if (!f)
    fuzz::die("cannot write " + scratchPath());
  if (size && std::fwrite(data, 1, size, f) != size)
    fuzz::die("cannot write " + scratchPath());
  std::fclose(f);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const hw::HwSpec hw =
      hw::loadHwSpec(std::string(SKELCAST_SOURCE_DIR) + "/hwspecs/h100.json");
  writeScratch(data, size);
  const std::string &path = scratchPath();
  fuzz::onlyInputErrors([&] {
    model::Measurements m = model::loadMeasurements(path);
    model::mergeRuns({m, m});
    // Each case's skeleton must exist: a missing one is an InputError naming it.
    model::validate(m, hw, {}, "skelcast");
  });
  fuzz::onlyInputErrors([&] {
    if (model::isProgramMeasurements(path))
      model::validatePrograms({path}, hw, {}, "skelcast");
  });
  return 0;
}
