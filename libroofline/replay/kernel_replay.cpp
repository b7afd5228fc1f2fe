#include "replay/kernel_replay.hpp"
#include "collect/notes.hpp"
#include "core/launch.hpp"

#include <string>

namespace roofline::collect {

void KernelReplay::launch(DeviceSlot& s, const Launch& l, const Stack& stack) {
    running_.resize(slots_.size(), false);
    if (!shared_.admits(l, stack)) {
        s.guard([&] { pause(s); });
        return;
    }
    const std::int64_t index = shared_.addLaunch(l, stack);
    // A communication kernel waits for its peers: replayed, its second run would wait forever
    // for peers that ran once. It runs once, unmeasured, timed by activity records (enabling
    // them while a kernel-replay pass collects fails on the H100: CUPTI_ERROR_NOT_COMPATIBLE).
    if (const char* library = core::communicationLibrary(l.mangledName)) {
        s.guard([&] { pause(s); });
        shared_.timingNeeded();
        appendNote(shared_.records[index].note,
                   std::string("no counters: a ") + library +
                       " kernel waits for other GPUs' kernels, so kernel replay cannot run it "
                       "twice (iteration replay, which replays no kernel, measures it)");
        return;
    }
    s.guard([&] {
        if (s.members.size() >= s.rangesInImage()) // image full: evaluate and reuse it
            closeWindow(s);
        if (shared_.config.flushPasses)
            s.backend->flushCaches();
        if (!running_[s.index]) {
            s.backend->start();
            running_[s.index] = true;
        }
        s.members.push_back(index);
    });
    if (s.failed)
        appendNote(shared_.records[index].note, shared_.timingReason);
}

// Measured on the H100 (GpuGraphs tests): in kernel replay a graph is one range that misses most
// of its kernels' work, so the profiler stops before it (the next direct launch starts it again)
// and activity records time its kernels.
void KernelReplay::graphLaunch(DeviceSlot& s) {
    s.guard([&] { pause(s); });
    shared_.timingNeeded();
}

void KernelReplay::renewStaleProfiler(DeviceSlot& s) {
    if (!s.stale())
        return;
    s.guard([&] { closeWindow(s); });
    s.reenableIfStale(0);
}

bool KernelReplay::profiling(const DeviceSlot& s) const {
    return !s.failed &&
           ((s.index < running_.size() && running_[s.index]) || !s.backend->released());
}

void KernelReplay::finish() {
    for (DeviceSlot* s : slots_)
        if (s->usable())
            s->guard([&] { closeWindow(*s); });
}

// No range for the launches that follow until the next measured one starts the profiler again
// (the ranges so far stay in the open window).
void KernelReplay::pause(DeviceSlot& s) {
    if (s.index < running_.size() && running_[s.index]) {
        running_[s.index] = false;
        s.backend->stop();
    }
}

// Ends the open window and evaluates the ranges its image holds.
void KernelReplay::closeWindow(DeviceSlot& s) {
    pause(s);
    if (s.members.empty())
        return;
    recordLaunchRanges(s);
}

} // namespace roofline::collect
