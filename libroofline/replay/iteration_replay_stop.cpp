// How far an iteration-replay profile got -- pending passes, completion, coverage -- and its stop
// (docs/design/0022-cost-floor.md, "Short jobs"): a window being measured again keeps its earlier
// attempt, and a group the stop cut short keeps the counters of the passes that ran. Measured on
// the H100 (roofline-bench-partial-passes): after K of a configuration's P passes, and after a
// pass stopped halfway, CUPTI decodes the image; each metric that a pass reaching the range
// collected evaluates to the complete group's value, every other metric to NaN. So such a record
// has its time and bytes from pass 0 on, and says which quantities it lacks (KernelRecord::lacks).
#include "replay/iteration_replay.hpp"

#include "core/log.hpp"

#include <algorithm>

namespace roofline::collect {

// The profile stopped while a window was to be measured again: the earlier attempt's records stay
// (the launches it lost say why), an unfinished attempt's records go, and the earlier attempt
// counts as the profile's.
void IterationReplay::keepPreviousAttempt(Device& d) {
    if (d.previous.empty())
        return;
    if (d.replay.schedule.inGroup())
        shared_.records.supersede(d.replay.slot->members);
    if (d.previousLost) {
        ++shared_.tally.mismatchedGroups;
        for (std::int64_t m : d.previous) {
            if (m < 0)
                continue;
            const ReplayStatus status = shared_.records[m].replay;
            shared_.tally.unmatched += status == ReplayStatus::Unmatched ? 1 : 0;
            shared_.tally.differing += status == ReplayStatus::Differs ? 1 : 0;
        }
    }
    d.previous.clear();
}

void IterationReplay::finish() {
    if (outside_)
        outside_->finish(slots_);
    for (auto& d : devices_) {
        const bool kept = keepCutShort(*d, true);
        keepPreviousAttempt(*d); // before the unfinished attempt is noted incomplete: it goes
        if (!kept)
            d->replay.finish(shared_, passes_);
    }
    for (auto& d : devices_)
        d->windows->finish(shared_);
    try {
        lendOutside();
    } catch (...) {
        // out of memory: those records keep their notes, without counters
    }
}

// Positional replay only: an aligned group's configurations each have an image of their own,
// evaluated as they complete, and one cut short has nothing to decode. Not after code was loaded
// into a profiler's context (its passes are not comparable: design 0005), and not for a second
// attempt at a window (the first attempt's records stand: keepPreviousAttempt).
bool IterationReplay::keepCutShort(Device& d, bool atStop) {
    DeviceSlot& s = *d.replay.slot;
    PassSchedule& schedule = d.replay.schedule;
    const auto& members = s.members;
    if (!s.usable() || !schedule.inGroup() || d.checker->aligned() || s.stale() ||
        !d.previous.empty() ||
        std::none_of(members.begin(), members.end(), [](std::int64_t m) { return m >= 0; }))
        return false;
    const std::size_t ran = schedule.pass(); // passes that ended
    const bool cut = schedule.passOpen();    // and one the stop ends halfway
    d.replay.stopPass();
    if (s.failed)
        return false;
    std::vector<MemberValues> values;
    try {
        values = d.checker->complete(s, members.size());
    } catch (const std::exception& e) {
        core::log().info("libroofline: the replay group the stop cut short could not be decoded "
                         "({}): its launches have no counters",
                         e.what());
        return false;
    }
    recordValues(d, values, shared_.tally,
                 d.replay.cutShortNote(shared_, ran, cut, passes_, atStop));
    // Its samples stand for their signatures' other launches (reuse), as far as they go.
    d.windows->groupCompleted(shared_, completed(d, atStop ? CompletedGroup::Outcome::CutShort
                                                           : CompletedGroup::Outcome::Provisional));
    s.members.clear();
    schedule.abandon();
    schedule.cancelRestart();
    return true;
}

bool IterationReplay::pending() const {
    // The first iteration observed only: measuring starts at the next one.
    const bool observedFirst = shared_.observingFirst();
    for (const auto& d : devices_) {
        const PassSchedule& schedule = d->replay.schedule;
        if (d->replay.slot->failed)
            continue;
        const ChooserState chooser = d->windows->state(shared_);
        if (schedule.inGroup() || schedule.restartPending() || chooser.windowAt > 0 ||
            chooser.pending || (observedFirst && !shared_.limitReached()))
            return true;
    }
    return false;
}

// At an iteration's end: every launch of the steady iteration has its record and no replay group
// or reuse cycle is in progress or waiting. Graph launches keep getting records of their own,
// launch by launch, so a program that launches graphs is never done. Nor is one whose iterations
// launch nothing: ranges around host work (a framework's annotations) measured nothing.
bool IterationReplay::done() const {
    if (shared_.level != Level::Counters || shared_.config.measuresAfterComplete() ||
        shared_.model.drivenByHelper() || shared_.tally.graphLaunches > 0 ||
        shared_.limitReached() || shared_.model.steadyLaunches() == 0)
        return false;
    for (const auto& d : devices_) {
        if (!d->replay.slot->usable())
            continue;
        const PassSchedule& schedule = d->replay.schedule;
        if (schedule.inGroup() || schedule.passOpen() || schedule.restartPending() || d->redo ||
            !d->windows->state(shared_).done)
            return false;
    }
    return true;
}

// The profile is complete: the device's range profiler is released (its counter-data image and
// CUPTI's per-range state with it) and nothing more is measured.
void IterationReplay::completed() {
    for (auto& d : devices_) {
        DeviceSlot& s = *d->replay.slot;
        if (s.usable() && !s.backend->released())
            s.guard([&] { s.backend->release(0); });
    }
}

void IterationReplay::coverage(core::Coverage& c) const {
    const IterationModel& model = shared_.model;
    if (model.ended() == 0 || slots_[0]->rangesPerImage == 0)
        return;
    const Device& d = *devices_[0];
    c.known = true;
    c.launchesPerIteration = model.steadyLaunches();
    c.launchesVaried = model.launchesVaried();
    c.launchesPerImage = slots_[0]->launchesPerImage();
    c.passes = passes_;
    c.iterationsPerPass = std::max<std::size_t>(1, d.replay.schedule.iterationsPerPass());
    c.iterationsRun = model.ended();
    c.firstIterationSkipped = !shared_.firstIterationIssue.empty();
    d.windows->coverage(c, shared_.observeFirst);
}

Strategy::Progress IterationReplay::progress() const noexcept {
    const ChooserState chooser = devices_[0]->windows->state(shared_);
    return Progress{chooser.completedAt, chooser.signatures, reuse_};
}

} // namespace roofline::collect
