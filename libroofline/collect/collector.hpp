#pragma once
// The collector: decides, for every scope push/pop and kernel launch, what the counter backends
// do, in each collection mode (docs/design/0002-collector.md):
//   kernel replay     one range per admitted launch; the backend is started before an admitted
//                     launch and stopped before a refused one; a full image is decoded, evaluated
//                     and reused from inside the launch callback.
//   iteration replay  one record per admitted launch; the iteration scope's instance i runs pass i
//                     of a group; a group covers the launches [offset, offset + capacity) of an
//                     iteration, so iterations longer than one image are covered by later groups.
//   scope replay      one record per scope instance (user ranges, nesting levels 1..scopeLevels
//                     counted from the iteration scope).
// Replayed passes are checked against pass 0 (kernel names, grid and block, in order): in iteration
// replay launch by launch (collect/replay_check.hpp), in scope replay for the whole group. Pure
// logic: no CUDA, no CUPTI; thread-safe (one mutex).
#include "collect/aligned_replay.hpp"
#include "collect/backend.hpp"
#include "collect/host_timing.hpp"
#include "collect/observed_iteration.hpp"
#include "collect/replay_check.hpp"
#include "collect/reuse_plan.hpp"
#include "core/nvtx_filter.hpp"
#include "core/recording.hpp"
#include "core/roofline_model.hpp"

#include <roofline/options.hpp>

#include <atomic>
#include <cstdint>
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

namespace roofline::collect {

/// One open push/pop range (an NVTX range or a ProfileScope) on a thread.
struct Frame {
    std::string domain; ///< "" for the default domain
    std::string name;
    std::vector<std::int64_t> records; ///< scope mode: its record per device slot, -1: none
    std::int64_t instance = -1; ///< the iteration scope: its number (from the name, or counted)
    /// Reuse: a number unique to this scope instance, given at its first launch (0: none yet);
    /// a launch's place within its innermost scope instance is part of its signature.
    mutable std::uint64_t serial = 0;
    /// Reuse: the uniform scope path of this instance's launches (made at its first one).
    mutable std::string uniform{};
    /// Host time of this instance.
    HostFrame host{};
    std::uint64_t thread = 0; ///< the OS thread that opened it
    bool nvtx = false;        ///< an NVTX range (false: a ProfileScope)
    bool iteration = false;   ///< opened an iteration (Collector::onPush)
};
using Stack = std::vector<Frame>;

using core::Launch;

enum class Level { Counters, TimingOnly };

struct CollectorConfig {
    CollectionMode mode = CollectionMode::IterationReplay;
    core::KernelFilter filter;
    std::uint64_t launchSkip = 0;
    std::uint64_t launchCount = 0; ///< 0: no limit
    std::string iterationRange;    ///< name of the iteration scope; "": the outermost scope
    std::size_t scopeLevels = 1;
    std::size_t iterationsPerPass = 0; ///< iteration replay; 0: as many as half an image holds
    std::size_t passes = 1;            ///< passes per group (CUPTI passes x nesting levels)
    bool flushCaches = false;          ///< before each pass (each kernel in kernel replay)
    std::size_t keepImageBytes = 0;    ///< raw counter-data images kept for the recording
    std::string timingReason;          ///< Level::TimingOnly: why (goes into every record's note)
    /// Re-create the profiler before measuring again once code was loaded while it was enabled
    /// (CUPTI crashes collecting SASS metrics on a profiler that saw code loaded:
    /// docs/design/0005-code-loaded-while-profiling.md). Off only to reproduce that crash.
    bool reenableOnCodeLoad = true;
    /// Skip: the first iteration is observed with the profiler released (its lazy code loads
    /// cost no re-creation, CUPTI's first start comes on a steady iteration), measuring starts
    /// at the second. SkipIfDifferent: a replay group whose pass 0 was the session's first
    /// iteration and whose pass 1 launched other kernels (warm-up, validation, lazy
    /// initialization) starts again on a later iteration. Measure: neither. (The session passes
    /// Options::firstIteration, Skip by default; the collector's own default is the plain
    /// mechanism, as reuseSamples' is.)
    FirstIteration firstIteration = FirstIteration::Measure;
    /// Iteration replay: passes of aligned replay (docs/design/0006), whose single-pass
    /// configurations are the backend's configurations 1..n; 0: not available. Configuration 0
    /// holds every metric (`passes` passes, combined by position).
    std::size_t alignedPasses = 0;
    /// Aligned replay can be switched to (CounterBackend::prepareAligned() builds its
    /// configurations then).
    bool alignAvailable = false;
    /// Tensor counters by detection (docs/design/0008): fills a completed launch's inferred
    /// metrics in its values and returns those that stay unknown (collected from then on, and the
    /// launch's window measured again). Empty: every metric is collected from the start.
    std::function<std::vector<std::string>(std::vector<double>&)> infer;
    /// Iteration replay: samples measured per launch signature, the other launches of the
    /// signature reuse their mean (docs/design/0009); 0: every launch measured. With reuse the
    /// first iteration is observed only, and profiling stops once every signature of an
    /// iteration has its samples (until an iteration launches a signature without).
    std::size_t reuseSamples = 0;
    /// Launches whose signature has its samples, left inside a window when fewer than this lie
    /// between two that need measuring (cheaper than a window of their own).
    std::size_t reuseMaxGap = 16;
    /// Signatures a program may show before observation stops, once a profile is complete (only
    /// grids that change with every iteration keep adding ones, and host memory with them).
    std::size_t reuseMaxSignatures = std::size_t{1} << 16;
    /// The values' metric names (notes name the metric whose samples spread most).
    std::vector<std::string> metricNames;
    /// Aligned replay from the first group on; otherwise from the first replayed pass that ran
    /// other kernels than pass 0 (an insertion or omission), whose group is measured again.
    bool alignFromStart = false;
    /// Iteration replay: measuring goes on once every launch of one iteration has its record
    /// (positional replay measures every iteration again; reuse keeps observing). false (the
    /// session's Options::idleWhenComplete): positional replay stops there, and the collector
    /// reports the completion (takeCompletion). A program that loops on needsPass() decides
    /// itself when it is done: then measuring always goes on.
    bool measureAfterComplete = true;

