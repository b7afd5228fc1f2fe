#include "collect/group_replay.hpp"
#include "collect/notes.hpp"

#include "core/log.hpp"

#include <algorithm>

namespace roofline::collect {

GroupReplay::GroupReplay(Shared& shared, std::vector<DeviceSlot*> slots)
    : Strategy(shared, std::move(slots)) {
    groups_.resize(slots_.size());
    for (std::size_t i = 0; i < slots_.size(); ++i)
        groups_[i].slot = slots_[i];
}

void GroupReplay::iterationBegins() {
    for (PassGroup& g : groups_) {
        if (g.slot->failed)
            continue;
        g.k = 0;
        startIteration(g);
        if (!g.passOpen)
            g.scopeCount = 0;
        g.passStartedThisIteration = false;
        g.completedThisIteration = false;
        if (g.passOpen)
            continue; // a pass spanning several iterations goes on
        if (!g.group) {
            if (shared_.graphsStopped()) {
                g.restart = false;
                continue; // graph launches leave nothing to measure (graphLaunch)
            }
            if (holdsBack(g))
                continue;
            if (shared_.observeFirst && shared_.model.seen() == 1) {
                shared_.firstIterationIssue = "observed only (warm-up: lazily loaded kernels, "
                                              "validation, state created on first use; "
                                              "ROOFLINE_FIRST_ITERATION=measure measures it)";
                continue;
            }
            if (shared_.limitReached()) {
                g.restart = false;
                continue; // launch count reached: no new groups, no cost
            }
            if (complete(g))
                continue;
            newGroup(g);
        }
        if (passAtIterationStart(g))
            startPass(g);
    }
}

void GroupReplay::iterationEnds() {
    // What one iteration launches (the first one may differ: not counted as the steady one).
    shared_.model.countLaunches(groups_[0].k);
    const CollectorConfig& config = shared_.config;
    for (PassGroup& g : groups_) {
        DeviceSlot& s = *g.slot;
        if (s.failed)
            continue;
        iterationObserved(g);
        const std::size_t capacity = s.backend ? s.backend->capacity() : 0;
        if (g.passOpen) {
            ++g.passIters;
            const std::size_t launches = perIteration(g);
            if (g.itersPerPass == 0) {
                // Short iterations share a pass (up to an image's worth of launches), which
                // amortizes the per-pass cost; the replay helper keeps one iteration per pass.
                // Half an image of margin covers launches between iterations and variations.
                g.itersPerPass = config.iterationsPerPass != 0 ? config.iterationsPerPass
                                 : (g.offset == 0 && launches > 0 && !shared_.helperActive)
                                     ? std::max<std::size_t>(1, capacity / (2 * launches))
                                     : 1;
            }
            if (g.passIters < g.itersPerPass)
                continue;
        }
        if (g.passOpen)
            endPass(g);
        endIteration(g);
    }
}

void GroupReplay::newGroup(PassGroup& g) {
    g.group = true;
    g.groupStart = shared_.model.seen();
    g.restart = false;
    g.pass = 0;
    g.itersPerPass = 0; // decided after the group's first iteration
    g.slot->members.clear();
    g.mismatch = false;
    g.mismatchNote.clear();
    groupBegins(g);
}

void GroupReplay::abandonGroup(PassGroup& g) {
    shared_.records.supersede(g.slot->members);
    g.group = false;
    g.passOpen = false;
    g.restart = true;
}

void GroupReplay::startPass(PassGroup& g) {
    DeviceSlot& s = *g.slot;
    s.acquireIfReleased();
    if (s.stale()) {
        if (g.pass > 0) { // the passes so far go with the old profiler: start the group again
            abandonGroup(g);
            newGroup(g);
        }
        s.reenableIfStale(firstConfig());
    }
    s.guard([&] {
        if (shared_.config.flushCaches)
            s.backend->flushCaches();
        s.backend->start();
        g.passOpen = true;
        g.passStartedThisIteration = true;
        g.passCount = 0;
        g.passIters = 0;
        g.scopeCount = 0;
        passStarts(g);
    });
}

void GroupReplay::endPass(PassGroup& g) {
    DeviceSlot& s = *g.slot;
    s.guard([&] {
        const bool all = s.backend->stop();
        g.passOpen = false;
        const bool groupDone = groupEnds(g, all);
        if (!groupDone && s.stale()) { // later passes need a new profiler: restart
            abandonGroup(g);
            s.reenableIfStale(firstConfig());
            return;
        }
        if (!passChecked(g, groupDone))
            return;
        if (g.pass == 1 && firstIterationDiffers(g)) {
            abandonGroup(g);
            // A fresh profiler: CUPTI's user replay does not start again at pass 0 on a new
            // configuration alone (measured: the restarted group's first passes then had no
            // values, tensor FLOPs NaN), as it does after re-creation (design 0005).
            s.recreate(firstConfig());
            return;
        }
        if (!advance(g, all))
            return;
        if (!groupDone)
            return;
        completeGroup(g);
        g.group = false;
        if (g.redo) { // more counters now: the same window again, from the next iteration
            g.redo = false;
            g.restart = true;
            return;
        }
        groupCovered(g);
        g.completedThisIteration = true;
    });
}

void GroupReplay::noteMismatch(PassGroup& g, const std::string& what) {
    if (g.mismatch)
        return;
    g.mismatch = true;
    ++shared_.tally.mismatchedGroups;
    g.mismatchNote =
        "iteration replay mismatch: " + what + "; this record's counters combine different work";
    core::log().warn("libroofline: {}", g.mismatchNote);
}

void GroupReplay::recorded(PassGroup& g) {
    if (inferTensorMetrics(*g.slot))
        g.redo = true;
    groupRecorded(g);
    g.slot->members.clear();
    ++shared_.tally.groupsCompleted;
}

// Pass 1 just ended. When the group's pass 0 was the session's first iteration and pass 1 ran
// other kernels (not merely other grids: data-dependent launches differ in every iteration), the
// first iteration was not a steady-state one -- warm-up, a validation pass, state created on first
// use -- and its counters must not be combined with later iterations': the group starts again.
bool GroupReplay::firstIterationDiffers(PassGroup& g) {
    if (shared_.config.firstIteration != FirstIteration::SkipIfDifferent || g.groupStart != 1 ||
        !shared_.firstIterationIssue.empty() || !differs(g))
        return false;
    shared_.firstIterationIssue = difference(g);
    core::log().info("libroofline: the first iteration differs from the next ({}): it is not "
                     "measured, and its replay group starts again on a later iteration",
                     shared_.firstIterationIssue);
    return true;
}

// Measured on the H100 (GpuGraphs tests): a graph launched inside an auto-range pass makes that
// pass's cuptiRangeProfilerStop fail (CUPTI_ERROR_UNKNOWN), which would end counter collection;
// inside a user range its kernels add time but no instruction counts. The open pass stops and its
// group is measured again later.
void GroupReplay::graphLaunch(DeviceSlot& s) {
    PassGroup& g = groupOf(s);
    if (!g.passOpen)
        return;
    s.guard([&] { s.backend->stop(); });
    abandonGroup(g);
    ++shared_.tally.graphInterruptions;
    if (shared_.graphsStopped()) {
        g.restart = false;
        core::log().warn(
            "libroofline: CUDA graph launches stopped {} replay passes: iteration "
            "and scope replay measure nothing more until the profile stops (CUPTI's range "
            "profiler cannot measure graph kernels, nor a pass a graph runs in). "
            "Kernel replay (ROOFLINE_MODE=kernel, roofline run --mode kernel) "
            "measures the launches outside graphs",
            shared_.tally.graphInterruptions);
    }
    // A fresh profiler: CUPTI's user replay starts again at pass 0 only after re-creation.
    s.guard([&] { s.recreate(firstConfig()); });
}

// Code was loaded since the profiler was enabled: it is re-created before any launch runs on it;
// the passes a group already has are lost with it, and the group restarts on a later iteration.
void GroupReplay::renewStaleProfiler(DeviceSlot& s) {
    if (!s.stale())
        return;
    PassGroup& g = groupOf(s);
    if (g.passOpen) {
        s.guard([&] { s.backend->stop(); });
        abandonGroup(g);
    } else if (g.group && g.pass > 0) {
        abandonGroup(g);
    }
    s.reenableIfStale(firstConfig());
}

bool GroupReplay::profiling(const DeviceSlot& s) const {
    // Under the profiler in a pass, and also while the profiler is merely enabled between passes
    // (launches are then slower too).
    return !s.failed && (groupOf(s).passOpen || !s.backend->released());
}

void GroupReplay::stopPass(PassGroup& g) {
    if (g.passOpen)
        g.slot->guard([&] {
            g.passOpen = false;
            g.slot->backend->stop();
        });
}

void GroupReplay::quiesce(DeviceSlot& s) {
    PassGroup& g = groupOf(s);
    stopPass(g);
    if (g.group)
        abandonGroup(g);
}

bool GroupReplay::pending() const {
    // The first iteration observed only: measuring starts at the next one.
    const bool observedFirst = shared_.observeFirst && shared_.model.seen() == 1;
    for (const PassGroup& g : groups_)
        if (!g.slot->failed && (g.group || g.restart || g.offset > 0 || morePending(g) ||
                                (observedFirst && !shared_.limitReached())))
            return true;
    return false;
}

void GroupReplay::noteIncomplete(PassGroup& g) {
    const std::string& range = shared_.config.iterationRange;
    shared_.records.noteUnmeasured(
        g.slot->members,
        "replay incomplete: " + std::to_string(g.pass) + " of " +
            std::to_string(shared_.config.passes) +
            " passes ran before the session stopped (run more iterations of " +
            (range.empty() ? std::string("the outermost scope") : "'" + range + "'") +
            ", use Session::needsPass(), or set ROOFLINE_ITERATION_RANGE)");
    g.slot->members.clear();
    g.group = false;
}

void GroupReplay::finish() {
    for (PassGroup& g : groups_) {
        DeviceSlot& s = *g.slot;
        if (!s.usable())
            continue;
        stopPass(g);
        if (g.group)
            noteIncomplete(g);
    }
    for (PassGroup& g : groups_)
        finishGroup(g);
}

} // namespace roofline::collect
