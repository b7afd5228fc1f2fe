#pragma once
// What the collector's strategies share (docs/design/0015-collector-by-strategy.md): the state
// every strategy reads and the records they write (Shared), one device's backend as they use it
// (DeviceSlot), the counts the collector reports (Tally). Every call comes under the collector's
// lock. Pure logic: no CUDA, no CUPTI; tested with the fake backend
// (test/unit/collector_harness.hpp).
#include "collect/backend.hpp"
#include "collect/collector_config.hpp"
#include "collect/iteration_model.hpp"
#include "collect/outside_shapes.hpp"
#include "collect/records.hpp"

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <set>
#include <string>
#include <vector>

namespace roofline::collect {

/// Graph launches that stop this many replay passes end iteration and scope replay.
constexpr std::uint64_t kGraphInterruptionLimit = 3;

/// Counts the collector reports (Collector's accessors).
struct Tally {
    std::uint64_t dropped = 0, mismatchedGroups = 0, groupsCompleted = 0;
    std::uint64_t differing = 0, unmatched = 0;
    std::uint64_t reenables = 0, expansions = 0, anticipations = 0, reused = 0, reusedDiffering = 0,
                  foreign = 0; // records whose counters another rank measures
    std::uint64_t emptyGroups = 0, graphLaunches = 0, graphInterruptions = 0;
    std::uint64_t windowsMeasuredAgain = 0; ///< launches a later pass did not run (measureAgain)
    /// Iteration replay: launches outside every iteration while it collected (set-up, warm-up,
    /// between steps) that got no record (docs/design/0026-launches-no-step-covers.md).
    std::uint64_t outsideIterations = 0;
    /// Of the launches outside every iteration, those no window measured that got a record of
    /// their own, and those of them its signature's launches in the step lent their counters.
    std::uint64_t outsideRecords = 0, outsideLent = 0;
    /// Of those records, the ones whose signature another rank sharing the profile measures.
    std::uint64_t outsideAwaiting = 0;
};

/// The state every strategy reads and the records they all write.
class Shared {
public:
    Shared(CollectorConfig c, Level l);

    /// What the session asked for: read-only once collection starts (what changes while it
    /// runs -- the passes, the level -- lives beside it).
    const CollectorConfig config;
    std::atomic<Level> level;
    /// Level::TimingOnly: why (goes into every record's note).
    std::string timingReason;
    RecordStore records;
    IterationModel model;
    Tally tally;
    /// The session's first iteration was not measured: observed only, or what differed first.
    std::string firstIterationIssue;
    /// FirstIteration::Skip with counters (iteration and scope replay).
    bool observeFirst = false;
    bool helperActive = false;
    std::function<void(const std::string&)> onFailure;
    /// Graph kernels' records: their durations come from activity records (kernel replay).
    bool graphKernelsTimed = false;
    /// The process allocated or registered memory the host can reach (pinned, mapped, managed):
    /// a window's restore would restore it too, so no window opens from then on.
    bool hostVisibleMemory = false;
    /// Iteration replay measuring launches no step covers in windows: why the first of them that
    /// got no record had none (the stop's line says it).
    std::string outsideWhy;
    /// What those launches ran, by shape (kernel, grid, block, shared memory).
    OutsideShapes outsideShapes;
    /// Launch configurations ("kernel|grid|block|smem": collect/launch_key.hpp launchKey)
    /// that windows saw do different work from the same arguments (their data decides it: a
    /// GELU's backward): repeated-launch reuse measures each of their launches in the step from
    /// its first cycle, rather than finding it out from two samples and measuring again.
    std::set<std::string> dataDependentLaunches;
    /// Heard when a launch runs unmeasured that activity records can time (kernel replay: a
    /// graph's kernels, a communication kernel), once the profiler stopped for it.
    std::function<void()> onTimingNeeded;
    std::string failure;

