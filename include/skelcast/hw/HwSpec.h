/// \file
/// Hardware specs: one GPU per JSON file (hwspecs/*.json, schema in
/// docs/hwspecs.md). Every field is `{"value": ..., "source": "..."}`; the loader
/// refuses a missing, mistyped, out-of-range or unknown field with an error that
/// names the field and the file. GROPHECY's Table 5 parameters plus what newer
/// GPUs need (registers, schedulers, caches, launch overhead, host link).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <utility>
#include <string>
#include <vector>

namespace skelcast::hw {

/// How a warp's accesses become memory transactions (GROPHECY §7.2, Hong–Kim §3).
enum class CoalescingRule {
  HalfWarp,  ///< compute capability 1.0/1.1: a half-warp coalesces only k-th thread -> k-th word
  Segment,   ///< 1.2/1.3: one transaction per 32/64/128-byte segment a half-warp touches
  Sector,    ///< 2.0 and newer: one transaction per 32-byte sector the warp touches
};
const char *coalescingRuleName(CoalescingRule r);

/// Measured (x, y) points, x strictly increasing.
using Curve = std::vector<std::pair<double, double>>;
/// y at x on a non-empty curve: linear between neighbouring points, the end
/// point's y outside them.
double interpolate(const Curve &c, double x);
/// A measured copy time per size: (bytes, ms) points, bytes increasing.
using CopyCurve = Curve;

struct HostLink {
  std::string kind;
  double h2dPinnedGBps = 0, d2hPinnedGBps = 0, h2dPageableGBps = 0, d2hPageableGBps = 0;
  double latencyUs = 0;
  /// Optional measured pageable copy times per size (empty: use the fit above).
  /// Pageable copies go through the driver's staging buffers and the host's
  /// memcpy, whose rate changes with the size; a single fit cannot follow it.
  CopyCurve h2dPageableCurve, d2hPageableCurve;
};

struct HwSpec {
  std::string path;        ///< the file it was read from
  std::string name;        ///< short name, e.g. "h100"
  std::string description;
  std::string computeCapability; ///< "9.0"
  int ccMajor = 0, ccMinor = 0;

  int smCount = 0;                 ///< Active_SMs (Table 5)
  double clockGHz = 0;             ///< Freq
  int warpSize = 32;
  int maxThreadsPerBlock = 0;
  int maxWarpsPerSM = 0;           ///< Max_active_warps_per_SM
  int maxBlocksPerSM = 0;          ///< Max_active_blks_per_SM
  int64_t sharedMemPerSMBytes = 0; ///< SharedMem_size
  int64_t sharedMemPerBlockBytes = 0;
  /// Shared memory the driver keeps for itself in each resident block (1 KB
  /// from compute capability 8.0 on); 0 where the spec has no such field.
  int64_t reservedSharedMemPerBlockBytes = 0;
  /// The shared memory one block may hold: its own limit, and the SM's less
  /// the driver's reserve where that is less (eq. 8's reserve).
  int64_t sharedMemBlockMayHold() const;
  int64_t registersPerSM = 0;
  int maxRegistersPerThread = 0;
  int schedulersPerSM = 1;
  /// The warps an SM holds at `registers` a thread: a warp's registers,
  /// allocated 8 a thread, sit in one of the schedulersPerSM sub-partitions
  /// of the register file, registersPerSM / schedulersPerSM each (eq. 8's
  /// register bound, docs/model.md term `registers`); 0 when not one fits;
  /// maxWarpsPerSM (no bound) at 0 registers or without the register file.
  double warpsByRegisters(double registers) const;
  /// The most registers a thread may use (a multiple of 8, or
  /// maxRegistersPerThread where that is less) for one block of `warps` warps
  /// to fit the register file, its warps spread over the sub-partitions: what
  /// emit's __launch_bounds__ leaves a thread; maxRegistersPerThread (no
  /// bound) without the register file.
  double registersForOneBlock(double warps) const;
  double issueCycles = 4;          ///< Issue_cycles
  double memBandwidthGBps = 0;     ///< Mem_Bandwidth
  double dramLatencyCycles = 0;    ///< Mem_LD
  double departureDelCoalCycles = 0;
  double departureDelUncoalCycles = 0;
  int64_t l1CacheBytes = 0, l2CacheBytes = 0;
  /// Device memory the arrays of a kernel or program must fit in; 0: not
  /// given (no check).
  int64_t memCapacityBytes = 0;
  double l1LatencyCycles = 0, l2LatencyCycles = 0;
  double peakSpGflops = 0, peakDpGflops = 0;
  /// Wavefronts (one 32-lane access of 128 bytes) the L1/shared-memory data
  /// pipe of an SM serves per cycle; 0: not given (the `lsu` term is off).
  double l1WavefrontsPerCycle = 0;
  /// Shared-memory banks of 4-byte words, successive words in successive
  /// banks (term `banks`: a warp's read takes one wavefront per distinct word
  /// of its most-used bank); 0: not given (a read is its dense wavefronts).
  int sharedMemBanks = 0;
  /// Cycles a load's data waits for each 128-byte line it touches past the
  /// first (term `lines`); 0: 1 / l1WavefrontsPerCycle.
  double l1LineLatencyCycles = 0;
  /// Thread blocks the GPU starts per microsecond, whatever their size (term
  /// `blocks`: a kernel lasts at least Blocks / this); 0: not given.
  double blockStartsPerUs = 0;
  /// DRAM bandwidth one warp draws when every SM holds a few (0: not given).
  /// The `occupancy` term's input: an SM with W active warps draws at most
  /// W x this (docs/model.md, section 7).
  double dramBwPerWarpGBps = 0;
  /// DRAM bandwidth (GB/s) the GPU draws with every SM busy against the bytes
  /// in flight per SM (warps per SM x the DRAM bytes a warp holds in flight),
  /// y not decreasing (empty: not given). Where given, the `occupancy` term
  /// reads it beside dramBwPerWarpGBps (the lower bandwidth counts).
  Curve dramGBpsByBytesInFlight;
  /// The curve's bandwidth at `bytesPerSM` in flight: linear between its
  /// points, in proportion to the bytes below the first (one latency), the
  /// last point's above the last.
  double dramGBpsAt(double bytesPerSM) const;
  /// The cycles one warp waits for n independent 128-byte DRAM requests it
  /// issued together, against n (y not decreasing; empty: not given). Where
  /// given, the `occupancy` term takes a warp's own bandwidth from it in
  /// place of dramBwPerWarpGBps (docs/model.md, section 7).
  Curve dramWarpWaitCyclesByRequests;
  /// The curve's wait for `requests`: linear between its points, the first
  /// point's below the first, and past the last each request adding the last
  /// segment's cycles a request.
  double dramWarpWaitCycles(double requests) const;
  double launchOverheadUs = 0;     ///< a launch timed alone
  double launchBackToBackUs = 0;   ///< a launch queued behind another (parseHwSpec: launchOverheadUs when absent)
  /// The GPU's idle time between two kernels queued back to back (0: not
  /// given): a kernel of time T in a stream of launches costs
  /// max(launch_back_to_back_us, T + this) (the `launch` term).
  double launchGapUs = 0;
  /// Time between two atomics to one global address, which its L2 slice
  /// retires one at a time (0: not given: one per clock, the `reduction` term).
  double atomicSameAddressNs = 0;
  /// p of the smooth maximum (t^p + f^p)^(1/p) by which a floor f joins the
  /// time t (0: not given: the larger of the two, the `overlap` term).
  double boundOverlapExponent = 0;
  /// What L2 moves between the SMs and itself when the data is in it, loads
  /// and stores together (0: not given: the `l2` term does nothing).
  double l2BandwidthGBps = 0;
  /// What L2 takes in stores alone (0: not given: l2BandwidthGBps): stores
  /// pass L2 at about half its rate for loads (validation/kernels/l2read.cu).
  double l2StoreBandwidthGBps = 0;
  /// What L2 takes in stores to sectors it does not hold, each sector whole or
  /// partial allocated and later written back to DRAM (0: not given: no such
  /// floor): about half the rate of stores that hit (validation/kernels/storelines.cu).
  double l2StoreMissBandwidthGBps = 0;
  /// The most bytes a repeated kernel keeps in L2 from one launch to the next
  /// (0: not given: l2_cache_bytes); residentBytes() gives the one in use.
  int64_t l2ResidentBytes = 0;
  int64_t residentBytes() const { return l2ResidentBytes > 0 ? l2ResidentBytes : l2CacheBytes; }
  /// The smallest footprint a repeated kernel reads wholly from DRAM again
  /// (0 or at most residentBytes(): a step at residentBytes()); between the
  /// two, the share L2 keeps falls linearly (residentShare).
  int64_t l2ThrashBytes = 0;
  /// The share of a repeated kernel's loads that L2 still holds from its last
  /// launch, at reuse distance `reuse` bytes: 1 up to residentBytes(), 0 from
  /// l2ThrashBytes, linear between.
  double residentShare(double reuse) const {
    double lo = static_cast<double>(residentBytes());
    double hi = std::max(lo, static_cast<double>(l2ThrashBytes));
    if (reuse <= lo)
      return 1.0;
    return reuse >= hi ? 0.0 : (hi - reuse) / (hi - lo);
  }
  std::optional<HostLink> hostLink;

