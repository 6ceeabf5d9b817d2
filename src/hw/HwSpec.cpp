#include "skelcast/hw/HwSpec.h"

#include "skelcast/skeleton/Parser.h"
#include "skelcast/support/Diagnostic.h"
#include "skelcast/support/Hash.h"
#include "skelcast/support/JsonText.h"
#include "skelcast/support/TextFile.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <set>

namespace skelcast::hw {
namespace {

using nlohmann::json;

constexpr int kSchemaVersion = 1;

/// The other field that bounds a field from below or above.
struct Bound {
  const char *below = nullptr, *above = nullptr;
  std::string note(bool tooLow, double lo, double hi) const {
    if (tooLow && below)
      return fmt::format(" (at least {}, which is {})", below, lo);
    if (!tooLow && above)
      return fmt::format(" (at most {}, which is {})", above, hi);
    return "";
  }
};

class SpecReader {
public:
  SpecReader(const json &root, std::string path) : root_(root), path_(std::move(path)) {}

  [[noreturn]] void fail(const std::string &field, const std::string &msg) const {
    throw InputError({path_, 0, 0}, fmt::format("field '{}': {}", field, msg));
  }

  const json &field(const std::string &name) {
    seen_.insert(name);
    auto it = root_.find(name);
    if (it == root_.end())
      fail(name, "missing");
    const json &f = *it;
    if (!f.is_object())
      fail(name, "must be an object {\"value\": ..., \"source\": \"...\"}");
    auto v = f.find("value");
    if (v == f.end())
      fail(name, "missing 'value'");
    auto s = f.find("source");
    if (s == f.end() || !s->is_string() || s->get<std::string>().empty())
      fail(name, "missing 'source' (every number needs one)");
    for (auto &[k, _] : f.items())
      if (k != "value" && k != "source" && k != "note")
        fail(name, fmt::format("unknown key '{}'", k));
    sources_[name] = s->get<std::string>();
    return *v;
  }

  /// `bound`, when given, names the field whose value is `lo` or `hi` (which
  /// then says so: "(at most launch_overhead_us, which is 0)").
  double number(const std::string &name, double lo, double hi, const Bound &bound = {}) {
    const json &v = field(name);
    if (!v.is_number())
      fail(name, fmt::format("must be a number, is {}", v.type_name()));
    double d = v.get<double>();
    if (!std::isfinite(d) || d < lo || d > hi)
      fail(name, fmt::format("{} is out of range [{}, {}]{}", d, lo, hi, bound.note(d < lo, lo, hi)));
    return d;
  }

  int64_t integer(const std::string &name, int64_t lo, int64_t hi, const Bound &bound = {}) {
    const json &v = field(name);
    if (!v.is_number_integer())
      fail(name, fmt::format("must be an integer, is {}", v.is_number() ? "a fraction" : v.type_name()));
    // An integer above INT64_MAX is stored unsigned: get<int64_t> would wrap it.
    if (v.is_number_unsigned() && v.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX))
      fail(name, fmt::format("{} is out of range [{}, {}]", v.get<uint64_t>(), lo, hi));
    int64_t i = v.get<int64_t>();
    if (i < lo || i > hi)
      fail(name, fmt::format("{} is out of range [{}, {}]{}", i, lo, hi,
                             bound.note(i < lo, static_cast<double>(lo), static_cast<double>(hi))));
    return i;
  }

  double checkRange(const std::string &name, double d, double lo, double hi, const Bound &bound = {}) const {
    if (!std::isfinite(d) || d < lo || d > hi)
      fail(name, fmt::format("{} is out of range [{}, {}]{}", d, lo, hi, bound.note(d < lo, lo, hi)));
    return d;
  }

  std::string string(const std::string &name) {
    const json &v = field(name);
    if (!v.is_string())
      fail(name, fmt::format("must be a string, is {}", v.type_name()));
    return v.get<std::string>();
  }