    /// Repeated-launch reuse is on (iteration replay with samples per signature).
    bool reuses() const noexcept {
        return mode == CollectionMode::IterationReplay && reuseSamples > 0;
    }
    /// The first iteration is observed only (FirstIteration::Skip; kernel replay has none).
    bool observesFirstIteration() const noexcept {
        return firstIteration == FirstIteration::Skip && mode != CollectionMode::KernelReplay;
    }
    /// Nothing is measured before the first pass of a later iteration: the session creates the
    /// profiler only to check the permission, and the collector keeps it released until then.
    bool profilerReleasedAtStart() const noexcept { return reuses() || observesFirstIteration(); }
};

class Collector {
public:
    Collector(CollectorConfig config, std::vector<CounterBackend*> backends, Level level);

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
    static constexpr std::uint64_t kGraphInterruptionLimit = 3;
    /// A module was loaded into device slot `slot`'s context (lazy loading, JIT compilation).
    /// Lock-free: it may be called from inside any driver call, including the collector's own.
    void onCodeLoaded(std::size_t slot) noexcept;

    /// The replay helper: `while (c.needsPass()) { ...one iteration... }`.
    bool needsPass() noexcept;
    /// Ends collection: stops the backends, evaluates complete groups, notes incomplete ones.
    void finish() noexcept;

    /// Called (under the collector's lock) when a backend fails mid-run, with the cause; the
    /// collector has already switched to timing-only.
    void setFailureHandler(std::function<void(const std::string&)> handler);

