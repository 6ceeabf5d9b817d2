// libFuzzer target: the hwspec loader (hw::parseHwSpec). Any text must load
// or be refused with an InputError. A spec that loads must project a small
// kernel with every model to finite numbers: the loader's ranges are what keeps
// NaN and infinity out of the model.
#include "FuzzCommon.h"

#include "skelcast/layout/KernelInfo.h"
#include "skelcast/hw/HwSpec.h"
#include "skelcast/model/Project.h"
#include "skelcast/skeleton/Parser.h"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

using namespace skelcast;

namespace {

const layout::KernelInfo &kernel() {
  static const layout::KernelInfo ki = [] {
    skeleton::SkeletonFile f = skeleton::parseSkeleton(R"(#define N 64
float A[N][N]
float B[N]
parallel_for saxpy(N, 8) : i, j {
  stream k = 0:4 {
    ld A[k][j]
    ld B[i]
    comp 2
  }
  st A[i][j]
}
)",
                                                       "fuzz.skel");
    return layout::analyzeKernel(f, 0);
  }();
  return ki;
}

void checkFinite(double v, const char *what, const std::string &layout) {
  if (!std::isfinite(v))
    fuzz::die(std::string(what) + " is not finite for layout " + layout);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string text(reinterpret_cast<const char *>(data), size);
  fuzz::onlyInputErrors([&] {
    hw::HwSpec hw = hw::parseHwSpec(text, "fuzz.json");
    // The default model over the whole (small) layout space; the others on its
    // favourite layout, which keeps each input well within the one-second budget.
    layout::EnumerateOptions eo;
    eo.maxFoldPerDim = 1;
    eo.maxUnroll = 2;
    model::KernelProjection kp;
    fuzz::mustSucceed("projecting with a loaded spec",
                      [&] { kp = model::projectKernel(kernel(), hw, eo, model::ModelOptions{}); });
    std::vector<model::LayoutProjection> all = kp.layouts;
    if (!kp.layouts.empty())
      for (const auto &name : model::modelNames()) {
        model::ModelOptions mo;
        mo.model = model::parseModelSpec(name);
        fuzz::mustSucceed("projecting with a loaded spec", [&] {
          all.push_back(model::projectLayout(kernel(), kp.layouts.front().layout, hw, mo));
        });
      }
    for (const auto &l : all) {
      checkFinite(l.result.timeMs, "time_ms", l.layoutString);
      checkFinite(l.result.totalCycles, "cycles", l.layoutString);
      checkFinite(l.result.mwp, "mwp", l.layoutString);
      checkFinite(l.result.cwp, "cwp", l.layoutString);
      checkFinite(l.result.n, "active warps", l.layoutString);
      checkFinite(l.roofline.timeMs, "roofline time_ms", l.layoutString);
    }
  });
  return 0;
}
