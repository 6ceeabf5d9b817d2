// Step 1 of a program's projection: the dataflow and the copies over the host
// link (docs/model.md, section 9, "Dataflow", "When copies happen", "Transfers").
#include "ProgramSteps.h"

#include "skelcast/support/Diagnostic.h"

#include <algorithm>
#include <map>
#include <set>

namespace skelcast::model {
namespace program {
namespace {

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
      for (const auto &[a, st] : skeleton::kernelTouches(file, file.kernels[e.index]))
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

/// The bytes of array `name` (0 for a name the file does not declare).
double bytesOf(const Dataflow &df, const std::string &name) {
  auto it = df.bytes.find(name);
  return it == df.bytes.end() ? 0.0 : it->second;
}

} // namespace

Dataflow dataflowOf(const Shape &s, const hw::HwSpec &hw) {
  const skeleton::SkeletonFile &file = s.file;
  const size_t n = file.kernels.size();
  Dataflow df;
  // With marks, the marks decide (unmarked arrays are device temporaries);
  // without, an array read before any kernel writes it comes from the host and
  // every array written goes back.
  df.marked = std::any_of(file.arrays.begin(), file.arrays.end(),
                          [](const skeleton::Array &a) { return a.mark != skeleton::HostMark::None; });
  df.bytes = arrayBytes(file, s.macros);
  // One pass over the kernels: each array's first touch, whether any kernel
  // writes it, and the first and last kernel that reads it (for fusion).
  std::map<std::string, std::optional<bool>> firstTouchIsStore;
  std::map<std::string, bool> writtenBy;
  for (size_t k = 0; k < n; ++k)
    for (const auto &[a, st] : skeleton::kernelTouches(file, file.kernels[k])) {
      auto &first = firstTouchIsStore[a];
      if (!first)
        first = st;
      writtenBy[a] = writtenBy[a] || st;
      if (!st) {
        auto it = df.readers.find(a);
        if (it == df.readers.end())
          df.readers.emplace(a, std::make_pair(k, k));
        else
          it->second.second = k;
      }
    }
  {
    // Every array a kernel touches lives on the device while the program runs.
    std::vector<std::pair<std::string, double>> arrays;
    for (const auto &arr : file.arrays)
      if (firstTouchIsStore.count(arr.name))
        arrays.emplace_back(arr.name, bytesOf(df, arr.name));
    df.memoryShortfall = deviceMemoryShortfall(hw, arrays);
  }
  for (const auto &arr : file.arrays) {
    std::optional<bool> firstIsStore = firstTouchIsStore[arr.name];
    bool written = writtenBy[arr.name];
    if (!firstIsStore)
      continue; // no kernel touches it
    if (df.marked ? (arr.mark == skeleton::HostMark::In || arr.mark == skeleton::HostMark::InOut)
                  : !*firstIsStore)
      df.inputs.insert(arr.name);
    if (df.marked ? (arr.mark == skeleton::HostMark::Out || arr.mark == skeleton::HostMark::InOut)
                  : written)
      df.outputs.insert(arr.name);
  }
  // What the host reads, at the end or in a host step, is never a dead intermediate.
  df.hostNeeds = df.outputs;
  for (const auto &h : file.hostSteps)
    df.hostNeeds.insert(h.arrays.begin(), h.arrays.end());
  return df;
}

TransferTimes projectTransfers(const Shape &s, const Dataflow &df, const hw::HwSpec &hw, bool pinned,
                               ProgramProjection &pp) {
  TransferTimes times;
  std::vector<PlannedCopy> copies = planTransfers(s.file, df.inputs, df.outputs, df.marked, s.count, s.scope);
  for (const auto &c : copies) {
    Transfer t;
    t.array = c.array;
    t.bytes = bytesOf(df, c.array);
    t.ms = transferMs(hw, t.bytes, c.toDevice, pinned);
    t.count = c.count;
    t.byHost = c.byHost;
    t.eachRepeat = c.perPass > 0;
    (c.toDevice ? pp.h2dMs : pp.d2hMs) += t.count * t.ms;
    times.eachRepeatMs += c.perPass * t.ms;
    times.onceMs += (t.count - c.perPass * c.repeatCount) * t.ms;
    (c.toDevice ? pp.h2d : pp.d2h).push_back(t);
  }
  return times;
}

} // namespace program

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
  return hw::interpolate(curve, bytes);
}

} // namespace skelcast::model
