#include "replay/replay_device.hpp"

#include "core/log.hpp"

namespace roofline::collect {

bool ReplayDevice::mayBeginGroup(Shared& shared, bool heldBack) {
    if (shared.graphsStopped()) {
        schedule.cancelRestart();
        return false; // graph launches leave nothing to measure (graphLaunch)
    }
    if (heldBack)
        return false;
    if (shared.observingFirst()) {
        shared.firstIterationIssue = "observed only (warm-up: lazily loaded kernels, validation, "
                                     "state created on first use; "
                                     "ROOFLINE_FIRST_ITERATION=measure measures it)";
        return false;
    }
    if (shared.limitReached()) {
        schedule.cancelRestart();
        return false; // launch count reached: no new groups, no cost
    }
    return true;
}

void ReplayDevice::beginGroup(Shared& shared, Window window, std::size_t iterationsPerPass,
                              bool chained) {
    if (chained)
        schedule.chainGroup(window, shared.model.seen(), iterationsPerPass);
    else
        schedule.beginGroup(window, shared.model.seen(), iterationsPerPass);
    slot->members.clear();
    mismatch_ = false;
    mismatchNote_.clear();
}

void ReplayDevice::abandon(Shared& shared) {
    shared.records.supersede(slot->members);
    schedule.abandon();
}

void ReplayDevice::stopPass() {
    if (schedule.passOpen())
        slot->guard([&] {
            schedule.passStopped();
            slot->backend->stop();
        });
}

void ReplayDevice::quiesce(Shared& shared) {
    stopPass();
    if (schedule.inGroup())
        abandon(shared);
}

// Measured on the H100 (GpuGraphs tests): a graph launched inside an auto-range pass makes that
// pass's cuptiRangeProfilerStop fail (CUPTI_ERROR_UNKNOWN), which would end counter collection;
// inside a user range its kernels add time but no instruction counts. The open pass stops and its
// group is measured again later.
void ReplayDevice::graphLaunched(Shared& shared, std::size_t firstConfig) {
    DeviceSlot& s = *slot;
    if (!schedule.passOpen())
        return;
    s.guard([&] { s.backend->stop(); });
    abandon(shared);
    ++shared.tally.graphInterruptions;
    if (shared.graphsStopped()) {
        schedule.cancelRestart();
        core::log().warn(
            "libroofline: CUDA graph launches stopped {} replay passes: iteration "
            "and scope replay measure nothing more until the profile stops (CUPTI's range "
            "profiler cannot measure graph kernels, nor a pass a graph runs in). "
            "Kernel replay (ROOFLINE_MODE=kernel, roofline run --mode kernel) "
            "measures the launches outside graphs",
            shared.tally.graphInterruptions);
    }
    // A fresh profiler: CUPTI's user replay starts again at pass 0 only after re-creation.
    s.guard([&] { s.recreate(firstConfig); });
}

void ReplayDevice::renewStaleProfiler(Shared& shared, std::size_t firstConfig) {
    DeviceSlot& s = *slot;
    if (!s.stale())
        return;
    if (schedule.passOpen()) {
        s.guard([&] { s.backend->stop(); });
        abandon(shared);
    } else if (schedule.inGroup() && schedule.pass() > 0) {
        abandon(shared);
    }
    s.reenableIfStale(firstConfig);
}

bool ReplayDevice::firstIterationDiffers(Shared& shared, const std::string& difference,
                                         std::size_t firstConfig) {
    if (shared.config.options.firstIteration != FirstIteration::SkipIfDifferent ||
        schedule.groupStart() != 1 || !shared.firstIterationIssue.empty() || difference.empty())
        return false;
    shared.firstIterationIssue = difference;
    core::log().info("libroofline: the first iteration differs from the next ({}): it is not "
                     "measured, and its replay group starts again on a later iteration",
                     shared.firstIterationIssue);
    abandon(shared);
    // A fresh profiler: CUPTI's user replay does not start again at pass 0 on a new
    // configuration alone (measured: the restarted group's first passes then had no values,
    // tensor FLOPs NaN), as it does after re-creation (design 0005).
    slot->recreate(firstConfig);
    return true;
}

void ReplayDevice::noteMismatch(Shared& shared, const std::string& what) {
    if (mismatch_)
        return;
    mismatch_ = true;
    ++shared.tally.mismatchedGroups;
    mismatchNote_ =
        "iteration replay mismatch: " + what + "; this record's counters combine different work";
    core::log().warn("libroofline: {}", mismatchNote_);
}

namespace {

std::string moreIterations(const Shared& shared) {
    const std::string& range = shared.config.options.iterationRange;
    return "run more iterations of " +
           (range.empty() ? std::string("the outermost scope") : "'" + range + "'") +
           ", use Session::needsPass(), or set ROOFLINE_ITERATION_RANGE";
}

} // namespace

void ReplayDevice::finish(Shared& shared, std::size_t passes) {
    if (!slot->usable())
        return;
    stopPass();
    if (!schedule.inGroup())
        return;
    shared.records.noteUnmeasured(
        slot->members, "replay incomplete: " + std::to_string(schedule.pass()) + " of " +
                           std::to_string(passes) + " passes ran before the session stopped (" +
                           moreIterations(shared) + ")");
    slot->members.clear();
    schedule.abandon();
    schedule.cancelRestart();
}

std::string ReplayDevice::cutShortNote(const Shared& shared, std::size_t ran, bool cut,
                                       std::size_t passes, bool atStop) {
    return std::string("replay cut short: ") +
           (atStop ? "the session stopped"
                   : "an iteration of another shape ended the replay group") +
           " after " + std::to_string(ran) + " of " + std::to_string(passes) + " passes" +
           (cut ? std::string(" and part of the next") : std::string()) +
           "; the counters those passes collected stand, the others are unknown (" +
           moreIterations(shared) + ")";
}

bool ReplayDevice::profiling() const noexcept {
    return slot->usable() && (schedule.passOpen() || !slot->backend->released());
}

} // namespace roofline::collect
