// Whole programs: dataflow, host-link transfers, fusion, verdict (docs/model.md, section 9).
#include "skelcast/model/Program.h"

#include "skelcast/skeleton/Eval.h"
#include "skelcast/skeleton/Fuse.h"
#include "skelcast/support/Diagnostic.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

namespace skelcast::model {
namespace {

/// Bytes of each array of the file, by name.
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

bool reads(const skeleton::Kernel &k, const std::string &array) {
  for (const auto &[a, st] : skeleton::memTouches(k.body))
    if (a == array && !st)
      return true;
  return false;
}

/// Per kernel, each array's reuse distance (docs/model.md, section 9), by name;
/// an array no earlier kernel uses is absent.
std::vector<std::map<std::string, double>> reuseDistances(const skeleton::SkeletonFile &file) {
  const size_t n = file.kernels.size();
  skeleton::MacroTable macros = skeleton::evalMacros(file);
  std::map<std::string, double> bytes = arrayBytes(file, macros);
  std::vector<std::set<std::string>> used(n);
  for (size_t k = 0; k < n; ++k)
    for (const auto &[a, st] : skeleton::memTouches(file.kernels[k].body))
      used[k].insert(a);
  // The repeats that run at least twice: their kernels follow their last one.
  std::vector<int> loop(n, -1);
  for (size_t r = 0; r < file.repeats.size(); ++r)
    if (skeleton::evalConstExpr(file.repeats[r].count, macros, file.path) >= 2)
      for (size_t k : file.repeats[r].kernels)
        loop[k] = static_cast<int>(r);
  std::vector<std::map<std::string, double>> distances(n);
  for (size_t k = 0; k < n; ++k) {
    // The kernels that ran before k, nearest first.
    std::vector<size_t> before;
    if (loop[k] >= 0) {
      const auto &body = file.repeats[static_cast<size_t>(loop[k])].kernels;
      size_t pos = static_cast<size_t>(std::find(body.begin(), body.end(), k) - body.begin());
      for (size_t d = 1; d <= body.size(); ++d)
        before.push_back(body[(pos + body.size() - d) % body.size()]);
    } else {
      for (size_t j = k; j-- > 0;)
        before.push_back(j);
    }
    for (const auto &array : used[k]) {
      std::set<std::string> touched = used[k];
      for (size_t j : before) {
        touched.insert(used[j].begin(), used[j].end());
        if (!used[j].count(array))
          continue;
        double distance = 0;
        for (const auto &a : touched)
          distance += bytes[a];
        distances[k][array] = distance;
        break;
      }
    }
  }
  return distances;
}

void applyReuse(layout::KernelInfo &ki, const std::map<std::string, double> &distances) {
  for (auto &arr : ki.arrays) {
    auto it = distances.find(arr.name);
    if (it != distances.end())
      arr.programReuseBytes = it->second;
  }
}

/// Copies of one array in one direction, for one cause, in one scope.
struct PlannedCopy {
  std::string array;
  bool toDevice = false, byHost = false;
  int repeat = -1;          ///< the repeat whose passes make it, -1 for none
  double count = 0;         ///< over the whole program
  double perPass = 0;       ///< in each pass of the repeat after its first
  double repeatCount = 1;   ///< that repeat's count
};

/// What crosses the host link and when (docs/model.md, section 9, "Transfers"):
/// the program's kernels and host steps run in order, each array with two
/// flags: the device's copy is stale (the host provided it, or changed it in a
/// host step, since the device last had it) and the host's copy is stale (a
/// kernel wrote it since the host last had it). A kernel that touches an array
/// whose device copy is stale gets it first (host to device); a host step that
/// names an array whose host copy is stale gets it first (device to host); at
/// the end the host gets each output whose copy is stale, and, in a file with
/// marks, each `out`/`inout` array not copied back before (the mark asks for
/// it even when no kernel wrote it). A repeat's passes
/// after the first find the flags its first pass left, so they all make the
/// same copies: the first pass, then the second one count - 1 times. The copies
/// come in the order of their first copy.
std::vector<PlannedCopy> planTransfers(const skeleton::SkeletonFile &file,
                                       const std::set<std::string> &inputs,
                                       const std::set<std::string> &outputs, bool marked,
                                       const std::vector<double> &count,
                                       const std::vector<int> &scope) {
  // Events in program order: host steps before the kernel they precede, in
  // the order written (a top-level step before a repeat precedes the steps of
  // its body, those at the end of the body precede a top-level step after it).
  struct Event {
    size_t pos;
    int kind; // 0: host step, 1: kernel
    size_t index;
    int repeat;
  };
  std::vector<Event> events;
  for (size_t h = 0; h < file.hostSteps.size(); ++h)
    events.push_back({file.hostSteps[h].beforeKernel, 0, h, file.hostSteps[h].repeat});
  for (size_t k = 0; k < file.kernels.size(); ++k)
    events.push_back({k, 1, k, scope[k]});
  std::stable_sort(events.begin(), events.end(), [](const Event &a, const Event &b) {
    return a.pos != b.pos ? a.pos < b.pos : a.kind < b.kind;
  });

  struct Flags {
    bool deviceStale = false, hostStale = false, staleByHost = false, copiedBack = false;
  };
  std::map<std::string, Flags> flags;
  for (const auto &a : inputs)
    flags[a].deviceStale = true;
  std::vector<PlannedCopy> plan;
  // weight: the copies this pass stands for; steady: a pass after the first
  auto record = [&](const std::string &array, bool toDevice, bool byHost, int repeat,
                    double weight, bool steady, double repeatCount) {
    auto it = std::find_if(plan.begin(), plan.end(), [&](const PlannedCopy &c) {
      return c.array == array && c.toDevice == toDevice && c.byHost == byHost && c.repeat == repeat;
    });
    if (it == plan.end()) {
      plan.push_back({array, toDevice, byHost, repeat, 0, 0, repeatCount});
      it = plan.end() - 1;
    }
    it->count += weight;
    if (steady)
      it->perPass += 1;
  };
  auto run = [&](const Event &e, double weight, bool steady, double repeatCount) {
    if (e.kind == 1) {
      std::map<std::string, bool> stored; // the arrays it touches: stored or only loaded
      for (const auto &[a, st] : skeleton::memTouches(file.kernels[e.index].body))
        stored[a] = stored[a] || st;
      for (const auto &arr : file.arrays) { // declaration order
        auto it = stored.find(arr.name);
        if (it == stored.end())
          continue;
        Flags &f = flags[arr.name];
        if (f.deviceStale) {
          record(arr.name, true, f.staleByHost, e.repeat, weight, steady, repeatCount);
          f.deviceStale = false;
        }
        if (it->second)
          f.hostStale = true;
      }
      return;
    }
    const skeleton::HostStep &h = file.hostSteps[e.index];
    for (const auto &a : h.arrays) {
      Flags &f = flags[a];
      if (f.hostStale) {
        record(a, false, true, e.repeat, weight, steady, repeatCount);
        f.hostStale = false;
        f.copiedBack = true;
      }
      if (h.writes) {
        f.deviceStale = true;
        f.staleByHost = true;
      }
    }
  };
  for (size_t e = 0; e < events.size();) {
    size_t end = e + 1;
    int r = events[e].repeat;
    if (r >= 0)
      while (end < events.size() && events[end].repeat == r)
        ++end;
    double c = r >= 0 ? count[file.repeats[static_cast<size_t>(r)].kernels.front()] : 1;
    for (size_t x = e; x < end; ++x)
      run(events[x], 1, false, c);
    if (c >= 2)
      for (size_t x = e; x < end; ++x)
        run(events[x], c - 1, true, c);
    e = end;
  }
  for (const auto &a : outputs)
    if (flags[a].hostStale || (marked && !flags[a].copiedBack))
      record(a, false, false, -1, 1, false, 1);
  return plan;
}

} // namespace

std::vector<layout::KernelInfo> analyzeProgram(const skeleton::SkeletonFile &file) {
  std::vector<std::map<std::string, double>> distances = reuseDistances(file);
  std::vector<layout::KernelInfo> infos;
  infos.reserve(file.kernels.size());
  for (size_t k = 0; k < file.kernels.size(); ++k) {
    infos.push_back(layout::analyzeKernel(file, k));
    applyReuse(infos.back(), distances[k]);
  }
  return infos;
}

layout::KernelInfo analyzeProgramKernel(const skeleton::SkeletonFile &file, size_t k) {
  layout::KernelInfo ki = layout::analyzeKernel(file, k);
  applyReuse(ki, reuseDistances(file)[k]);
  return ki;
}

double transferMs(const HwSpec &hw, double bytes, bool hostToDevice, bool pinned) {
  if (!hw.hostLink)
    throw InputError({hw.path, 0, 0}, "field 'host_link': missing; a program's transfers need it");
  const HostLink &h = *hw.hostLink;
  double gbps = hostToDevice ? (pinned ? h.h2dPinnedGBps : h.h2dPageableGBps)
                             : (pinned ? h.d2hPinnedGBps : h.d2hPageableGBps);
  const CopyCurve &curve = hostToDevice ? h.h2dPageableCurve : h.d2hPageableCurve;
  if (pinned || curve.empty() || bytes < curve.front().first)
    return h.latencyUs / 1000.0 + bytes / (gbps * 1e6);
  // Within the measured sizes: linear between the neighbouring points; beyond
  // the largest, its time grows in proportion to the bytes.
  if (bytes >= curve.back().first)
    return curve.back().second * bytes / curve.back().first;
  auto hi = std::upper_bound(curve.begin(), curve.end(), bytes,
                             [](double b, const std::pair<double, double> &p) { return b < p.first; });
  auto lo = hi - 1;
  double f = (bytes - lo->first) / (hi->first - lo->first);
  return lo->second + f * (hi->second - lo->second);
}

ProgramProjection projectProgram(const skeleton::SkeletonFile &file,
                                 const std::vector<KernelProjection> &kps, const HwSpec &hw,
                                 const layout::EnumerateOptions &eo, const ModelOptions &mo,
                                 const ProgramOptions &po) {
  ProgramProjection pp;
  skeleton::MacroTable macros = skeleton::evalMacros(file);
  size_t n = file.kernels.size();
  std::vector<double> count(n, 1);
  std::vector<int> scope(n, -1);
  for (size_t r = 0; r < file.repeats.size(); ++r) {
    double c = static_cast<double>(skeleton::evalConstExpr(file.repeats[r].count, macros, file.path));
    pp.repeats = std::max(pp.repeats, static_cast<int>(c));
    for (size_t k : file.repeats[r].kernels) {
      count[k] = c;
      scope[k] = static_cast<int>(r);
    }
  }

  // Dataflow: with marks, the marks decide (unmarked arrays are device
  // temporaries); without, an array read before any kernel writes it comes
  // from the host and every array written goes back.
  bool anyMark = std::any_of(file.arrays.begin(), file.arrays.end(),
                             [](const skeleton::Array &a) { return a.mark != skeleton::HostMark::None; });
  std::set<std::string> inputs, outputs;
  std::map<std::string, double> bytesOf = arrayBytes(file, macros);
  std::optional<std::string> memoryShortfall;
  {
    // Every array a kernel touches lives on the device while the program runs.
    std::vector<std::pair<std::string, double>> arrays;
    for (const auto &arr : file.arrays) {
      bool touched = false;
      for (const auto &k : file.kernels)
        for (const auto &[a, st] : skeleton::memTouches(k.body))
          touched = touched || a == arr.name;
      if (touched)
        arrays.emplace_back(arr.name, bytesOf[arr.name]);
    }
    memoryShortfall = deviceMemoryShortfall(hw, arrays);
  }
  for (const auto &arr : file.arrays) {
    std::optional<bool> firstIsStore;
    bool written = false;
    for (const auto &k : file.kernels)
      for (const auto &[a, st] : skeleton::memTouches(k.body))
        if (a == arr.name) {
          if (!firstIsStore)
            firstIsStore = st;
          written = written || st;
        }
    if (!firstIsStore)
      continue; // no kernel touches it
    if (anyMark ? (arr.mark == skeleton::HostMark::In || arr.mark == skeleton::HostMark::InOut)
                : !*firstIsStore)
      inputs.insert(arr.name);
    if (anyMark ? (arr.mark == skeleton::HostMark::Out || arr.mark == skeleton::HostMark::InOut)
                : written)
      outputs.insert(arr.name);
  }
  std::vector<PlannedCopy> copies = planTransfers(file, inputs, outputs, anyMark, count, scope);
  double onceTransferMs = 0, eachRepeatTransferMs = 0; // for the break-even
  for (const auto &c : copies) {
    Transfer t;
    t.array = c.array;
    t.bytes = bytesOf[c.array];
    t.ms = transferMs(hw, t.bytes, c.toDevice, po.pinned);
    t.count = c.count;
    t.byHost = c.byHost;
    t.eachRepeat = c.perPass > 0;
    (c.toDevice ? pp.h2dMs : pp.d2hMs) += t.count * t.ms;
    eachRepeatTransferMs += c.perPass * t.ms;
    onceTransferMs += (t.count - c.perPass * c.repeatCount) * t.ms;
    (c.toDevice ? pp.h2d : pp.d2h).push_back(t);
  }
  // What the host reads, at the end or in a host step, is never a dead intermediate.
  std::set<std::string> hostNeeds = outputs;
  for (const auto &h : file.hostSteps)
    hostNeeds.insert(h.arrays.begin(), h.arrays.end());

  // Launches: the kernels are queued one behind the other, so every launch but
  // the first costs the back-to-back launch time (docs/model.md, section 9).
  // The launch overhead a kernel's time holds: the launch term's, or the
  // roofline's (which always adds it); the paper's model has none.
  auto launchPart = [&](const LayoutProjection &p) {
    return mo.model == "roofline" ? hw.launchOverheadUs / 1000.0 : p.effects.launchMs;
  };
  double firstLaunchExtraMs = 0;
  for (const auto &kp : kps)
    if (!kp.layouts.empty() && launchPart(kp.layouts.front()) > 0)
      firstLaunchExtraMs = (hw.launchOverheadUs - hw.launchBackToBackUs) / 1000.0;
  for (size_t k = 0; k < n; ++k) {
    ProgramKernel pk;
    pk.kernel = file.kernelName(k);
    pk.count = count[k];
    if (!kps[k].layouts.empty()) {
      pk.layout = kps[k].layouts.front().layoutString;
      pk.timeMs = kps[k].layouts.front().result.timeMs - firstLaunchExtraMs;
      pk.launchMs = launchPart(kps[k].layouts.front()) - firstLaunchExtraMs;
    }
    pp.kernelsUnfusedMs += pk.count * pk.timeMs;
    pp.launchMs += pk.count * pk.launchMs;
    pp.kernels.push_back(pk);
  }
  pp.kernelsUnfusedMs += firstLaunchExtraMs;
  pp.launchMs += firstLaunchExtraMs;
  pp.kernelsMs = pp.kernelsUnfusedMs;

  // Fusion of neighbours in the same scope, as long as each next one fuses.
  for (size_t i = 0; i < n;) {
    size_t j = i;
    skeleton::Kernel current = file.kernels[i];
    int recomputed = 0;
    while (j + 1 < n && scope[j + 1] == scope[i]) {
      // Host code between the two needs the first one's results on the host.
      auto between = std::find_if(file.hostSteps.begin(), file.hostSteps.end(),
                                  [&](const skeleton::HostStep &h) {
                                    return h.beforeKernel == j + 1 && h.repeat == scope[i];
                                  });
      if (between != file.hostSteps.end()) {
        pp.notFused.push_back(fmt::format("{} and {}: the host {} '{}' between them",
                                          file.kernelName(j), file.kernelName(j + 1),
                                          between->writes ? "writes" : "reads",
                                          between->arrays.front()));
        break;
      }
      // An intermediate is dead when no other kernel reads it (in a repeat, the
      // kernels before the group run again after it) and the host does not.
      std::set<std::string> dead;
      for (size_t g = i; g <= j + 1; ++g)
        for (const auto &[a, st] : skeleton::memTouches(file.kernels[g].body))
          if (st && !hostNeeds.count(a)) {
            bool readElsewhere = false;
            for (size_t o = 0; o < n; ++o)
              if ((o < i || o > j + 1) && reads(file.kernels[o], a))
                readElsewhere = true;
            if (!readElsewhere)
              dead.insert(a);
          }
      auto fr = skeleton::fuseKernels(file, current, file.kernels[j + 1], dead);
      if (!fr.fused) {
        pp.notFused.push_back(fmt::format("{} and {}: {}", file.kernelName(j), file.kernelName(j + 1),
                                          fr.whyNot));
        break;
      }
      current = *fr.fused;
      recomputed += fr.recomputedCopies;
      ++j;
    }
    if (j > i) {
      FusionGroup g;
      // The program with the group replaced by the fused kernel, so that the
      // fused kernel sees the same reuse in L2 as the group does.
      skeleton::SkeletonFile fused = file;
      fused.kernels.erase(fused.kernels.begin() + static_cast<std::ptrdiff_t>(i),
                          fused.kernels.begin() + static_cast<std::ptrdiff_t>(j) + 1);
      fused.kernels.insert(fused.kernels.begin() + static_cast<std::ptrdiff_t>(i), current);
      fused.order.clear();
      for (auto &h : fused.hostSteps) // none sits inside the group: it would not fuse
        if (h.beforeKernel > i)
          h.beforeKernel -= j - i;
      for (auto &r : fused.repeats) {
        std::vector<size_t> ks;
        for (size_t k : r.kernels) {
          size_t m = k < i ? k : k <= j ? i : k - (j - i);
          if (ks.empty() || ks.back() != m)
            ks.push_back(m);
        }
        r.kernels = ks;
      }
      layout::KernelInfo ki = analyzeProgramKernel(fused, i);
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

  pp.totalMs = pp.h2dMs + pp.kernelsMs + pp.d2hMs;
  pp.cpuMs = po.cpuMs;
  if (po.cpuMs) {
    pp.cpuSource = po.cpuSource;
    pp.cpuThreads = po.cpuThreads;
    pp.cpuRuns = po.cpuRuns;
  }
  if (memoryShortfall) {
    // Each kernel fits alone, the program's arrays together do not: as written
    // it cannot run on this GPU, whatever the speedup would be.
    if (po.cpuMs)
      pp.speedup = *po.cpuMs / pp.totalMs;
    pp.verdict = "do not port";
    pp.reason = "the program " + *memoryShortfall;
    return pp;
  }
  if (!po.cpuMs) {
    pp.verdict = "unknown";
    pp.reason = "no CPU time: give --cpu-ms";
    return pp;
  }
  pp.speedup = *po.cpuMs / pp.totalMs;
  // The repeat count from which the port pays off, when the CPU wins this one.
  if (pp.repeats > 1) {
    double perRepeatGpu = eachRepeatTransferMs, once = onceTransferMs + firstLaunchExtraMs;
    for (size_t k = 0; k < n; ++k)
      (scope[k] >= 0 ? perRepeatGpu : once) += pp.kernels[k].timeMs;
    double perRepeatCpu = *po.cpuMs / pp.repeats;
    if (*pp.speedup < 1 && perRepeatCpu > perRepeatGpu)
      pp.breakEvenRepeats = std::ceil(once / (perRepeatCpu - perRepeatGpu));
  }
  if (*pp.speedup >= po.minSpeedup) {
    pp.verdict = "port";
    return pp;
  }
  pp.verdict = "do not port";
  double transfers = pp.h2dMs + pp.d2hMs;
  double tasks = 0;
  for (const auto &kp : kps)
    if (!kp.layouts.empty())
      tasks = std::max(tasks, kp.layouts.front().characterization.workload.blocks *
                                  kp.layouts.front().characterization.workload.threadsPerBlock);
  double fill = static_cast<double>(hw.smCount) * hw.maxWarpsPerSM * hw.warpSize / 4.0;
  if (transfers >= 0.5 * pp.totalMs)
    pp.reason = fmt::format("transfers dominate ({:.0f}% of the GPU time)", 100 * transfers / pp.totalMs);
  else if (pp.launchMs >= 0.5 * pp.kernelsMs)
    pp.reason = fmt::format("launches dominate ({:.0f}% of the kernel time)", 100 * pp.launchMs / pp.kernelsMs);
  else if (tasks < fill)
    pp.reason = fmt::format("too little parallelism to fill the GPU ({:.0f} threads at most, a "
                            "quarter of its {} resident threads is {:.0f})",
                            tasks, hw.name, fill);
  else
    pp.reason = "the CPU is simply faster";
  return pp;
}

} // namespace skelcast::model