    /// Read without the collector's lock (the launch path asks it before locking).
    Level level() const noexcept { return level_.load(); }
    const std::string& failure() const noexcept { return failure_; }
    std::vector<core::LaunchInfo>& launches() noexcept { return launches_; }
    std::vector<std::vector<std::uint8_t>>& keptImages() noexcept { return kept_; }
    std::uint64_t droppedRanges() const noexcept { return dropped_; }
    std::uint64_t mismatchedGroups() const noexcept { return mismatchedGroups_; }
    /// Iteration replay, launches whose replayed passes ran them with another grid or block
    /// (values kept, noted) and launches whose passes could not be matched (values dropped).
    std::uint64_t differingLaunches() const noexcept { return differing_; }
    std::uint64_t unmatchedLaunches() const noexcept { return unmatched_; }
    /// Iteration replay: one iteration's launches, the iterations a complete profile of one
    /// needs and how much of one the completed groups cover (after finish()).
    core::Coverage coverage() const;
    std::uint64_t groupsCompleted() const noexcept { return groupsCompleted_; }
    /// Times the profiler was re-created because code was loaded while it was enabled.
    std::uint64_t reenables() const noexcept { return reenables_; }
    /// Tensor counters by detection: times the collected set grew (each re-measured a window).
    std::uint64_t metricExpansions() const noexcept { return expansions_; }
    /// Reuse: records whose values are the mean of their signature's samples.
    std::uint64_t reusedLaunches() const noexcept { return reused_; }
    /// Signatures device slot 0's reuse plan holds (0 once observation stopped).
    std::size_t reuseSignatures() const noexcept {
        return slots_.empty() ? 0 : slots_[0].plan.signatures();
    }
    /// Reused records whose samples' work counters differ (their notes say which).
    std::uint64_t reusedDiffering() const noexcept { return reusedDiffering_; }
    /// Launches recorded in a group that had to restart (measured again in a later iteration);
    /// finish() removes their records.
    std::uint64_t supersededLaunches() const noexcept { return supersededCount_; }
    /// Once after an iteration that left nothing to measure (every launch of the steady
    /// iteration has its record, no group or cycle in progress): true, and false from then on.
    /// The session may go idle then (Options::idleWhenComplete). Lock-free.
    bool takeCompletion() noexcept { return completion_.exchange(false); }
    /// Iteration replay: the iterations it took to measure every launch of one iteration,
    /// after which nothing more is measured (0: not complete).
    std::uint64_t completedAfterIterations() const noexcept { return completedAtIteration_; }
    /// Iteration replay: groups ended after pass 0 because it admitted no launch.
    std::uint64_t emptyGroups() const noexcept { return emptyGroups_; }
    /// CUDA graph launches seen, and open passes they stopped (iteration and scope replay).
    std::uint64_t graphLaunches() const noexcept { return graphLaunches_; }
    std::uint64_t graphInterruptions() const noexcept { return graphInterruptions_; }
    /// Iteration and scope replay gave up measuring: graph launches interrupted too many passes.
    bool graphsStoppedReplay() const noexcept {
        return graphInterruptions_ >= kGraphInterruptionLimit;
    }
    /// Iteration replay: aligned replay in use (from the start, or since a pass went out of step).
    bool alignedReplay() const noexcept { return aligned_; }
    /// Repeated-launch reuse is on (CollectorConfig::reuses(), with counters).
    bool reuses() const noexcept { return reuse_; }
    /// Replay passes per group now (aligned replay may need one more than CUPTI's packing).
    std::size_t passes() const noexcept { return config_.passes; }
    /// The session's first iteration was not measured
    /// (CollectorConfig::firstIteration): observed only, or what differed first.
    bool firstIterationSkipped() const noexcept { return !firstIterationIssue_.empty(); }
    /// Only the session's first iteration ran, and it was observed only: nothing was measured.
    bool onlyTheObservedIterationRan() const noexcept {
        return observeFirst_ && iterationsSeen_ == 1;
    }
    const std::string& firstIterationIssue() const noexcept { return firstIterationIssue_; }

private:
    using Key = LaunchKey;
    struct Slot {
        CounterBackend* backend = nullptr; ///< null after finish(): the session destroys it
        std::size_t capacity = 0;          ///< ranges per image, kept past finish()
        bool failed = false;
        bool running = false; // kernel replay: started
        bool group = false;   // iteration/scope replay: a group is in progress
        bool passOpen = false;
        bool passStartedThisIteration = false;
        bool completedThisIteration = false;
        std::size_t pass = 0;
        std::size_t offset = 0;            // window start within the iteration
        std::size_t k = 0;                 // launch position in the current iteration
        std::size_t passCount = 0;         // launches (auto ranges) in this pass so far
        std::size_t passIters = 0;         // iterations completed in this pass
        std::size_t itersPerPass = 0;      // iterations a pass spans (0: not decided yet)
        std::size_t scopeCount = 0;        // scope ranges pushed this pass
        std::size_t passKernels = 0;       // scope replay: launches in this pass
        std::vector<std::int64_t> members; // launches_ index per range, -1: range not kept
        std::vector<Key> expected;         // scope replay: pass 0's launches
        std::vector<std::string> expectedScopes;
        ReplayCheck replay; // iteration replay: each launch against pass 0
        // Aligned replay (the backend has one configuration per pass): docs/design/0006.
        std::size_t configs = 1;    // backend configurations; > 1: aligned replay
        std::size_t config = 0;     // the current pass's configuration
        std::size_t subPass = 0;    // the current pass within its configuration
        std::size_t configPass = 0; // the group pass that began the current configuration
        AlignedGroup aligned;
        bool mismatch = false; // scope replay: the group's passes differ
        std::string mismatchNote;
        bool scopeOverflowNoted = false;
        std::uint64_t loadsAtEnable = 0; // codeLoads_[slot] when the profiler was last enabled
        bool restart = false;            // a group was abandoned: the next iteration redoes it
        bool redo = false; // the completed group needs counters it lacked: measured again
        // Reuse (CollectorConfig::reuseSamples, docs/design/0009): signatures per position of the
        // current iteration, the launches of an iteration a cycle may refer to, and the cycle's
        // reference iteration, windows and measured positions.
        ReusePlan plan{0, 0};
        bool observing = true;      // reuse: iterations are observed (stopObservingIfUnbounded)
        ObservedIteration observed; // the current iteration's launches
        std::vector<std::uint64_t> refShapes; // the reference's launches (ObservedIteration::shape)
        std::vector<std::string> iterLabels, refLabels; // places in their scope instances
        std::vector<std::uint32_t> iterSigs, refSigs;
        std::vector<std::uint32_t> iterFamilies, prevFamilies; // steady: equal for two in a row
        std::vector<core::LaunchInfo> iterInfo, refInfo;
        bool cycle = false;        // a cycle of windows over refSigs is in progress
        std::size_t windowEnd = 0; // the current window: [offset, windowEnd)
        std::size_t windows = 0;   // windows of the current cycle so far
        std::size_t cyclesDone = 0;
        std::size_t unsteady = 0; // observed iterations that differed from the one before
        bool awaiting = false;    // the last iteration launched what no cycle measured yet
        std::vector<bool> measuredPos;
        std::size_t cycleRanges = 0;  // the cycle's longest window: what its image holds
        std::uint64_t groupStart = 0; // iterationsSeen_ when the group began (1: the first)
    };

