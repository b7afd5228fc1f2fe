#pragma once
// What each collection mode does, in one place: every part of the collector and the session that
// behaves differently by mode asks these facts (or the strategy the mode selects), never the mode
// itself. Pure: no CUDA.
#include <roofline/options.hpp>

#include <string>

namespace roofline::collect {

struct ModeFacts {
    /// CUPTI replays each kernel (saving and restoring device memory): caches are flushed before
    /// each by default, graph kernels and communication kernels are timed by activity records.
    bool replaysKernels = false;
    /// One counter range per launch (auto ranges); false: one per scope instance (user ranges).
    bool rangePerLaunch = true;
    /// Passes run over the program's iterations: iterations are followed, the first may be
    /// observed only, the replay helper (needsPass) has passes to run.
    bool followsIterations = false;
    /// Nested scope levels become ranges (Options::scopeLevels).
    bool scopeLevels = false;
    /// Launches measured in groups of iterations that a later iteration can measure again:
    /// repeated-launch reuse, tensor counters by detection and aligned passes apply.
    bool measuresAgain = false;
    /// Records are put back in program order at the end (windows measured out of order).
    bool programOrder = false;
    /// libroofline launches a recorded window of launches again for each pass after the first,
    /// restoring device memory (docs/design/0026): graph and communication kernels are timed by
    /// activity records, and no flush kernel may run inside a pass.
    bool relaunchesWindows = false;
    /// Launches outside every scope are measured too (a program with no range at all).
    bool measuresOutsideScopes = false;
    /// No range profiler and no replay: PM sampling on a period and the kernels' activity
    /// records give every step's values (docs/design/0029); launches become no record.
    bool samples = false;
};

inline ModeFacts modeFacts(CollectionMode mode) noexcept {
    ModeFacts f;
    switch (mode) {
    case CollectionMode::KernelReplay:
        f.replaysKernels = true;
        break;
    case CollectionMode::IterationReplay:
        f.followsIterations = f.measuresAgain = f.programOrder = true;
        break;
    case CollectionMode::ScopeReplay:
        f.rangePerLaunch = false;
        f.followsIterations = f.scopeLevels = true;
        break;
    case CollectionMode::WindowReplay:
        f.relaunchesWindows = f.measuresOutsideScopes = true;
        break;
    case CollectionMode::Sample:
        f.samples = true;
        break;
    }
    return f;
}

/// The mode a process of a job of `worldSize` ranks (-1: not launched as one) runs in. Kernel
/// replay restores this process's device memory between a kernel's passes while its peers'
/// communication kernels write into it (NCCL's all-reduce of DDP runs beside backward): the
/// restore undoes their writes -- a DDP job's losses changed under it on two H100s, and on two
/// H200s it hung. Window replay restores memory too. Such a job gets iteration replay, which
/// replays no kernel; `why` says so.
inline CollectionMode modeForJob(CollectionMode requested, int worldSize, std::string* why) {
    if ((requested != CollectionMode::KernelReplay && requested != CollectionMode::WindowReplay) ||
        worldSize <= 1)
        return requested;
    if (why)
        *why = std::string(requested == CollectionMode::KernelReplay ? "kernel" : "window") +
               " replay refused in a job of " + std::to_string(worldSize) +
               " ranks: it restores this process's GPU memory between a kernel's passes while "
               "the other ranks' communication kernels write into it, which changes what the job "
               "computes (or hangs it); using iteration replay, which replays no kernel";
    return CollectionMode::IterationReplay;
}

} // namespace roofline::collect