  HostLink hostLink() {
    const json &v = field("host_link");
    if (!v.is_object())
      fail("host_link", "value must be an object");
    HostLink h;
    auto num = [&](const char *key, double lo, double hi) {
      std::string fname = std::string("host_link.") + key;
      auto it = v.find(key);
      if (it == v.end())
        fail(fname, "missing");
      if (!it->is_number())
        fail(fname, fmt::format("must be a number, is {}", it->type_name()));
      return checkRange(fname, it->get<double>(), lo, hi);
    };
    auto k = v.find("kind");
    if (k == v.end() || !k->is_string())
      fail("host_link.kind", "missing or not a string");
    h.kind = k->get<std::string>();
    h.h2dPinnedGBps = num("h2d_pinned_gbps", 0.01, 10000);
    h.d2hPinnedGBps = num("d2h_pinned_gbps", 0.01, 10000);
    h.h2dPageableGBps = num("h2d_pageable_gbps", 0.01, 10000);
    h.d2hPageableGBps = num("d2h_pageable_gbps", 0.01, 10000);
    h.latencyUs = num("latency_us", 0, 1e6);
    h.h2dPageableCurve = curve(v, "h2d_pageable_ms_by_bytes");
    h.d2hPageableCurve = curve(v, "d2h_pageable_ms_by_bytes");
    for (auto &[key, _] : v.items()) {
      static const std::set<std::string> known{"kind", "h2d_pinned_gbps", "d2h_pinned_gbps",
                                               "h2d_pageable_gbps", "d2h_pageable_gbps",
                                               "latency_us", "h2d_pageable_ms_by_bytes",
                                               "d2h_pageable_ms_by_bytes", "note"};
      if (!known.count(key))
        fail("host_link." + key, "unknown field");
    }
    return h;
  }

  /// An optional [[bytes, ms], ...] list of host_link: two or more points,
  /// bytes strictly increasing, times positive and not decreasing.
  CopyCurve curve(const json &link, const char *key) const {
    auto it = link.find(key);
    if (it == link.end())
      return {};
    return points(*it, std::string("host_link.") + key,
                  {"[bytes, ms]", 1, 1e15, 1e-6, 1e9, {}, "sizes must increase",
                   "a larger copy cannot take less time"});
  }

  /// What a list of measured points must be: its pair's name for the
  /// messages, the ranges of x and y (and the field that bounds y), and what
  /// is said when x does not increase or y falls.
  struct PointsRule {
    const char *pair;
    double xlo, xhi, ylo, yhi;
    Bound yBound;
    const char *xMustIncrease, *yCannotFall;
  };

  /// [[x, y], ...] field `fname`: two or more points, x strictly increasing,
  /// y not decreasing, each within its range.
  Curve points(const json &v, const std::string &fname, const PointsRule &r) const {
    if (!v.is_array() || v.size() < 2)
      fail(fname, fmt::format("must be a list of two or more {} points", r.pair));
    Curve c;
    for (size_t i = 0; i < v.size(); ++i) {
      const json &pt = v[i];
      std::string at = fmt::format("{}[{}]", fname, i);
      if (!pt.is_array() || pt.size() != 2 || !pt[0].is_number() || !pt[1].is_number())
        fail(at, fmt::format("must be a {} pair of numbers", r.pair));
      double x = checkRange(at + "[0]", pt[0].get<double>(), r.xlo, r.xhi);
      double y = checkRange(at + "[1]", pt[1].get<double>(), r.ylo, r.yhi, r.yBound);
      if (!c.empty() && x <= c.back().first)
        fail(at, r.xMustIncrease);
      if (!c.empty() && y < c.back().second)
        fail(at, r.yCannotFall);
      c.push_back({x, y});
    }
    return c;
  }

  void rejectUnknown() const {
    static const std::set<std::string> meta{"schema_version", "name", "description", "note"};
    for (auto &[k, _] : root_.items())
      if (!meta.count(k) && !seen_.count(k))
        fail(k, "unknown field");
  }

  std::map<std::string, std::string> sources_;

private:
  const json &root_;
  std::string path_;
  std::set<std::string> seen_;
};


} // namespace