    /// The record of a kernel node of a CUDA graph launch (no counters; its note says why).
    std::int64_t addGraphKernel(const Launch& l, const Stack& stack);
    /// Outside every scope nothing is profiled (unless `outsideToo`: a sampled job's launches
    /// between its steps are counted as such); then the NVTX and kernel-name filters.
    bool filtersAdmit(const Launch& l, const Stack& stack, bool outsideToo = false) const;
    /// The filters, then the launch skip and count (counted when it passes them).
    bool admits(const Launch& l, const Stack& stack);
    /// The launch skip and count alone, for a launch whose place another iteration's filters
    /// admitted (a repeated-launch cycle's reference).
    bool admitsCounted();
    /// Only the session's first iteration has begun, and it is observed only
    /// (FirstIteration::Skip).
    bool observingFirst() const noexcept { return observeFirst && model.seen() == 1; }
    bool limitReached() const noexcept {
        return config.options.launchCount != 0 && taken_ >= config.options.launchCount;
    }
    /// A launch's record, its demangled name left to the caller.
    core::LaunchInfo launchInfo(const Launch& l, const Stack& stack) const;
    /// A record of `l` (demangled, noted when timing only); its index.
    std::int64_t addLaunch(const Launch& l, const Stack& stack);
    /// Graph launches interrupted too many passes: iteration and scope replay give up.
    bool graphsStopped() const noexcept;
    /// A backend failed: the whole session goes to timing only (once), the handler hears why.
    void counterFailure(const std::string& why) noexcept;
    /// onTimingNeeded, if any.
    void timingNeeded() noexcept;

private:
    std::uint64_t skipped_ = 0, taken_ = 0;
};

/// One device's counter backend as the strategies use it: its image's member records, failure to
/// timing only, and the profiler's staleness once code was loaded while it was enabled
/// (docs/design/0005-code-loaded-while-profiling.md).
class DeviceSlot {
public:
    DeviceSlot(std::size_t index, CounterBackend* backend, Shared& shared);

    std::size_t index;
    CounterBackend* backend;        ///< null after finish(): the session destroys it
    std::size_t rangesPerImage = 0; ///< ranges an image of the session's size holds (kept)
    std::size_t configs = 1;        ///< backend configurations; > 1: aligned replay is possible
    /// Ranges a measured launch takes in a pass: 2 when the L2 is flushed before each kernel
    /// (the flush kernel's range, left out, then the launch's).
    std::size_t rangesPerLaunch = 1;
    bool failed = false;
    std::vector<std::int64_t> members; ///< record per range of the open image, -1: not kept
    std::uint64_t loadsAtEnable = 0;   ///< code loads when the profiler was last enabled

    bool usable() const noexcept { return !failed && backend; }
    /// Ranges the open image holds now (a repeated-launch cycle sizes it to its longest window).
    std::size_t rangesInImage() const noexcept { return backend ? backend->capacity() : 0; }
    /// Launches the open image holds now (its ranges over rangesPerLaunch).
    std::size_t launchesInImage() const noexcept { return rangesInImage() / rangesPerLaunch; }
    /// Launches an image of the session's size holds (kept past finish()).
    std::size_t launchesPerImage() const noexcept { return rangesPerImage / rangesPerLaunch; }
    /// A backend call that must not reach the application: a throw turns the slot to timing
    /// only.
    template <typename F> void guard(F&& f) noexcept {
        if (failed)
            return;
        try {
            f();
        } catch (const std::exception& e) {
            fail(e.what());
        } catch (...) {
            fail("unknown error");
        }
    }
    void fail(const std::string& why) noexcept;

    /// Lock-free, from the driver: a module was loaded into the device's context.
    void codeLoaded() noexcept { loads_.fetch_add(1); }
    /// Loads from here on count (a fresh or re-selected profiler).
    void enabled() noexcept { loadsAtEnable = loads_.load(); }
    /// Code was loaded since the profiler was enabled.
    bool stale() const noexcept;
    /// Re-creates a stale profiler at `configuration`; true when it was stale.
    bool reenableIfStale(std::size_t configuration);
    /// A fresh profiler at `configuration`: CUPTI's replay back at pass 0.
    void recreate(std::size_t configuration);
    /// A released profiler is created again (loads from then on count).
    void acquireIfReleased();
    /// Decodes and evaluates the image (dropped ranges counted); `chunk`: where its raw bytes
    /// were kept for the recording, or -1.
    std::vector<RangeValues> evaluateImage(int& chunk);

private:
    Shared& shared_;
    std::atomic<std::uint64_t> loads_{0};
};

/// Values of an evaluated image into its member records (range names stay in `ranges`):
/// `more(i, record)` adds what the strategy knows about range i. `shifted`: the records say their
/// attribution may be shifted (fewer, or other, ranges than members came back); a count that
/// differs is logged, `mismatch` saying the group's passes did different work.
void assignRanges(RecordStore& records, const std::vector<std::int64_t>& members,
                  std::vector<RangeValues>& ranges, int chunk, bool shifted, bool mismatch,
                  const std::function<void(std::size_t, core::LaunchInfo&)>& more);

} // namespace roofline::collect
