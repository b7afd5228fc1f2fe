#pragma once
// The collector: for every scope push/pop and kernel launch, what the counter backends do
// (docs/design/0015-collector-by-strategy.md). It is the dispatcher -- one lock, admission, scope
// paths and iterations (IterationModel), completion -- in front of one strategy chosen by the
// collection mode:
//   kernel replay     one range per admitted launch (replay/kernel_replay);
//   iteration replay  one record per admitted launch, an iteration covered window by window by
//                     groups of replay passes, positional or aligned, with reuse cycles choosing
//                     the windows when repeated launches are reused (replay/iteration_replay);
//   scope replay      one record per scope instance (replay/scope_replay).
// Pure logic: no CUDA, no CUPTI; thread-safe (one mutex).
#include "collect/backend.hpp"
#include "collect/collection_result.hpp"
#include "collect/collector_config.hpp"
#include "collect/frame.hpp"
#include "collect/iteration_model.hpp"
#include "collect/records.hpp"
#include "collect/strategy.hpp"
#include "core/nvtx_filter.hpp"
#include "core/recording.hpp"
#include "core/roofline_model.hpp"

#include <roofline/options.hpp>

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace roofline::collect {

/// The strategy a collector runs, for its mode (the session's: session/strategies.hpp).
using MakeStrategy =
    std::function<std::unique_ptr<Strategy>(Shared& shared, std::vector<DeviceSlot*> slots)>;

class Collector {
public:
    Collector(CollectorConfig config, std::vector<CounterBackend*> backends, Level level,
              const MakeStrategy& makeStrategy);
    ~Collector();

    /// After `stack.back()` was pushed on thread `thread`.
    void onPush(Stack& stack, std::uint64_t thread) noexcept;
    /// Before `stack.back()` is popped.
    void onPop(Stack& stack) noexcept;
    void onRangeStart(std::uint64_t id, const std::string& domain,
                      const std::string& name) noexcept;
    void onRangeEnd(std::uint64_t id) noexcept;
    /// A launch; `launch.inGraph`: a kernel node of the graph launch onGraphLaunch() announced,
    /// recorded (when admitted) without counters. Returns whether the kernel runs under the
    /// profiler (a pass open, kernel replay running, or the device's profiler enabled): the host's
    /// time around it then includes CUPTI's work inside the launch.
    bool onLaunch(const Launch& launch, const Stack& stack) noexcept;
    /// A CUDA graph launch on device slot `slot`, before its kernels run (design 0011): the range
    /// profiler must not collect while they do. Kernel replay stops the profiler (the next direct
    /// launch starts it again); iteration and scope replay stop the open pass and measure its
    /// group again later -- after kGraphInterruptionLimit such interruptions they measure nothing
    /// more (every iteration launches a graph) and the records say why.
    void onGraphLaunch(std::size_t slot) noexcept;
    static constexpr std::uint64_t kGraphInterruptionLimit = collect::kGraphInterruptionLimit;
    /// A module was loaded into device slot `slot`'s context (lazy loading, JIT compilation).
    /// Lock-free: it may be called from inside any driver call, including the collector's own.
    void onCodeLoaded(std::size_t slot) noexcept;
    /// A driver call that changes memory (an allocation, a copy, a free ...) is about to run in
    /// slot's context: window replay closes its window first.
    void onMemoryOperation(std::size_t slot) noexcept;
    /// The process allocated or registered host-visible memory (pinned, mapped, managed), on any
    /// device: no window opens from then on (a window's restore would restore that memory too).
    void onHostVisibleMemory() noexcept;

    /// The replay helper: `while (c.needsPass()) { ...one iteration... }`.
    bool needsPass() noexcept;
    /// The profile is complete and the session lets the device backends go: the collector never
    /// reaches them again (finish() then has nothing to stop).
    void releaseBackends() noexcept;
    /// Ends collection: stops the backends, evaluates complete groups, notes incomplete ones;
    /// returns what was collected (the records and kept images move into it; a second call
    /// returns an empty result).
    CollectionResult finish() noexcept;

    /// Called (under the collector's lock) when a backend fails mid-run, with the cause; the
    /// collector has already switched to timing-only.
    void setFailureHandler(std::function<void(const std::string&)> handler);
    /// Called, under the collector's lock, when a launch runs unmeasured that activity records
    /// can time (Shared::onTimingNeeded).
    void setTimingHandler(std::function<void()> handler);

    /// Read without the collector's lock (the launch path asks it before locking).
    Level level() const noexcept { return shared_.level.load(); }
    /// Scopes open and close iterations for the strategy: a replay strategy that follows them, or
    /// the sampling level (every step is a step).
    bool followsIterations() const noexcept {
        const Level l = level();
        return (l == Level::Counters && facts_.followsIterations) || l == Level::Sampled;
    }
    const std::string& failure() const noexcept { return shared_.failure; }
    std::uint64_t droppedRanges() const noexcept { return shared_.tally.dropped; }
    std::uint64_t mismatchedGroups() const noexcept { return shared_.tally.mismatchedGroups; }
    /// Replay windows measured again because a later pass did not run some of their launches.
    std::uint64_t windowsMeasuredAgain() const noexcept {
        return shared_.tally.windowsMeasuredAgain;
    }
    /// Iteration replay, launches whose replayed passes ran them with another grid or block
    /// (values kept, noted) and launches whose passes could not be matched (values dropped).
    std::uint64_t differingLaunches() const noexcept { return shared_.tally.differing; }
    std::uint64_t unmatchedLaunches() const noexcept { return shared_.tally.unmatched; }
    /// Iteration replay: one iteration's launches, the iterations a complete profile of one
    /// needs and how much of one the completed groups cover (after finish()).
    core::Coverage coverage() const;
    std::uint64_t groupsCompleted() const noexcept { return shared_.tally.groupsCompleted; }
    /// Times the profiler was re-created because code was loaded while it was enabled.
    std::uint64_t reenables() const noexcept { return shared_.tally.reenables; }
    /// Tensor counters by detection: times the collected set grew (each re-measured a window).
    std::uint64_t metricExpansions() const noexcept { return shared_.tally.expansions; }
    /// Tensor counters by detection: times the set grew before a cycle's first pass, as the
    /// kernels' names suggested (no window measured again for them).
    std::uint64_t metricAnticipations() const noexcept { return shared_.tally.anticipations; }
    /// Reuse: records whose values are the mean of their signature's samples.
    std::uint64_t reusedLaunches() const noexcept { return shared_.tally.reused; }
    /// Iteration replay: launches outside every iteration, never recorded.
    std::uint64_t launchesOutsideIterations() const noexcept {
        return shared_.tally.outsideIterations;
    }
    /// Signatures device slot 0's reuse plan holds (0 once observation stopped).
    std::size_t reuseSignatures() const noexcept;
    /// Records left without values: launches that look like them did different work, and the
    /// stop came before each was measured on its own (their notes say which).
    std::uint64_t reusedDiffering() const noexcept { return shared_.tally.reusedDiffering; }
    /// Records whose counters another rank measures (CollectorConfig::shares()).
    std::uint64_t foreignRecords() const noexcept { return shared_.tally.foreign; }
    const CollectorConfig& config() const noexcept { return shared_.config; }
    /// Launches recorded in a group that had to restart (measured again in a later iteration);
    /// finish() removes their records.
    std::uint64_t supersededLaunches() const noexcept { return shared_.records.supersededCount(); }
    /// Once after an iteration that left nothing to measure (every launch of the steady
    /// iteration has its record, no group or cycle in progress): true, and false from then on.
    /// The session may go idle then (Options::idleWhenComplete). Lock-free.
    bool takeCompletion() noexcept { return completion_.exchange(false); }
    /// Iteration replay: the iterations it took to measure every launch of one iteration,
    /// after which nothing more is measured (0: not complete).
    std::uint64_t completedAfterIterations() const noexcept;
    /// Iteration replay: groups ended after pass 0 because it admitted no launch.
    std::uint64_t emptyGroups() const noexcept { return shared_.tally.emptyGroups; }
    /// CUDA graph launches seen, and open passes they stopped (iteration and scope replay).
    std::uint64_t graphLaunches() const noexcept { return shared_.tally.graphLaunches; }
    std::uint64_t graphInterruptions() const noexcept { return shared_.tally.graphInterruptions; }
    /// Iteration and scope replay gave up measuring: graph launches interrupted too many passes.
    bool graphsStoppedReplay() const noexcept { return shared_.graphsStopped(); }
    /// Iteration replay: aligned replay in use (from the start, or since a pass went out of step).
    bool alignedReplay() const noexcept { return strategy_->aligned(); }
    /// Repeated-launch reuse is on (CollectorConfig::reuses(), with counters).
    bool reuses() const noexcept;
    /// Replay passes per group now (aligned replay may need one more than CUPTI's packing).
    std::size_t passes() const noexcept { return strategy_->passes(); }
    /// The session's first iteration was not measured
    /// (CollectorConfig::firstIteration): observed only, or what differed first.
    bool firstIterationSkipped() const noexcept { return !shared_.firstIterationIssue.empty(); }
    /// Only the session's first iteration ran, and it was observed only: nothing was measured.
    bool onlyTheObservedIterationRan() const noexcept { return shared_.observingFirst(); }
    const std::string& firstIterationIssue() const noexcept { return shared_.firstIterationIssue; }

private:
    void iterationEnded();

    mutable std::mutex mutex_;
    Shared shared_;
    const ModeFacts facts_;
    std::vector<std::unique_ptr<DeviceSlot>> slots_;
    std::unique_ptr<Strategy> strategy_;
    std::uint64_t completedAt_ = 0;       // iterations seen when the profile was complete
    bool complete_ = false;               // the strategy was done once
    std::atomic<bool> completion_{false}; // takeCompletion()
    std::uint64_t helperIterations_ = 0;
    bool finished_ = false;
};

} // namespace roofline::collect
