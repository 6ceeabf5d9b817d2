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
#include <unordered_map>

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

/// The arrays each kernel touches (loads or stores), as positions in
/// file.arrays, sorted and unique; and what each array weighs in bytes.
struct Touches {
  std::vector<std::vector<size_t>> used;
  std::vector<double> bytes;
  std::unordered_map<std::string, size_t> position;
  std::vector<size_t> of(const skeleton::Kernel &k) const {
    std::vector<size_t> out;
    for (const auto &[a, st] : skeleton::memTouches(k.body)) {
      auto it = position.find(a);
      if (it != position.end())
        out.push_back(it->second);
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
  }
};

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

/// Reuse distances in one pass over a sequence of kernels (docs/model.md,
/// section 9): the distance of array a at step t is the bytes of the distinct
/// arrays touched from the last step before t that touched a up to t. A Fenwick
/// tree over the steps holds each array's bytes at the last step that touched
/// it, so that the distinct arrays of a window [p, t] are a range sum: O(log n)
/// per touch instead of a walk back over every kernel in between (which made a
/// program of n kernels cost n^2). The bytes are whole numbers, so the sums are
/// exact, in any order.
class ReuseSweep {
public:
  ReuseSweep(size_t steps, const std::vector<double> &bytes)
      : tree_(steps + 1, 0), last_(bytes.size(), -1), bytes_(bytes) {}
  /// The step `t` touches `arrays`; returns, per array, the step that touched it
  /// last before (-1 for none), in the order of `arrays`.
  std::vector<long> touch(long t, const std::vector<size_t> &arrays) {
    std::vector<long> prev;
    prev.reserve(arrays.size());
    for (size_t a : arrays) {
      prev.push_back(last_[a]);
      if (last_[a] >= 0)
        add(last_[a], -bytes_[a]);
      add(t, bytes_[a]);
      last_[a] = t;
    }
    return prev;
  }
  /// The bytes of the distinct arrays whose last touch is within [p, t].
  double window(long p, long t) const { return prefix(t) - (p > 0 ? prefix(p - 1) : 0); }
  long last(size_t a) const { return last_[a]; }

private:
  void add(long i, double v) {
    for (size_t x = static_cast<size_t>(i) + 1; x < tree_.size(); x += x & (~x + 1))
      tree_[x] += v;
  }
  double prefix(long i) const {
    double s = 0;
    for (size_t x = static_cast<size_t>(i) + 1; x > 0; x -= x & (~x + 1))
      s += tree_[x];
    return s;
  }
  std::vector<double> tree_;
  std::vector<long> last_;
  const std::vector<double> &bytes_;
};

/// The repeats that run at least twice, per kernel (-1: none): their kernels
/// also follow their last one.
std::vector<int> loopsOf(const skeleton::SkeletonFile &file, const skeleton::MacroTable &macros) {
  std::vector<int> loop(file.kernels.size(), -1);
  for (size_t r = 0; r < file.repeats.size(); ++r)
    if (skeleton::repeatRange(file.repeats[r], macros, file.path).trips >= 2)
      for (size_t k : file.repeats[r].kernels)
        loop[k] = static_cast<int>(r);
  return loop;
}

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

double transferMs(const hw::HwSpec &hw, double bytes, bool hostToDevice, bool pinned) {
  if (!hw.hostLink)
    throw InputError({hw.path, 0, 0}, "field 'host_link': missing; a program's transfers need it");
  const hw::HostLink &h = *hw.hostLink;
  double gbps = hostToDevice ? (pinned ? h.h2dPinnedGBps : h.h2dPageableGBps)
                             : (pinned ? h.d2hPinnedGBps : h.d2hPageableGBps);
  const hw::CopyCurve &curve = hostToDevice ? h.h2dPageableCurve : h.d2hPageableCurve;
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
                                 const std::vector<KernelProjection> &kps, const hw::HwSpec &hw,
                                 const layout::EnumerateOptions &eo, const ModelOptions &mo,
                                 const ProgramOptions &po) {
  ProgramProjection pp;
  skeleton::MacroTable macros = skeleton::evalMacros(file);
  size_t n = file.kernels.size();
  std::vector<double> count(n, 1);
  std::vector<int> scope(n, -1);
  for (size_t r = 0; r < file.repeats.size(); ++r) {
    double c = static_cast<double>(skeleton::repeatRange(file.repeats[r], macros, file.path).trips);
    if (!file.repeats[r].indexed()) // an indexed repeat's passes are not time steps
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
  // One pass over the kernels: each array's first touch, whether any kernel
  // writes it, and the first and last kernel that reads it (for fusion).
  std::map<std::string, std::optional<bool>> firstTouchIsStore;
  std::map<std::string, bool> writtenBy;
  std::map<std::string, std::pair<size_t, size_t>> readers;
  for (size_t k = 0; k < n; ++k)
    for (const auto &[a, st] : skeleton::memTouches(file.kernels[k].body)) {
      auto &first = firstTouchIsStore[a];
      if (!first)
        first = st;
      writtenBy[a] = writtenBy[a] || st;
      if (!st) {
        auto it = readers.find(a);
        if (it == readers.end())
          readers.emplace(a, std::make_pair(k, k));
        else
          it->second.second = k;
      }
    }
  std::optional<std::string> memoryShortfall;
  {
    // Every array a kernel touches lives on the device while the program runs.
    std::vector<std::pair<std::string, double>> arrays;
    for (const auto &arr : file.arrays)
      if (firstTouchIsStore.count(arr.name))
        arrays.emplace_back(arr.name, bytesOf[arr.name]);
    memoryShortfall = deviceMemoryShortfall(hw, arrays);
  }
  for (const auto &arr : file.arrays) {
    std::optional<bool> firstIsStore = firstTouchIsStore[arr.name];
    bool written = writtenBy[arr.name];
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
    return mo.model.kind == ModelKind::Roofline ? hw.launchOverheadUs / 1000.0 : p.effects.launchMs;
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
      for (const auto &[a, st] : skeleton::memTouches(file.kernels[j + 1].body))
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
      if (pp.kernels[k].launches) // an indexed repeat's launches: no time step
        once += pp.kernels[k].count * pp.kernels[k].timeMs;
      else
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