const char *coalescingRuleName(CoalescingRule r) {
  switch (r) {
  case CoalescingRule::HalfWarp: return "half-warp (cc 1.0/1.1)";
  case CoalescingRule::Segment: return "segment (cc 1.2/1.3)";
  case CoalescingRule::Sector: return "32-byte sector (cc >= 2.0)";
  }
  return "";
}

double interpolate(const Curve &c, double x) {
  if (x <= c.front().first)
    return c.front().second;
  if (x >= c.back().first)
    return c.back().second;
  auto hi = std::upper_bound(c.begin(), c.end(), x,
                             [](double v, const std::pair<double, double> &p) { return v < p.first; });
  auto lo = hi - 1;
  double f = (x - lo->first) / (hi->first - lo->first);
  return lo->second + f * (hi->second - lo->second);
}

double HwSpec::dramGBpsAt(double bytesPerSM) const {
  const Curve &c = dramGBpsByBytesInFlight;
  if (c.empty() || !(bytesPerSM > 0))
    return 0;
  if (bytesPerSM <= c.front().first)
    return c.front().second * bytesPerSM / c.front().first;
  return interpolate(c, bytesPerSM);
}

double HwSpec::dramWarpWaitCycles(double requests) const {
  const Curve &c = dramWarpWaitCyclesByRequests;
  if (c.empty() || !(requests > 0))
    return 0;
  if (requests <= c.front().first)
    return c.front().second;
  if (requests >= c.back().first) {
    const auto &p = c[c.size() - 2], &q = c.back();
    return q.second + (requests - q.first) * (q.second - p.second) / (q.first - p.first);
  }
  return interpolate(c, requests);
}

double HwSpec::warpsByRegisters(double registers) const {
  double parts = std::max(1, schedulersPerSM);
  double perWarp = std::ceil(registers / 8.0) * 8.0 * warpSize;
  if (!(perWarp > 0) || registersPerSM <= 0) // no registers, or a spec without the file: no bound
    return maxWarpsPerSM;
  return parts * std::floor(static_cast<double>(registersPerSM) / parts / perWarp);
}

int64_t HwSpec::sharedMemBlockMayHold() const {
  return std::min(sharedMemPerBlockBytes, sharedMemPerSMBytes - reservedSharedMemPerBlockBytes);
}

double HwSpec::registersForOneBlock(double warps) const {
  if (warps <= 0 || registersPerSM <= 0) // a spec without the fields
    return maxRegistersPerThread;
  double parts = std::max(1, schedulersPerSM);
  double perThread = std::floor(static_cast<double>(registersPerSM) / parts /
                                (std::ceil(warps / parts) * warpSize) / 8.0) * 8.0;
  return std::min<double>(maxRegistersPerThread, perThread);
}

CoalescingRule HwSpec::coalescing() const {
  if (ccMajor == 1)
    return ccMinor <= 1 ? CoalescingRule::HalfWarp : CoalescingRule::Segment;
  return CoalescingRule::Sector;
}