    void countIterationLaunches(std::uint64_t launches);
    void orderByPosition();
    bool windowsComplete() const;
    std::uint64_t launchesCovered(std::uint64_t launches) const;
    void completeProfile(Slot& s);
    bool nothingLeftToMeasure() const;
    /// The launches of the iteration most iterations look like (the coverage's iteration).
    std::uint64_t steadyLaunches() const;
    bool admits(const Launch& l, const Stack& stack);
    bool takeCount();
    bool limitReached() const noexcept;
    bool isIterationFrame(const Stack& stack);
    std::size_t iterationIndex(const Stack& stack) const;
    /// Scope names from `from` on, joined by '/'; the iteration scope's instance made uniform
    /// ("Train step #") unless `raw`.
    std::string path(const Stack& stack, std::size_t from = 0, bool raw = false) const;
    void setScope(core::LaunchInfo& info, const Stack& stack) const;
    void settleIterationPaths();
    std::vector<core::NvtxRange> views(const Stack& stack) const;
    std::vector<core::NvtxRange> startEndViews() const;
    core::LaunchInfo launchInfo(const Launch& l, const Stack& stack) const;
    std::int64_t addLaunch(const Launch& l, const Stack& stack);

    std::uint64_t codeLoads(const Slot& s) const noexcept;
    bool profilerStale(Slot& s);
    bool reenableIfStale(Slot& s);
    void renewStaleProfiler(Slot& s);
    void newGroup(Slot& s);
    void abandonGroup(Slot& s);
    void supersedeMembers(Slot& s);
    bool firstIterationDiffers(Slot& s);
    void beginIteration(std::uint64_t thread);
    void endIteration();
    void startPass(Slot& s);
    void endPass(Slot& s);
    void completeImage(Slot& s);
    void groupRecorded(Slot& s);
    bool aligned(const Slot& s) const noexcept;
    std::size_t firstConfig() const noexcept { return aligned_ ? 1 : 0; }
    void recreate(Slot& s);
    bool switchToAligned(Slot& s);
    void completeConfiguration(Slot& s);
    void completeAligned(Slot& s);
    void inferTensorMetrics(Slot& s);
    bool filtersAdmit(const Launch& l, const Stack& stack);
    std::string uniformPath(const Stack& stack) const;
    void observePosition(Slot& s, const Launch& l, const Stack& stack, std::size_t idx);
    std::uint32_t measuredSignature(Slot& s, std::size_t at);
    void stopObservingIfUnbounded(Slot& s);
    void maybeStartCycle(Slot& s, bool unmeasured);
    void advanceCycle(Slot& s);
    void recordSamples(Slot& s);
    void emitReused(Slot& s);
    void dropCycle(Slot& s);
    void scopePush(Stack& stack);
    void noteMismatch(Slot& s, const std::string& what);
    void pauseKernelReplay(Slot& s);
    void closeWindow(Slot& s);
    void kernelReplayLaunch(Slot& s, const Launch& l, const Stack& stack);
    void iterationLaunch(Slot& s, const Launch& l, const Stack& stack);
    void positionLaunch(Slot& s, const Launch& l, const Stack& stack, bool inside);
    void checkReplayedLaunch(Slot& s, std::size_t at, const Key& key);
    template <typename F> void guard(Slot& s, F&& f) noexcept;
    template <typename F> void changeEveryBackend(Slot& s, F&& change);
    void fail(Slot& s, const std::string& why) noexcept;

