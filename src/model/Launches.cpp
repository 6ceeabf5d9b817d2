// Launches (docs/model.md, section 9): step 2 of a program's projection (each
// kernel's launches, queued one behind the other), and the launches of a
// kernel in an indexed repeat ("Launches of an indexed repeat").
#include "skelcast/model/Launches.h"
#include "skelcast/model/Program.h"

#include "ProgramSteps.h"

#include "skelcast/skeleton/Eval.h"

#include <algorithm>
#include <cmath>
#include <memory>

namespace skelcast::model {

std::vector<std::pair<int64_t, double>> samplePositions(int64_t first, int64_t last, int points) {
  std::vector<int64_t> at;
  if (last < first)
    return {};
  const int64_t n = last - first + 1;
  if (points < 2 || n <= points) {
    for (int64_t p = first; p <= last; ++p)
      at.push_back(p);
  } else {
    for (int i = 0; i < points; ++i) {
      int64_t p = first + static_cast<int64_t>(std::llround(static_cast<double>(i) *
                                                            static_cast<double>(n - 1) / (points - 1)));
      if (at.empty() || p > at.back())
        at.push_back(p);
    }
    at.back() = last;
  }
  std::vector<std::pair<int64_t, double>> out;
  for (int64_t p : at)
    out.push_back({p, 0.0});
  for (size_t i = 0; i + 1 < out.size(); ++i) {
    double len = static_cast<double>(out[i + 1].first - out[i].first);
    out[i].second += (len + 1) / 2;
    out[i + 1].second += (len - 1) / 2;
  }
  out.back().second += 1;
  return out;
}

namespace {

/// The loop space's size at pass n of kernel `k`'s indexed repeat.
int64_t threadsAt(const skeleton::SkeletonFile &file, size_t k, const skeleton::Repeat &r,
                  const skeleton::MacroTable &macros, const skeleton::RepeatRange &rr, int64_t n) {
  skeleton::MacroTable env = macros;
  env[r.index] = rr.value(n);
  return skeleton::loopSpaceSize(file.kernels[k], env, file.path);
}

/// One layout at one launch: its time, or nothing when it does not fit there.
/// `z` characterizes that launch's kernel for every layout timed there.
std::optional<double> launchMs(layout::Characterizer &z, const layout::KernelInfo &ki, const layout::Layout &l,
                               const hw::HwSpec &hw, const ModelOptions &mo) {
  LayoutProjection p = projectLayout(z, ki, l, hw, mo);
  if (!p.characterization.fits || !std::isfinite(p.result.timeMs))
    return std::nullopt;
  return p.result.timeMs;
}

} // namespace

int64_t representativeIndexValue(const skeleton::SkeletonFile &file, size_t k) {
  const skeleton::Repeat &r = *file.repeatOf(k);
  skeleton::MacroTable macros = skeleton::evalMacros(file);
  skeleton::RepeatRange rr = skeleton::repeatRange(r, macros, file.path);
  skeleton::LaunchInterval li = skeleton::launchInterval(file.kernels[k], r, macros, file.path);
  if (!li.affine) // every pass evaluated: the largest loop space itself
    return rr.value(li.largest);
  int64_t best = li.first, bestThreads = -1;
  for (int64_t n : {li.first, li.first + (li.last - li.first) / 2, li.last}) {
    int64_t t = threadsAt(file, k, r, macros, rr, n);
    if (t > bestThreads) {
      best = n;
      bestThreads = t;
    }
  }
  return rr.value(best);
}

KernelProjection projectProgramKernel(const skeleton::SkeletonFile &file, size_t k,
                                      const hw::HwSpec &hw, const layout::EnumerateOptions &eo,
                                      const ModelOptions &mo,
                                      const std::optional<layout::Layout> &only) {
  return projectProgramKernel(ProgramAnalysis(file), k, hw, eo, mo, only);
}

KernelProjection projectProgramKernel(const ProgramAnalysis &analysis, size_t k,
                                      const hw::HwSpec &hw, const layout::EnumerateOptions &eo,
                                      const ModelOptions &mo,
                                      const std::optional<layout::Layout> &only) {
  const skeleton::SkeletonFile &file = analysis.file();
  const skeleton::Repeat *r = file.repeatOf(k);
  if (!r || !r->indexed())
    return projectKernel(analysis.kernel(k), hw, eo, mo, only);
  skeleton::MacroTable macros = skeleton::evalMacros(file);
  skeleton::RepeatRange rr = skeleton::repeatRange(*r, macros, file.path);
  skeleton::LaunchInterval li = skeleton::launchInterval(file.kernels[k], *r, macros, file.path);
  RepeatedLaunches L;
  L.index = r->index;
  L.first = rr.first;
  L.step = rr.step;
  L.iterations = rr.trips;
  L.launches = li.count();
  L.characterizedAt = representativeIndexValue(file, k);

  // The representative launches, analyzed and characterized once each: every
  // layout is timed at each of them, and a launch's kernel-wide footprints do
  // not depend on the layout.
  struct Launch {
    LaunchSample sample;
    std::unique_ptr<layout::KernelInfo> ki; // (z holds a reference to it)
    std::unique_ptr<layout::Characterizer> z;
  };
  std::vector<Launch> reps;
  for (const auto &[n, w] : samplePositions(li.first, li.last, kRankingPoints)) {
    LaunchSample s;
    s.value = rr.value(n);
    s.weight = w;
    s.threads = threadsAt(file, k, *r, macros, rr, n);
    auto ki = std::make_unique<layout::KernelInfo>(analysis.kernel(k, s.value));
    auto z = std::make_unique<layout::Characterizer>(*ki, hw);
    reps.push_back({s, std::move(ki), std::move(z)});
  }
  // The layouts of the largest launch, each timed at every representative launch.
  layout::KernelInfo largest = analysis.kernel(k, L.characterizedAt);
  ModelOptions all = mo;
  all.keepTop = 0;
  KernelProjection kp = projectKernel(largest, hw, eo, all, only);
  std::vector<LayoutProjection> kept;
  for (auto &p : kp.layouts) {
    double sum = 0;
    bool fits = true;
    for (const auto &rep : reps) {
      std::optional<double> t = launchMs(*rep.z, *rep.ki, p.layout, hw, mo);
      if (!t) {
        fits = false;
        break;
      }
      sum += rep.sample.weight * *t;
    }
    if (!fits)
      continue;
    p.launchesMs = sum;
    kept.push_back(std::move(p));
  }
  std::sort(kept.begin(), kept.end(), rankedBefore);
  if (mo.keepTop > 0 && kept.size() > mo.keepTop)
    kept.resize(mo.keepTop);
  kp.layouts = std::move(kept);
  if (kp.layouts.empty())
    return kp;

  // The best layout's launches: each one projected, or the piecewise-linear
  // sum between evenly spaced ones with its bound (docs/model.md, section 9).
  const layout::Layout &best = kp.layouts.front().layout;
  for (auto &rep : reps) {
    rep.sample.timeMs = launchMs(*rep.z, *rep.ki, best, hw, mo).value_or(0);
    L.ranking.push_back(rep.sample);
  }
  // The sampled sum needs a time monotone between samples: each dimension's
  // size changing one way over the launches (affine bounds always do; others
  // are checked at every pass, else every launch is projected).
  L.exact = L.launches <= kExactLaunches || !li.monotone;
  std::vector<std::pair<int64_t, double>> at =
      samplePositions(li.first, li.last, L.exact ? static_cast<int>(L.launches) : kSumPoints);
  std::vector<LaunchSample> samples;
  for (const auto &[n, w] : at) {
    LaunchSample s;
    s.value = rr.value(n);
    s.weight = w;
    s.threads = threadsAt(file, k, *r, macros, rr, n);
    layout::KernelInfo ki = analysis.kernel(k, s.value);
    layout::Characterizer z(ki, hw);
    s.timeMs = launchMs(z, ki, best, hw, mo).value_or(0);
    L.totalMs += s.weight * s.timeMs;
    samples.push_back(s);
  }
  if (!L.exact) {
    // Between neighbouring samples a and b the L - 1 launches inside lie, like
    // the interpolation, between t_a and t_b when the time is monotone there.
    for (size_t i = 0; i + 1 < samples.size(); ++i) {
      double inside = static_cast<double>((at[i + 1].first - at[i].first) - 1);
      L.errorBoundMs += inside * std::fabs(samples[i + 1].timeMs - samples[i].timeMs);
    }
    L.summed = std::move(samples);
  }
  kp.launches = std::move(L);
  return kp;
}

double program::projectLaunches(const Shape &s, const std::vector<KernelProjection> &kps,
                                const hw::HwSpec &hw, ModelKind model, ProgramProjection &pp) {
  // Launches: the kernels are queued one behind the other, so every launch but
  // the first costs the back-to-back launch time (docs/model.md, section 9).
  // The launch overhead a kernel's time holds: the launch term's, or the
  // roofline's (which always adds it); the paper's model has none.
  auto launchPart = [&](const LayoutProjection &p) {
    return model == ModelKind::Roofline ? hw.launchOverheadUs / 1000.0 : p.effects.launchMs;
  };
  double firstLaunchExtraMs = 0;
  for (const auto &kp : kps)
    if (!kp.layouts.empty() && launchPart(kp.layouts.front()) > 0)
      firstLaunchExtraMs = (hw.launchOverheadUs - hw.launchBackToBackUs) / 1000.0;
  for (size_t k = 0; k < s.file.kernels.size(); ++k) {
    ProgramKernel pk;
    pk.kernel = s.file.kernelName(k);
    pk.count = s.count[k];
    if (!kps[k].layouts.empty()) {
      pk.layout = kps[k].layouts.front().layoutString;
      pk.timeMs = kps[k].layouts.front().result.timeMs - firstLaunchExtraMs;
      if (kps[k].launches && kps[k].launches->launches > 0) { // an indexed repeat's launches
        pk.launches = kps[k].launches;
        pk.count = static_cast<double>(pk.launches->launches);
        pk.timeMs = pk.launches->totalMs / pk.count - firstLaunchExtraMs;
      }
      pk.launchMs = launchPart(kps[k].layouts.front()) - firstLaunchExtraMs;
    }
    pp.kernelsUnfusedMs += pk.count * pk.timeMs;
    pp.launchMs += pk.count * pk.launchMs;
    pp.kernels.push_back(pk);
  }
  pp.kernelsUnfusedMs += firstLaunchExtraMs;
  pp.launchMs += firstLaunchExtraMs;
  pp.kernelsMs = pp.kernelsUnfusedMs;
  return firstLaunchExtraMs;
}

} // namespace skelcast::model