HwSpec parseHwSpec(const std::string &text, const std::string &path) {
  json root = parseJsonText(text, path);
  if (!root.is_object())
    throw InputError({path, 0, 0}, "a hardware spec must be a JSON object");
  auto sv = root.find("schema_version");
  if (sv == root.end())
    throw InputError({path, 0, 0}, "field 'schema_version': missing");
  if (!sv->is_number_integer() || sv->get<int64_t>() != kSchemaVersion)
    throw InputError({path, 0, 0},
                     fmt::format("field 'schema_version': this skelcast reads version {}, the file "
                                 "has {}",
                                 kSchemaVersion, sv->dump()));
  HwSpec h;
  h.path = path;
  auto nm = root.find("name");
  if (nm == root.end() || !nm->is_string() || nm->get<std::string>().empty())
    throw InputError({path, 0, 0}, "field 'name': missing or not a non-empty string");
  h.name = nm->get<std::string>();
  if (auto d = root.find("description"); d != root.end() && d->is_string())
    h.description = d->get<std::string>();

  SpecReader r(root, path);
  h.computeCapability = r.string("compute_capability");
  {
    // MAJOR.MINOR, each one or two digits (sscanf's %d would overflow on long digit runs).
    const std::string &cc = h.computeCapability;
    auto dot = cc.find('.');
    auto digits = [&](size_t b, size_t e) {
      return e > b && e - b <= 2 &&
             std::all_of(cc.begin() + static_cast<std::ptrdiff_t>(b), cc.begin() + static_cast<std::ptrdiff_t>(e),
                         [](char c) { return c >= '0' && c <= '9'; });
    };
    bool ok = dot != std::string::npos && digits(0, dot) && digits(dot + 1, cc.size());
    int maj = ok ? std::stoi(cc.substr(0, dot)) : 0;
    int mnr = ok ? std::stoi(cc.substr(dot + 1)) : 0;
    if (!ok || maj < 1 || maj > 20 || mnr < 0 || mnr > 9)
      r.fail("compute_capability", fmt::format("'{}' is not of the form MAJOR.MINOR",
                                               h.computeCapability));
    h.ccMajor = maj;
    h.ccMinor = mnr;
  }
  h.smCount = static_cast<int>(r.integer("sm_count", 1, 4096));
  h.clockGHz = r.number("clock_ghz", 0.05, 10);
  h.warpSize = static_cast<int>(r.integer("warp_size", 1, 1024));
  if ((h.warpSize & (h.warpSize - 1)) != 0)
    r.fail("warp_size", fmt::format("{} is not a power of two", h.warpSize));
  h.maxThreadsPerBlock = static_cast<int>(r.integer("max_threads_per_block", h.warpSize, 65536, {"warp_size", nullptr}));
  h.maxWarpsPerSM = static_cast<int>(r.integer("max_warps_per_sm", 1, 4096));
  h.maxBlocksPerSM = static_cast<int>(r.integer("max_blocks_per_sm", 1, 4096));
  h.sharedMemPerSMBytes = r.integer("shared_mem_per_sm_bytes", 0, int64_t{1} << 30);
  h.sharedMemPerBlockBytes = r.integer("shared_mem_per_block_bytes", 0, h.sharedMemPerSMBytes,
                                         {nullptr, "shared_mem_per_sm_bytes"});
  if (root.contains("reserved_shared_mem_per_block_bytes"))
    h.reservedSharedMemPerBlockBytes =
        r.integer("reserved_shared_mem_per_block_bytes", 0, h.sharedMemPerSMBytes, {nullptr, "shared_mem_per_sm_bytes"});
  h.registersPerSM = r.integer("registers_per_sm", 1, int64_t{1} << 30);
  h.maxRegistersPerThread = static_cast<int>(r.integer("max_registers_per_thread", 1, 65536));
  h.schedulersPerSM = static_cast<int>(r.integer("schedulers_per_sm", 1, 64));
  h.issueCycles = r.number("issue_cycles", 0.01, 1000);
  h.memBandwidthGBps = r.number("mem_bandwidth_gbps", 0.1, 1e6);
  h.dramLatencyCycles = r.number("dram_latency_cycles", 1, 1e6);
  h.departureDelCoalCycles = r.number("departure_del_coal_cycles", 0.001, 1e5);
  h.departureDelUncoalCycles = r.number("departure_del_uncoal_cycles", 0.001, 1e5);
  if (root.contains("mem_capacity_bytes"))
    h.memCapacityBytes = r.integer("mem_capacity_bytes", 1, int64_t{1} << 50);
  h.l1CacheBytes = r.integer("l1_cache_bytes", 0, int64_t{1} << 34);
  h.l2CacheBytes = r.integer("l2_cache_bytes", 0, int64_t{1} << 40);
  h.l1LatencyCycles = r.number("l1_latency_cycles", 0, 1e6);
  h.l2LatencyCycles = r.number("l2_latency_cycles", 0, 1e6);
  h.peakSpGflops = r.number("peak_sp_gflops", 0.001, 1e9);
  h.peakDpGflops = r.number("peak_dp_gflops", 0, 1e9); // 0: no double precision
  if (root.contains("l1_wavefronts_per_cycle"))
    h.l1WavefrontsPerCycle = r.number("l1_wavefronts_per_cycle", 0.01, 64);
  if (root.contains("shared_mem_banks"))
    h.sharedMemBanks = static_cast<int>(r.integer("shared_mem_banks", 1, 64));
  if (root.contains("l1_line_latency_cycles"))
    h.l1LineLatencyCycles = r.number("l1_line_latency_cycles", 0.01, 64);
  if (root.contains("block_starts_per_us"))
    h.blockStartsPerUs = r.number("block_starts_per_us", 1, 1e6);
  if (root.contains("dram_bw_per_warp_gbps"))
    h.dramBwPerWarpGBps = r.number("dram_bw_per_warp_gbps", 0.001, h.memBandwidthGBps,
                                   {nullptr, "mem_bandwidth_gbps"});
  if (root.contains("dram_gbps_by_bytes_in_flight"))
    h.dramGBpsByBytesInFlight =
        r.points(r.field("dram_gbps_by_bytes_in_flight"), "dram_gbps_by_bytes_in_flight",
                 {"[bytes per SM, GB/s]", 1, 1e9, 0.001, h.memBandwidthGBps, {nullptr, "mem_bandwidth_gbps"},
                  "the first numbers must increase", "the second numbers cannot decrease"});
  if (root.contains("dram_warp_wait_cycles_by_requests"))
    h.dramWarpWaitCyclesByRequests =
        r.points(r.field("dram_warp_wait_cycles_by_requests"), "dram_warp_wait_cycles_by_requests",
                 {"[requests, cycles]", 1, 1e6, 1, 1e7, {}, "the first numbers must increase",
                  "the second numbers cannot decrease"});
  h.launchOverheadUs = r.number("launch_overhead_us", 0, 1e6);
  h.launchBackToBackUs = root.contains("launch_back_to_back_us")
                             ? r.number("launch_back_to_back_us", 0, h.launchOverheadUs,
                                        {nullptr, "launch_overhead_us"})
                             : h.launchOverheadUs;
  if (root.contains("launch_gap_us"))
    h.launchGapUs = r.number("launch_gap_us", 0.001, h.launchOverheadUs, {nullptr, "launch_overhead_us"});
  if (root.contains("l2_bandwidth_gbps"))
    h.l2BandwidthGBps = r.number("l2_bandwidth_gbps", 0.1, 1e7);
  // the stores' rates join the floor of l2_bandwidth_gbps: not without it
  auto storeRate = [&](const char *name, double &rate) {
    if (!root.contains(name))
      return;
    if (!root.contains("l2_bandwidth_gbps"))
      r.fail(name, "needs l2_bandwidth_gbps beside it");
    rate = r.number(name, 0.1, 1e7);
  };
  storeRate("l2_store_bandwidth_gbps", h.l2StoreBandwidthGBps);
  storeRate("l2_store_miss_bandwidth_gbps", h.l2StoreMissBandwidthGBps);
  if (root.contains("l2_resident_bytes"))
    h.l2ResidentBytes = r.integer("l2_resident_bytes", 1, h.l2CacheBytes, {nullptr, "l2_cache_bytes"});
  // below the resident capacity (a --set of l2_resident_bytes past it) it
  // changes nothing: residentShare falls to 0 at the higher of the two
  if (root.contains("l2_thrash_bytes"))
    h.l2ThrashBytes = r.integer("l2_thrash_bytes", 1, 4 * h.l2CacheBytes);
  if (root.contains("atomic_same_address_ns"))
    h.atomicSameAddressNs = r.number("atomic_same_address_ns", 0.01, 1000);
  if (root.contains("bound_overlap_exponent"))
    h.boundOverlapExponent = r.number("bound_overlap_exponent", 1, 1000);
  if (root.contains("host_link"))
    h.hostLink = r.hostLink();
  r.rejectUnknown();
  if (static_cast<int64_t>(h.maxWarpsPerSM) * h.warpSize < h.maxThreadsPerBlock)
    r.fail("max_threads_per_block",
           fmt::format("{} exceeds max_warps_per_sm x warp_size = {}", h.maxThreadsPerBlock,
                       static_cast<int64_t>(h.maxWarpsPerSM) * h.warpSize));
  h.sources = std::move(r.sources_);
  h.contentHash = fnv1aHex(text);
  return h;
}

