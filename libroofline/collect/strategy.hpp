#pragma once
// The interface each collection strategy implements (docs/design/0015-collector-by-strategy.md,
// 0018). One strategy serves a session, chosen by its mode (session/strategies): KernelReplay
// (replay/kernel_replay), ScopeReplay (replay/scope_replay), IterationReplay
// (replay/iteration_replay: a pass schedule, a pass checker, a window placement and a window
// chooser per device) and WindowReplay (replay/window_replay). Every call comes under the
// collector's lock. Pure logic: no CUDA, no CUPTI.
#include "collect/shared.hpp"

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace roofline::collect {

class Strategy {
public:
    Strategy(Shared& shared, std::vector<DeviceSlot*> slots)
        : shared_(shared), slots_(std::move(slots)), passes_(shared.config.passes) {}
    virtual ~Strategy() = default;
    Strategy(const Strategy&) = delete;
    Strategy& operator=(const Strategy&) = delete;

    /// The outermost iteration scope opened / closed (not in kernel replay).
    virtual void iterationBegins() {}
    virtual void iterationEnds() {}
    /// A scope was pushed inside an iteration on the iteration's thread / is being popped.
    virtual void scopePushed(Stack&) {}
    virtual void scopePopping(Frame&) {}
    /// A direct launch on `slot`, with counters being collected (graph kernels and timing-only
    /// launches get their records from the collector).
    virtual void launch(DeviceSlot& slot, const Launch& l, const Stack& stack) = 0;
    /// A CUDA graph launch, before its kernels run: the profiler must not collect then.
    virtual void graphLaunch(DeviceSlot& slot) = 0;
    /// A driver call that changes memory is about to run (only window replay follows them).
    virtual void memoryOperation(DeviceSlot& slot) { (void)slot; }
    /// Code was loaded since the profiler was enabled: it is re-created before measuring again.
    virtual void renewStaleProfiler(DeviceSlot& slot) = 0;
    /// The slot's launches run under the profiler now.
    virtual bool profiling(const DeviceSlot& slot) const = 0;
    /// The replay helper: passes are still to run.
    virtual bool pending() const { return false; }
    /// Nothing is left to measure (the session may go idle).
    virtual bool done() const { return false; }
    /// Once done: whatever measuring holds (the profilers) is released.
    virtual void completed() {}
    /// Stops the backends; complete images evaluated, incomplete groups noted.
    virtual void finish() = 0;
    virtual void coverage(core::Coverage&) const {}
    virtual bool aligned() const noexcept { return false; }
    /// The configuration a fresh profiler starts at.
    virtual std::size_t firstConfig() const noexcept { return 0; }
    /// How far the profile got, where the strategy knows.
    struct Progress {
        std::uint64_t completedAt = 0; ///< iterations it took to measure one (0: not complete)
        std::size_t signatures = 0;    ///< launch signatures held (repeated-launch reuse)
        bool reuses = false;           ///< repeated launches reuse their samples
    };
    virtual Progress progress() const noexcept { return {}; }
    /// Replay passes per group now (the metric set may grow; aligned passes may need one more
    /// than CUPTI's packing).
    std::size_t passes() const noexcept { return passes_; }

protected:
    /// Tensor counters by detection (docs/design/0008): the image's records get their inferred
    /// tensor metrics; when a launch ran an MMA kind whose counters were not collected, every
    /// backend collects them from now on and true is returned: the window is to be measured
    /// again (its records, partial -- those metrics NaN -- are the caller's to keep or drop).
    bool inferTensorMetrics(DeviceSlot& slot);
    /// Kernel and window replay: the slot's image evaluated into its member records, one range a
    /// launch, then a fresh image configured for the next window. Where tensor counters were
    /// found missing (the set grew, the profiler re-created) and `last` is false, true is
    /// returned with the members kept: the caller measures the window again and calls this once
    /// more. Otherwise such a record keeps what it has, marked partial.
    bool recordLaunchRanges(DeviceSlot& slot, bool last = true);
    /// Before a cycle's first pass, while every profiler is released: the tensor metrics the
    /// kernels' names suggest (a warp MMA type: CollectorConfig::anticipateTensorMetrics) are
    /// collected from the first pass on -- no profiler is re-created and no window measured
    /// again for them. Nothing once the set grew. True when it grew now.
    bool anticipateTensorMetrics(const std::vector<std::string>& kernels);
    /// What every device's backend must do at once (a larger metric set, a new replay mode):
    /// every slot but `except` stops its open pass and abandons its group, then `change` runs on
    /// every usable slot.
    void changeEveryBackend(DeviceSlot& except, const std::function<void(DeviceSlot&)>& change);
    /// changeEveryBackend's first half for one other slot.
    virtual void quiesce(DeviceSlot&) {}
    /// The metric set grew on `slot` (aligned replay prepares its configurations again).
    virtual void metricsAdded(DeviceSlot&) {}

    Shared& shared_;
    std::vector<DeviceSlot*> slots_;
    std::size_t passes_;
    /// Tensor metrics every backend collects since an expansion (inferTensorMetrics).
    std::set<std::string> tensorAdded_;
};

} // namespace roofline::collect