    mutable std::mutex mutex_;
    CollectorConfig config_;
    std::atomic<Level> level_;
    std::vector<Slot> slots_;
    std::function<void(const std::string&)> onFailure_;
    std::string failure_;

    std::map<std::uint64_t, Frame> startEnd_;
    int iterationsOpen_ = 0;
    std::uint64_t iterationThread_ = 0;
    std::uint64_t iterationsSeen_ = 0;
    std::string iterationRangeName_;
    std::uint64_t iterationsEnded_ = 0, lastIterationLaunches_ = 0;
    bool launchesVaried_ = false;
    // Launches per iteration after the first: iterations that launched that many, and the last
    // of them (countIterationLaunches, steadyLaunches).
    std::map<std::uint64_t, std::pair<std::uint64_t, std::uint64_t>> launchCounts_;
    std::uint64_t firstIterationLaunches_ = 0;
    std::uint64_t completedAtIteration_ = 0; // iterations seen when the profile was complete
    bool complete_ = false;                  // nothingLeftToMeasure() was true once
    std::atomic<bool> completion_{false};    // takeCompletion()
    static constexpr std::size_t kMaxLaunchCounts = 1024;
    std::set<std::size_t> coveredOffsets_; // window offsets of completed groups (device slot 0)
    bool coveredWhole_ = false;            // a group of passes spanning whole iterations completed
    std::int64_t iterationScopes_ = 0; // iteration scopes opened (their instance when unnumbered)
    // Without an iteration range: the uniform name of the first outermost range when it was
    // numbered ("Train step #"); other outermost ranges are then not iterations.
    std::string iterationFamily_;
    bool iterationFamilyDecided_ = false;
    // Numbered iteration scopes opened, per uniform name (up to 3 names each: enough to decide).
    std::map<std::string, std::set<std::string>> numberedScopes_;
    bool helperActive_ = false;
    bool helperUsed_ = false; // needsPass() was called: the program drives the replay loops
    std::uint64_t helperIterations_ = 0;
    bool finished_ = false;
    bool aligned_ = false; // aligned replay (CollectorConfig::alignedPasses) in use

    std::vector<core::LaunchInfo> launches_;
    std::vector<std::vector<std::uint8_t>> kept_;
    std::size_t keptBytes_ = 0;
    std::uint64_t dropped_ = 0, mismatchedGroups_ = 0, groupsCompleted_ = 0;
    std::uint64_t differing_ = 0, unmatched_ = 0;
    std::uint64_t skipped_ = 0, taken_ = 0;
    std::unique_ptr<std::atomic<std::uint64_t>[]> codeLoads_; // per slot, written lock-free
    std::uint64_t reenables_ = 0, supersededCount_ = 0, expansions_ = 0, reused_ = 0;
    std::uint64_t reusedDiffering_ = 0;    // reused records whose samples' work differs
    bool reuse_ = false;                   // CollectorConfig::reuseSamples > 0, iteration replay
    bool observeFirst_ = false;            // FirstIteration::Skip with counters, iteration/scope
    std::size_t cycleWindows_ = 0;         // windows of the last completed reuse cycle
    std::vector<std::uint32_t> launchSig_; // per launches_ entry: its signature (reuse)
    std::uint64_t frameSerials_ = 0;       // Frame::serial given so far
    std::string firstIterationIssue_;
    std::uint64_t emptyGroups_ = 0;
    std::uint64_t graphLaunches_ = 0, graphInterruptions_ = 0;
    std::vector<bool> superseded_; // per launches_ entry: removed by finish()
};

// A backend call that must not reach the application: a throw turns the slot to timing only.
template <typename F> void Collector::guard(Slot& s, F&& f) noexcept {
    if (s.failed)
        return;
    try {
        f();
    } catch (const std::exception& e) {
        fail(s, e.what());
    } catch (...) {
        fail(s, "unknown error");
    }
}

} // namespace roofline::collect
