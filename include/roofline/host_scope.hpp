#pragma once
/// \file host_scope.hpp
/// The host side of a scope (ProfileScope or NVTX push/pop range): the wall and CPU time its
/// thread spent in it, beside the GPU time of the kernels launched inside it.

#include <roofline/export.hpp>

#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

namespace roofline {

/// One scope path on one thread (threadId 0: process-wide scopes, every thread's), over every
/// instance the session saw. Self times exclude the nested scopes'.
struct HostScope {
    std::string scopePath; ///< as records name it ("step #/forward"; a numbered outermost
                           ///< scope made uniform)
    std::uint64_t threadId = 0;
    /// Instances closed while the session ran whose times these are: those that ran without
    /// the profiler when there are any (see profiledCalls).
    std::uint64_t calls = 0;
    /// Instances in which kernels ran under the profiler (a counter-collection pass, kernel
    /// replay): CUPTI's work inside their launches inflates their host time and cannot be
    /// measured apart, so they are left out of the times when the scope has others.
    std::uint64_t profiledCalls = 0;
    /// Every instance was profiled (kernel replay, or a scope seen only in passes): the times
    /// are theirs, CUPTI's work included, an upper bound of the application's; calls and
    /// profiledCalls are then both their number.
    bool profiledTimes = false;
    double wallSeconds = 0; ///< total wall time of the instances (steady clock)
    double selfWallSeconds = 0;
    double cpuSeconds = -1; ///< thread CPU time of the instances; -1: not measured
    double selfCpuSeconds = -1;
    /// Kernels launched inside the scope (nested scopes included), over every call, records or
    /// not; and the summed GPU time (gpu__time_duration) and count of those with records.
    std::uint64_t launches = 0;
    double gpuSeconds = 0;
    std::uint64_t kernels = 0;
    /// libroofline's own measured work inside the instances (counter collection, nested
    /// scopes included; every instance, profiled or not), taken out of their wall and CPU times.
    double profilerSeconds = 0;

    /// The steady state (a profiler table's per-call time): the first instance apart (warm-up:
    /// lazily loaded kernels, first-use allocations; -1: unknown), and the median wall and CPU
    /// time of the latest (up to 64) clean instances after it -- those in which no kernel ran
    /// under the profiler. steadyCalls: how many clean instances followed the first (0: none,
    /// and the steady values are -1).
    double firstWallSeconds = -1;
    bool firstProfiled = false; ///< the first instance ran kernels under the profiler
    std::uint64_t steadyCalls = 0;
    double steadyWallSeconds = -1;
    double steadyCpuSeconds = -1;

    /// Whether its GPU time is known: it launched no kernel, or some of them have records.
    bool gpuKnown() const noexcept { return launches == 0 || kernels > 0; }
    double wallPerCall() const noexcept {
        return calls ? wallSeconds / static_cast<double>(calls) : 0;
    }
    /// The wall time per call the verdict uses: the steady state's median when there is one,
    /// else the mean over the timed instances.
    double hostWallPerCall() const noexcept {
        return steadyCalls > 0 && steadyWallSeconds >= 0 ? steadyWallSeconds : wallPerCall();
    }
    /// GPU time of the scope's kernels per call: their mean GPU time (over the records) times
    /// the kernels launched per call. Records sample the launches in iteration replay (one
    /// iteration's worth, from several iterations); this holds whatever the sampling. 0 when no
    /// kernel of the scope has a record (see gpuKnown()).
    double gpuPerCall() const noexcept {
        return kernels && calls ? gpuSeconds / static_cast<double>(kernels) *
                                      static_cast<double>(launches) / static_cast<double>(calls)
                                : 0;
    }
    /// The share of an instance's host wall time in which the GPU ran none of its kernels,
    /// from the per-call times (0 when the kernels outlast the host's time in the scope).
    double gpuIdleShare() const noexcept {
        const double wall = hostWallPerCall();
        return wall > 0 && gpuPerCall() < wall ? 1.0 - gpuPerCall() / wall : 0.0;
    }
};

/// What holds a scope up, from its per-call times:
/// - "gpu": its kernels take at least 80% of the host's wall time in it (or outlast it);
/// - "launch": the GPU idles more than 20% of it while the host is busy (CPU time at least half
///   the wall time): launch- or CPU-bound;
/// - "wait": the GPU idles and the host is mostly blocked (sleep, I/O, synchronization);
/// - "cpu" / "wait" likewise for scopes that launched no kernel ("host" when CPU time was not
///   measured);
/// - "unmeasured": it launched kernels but none has a record (iteration replay keeps one
///   iteration's worth: a first step's extra work, a validation pass), so the GPU's share is not
///   known.
ROOFLINE_API std::string hostBound(const HostScope& s);

/// The per-scope host table (a framework profiler's per-op table): calls, self and total wall
/// and CPU time with their share of `runSeconds`, average per call, GPU kernel time per call,
/// GPU idle share and hostBound(), sorted by total wall time; the first `maxRows` (0: all). Per
/// call: the steady state (the median of the clean instances after the first) and the first
/// instance apart. Rows fit `width` characters (0: $COLUMNS, else the terminal), the optional
/// columns left out first.
ROOFLINE_API void printHostTable(const std::vector<HostScope>& scopes, double runSeconds,
                                 std::ostream& out, std::size_t maxRows = 0,
                                 std::size_t width = 0);
/// Host against GPU time per call for the `maxBars` scopes with most wall time: each bar is the
/// host's wall time per call, split into the part the scope's kernels cover and the part the
/// GPU idles (a bar grows past the wall time when the kernels outlast it). SVG.
ROOFLINE_API std::string hostBarsSvg(const std::vector<HostScope>& scopes, std::size_t maxBars);
/// The same as CSV (one row per scope and thread, seconds; cpu columns empty when not measured).
ROOFLINE_API void writeHostCsv(const std::vector<HostScope>& scopes, double runSeconds,
                               std::ostream& out);

} // namespace roofline