const std::vector<std::string> &hwSpecFieldNames() {
  static const std::vector<std::string> names{
      "compute_capability", "sm_count", "clock_ghz", "warp_size", "max_threads_per_block",
      "max_warps_per_sm", "max_blocks_per_sm", "shared_mem_per_sm_bytes",
      "shared_mem_per_block_bytes", "reserved_shared_mem_per_block_bytes", "registers_per_sm", "max_registers_per_thread",
      "schedulers_per_sm", "issue_cycles", "mem_bandwidth_gbps", "dram_latency_cycles",
      "departure_del_coal_cycles", "departure_del_uncoal_cycles", "mem_capacity_bytes",
      "l1_cache_bytes", "l2_cache_bytes", "l1_latency_cycles", "l2_latency_cycles",
      "peak_sp_gflops", "peak_dp_gflops", "l1_wavefronts_per_cycle", "shared_mem_banks", "l1_line_latency_cycles", "block_starts_per_us",
      "dram_bw_per_warp_gbps", "dram_gbps_by_bytes_in_flight", "dram_warp_wait_cycles_by_requests",
      "launch_overhead_us", "launch_back_to_back_us", "launch_gap_us", "l2_bandwidth_gbps",
      "l2_store_bandwidth_gbps", "l2_store_miss_bandwidth_gbps",
      "l2_resident_bytes", "l2_thrash_bytes", "atomic_same_address_ns", "bound_overlap_exponent", "host_link.kind", "host_link.h2d_pinned_gbps",
      "host_link.d2h_pinned_gbps", "host_link.h2d_pageable_gbps", "host_link.d2h_pageable_gbps",
      "host_link.latency_us", "host_link.h2d_pageable_ms_by_bytes",
      "host_link.d2h_pageable_ms_by_bytes"};
  return names;
}

