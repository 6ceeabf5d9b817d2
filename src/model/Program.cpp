// A program's analysis (the kernels with their reuse distances) and its
// projection, step by step (docs/model.md, section 9; the steps: ProgramSteps.h).
#include "skelcast/model/Program.h"

#include "ProgramSteps.h"

#include "skelcast/skeleton/Eval.h"
#include "skelcast/support/Diagnostic.h"

#include <algorithm>
#include <map>

namespace skelcast::model {
namespace program {

std::map<std::string, double> arrayBytes(const skeleton::SkeletonFile &file,
                                         const skeleton::MacroTable &macros) {
  std::map<std::string, double> bytes;
  for (const auto &arr : file.arrays) {
    double elems = 1;
    for (const auto &e : arr.extents)
      elems *= static_cast<double>(skeleton::evalConstExpr(e, macros, file.path));
    bytes[arr.name] = elems * skeleton::elemBytes(arr.type);
  }
  return bytes;
}

Touches touches(const skeleton::SkeletonFile &file, const skeleton::MacroTable &macros) {
  Touches t;
  std::map<std::string, double> bytes = arrayBytes(file, macros);
  for (size_t i = 0; i < file.arrays.size(); ++i) {
    t.position.emplace(file.arrays[i].name, i);
    t.bytes.push_back(bytes[file.arrays[i].name]);
  }
  for (const auto &k : file.kernels)
    t.used.push_back(t.of(k));
  return t;
}

std::vector<int> loopsOf(const skeleton::SkeletonFile &file, const skeleton::MacroTable &macros) {
  std::vector<int> loop(file.kernels.size(), -1);
  for (size_t r = 0; r < file.repeats.size(); ++r)
    if (skeleton::repeatRange(file.repeats[r], macros, file.path).trips >= 2)
      for (size_t k : file.repeats[r].kernels)
        loop[k] = static_cast<int>(r);
  return loop;
}

void applyReuse(layout::KernelInfo &ki, const std::map<std::string, double> &distances) {
  for (auto &arr : ki.arrays) {
    auto it = distances.find(arr.name);
    if (it != distances.end())
      arr.programReuseBytes = it->second;
  }
}

Shape shapeOf(const skeleton::SkeletonFile &file) {
  Shape s{file, skeleton::evalMacros(file), std::vector<double>(file.kernels.size(), 1),
          std::vector<int>(file.kernels.size(), -1)};
  for (size_t r = 0; r < file.repeats.size(); ++r) {
    double c = static_cast<double>(skeleton::repeatRange(file.repeats[r], s.macros, file.path).trips);
    if (!file.repeats[r].indexed()) // an indexed repeat's passes are not time steps
      s.repeats = std::max(s.repeats, static_cast<int>(c));
    for (size_t k : file.repeats[r].kernels) {
      s.count[k] = c;
      s.scope[k] = static_cast<int>(r);
    }
  }
  return s;
}

} // namespace program

namespace {

using namespace program;

/// Per kernel, each array's reuse distance (docs/model.md, section 9), by name;
/// an array no earlier kernel uses is absent. A kernel of a repeat that runs at
/// least twice looks back over the repeat's kernels only, cyclically (its own
/// previous pass last); any other kernel over every kernel before it.
std::vector<std::map<std::string, double>> reuseDistances(const skeleton::SkeletonFile &file) {
  const size_t n = file.kernels.size();
  skeleton::MacroTable macros = skeleton::evalMacros(file);
  Touches t = touches(file, macros);
  std::vector<int> loop = loopsOf(file, macros);
  std::vector<std::map<std::string, double>> distances(n);
  ReuseSweep linear(n, t.bytes);
  for (size_t k = 0; k < n; ++k) {
    std::vector<long> prev = linear.touch(static_cast<long>(k), t.used[k]);
    if (loop[k] >= 0)
      continue;
    for (size_t x = 0; x < t.used[k].size(); ++x)
      if (prev[x] >= 0)
        distances[k][file.arrays[t.used[k][x]].name] = linear.window(prev[x], static_cast<long>(k));
  }
  // Repeats: their body twice in a row; the second pass reads the distances.
  for (size_t r = 0; r < file.repeats.size(); ++r) {
    const auto &body = file.repeats[r].kernels;
    const size_t m = body.size();
    ReuseSweep cyclic(2 * m, t.bytes);
    for (size_t step = 0; step < 2 * m; ++step) {
      size_t k = body[step % m];
      std::vector<long> prev = cyclic.touch(static_cast<long>(step), t.used[k]);
      if (step < m || loop[k] != static_cast<int>(r))
        continue;
      for (size_t x = 0; x < t.used[k].size(); ++x)
        distances[k][file.arrays[t.used[k][x]].name] = cyclic.window(prev[x], static_cast<long>(step));
    }
  }
  return distances;
}

} // namespace

ProgramAnalysis::ProgramAnalysis(const skeleton::SkeletonFile &file)
    : file_(file), distances_(reuseDistances(file)), ctx_(layout::fileContext(file)) {}

layout::KernelInfo ProgramAnalysis::kernel(size_t k, std::optional<int64_t> indexValue) const {
  const skeleton::Repeat *r = file_.repeatOf(k);
  layout::KernelInfo ki =
      r && r->indexed()
          ? layout::analyzeKernel(
                file_,
                skeleton::bindIndex(file_.kernels[k], r->index,
                                    indexValue ? *indexValue : representativeIndexValue(file_, k)),
                file_.kernelName(k), ctx_)
          : layout::analyzeKernel(file_, file_.kernels[k], file_.kernelName(k), ctx_);
  applyReuse(ki, distances_[k]);
  return ki;
}

std::vector<layout::KernelInfo> analyzeProgram(const skeleton::SkeletonFile &file) {
  ProgramAnalysis analysis(file);
  std::vector<layout::KernelInfo> infos;
  infos.reserve(file.kernels.size());
  for (size_t k = 0; k < file.kernels.size(); ++k)
    infos.push_back(analysis.kernel(k));
  return infos;
}

layout::KernelInfo analyzeProgramKernel(const skeleton::SkeletonFile &file, size_t k,
                                        std::optional<int64_t> indexValue) {
  return ProgramAnalysis(file).kernel(k, indexValue);
}

ProgramProjection projectProgram(const skeleton::SkeletonFile &file,
                                 const std::vector<KernelProjection> &kps, const hw::HwSpec &hw,
                                 const layout::EnumerateOptions &eo, const ModelOptions &mo,
                                 const ProgramOptions &po) {
  using namespace program;
  ProgramProjection pp;
  Shape shape = shapeOf(file);
  pp.repeats = shape.repeats;
  Dataflow df = dataflowOf(shape, hw);
  TransferTimes transfers = projectTransfers(shape, df, hw, po.pinned, pp);
  double firstLaunchExtraMs = projectLaunches(shape, kps, hw, mo.model.kind, pp);
  projectFusion(shape, df, kps, firstLaunchExtraMs, hw, eo, mo, pp);
  judge(shape, df, kps, transfers, firstLaunchExtraMs, hw, po, pp);
  return pp;
}

} // namespace skelcast::model
