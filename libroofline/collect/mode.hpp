#pragma once
// What each collection mode does, in one place: every part of the collector and the session that
// behaves differently by mode asks these facts (or the strategy the mode selects), never the mode
// itself. Pure: no CUDA.
#include <roofline/options.hpp>

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
    }
    return f;
}

} // namespace roofline::collect
