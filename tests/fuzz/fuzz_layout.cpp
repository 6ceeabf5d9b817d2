// libFuzzer target: the layout-string parser (layout::parseLayout) against the
// kernels of the bundled skeletons (skeletons/*.skel) on two specs. Any string
// must parse or be refused with an InputError; what parses must print
// (layoutString) to a string that parses back to the same layout, and must
// characterize and project to finite numbers.
#include "FuzzCommon.h"

#include "skelcast/layout/Layout.h"
#include "skelcast/hw/HwSpec.h"
#include "skelcast/model/Project.h"
#include "skelcast/skeleton/Parser.h"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

using namespace skelcast;

namespace {

struct Fixture {
  std::vector<layout::KernelInfo> kernels;
  std::vector<hw::HwSpec> specs;
};

const Fixture &fixture() {
  static const Fixture fx = [] {
    Fixture f;
    std::string src = SKELCAST_SOURCE_DIR;
    std::vector<std::string> files;
    for (const auto &e : std::filesystem::directory_iterator(src + "/skeletons"))
      if (e.path().extension() == ".skel")
        files.push_back(e.path().string());
    std::sort(files.begin(), files.end());
    for (const auto &path : files) {
      skeleton::SkeletonFile sf = skeleton::parseSkeletonFile(path);
      for (size_t k = 0; k < sf.kernels.size(); ++k)
        f.kernels.push_back(layout::analyzeKernel(sf, k));
    }
    f.specs.push_back(hw::loadHwSpec(src + "/hwspecs/h100.json"));
    f.specs.push_back(hw::loadHwSpec(src + "/hwspecs/fx5600.json"));
    return f;
  }();
  return fx;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const Fixture &fx = fixture();
  std::string text(reinterpret_cast<const char *>(data), size);
  for (const auto &hw : fx.specs)
    for (const auto &ki : fx.kernels)
      fuzz::onlyInputErrors([&] {
        layout::Layout l = layout::parseLayout(ki, text, hw);
        std::string canon = layout::layoutString(ki, l);
        fuzz::mustSucceed("parsing the canonical layout string", [&] {
          if (!(layout::parseLayout(ki, canon, hw) == l))
            fuzz::die("layoutString then parseLayout changed the layout: " + canon);
        });
        model::KernelProjection kp = model::projectKernel(ki, hw, {}, {}, l);
        for (const auto &p : kp.layouts)
          if (!std::isfinite(p.result.timeMs) || !std::isfinite(p.result.totalCycles))
            fuzz::die("layout '" + canon + "' of kernel '" + ki.name + "' projects to a non-finite time");
      });
  return 0;
}
