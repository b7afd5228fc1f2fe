// Iteration replay's launches no step covers (docs/design/0026-launches-no-step-covers.md): set-up,
// warm-up, and every launch of a program with no repeated step are measured in recorded windows
// (replay/windows) on the profiler iteration replay uses, until the first step begins. From then
// on a launch between steps is not windowed -- iteration replay holds the profiler between the
// passes of its groups, and releases it while it observes the first step (code that step loads
// then re-creates nothing); windows between steps would cost a profiler object each -- and gets a
// record that takes its signature's counters from the step at the stop (outside_records). No
// window opens once the process holds host-visible memory: a window's replay restores CUDA's
// pinned and managed memory too, and a store another thread made into it meanwhile would be lost;
// those launches get such records too.
#include "replay/iteration_replay.hpp"

namespace roofline::collect {

namespace {

void noteOutside(Shared& shared, const char* why) {
    if (shared.outsideWhy.empty())
        shared.outsideWhy = why;
}

} // namespace

bool IterationReplay::outsideWindowed(Device& d, const char*& why) {
    DeviceSlot& s = *d.replay.slot;
    const PassSchedule& schedule = d.replay.schedule;
    why = "between steps";
    if (s.failed) {
        why = "after the device's profiler failed";
        return false;
    }
    if (schedule.inGroup() || schedule.passOpen())
        return false; // a pass spanning iterations takes the launch
    if (d.stepsBegun) {
        noteOutside(shared_, "launches between steps are not measured: windows measure those "
                             "before the first step");
        return false;
    }
    if (const std::string& failed = outside_->stopped(s); !failed.empty()) {
        noteOutside(shared_, failed.c_str());
        why = "after the windows stopped on its device";
        return false;
    }
    if (shared_.hostVisibleMemory) {
        why = "after the process allocated pinned, mapped or managed memory";
        noteOutside(shared_, "the process allocated pinned, mapped or managed memory, which a "
                             "window's replay restores too: a store into it from another thread "
                             "would be lost, so no window measured them; `--mode window` "
                             "measures them where no other thread writes such memory");
        return false;
    }
    if (!d.windowsReady) {
        // Windows run every pass of configuration 0 (aligned passes left the backend at one of
        // their single-pass configurations), on an image of their own size: each profiler object
        // a code load makes costs a first Start, less with a smaller image.
        const std::size_t ranges = shared_.config.windowRangesPerImage;
        if (firstConfig() != 0 || (ranges > 0 && ranges != s.rangesInImage()))
            s.guard([&] {
                if (!s.backend->released() || ranges > 0)
                    s.backend->release(ranges);
                s.backend->selectConfiguration(0);
            });
        d.windowsReady = true;
    }
    if (s.failed)
        why = "after the device's profiler failed";
    return !s.failed;
}

void IterationReplay::keepOutside(const Launch& l, const Stack& stack, const char* why) {
    if (why && outsideRecords_.room() && !shared_.limitReached() &&
        shared_.filtersAdmit(l, stack)) {
        // Demangled at the stop (OutsideRecords::lend), once per kernel, not on the launch's path.
        outsideRecords_.add(shared_.records, shared_.records.add(shared_.launchInfo(l, stack)),
                            why);
        return;
    }
    ++shared_.tally.outsideIterations;
    shared_.outsideShapes.add(l);
}

void IterationReplay::lendOutside() {
    shared_.tally.outsideRecords = outsideRecords_.size();
    const OutsideRecords::Lent lent = outsideRecords_.lend(shared_.records, shared_.config.metricNames);
    shared_.tally.outsideLent += lent.lent;
    shared_.tally.outsideAwaiting += lent.awaiting;
    shared_.tally.foreign += lent.awaiting; // the exit line says `roofline merge` fills them in
}

void IterationReplay::stepsBegin(Device& d) {
    d.stepsBegun = true;
    DeviceSlot& s = *d.replay.slot;
    if (!d.windowsReady || s.failed)
        return; // no window ran: the backend is as iteration replay left it
    closeOutside(s);
    // As iteration replay holds it before its first group: released (no profiler while nothing
    // is measured), at its first configuration.
    s.guard([&] {
        s.backend->release(s.rangesPerImage); // the session's image again
        s.backend->selectConfiguration(firstConfig());
    });
}

void IterationReplay::closeOutside(DeviceSlot& s) {
    if (outside_ && outside_->isOpen(s))
        outside_->close(s);
}

bool IterationReplay::recordOutside(DeviceSlot& s, bool last) {
    const bool again = recordLaunchRanges(s, last);
    if (again && firstConfig() != 0) { // metricsAdded took it to the first aligned configuration
        s.backend->selectConfiguration(0);
        device(s).windowsReady = true;
    }
    return again;
}

void IterationReplay::memoryOperation(DeviceSlot& s) {
    closeOutside(s);
}

} // namespace roofline::collect