namespace {

size_t editDistance(const std::string &a, const std::string &b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j)
    row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

/// The known fields of a name close to `field`: within a third of its length in
/// edits, holding its last part, or every word of it; the closest first, at most 5.
std::vector<std::string> closeFieldNames(const std::string &field) {
  std::vector<std::pair<size_t, std::string>> close;
  std::string last = field.substr(field.rfind('.') == std::string::npos ? 0 : field.rfind('.') + 1);
  for (const auto &n : hwSpecFieldNames()) {
    size_t d = editDistance(field, n);
    std::string nlast = n.substr(n.rfind('.') == std::string::npos ? 0 : n.rfind('.') + 1);
    bool holds = last.size() >= 3 && n.find(last) != std::string::npos;
    // Every word of the name's last part is a word of the field's ("h2d_gbps":
    // h2d_pinned_gbps and h2d_pageable_gbps).
    bool words = last.find('_') != std::string::npos;
    for (size_t at = 0; words && at <= last.size();) {
      size_t us = std::min(last.find('_', at), last.size());
      std::string w = last.substr(at, us - at);
      std::string padded = "_" + nlast + "_";
      words = !w.empty() && padded.find("_" + w + "_") != std::string::npos;
      at = us + 1;
    }
    holds = holds || words;
    if (d <= std::max<size_t>(2, field.size() / 3) || holds || editDistance(last, nlast) <= 2)
      close.push_back({d, n});
  }
  std::stable_sort(close.begin(), close.end(),
                   [](const auto &a, const auto &b) { return a.first < b.first; });
  std::vector<std::string> out;
  for (size_t i = 0; i < close.size() && i < 5; ++i)
    out.push_back(close[i].second);
  return out;
}

[[noreturn]] void setError(const std::string &msg) { throw InputError({"--set", 0, 0}, msg); }

} // namespace

FieldOverride parseFieldOverride(const std::string &assignment) {
  size_t eq = assignment.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == assignment.size())
    setError(fmt::format("'{}' is not FIELD=VALUE (e.g. --set mem_bandwidth_gbps=8000)", assignment));
  return {assignment.substr(0, eq), assignment.substr(eq + 1)};
}