  std::map<std::string, std::string> sources; ///< field -> where its number comes from
  std::string contentHash;                    ///< FNV-1a of the file's bytes, hex
  /// Fields overridden for this run (`--set FIELD=VALUE`, overrideHwSpec), in
  /// the order given, as "field=value"; contentHash stays the file's.
  std::vector<std::string> overrides;

  CoalescingRule coalescing() const;
};

/// Parse a spec from JSON text; `path` names it in errors.
HwSpec parseHwSpec(const std::string &text, const std::string &path);
HwSpec loadHwSpec(const std::string &path);

/// `nameOrPath` is a file (contains '/' or ends in .json) or the name of a spec in
/// `specDir`. Unknown names are an InputError listing the known ones.
HwSpec resolveHwSpec(const std::string &nameOrPath, const std::string &specDir);

/// Every field a spec can hold, as `--set` names it: the top-level fields in
/// the order docs/hwspecs.md lists them, then `host_link.KEY` for each key of
/// the host link.
const std::vector<std::string> &hwSpecFieldNames();

/// One `--set FIELD=VALUE`.
struct FieldOverride {
  std::string field, value;
};

/// Split "FIELD=VALUE" (InputError naming `--set` when there is no '=' or
/// either side is empty).
FieldOverride parseFieldOverride(const std::string &assignment);

/// `spec` with `sets` applied, in order, to the JSON text of the file it was
/// read from, then read again by parseHwSpec: a value is validated exactly as
/// the loader validates that field (type, range, the fields that bound it).
/// VALUE is JSON (a number, a list) unless the field holds a string, or it is
/// not JSON, then it is that string. An unknown field is an InputError at
/// `--set` listing the fields of a close name; a rejected value is the loader's
/// message at `--set`. The result keeps the file's path and content hash, and
/// records the overrides (HwSpec::overrides) and "--set on the command line" as
/// each overridden field's source.
HwSpec overrideHwSpec(const HwSpec &spec, const std::vector<FieldOverride> &sets);

/// Names of the specs in `specDir`, sorted.
std::vector<std::string> listHwSpecs(const std::string &specDir);

} // namespace skelcast::hw
