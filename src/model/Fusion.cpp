// Step 3 of a program's projection: fusion of neighbouring kernels
// (docs/model.md, section 9, "Fusion"; the fusion itself: src/skeleton/Fuse.cpp).
#include "ProgramSteps.h"

#include "skelcast/skeleton/Fuse.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

namespace skelcast::model::program {
namespace {

/// The reuse distances of the kernel `fused` that replaces kernels i..j of
/// `file` (a fusion group), as reuseDistances gives them for the file with the
/// group replaced: `sweep` has seen kernels 0..i-1, which that file shares.
std::map<std::string, double> fusedReuse(const skeleton::SkeletonFile &file, const Touches &t,
                                         const std::vector<int> &loop, const ReuseSweep &sweep, size_t i,
                                         size_t j, const skeleton::Kernel &fused) {
  std::vector<size_t> u = t.of(fused);
  std::map<std::string, double> out;
  if (loop[i] < 0) {
    // Every kernel before it, nearest first: the window back to the last use.
    for (size_t a : u) {
      long p = sweep.last(a);
      if (p < 0)
        continue;
      double d = sweep.window(p, static_cast<long>(i) - 1);
      for (size_t b : u)
        if (sweep.last(b) < p)
          d += t.bytes[b];
      out[file.arrays[a].name] = d;
    }
    return out;
  }
  // In a repeat: its other kernels, cyclically, then the fused kernel's own previous pass.
  const auto &body = file.repeats[static_cast<size_t>(loop[i])].kernels;
  size_t pos = static_cast<size_t>(std::find(body.begin(), body.end(), i) - body.begin());
  std::vector<char> in(t.bytes.size(), 0);
  double sum = 0;
  for (size_t a : u) {
    in[a] = 1;
    sum += t.bytes[a];
  }
  std::vector<size_t> open = u;
  for (size_t d = 1; d <= body.size() && !open.empty(); ++d) {
    size_t x = body[(pos + body.size() - d) % body.size()];
    if (x >= i && x <= j)
      continue; // the group itself: the fused kernel, last
    const std::vector<size_t> &ux = t.used[x];
    for (size_t a : ux)
      if (!in[a]) {
        in[a] = 1;
        sum += t.bytes[a];
      }
    std::vector<size_t> still;
    for (size_t a : open)
      if (std::binary_search(ux.begin(), ux.end(), a))
        out[file.arrays[a].name] = sum;
      else
        still.push_back(a);
    open = std::move(still);
  }
  for (size_t a : open)
    out[file.arrays[a].name] = sum;
  return out;
}

} // namespace

void projectFusion(const Shape &s, const Dataflow &df, const std::vector<KernelProjection> &kps,
                   double firstLaunchExtraMs, const hw::HwSpec &hw, const layout::EnumerateOptions &eo,
                   const ModelOptions &mo, ProgramProjection &pp) {
  const skeleton::SkeletonFile &file = s.file;
  const skeleton::MacroTable &macros = s.macros;
  const std::vector<double> &count = s.count;
  const std::vector<int> &scope = s.scope;
  const std::set<std::string> &hostNeeds = df.hostNeeds;
  const auto &readers = df.readers;
  const size_t n = file.kernels.size();
  // Fusion of neighbours in the same scope, as long as each next one fuses.
  // The host steps by the kernel they precede and their scope (the first one
  // written there), so that each pair looks its own up.
  std::map<std::pair<size_t, int>, const skeleton::HostStep *> stepBefore;
  for (const auto &h : file.hostSteps)
    stepBefore.emplace(std::make_pair(h.beforeKernel, h.repeat), &h);
  // The fused kernels' reuse in L2: the program before the group is the file's,
  // so one sweep, advanced group by group, answers them all.
  Touches touched = touches(file, macros);
  std::vector<int> loop = loopsOf(file, macros);
  layout::FileContext ctx = layout::fileContext(file);
  ReuseSweep sweep(n, touched.bytes);
  size_t swept = 0;
  for (size_t i = 0; i < n;) {
    size_t j = i;
    skeleton::Kernel current = file.kernels[i];
    int recomputed = 0;
    std::set<std::string> groupStores;
    for (const auto &[a, st] : skeleton::memTouches(current.body))
      if (st && !hostNeeds.count(a))
        groupStores.insert(a);
    while (j + 1 < n && scope[j + 1] == scope[i]) {
      if (scope[i] >= 0 && file.repeats[static_cast<size_t>(scope[i])].indexed()) {
        pp.notFused.push_back(fmt::format("{} and {}: kernels of an indexed repeat are not fused",
                                          file.kernelName(j), file.kernelName(j + 1)));
        break;
      }
      // A reduction's result is whole only when all the blocks of its kernel
      // have added theirs: a kernel with one is not fused.
      if (!file.kernels[j].reductions.empty() || !file.kernels[j + 1].reductions.empty()) {
        size_t r = file.kernels[j].reductions.empty() ? j + 1 : j;
        pp.notFused.push_back(fmt::format("{} and {}: '{}' reduces into '{}', complete only when "
                                          "its kernel ends",
                                          file.kernelName(j), file.kernelName(j + 1),
                                          file.kernelName(r), file.kernels[r].reductions.front().target));
        break;
      }
      // Host code between the two needs the first one's results on the host.
      auto found = stepBefore.find({j + 1, scope[i]});
      if (found != stepBefore.end()) {
        const skeleton::HostStep *between = found->second;
        pp.notFused.push_back(fmt::format("{} and {}: the host {} '{}' between them",
                                          file.kernelName(j), file.kernelName(j + 1),
                                          between->writes ? "writes" : "reads",
                                          between->arrays.front()));
        break;
      }
      // An intermediate is dead when no other kernel reads it (in a repeat, the
      // kernels before the group run again after it) and the host does not.
      // (groupStores: what kernels i..j+1 store, grown kernel by kernel.)
      for (const auto &[a, st] : skeleton::kernelTouches(file, file.kernels[j + 1]))
        if (st && !hostNeeds.count(a))
          groupStores.insert(a);
      std::set<std::string> dead;
      for (const auto &a : groupStores) {
        auto r = readers.find(a);
        bool readElsewhere = r != readers.end() && (r->second.first < i || r->second.second > j + 1);
        if (!readElsewhere)
          dead.insert(a);
      }
      auto fr = skeleton::fuseKernels(file, current, file.kernels[j + 1], dead);
      if (!fr.fused) {
        pp.notFused.push_back(fmt::format("{} and {}: {}", file.kernelName(j), file.kernelName(j + 1),
                                          fr.whyNot));
        break;
      }
      current = std::move(*fr.fused);
      recomputed += fr.recomputedCopies;
      ++j;
    }
    if (j > i) {
      FusionGroup g;
      // The fused kernel sees the reuse in L2 that the program with the group
      // replaced by it would give it.
      while (swept < i) {
        sweep.touch(static_cast<long>(swept), touched.used[swept]);
        ++swept;
      }
      layout::KernelInfo ki = layout::analyzeKernel(
          file, current, current.name.empty() ? fmt::format("kernel{}", i) : current.name, ctx);
      applyReuse(ki, fusedReuse(file, touched, loop, sweep, i, j, current));
      // A fused kernel holds the arrays of the whole group: it may not fit where each did.
      std::vector<std::pair<std::string, double>> fusedArrays;
      {
        std::vector<bool> touched(ki.arrays.size(), false);
        for (const auto &a : ki.accesses)
          touched[static_cast<size_t>(a.array)] = true;
        for (size_t a = 0; a < ki.arrays.size(); ++a)
          if (touched[a])
            fusedArrays.emplace_back(ki.arrays[a].name, ki.arrays[a].elements * ki.arrays[a].elemBytes);
      }
      std::optional<std::string> fusedShortfall = deviceMemoryShortfall(hw, fusedArrays);
      KernelProjection fkp = fusedShortfall ? KernelProjection{} : projectKernel(ki, hw, eo, mo);
      double unfusedBytes = 0, warps = 0;
      // One pass over the group as it runs alone: its first launch is not queued.
      g.unfusedMs = firstLaunchExtraMs;
      for (size_t k = i; k <= j; ++k) {
        g.kernels.push_back(file.kernelName(k));
        g.unfusedMs += pp.kernels[k].timeMs;
        if (!kps[k].layouts.empty()) {
          unfusedBytes += kps[k].layouts.front().characterization.compulsoryBytes;
          warps += kps[k].layouts.front().result.n;
        }
      }
      g.activeWarpsUnfused = warps / static_cast<double>(j - i + 1);
      g.launchesSaved = static_cast<int>(j - i);
      g.recomputedCopies = recomputed;
      if (fkp.layouts.empty()) {
        g.winner = "unfused";
        g.why = fusedShortfall ? "the fused kernel " + *fusedShortfall
                               : "no layout of the fused kernel fits the GPU";
      } else {
        const auto &best = fkp.layouts.front();
        g.fusedLayout = best.layoutString;
        g.fusedMs = best.result.timeMs;
        g.activeWarpsFused = best.result.n;
        g.bytesSaved = unfusedBytes - best.characterization.compulsoryBytes;
        g.winner = g.fusedMs < g.unfusedMs ? "fused" : "unfused";
        g.why = fmt::format("{:.3g} MB of DRAM traffic {}, {} launch{} saved, {:.1f} active warps "
                            "per SM fused against {:.1f} unfused{}",
                            std::fabs(g.bytesSaved) / 1e6, g.bytesSaved >= 0 ? "saved" : "added",
                            g.launchesSaved, g.launchesSaved == 1 ? "" : "es", g.activeWarpsFused,
                            g.activeWarpsUnfused,
                            recomputed ? fmt::format(", {} halo recomputation{}", recomputed,
                                                     recomputed == 1 ? "" : "s")
                                       : "");
        if (g.winner == "fused") {
          pp.kernelsMs -= count[i] * (g.unfusedMs - g.fusedMs);
          pp.launchMs -= count[i] * g.launchesSaved * pp.kernels[i].launchMs;
        }
      }
      pp.fusion.push_back(g);
    }
    i = j + 1;
  }
}

} // namespace skelcast::model::program
