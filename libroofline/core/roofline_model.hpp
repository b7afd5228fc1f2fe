#pragma once
// Metric values -> KernelRecord, and records -> what bounds them.

#include "core/device_info.hpp"
#include "core/metric_catalog.hpp"
#include "core/metric_values.hpp"

#include <roofline/kernel_record.hpp>

#include <string>
#include <vector>

namespace roofline::core {

/// Identity of one launch, as the launch callbacks saw it.
struct LaunchInfo {
    std::uint64_t launchIndex = 0;
    std::string name;
    std::string mangledName;
    std::string scopePath;       ///< the iteration scope's instance made uniform ("Train step #")
    std::string scopePathRaw;    ///< as the scopes were named, when it differs from scopePath
    std::int64_t iteration = -1; ///< the iteration scope's instance; -1: outside any
    std::int64_t position = -1;  ///< order among its iteration's launches, from 0; -1: unknown
    /// Iteration replay with reuse: the values are the mean of this many launches of the same
    /// signature (the note names them and their spread); 0: measured on this launch itself.
    std::uint32_t reusedSamples = 0;
    std::string iterationScope; ///< in memory only: the iteration scope's name, when numbered
    std::string op;             ///< framework operator (KernelRecord::op); "": unknown
    std::string phase;          ///< "forward", "backward", "optimizer", "communication" or ""
    std::string module;         ///< framework module path (KernelRecord::module); "": unknown
    std::string shapes; ///< the operator's argument shapes (KernelRecord::shapes); "": unknown
    ReplayStatus replay = ReplayStatus::Clean;
    Dim3 grid, block;
    int registersPerThread = -1;      ///< the kernel's registers per thread; -1: unknown
    std::uint64_t sharedMemBytes = 0; ///< static + dynamic shared memory per block
    std::uint64_t stream = 0;
    std::uint64_t threadId = 0;      ///< OS thread that launched it (or opened the scope)
    std::uint64_t correlationId = 0; ///< CUPTI correlation id (joins timing-only activity)
    int device = 0;                  ///< CUDA device ordinal
    int rank = -1;                   ///< merged recordings: the rank that recorded it; -1: none
    /// Ranks sharing a profile (Options::shareAcrossRanks): the rank whose counters it has or
    /// will have -- without values, the rank that measured its signature; in a merged recording,
    /// the rank its values came from; -1: its own counters.
    int countersRank = -1;
    bool scopeRecord = false;   ///< per-scope mode: the record covers a whole scope
    std::uint32_t kernels = 1;  ///< launches the record covers
    int chunk = -1;             ///< kept counter-data chunk holding its range; -1: none kept
    std::uint32_t range = 0;    ///< range index inside that chunk
    std::vector<double> values; ///< evaluated metric values (Recording::metrics order); empty:
                                ///< not measured
    std::string note;           ///< why unmeasured, or caveats (replay mismatch, ...)
    double timingSeconds = 0.0; ///< timing-only records: duration from CUPTI activity
};

/// Each record's resident blocks per SM and waves, from its block, registers and shared memory and
/// the device's limits (records whose kernel resources or device limits are unknown keep 0), and
/// its bound's limiter where it is below every roof.
void addOccupancy(std::vector<KernelRecord>& records, const DeviceInfo& device);
/// KernelRecord::kernelId of each record: kernels (by demangled name) numbered in the order of
/// their first launch, from 0.
void assignKernelIds(std::vector<KernelRecord>& records);

/// One roof of Ceilings: a FlopKind (flop) or a MemoryLevel at `index`, and its value and source.
struct RoofRef {
    bool flop = true;
    std::size_t index = 0;
};
/// Every roof: the FLOP kinds in FlopKind order, then the memory levels.
std::vector<RoofRef> allRoofs();
std::string roofName(RoofRef roof);
double rateOf(const Ceilings& c, RoofRef roof);
RoofSource sourceOf(const Ceilings& c, RoofRef roof);
void setRoof(Ceilings& c, RoofRef roof, double perSecond, RoofSource source);

/// The warp-issue ceiling from the device's shape: SMs x 4 schedulers x one warp instruction per
/// cycle x the SM clock (Hz); 0 when either is unknown. `roofline ceilings` measures the one
/// kernels reach.
double warpIssuePerSecond(int multiprocessors, double smClockHz);

/// Dense (no sparsity) datasheet peaks for the device, scaled by its SM count and maximum SM
/// clock when those are known. Unknown devices get empty ceilings (bounds become "unknown").
Ceilings datasheetCeilings(const DeviceInfo& device);

/// The roof the record uses the largest fraction of; Unknown when no roof applies.
Bound classify(const KernelRecord& record, const Ceilings& ceilings);

/// What the launch shape of `record` says would limit it below every roof: FewBlocks (fewer
/// blocks than SMs, or under half of one wave), Occupancy (under a quarter of the SM's warps
/// resident) or Latency (otherwise, and when the shape or the device's limits are unknown).
Limiter shapeLimiter(const KernelRecord& record, const DeviceInfo& device);
/// `bound` with `shape` as its limiter when it is below kBelowEveryRoof of every roof (and known).
Bound belowEveryRoof(Bound bound, Limiter shape);

/// A record from one range's metric values via the chip's formulas.
KernelRecord buildRecord(const ChipProfile& profile, const LaunchInfo& launch,
                         const MetricValues& values, const Ceilings& ceilings);

/// A record for a launch that has no counter values, with the reason in its note (and the
/// activity-measured duration when there is one).
KernelRecord unmeasuredRecord(const LaunchInfo& launch, std::string reason);

/// The record of a launch from its stored values (LaunchInfo::values in `metrics` order), or an
/// unmeasured record carrying its note. Metrics the formulas need but the set lacks count as 0
/// and the record's note says which quantities were not collected.
KernelRecord recordFromLaunch(const ChipProfile& profile, const LaunchInfo& launch,
                              const std::vector<std::string>& metrics, const Ceilings& ceilings);

} // namespace roofline::core
