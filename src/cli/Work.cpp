#include "Work.h"

#include "skelcast/model/Program.h"
#include "skelcast/skeleton/Eval.h"

#include <algorithm>

namespace skelcast::cli {

double programWork(const skeleton::SkeletonFile &file) {
  std::vector<layout::KernelInfo> infos = model::analyzeProgram(file);
  skeleton::MacroTable env = skeleton::evalMacros(file);
  double total = 0;
  for (size_t k = 0; k < file.kernels.size() && k < infos.size(); ++k) {
    const layout::KernelInfo &ki = infos[k];
    double perTask = 0;
    for (const auto &c : ki.comps)
      perTask += static_cast<double>(c.count) * c.execs;
    for (const auto &a : ki.accesses)
      perTask += a.execs;
    double tasks = ki.loopSpace;
    for (const auto &r : file.repeats) {
      if (std::find(r.kernels.begin(), r.kernels.end(), k) == r.kernels.end())
        continue;
      skeleton::RepeatRange range = skeleton::repeatRange(r, env, file.path);
      if (!r.indexed()) {
        tasks *= static_cast<double>(range.trips);
        break;
      }
      skeleton::LaunchInterval li = skeleton::launchInterval(file.kernels[k], r, env, file.path);
      tasks = 0;
      for (int64_t n = li.first; n <= li.last; ++n) {
        skeleton::MacroTable at = env;
        at[r.index] = range.value(n);
        tasks += static_cast<double>(skeleton::loopSpaceSize(file.kernels[k], at, file.path));
      }
      break;
    }
    total += tasks * perTask;
  }
  return total;
}

} // namespace skelcast::cli