HwSpec overrideHwSpec(const HwSpec &spec, const std::vector<FieldOverride> &sets) {
  if (sets.empty())
    return spec;
  json root = parseJsonText(readTextFile(spec.path), spec.path);
  const auto &known = hwSpecFieldNames();
  for (const auto &s : sets) {
    if (std::find(known.begin(), known.end(), s.field) == known.end()) {
      std::vector<std::string> close = closeFieldNames(s.field);
      std::string list;
      for (const auto &c : close)
        list += (list.empty() ? "" : ", ") + c;
      setError(close.empty()
                   ? fmt::format("unknown field '{}' (the fields: docs/hwspecs.md, or `skelcast hw "
                                 "show {}`)",
                                 s.field, spec.name)
                   : fmt::format("unknown field '{}' (close names: {})", s.field, list));
    }
    // A string field takes VALUE as it is; any other takes it as JSON, or as
    // a string when it is not JSON (the loader then says what it wants).
    auto asValue = [&](const json *current) {
      if (current && current->is_string())
        return json(s.value);
      json v = json::parse(s.value, nullptr, false);
      return v.is_discarded() ? json(s.value) : v;
    };
    size_t dot = s.field.find('.');
    if (dot == std::string::npos) {
      auto it = root.find(s.field);
      if (it != root.end() && it->is_object() && it->contains("value")) {
        json v = asValue(&(*it)["value"]);
        (*it)["value"] = v;
        (*it)["source"] = "--set on the command line";
      } else {
        root[s.field] = {{"value", asValue(nullptr)}, {"source", "--set on the command line"}};
      }
    } else {
      auto link = root.find("host_link");
      if (link == root.end() || !link->is_object() || !link->contains("value"))
        setError(fmt::format("field '{}': the spec '{}' has no host_link to change", s.field, spec.name));
      json &lv = (*link)["value"];
      std::string key = s.field.substr(dot + 1);
      auto cur = lv.find(key);
      lv[key] = asValue(cur == lv.end() ? nullptr : &*cur);
      (*link)["source"] = "--set on the command line";
    }
  }
  HwSpec h = parseHwSpec(root.dump(2), "--set");
  h.path = spec.path;
  h.contentHash = spec.contentHash;
  h.overrides = spec.overrides;
  for (const auto &s : sets)
    h.overrides.push_back(s.field + "=" + s.value);
  return h;
}

HwSpec loadHwSpec(const std::string &path) {
  return parseHwSpec(readTextFile(path), path);
}

std::vector<std::string> listHwSpecs(const std::string &specDir) {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto &e : std::filesystem::directory_iterator(specDir, ec))
    if (e.path().extension() == ".json")
      names.push_back(e.path().stem().string());
  std::sort(names.begin(), names.end());
  return names;
}

HwSpec resolveHwSpec(const std::string &nameOrPath, const std::string &specDir) {
  if (nameOrPath.find(',') != std::string::npos && !std::filesystem::exists(nameOrPath))
    throw InputError({"--hw", 0, 0},
                     fmt::format("'{}' names several GPUs; this command takes one (project, explain, "
                                 "batch and check take several: --hw h100,a100)",
                                 nameOrPath));
  bool looksLikePath = nameOrPath.find('/') != std::string::npos ||
                       (nameOrPath.size() > 5 &&
                        nameOrPath.compare(nameOrPath.size() - 5, 5, ".json") == 0);
  if (looksLikePath)
    return loadHwSpec(nameOrPath);
  std::filesystem::path p = std::filesystem::path(specDir) / (nameOrPath + ".json");
  if (!std::filesystem::exists(p)) {
    std::string known;
    for (const auto &n : listHwSpecs(specDir))
      known += (known.empty() ? "" : ", ") + n;
    throw InputError({"--hw", 0, 0}, fmt::format("unknown GPU spec '{}' (known: {})", nameOrPath,
                                                 known.empty() ? "none found in " + specDir : known));
  }
  return loadHwSpec(p.string());
}

} // namespace skelcast::hw
