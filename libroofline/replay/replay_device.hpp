#pragma once
// One device under a replay strategy (iteration or scope replay): its slot, its pass schedule
// and what its current group noted, with the group mechanics both strategies share -- a pass
// started on a profiler that is acquired and fresh, stopped, a group abandoned (its records
// measured again later), given up at the stop, or marked as combining different work; graph
// launches and code loads that cost a group its passes (designs 0005, 0011); a first iteration
// that turns out not to be a steady one (design 0007). Composition, not a base class: each
// strategy drives its devices' schedules itself.
#include "replay/pass_schedule.hpp"
#include "collect/strategy.hpp"

#include <cstddef>
#include <string>

namespace roofline::collect {

class ReplayDevice {
public:
    explicit ReplayDevice(DeviceSlot& device) : slot(&device) {}

    DeviceSlot* slot;
    PassSchedule schedule;

    /// At an iteration's start with no group in progress: whether a new one may begin. Not while
    /// graph launches stop the profile, nor while `heldBack` (the window chooser waits), nor on
    /// the first iteration when it is observed only (noted), nor past the launch count.
    bool mayBeginGroup(Shared& shared, bool heldBack);
    /// A new group over `window`: no members, nothing noted yet. `chained`: it follows one that
    /// completed at the current launch, its pass 0 later in this iteration
    /// (PassSchedule::chainGroup).
    void beginGroup(Shared& shared, Window window, std::size_t iterationsPerPass = 0,
                    bool chained = false);
    /// The group's passes are lost: the launches its pass 0 recorded are measured again by the
    /// group that replaces it, so their records go.
    void abandon(Shared& shared);
    /// Starts the backend's pass: the profiler acquired when released and re-created when code
    /// was loaded since it was enabled -- a group past its pass 0 then starts again
    /// (`restartGroup` begins it anew) -- caches flushed when asked. False: the device failed.
    template <typename Restart>
    bool startPass(Shared& shared, std::size_t firstConfig, Restart&& restartGroup);
    /// Stops an open pass without ending it (its group is abandoned or noted incomplete).
    void stopPass();
    /// Another device's backend is about to change: an open pass stops and a group in progress
    /// is abandoned (it is measured again).
    void quiesce(Shared& shared);
    /// A graph launch (design 0011): an open pass stops and its group is measured again later.
    void graphLaunched(Shared& shared, std::size_t firstConfig);
    /// Code was loaded since the profiler was enabled: it is re-created before any launch runs
    /// on it; a group past its pass 0 is lost and restarts on a later iteration.
    void renewStaleProfiler(Shared& shared, std::size_t firstConfig);
    /// Pass 1 just ended: when the group's pass 0 was the session's first iteration and its
    /// passes ran other kernels (`difference` says what; empty: they did not), that iteration
    /// was not a steady one -- warm-up, a validation pass, state created on first use -- and the
    /// group starts again (true), on a fresh profiler.
    bool firstIterationDiffers(Shared& shared, const std::string& difference,
                               std::size_t firstConfig);
    /// The group's passes did different work: every record of it says so (once per group).
    void noteMismatch(Shared& shared, const std::string& what);
    bool mismatch() const noexcept { return mismatch_; }
    const std::string& mismatchNote() const noexcept { return mismatchNote_; }
    /// The stop: an open pass stops, an unfinished group's records say how far it got.
    void finish(Shared& shared, std::size_t passes);
    /// What a record of a group cut short says -- by the stop (`atStop`), else by an iteration
    /// of another shape: `ran` of `passes` passes ended, and one more was cut halfway when `cut`.
    static std::string cutShortNote(const Shared& shared, std::size_t ran, bool cut,
                                    std::size_t passes, bool atStop);
    /// Under the profiler: in a pass, or while the profiler is merely enabled between passes
    /// (launches are then slower too).
    bool profiling() const noexcept;

private:
    bool mismatch_ = false;
    std::string mismatchNote_;
};

template <typename Restart>
bool ReplayDevice::startPass(Shared& shared, std::size_t firstConfig, Restart&& restartGroup) {
    DeviceSlot& s = *slot;
    s.acquireIfReleased();
    if (s.stale()) {
        if (schedule.pass() > 0) { // the passes so far go with the old profiler: start again
            abandon(shared);
            restartGroup();
        }
        s.reenableIfStale(firstConfig);
        s.acquireIfReleased(); // the group begun again may have resized (released) the image
    }
    s.guard([&] {
        if (shared.config.flushPasses)
            s.backend->flushCaches();
        s.backend->start();
        schedule.passStarted();
    });
    return !s.failed;
}

} // namespace roofline::collect
