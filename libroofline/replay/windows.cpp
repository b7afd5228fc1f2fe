#include "replay/windows.hpp"
#include "collect/launch_key.hpp"
#include "collect/notes.hpp"
#include "core/launch.hpp"
#include "core/log.hpp"

#include <string>

namespace roofline::collect {

Windows::Windows(Shared& shared, std::size_t slots, const char* what, RecordRanges recordRanges,
                 OnFailure onFailure)
    : shared_(shared), what_(what), recordRanges_(std::move(recordRanges)),
      onFailure_(onFailure), stopped_(slots), open_(slots, false) {
    for (std::size_t i = 0; i < slots; ++i)
        signatures_.emplace_back(shared.config.reuseSamples, shared.config.metricNames);
    shareableRun_.assign(slots, 0);
}

void Windows::close(DeviceSlot& s) noexcept {
    s.guard([&] { closeOpen(s); });
}

void Windows::launch(DeviceSlot& s, const Launch& l, const Stack& stack) {
    if (!shared_.admits(l, stack)) { // it runs unmeasured: the window must not miss it
        close(s);
        return;
    }
    const std::int64_t index = shared_.addLaunch(l, stack);
    if (const char* library = core::communicationLibrary(l.mangledName)) {
        unmeasured(s, index,
                   std::string("no counters: a ") + library +
                       " kernel waits for other GPUs' kernels, so it cannot be launched again "
                       "(iteration replay, which launches nothing again, measures it)");
        return;
    }
    std::string signature; // read only where launches share their signature's samples
    if (signatures_[s.index].on()) {
        signature = WindowSignatures::of(l) + '|';
        if (!s.usable() || !s.backend->launchArguments(l, signature))
            signature += "#" + std::to_string(index); // arguments unknown: a signature of its own
        if (shares(s, signature, index))
            return;
    }
    std::string why, full;
    bool opened = true; // false: the window could not open, and windows stopped on the device
    s.guard([&] {
        if (isOpen(s) && s.members.size() >= s.launchesInImage())
            closeOpen(s); // image full
        if (!stopped_[s.index].empty()) { // that window's replay failed: no window opens again
            opened = false;
            return;
        }
        if (!isOpen(s) && !s.backend->checkpointsFit(full)) {
            if (full.empty())
                full = "the device's memory has no room for a window's checkpoints";
            return;
        }
        if (!s.backend->recordLaunch(l, why))
            return;
        if (!isOpen(s) && !(opened = open(s)))
            return;
        s.members.push_back(index);
        signatures_[s.index].measuring(signature, index);
    });
    if (!full.empty())
        unmeasured(s, index, "no counters: " + full);
    else if (!opened)
        unmeasured(s, index, "no counters: " + stopped_[s.index]);
    else if (!why.empty())
        unmeasured(s, index, "no counters: window replay cannot launch it again: " + why);
    else if (s.failed)
        appendNote(shared_.records[index].note, shared_.timingReason);
}

bool Windows::shares(DeviceSlot& s, const std::string& signature, std::int64_t index) {
    WindowSignatures& signatures = signatures_[s.index];
    WindowSignatures::Take take = signatures.take(signature);
    if (take == WindowSignatures::Take::Measure) {
        shareableRun_[s.index] = 0;
        return false;
    }
    // Inside an open window, measured where it is while that costs less than the window it
    // would end.
    if (isOpen(s) && ++shareableRun_[s.index] <= kShareableInWindow)
        return false;
    close(s); // it runs unmeasured: the window must not miss it
    if (signatures.take(signature) != WindowSignatures::Take::Share)
        return false;
    signatures.sharing(signature, index);
    return true;
}

// No activity timer for it: kernel activity beside the range profiler's user replay zeroes every
// later range's instruction counters (design 0011), so the launch keeps no duration either.
void Windows::unmeasured(DeviceSlot& s, std::int64_t record, const std::string& why) {
    close(s);
    appendNote(shared_.records[record].note, why);
}

void Windows::renewStaleProfiler(DeviceSlot& s) {
    if (!s.stale())
        return;
    close(s); // every pass relaunched on a fresh profiler
    s.reenableIfStale(0);
}

void Windows::finish(const std::vector<DeviceSlot*>& slots) {
    for (DeviceSlot* s : slots)
        if (s->usable())
            close(*s);
    for (const WindowSignatures& w : signatures_) {
        shared_.tally.reused += w.fill(shared_.records);
        if (w.measured() + w.shared() > 0)
            core::log().info("libroofline: {}: {} launches of {} signatures, {} measured in "
                             "windows, {} took their signature's samples' mean",
                             what_, w.measured() + w.shared(), w.signatures(), w.measured(),
                             w.shared());
    }
}

bool Windows::open(DeviceSlot& s) {
    CounterBackend& b = *s.backend;
    s.acquireIfReleased();
    b.synchronize(); // the work before the window is not the window's
    if (shared_.config.flushPasses)
        b.flushCaches();
    try {
        b.saveMemory(false);
        b.start();
    } catch (const std::exception& e) {
        b.forgetWindow(); // no checkpoint may stay in device memory the program could need
        if (onFailure_ == OnFailure::TimingOnly)
            throw;
        // Nothing of the program's changed (the save comes first); the profiler, whose Start
        // may have failed halfway, is re-created for what else the session measures.
        stopWindows(s, std::string("a window could not open (") + e.what() + ")");
        return false;
    }
    open_[s.index] = true;
    shareableRun_[s.index] = 0;
    return true;
}

void Windows::closeOpen(DeviceSlot& s) {
    if (!isOpen(s))
        return;
    open_[s.index] = false;
    struct Closed { // the window's samples are compared however it ends
        WindowSignatures& signatures;
        Shared& shared;
        ~Closed() {
            try {
                // Samples of one signature -- the same arguments -- that did different work: the
                // data decides their work, which reuse in the steps is told.
                for (const std::int64_t r : signatures.windowClosed(shared.records)) {
                    const core::LaunchInfo& x = shared.records[r];
                    shared.dataDependentLaunches.insert(
                        launchKey(x.mangledName, x.grid, x.block,
                                  static_cast<std::uint32_t>(x.sharedMemBytes)));
                }
            } catch (...) { // out of memory: reuse finds it out from its own samples
            }
        }
    } closed{signatures_[s.index], shared_};
    CounterBackend& b = *s.backend;
    const bool loaded = s.stale(); // code loaded meanwhile: this profiler measures no more
    bool all = false;
    memoryBack_ = true; // pass 0 is the program's own run
    try {
        all = b.stop(); // pass 0: the program's own run of the window
        if (!all || loaded)
            replay(s, loaded ? Passes::AllFresh : Passes::Later);
        if (recordRanges_(s, false)) { // MMA work the set lacked counters for: again, with them
            replay(s, Passes::AllGrown);
            recordRanges_(s, true);
        }
    } catch (const std::exception& e) {
        b.forgetWindow();
        if (onFailure_ == OnFailure::TimingOnly || !memoryBack_)
            throw;
        // The program has its memory: only the windows on this device end.
        stopWindows(s, std::string("a window's replay failed (") + e.what() + ")");
        return;
    } catch (...) {
        b.forgetWindow();
        throw;
    }
    b.forgetWindow();
}

void Windows::stopWindows(DeviceSlot& s, const std::string& why) {
    stopped_[s.index] = why + ", so no window opens on this device again";
    core::log().warn("libroofline: {}", stopped_[s.index]);
    for (const std::int64_t m : s.members)
        if (m >= 0 && shared_.records[m].values.empty())
            appendNote(shared_.records[m].note, "no counters: " + stopped_[s.index]);
    s.members.clear();
    s.recreate(0);
}

void Windows::replay(DeviceSlot& s, Passes passes) {
    CounterBackend& b = *s.backend;
    b.synchronize();
    b.saveMemory(true);   // what the program computed, given back at the end
    bool programs = true; // the device holds the program's own memory
    try {
        if (passes == Passes::AllFresh)
            s.recreate(0); // pass 0 was measured by a profiler that saw code loaded: redone
        bool all = false;
        for (std::size_t pass = passes == Passes::Later ? 1 : 0; !all && pass < kMaxPasses;
             ++pass) {
            programs = false;
            b.restoreMemory(false);
            if (shared_.config.flushPasses)
                b.flushCaches();
            b.start();
            b.relaunchRecorded();
            all = b.stop();
        }
        b.restoreMemory(true);
        programs = true;
    } catch (...) {
        if (!programs) {
            try {
                b.restoreMemory(true);
                programs = true;
            } catch (...) {
            }
        }
        memoryBack_ = programs;
        if (!programs)
            core::log().error("libroofline: window replay could not give the program its device "
                              "memory back after a failed pass: what the program computes from "
                              "here on may differ");
        throw;
    }
}

} // namespace roofline::collect
