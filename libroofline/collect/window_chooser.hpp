#pragma once
// Which windows of an iteration the replay groups of one device measure, and which launches get
// records (docs/design/0018), behind one interface with two implementations:
//   PlainWindows  (collect/plain_windows)  every launch, window after window of an image each,
//                 until every launch of the steady iteration has its record;
//   ReuseWindows  (collect/reuse_windows)  repeated launches measured a few times (design 0009):
//                 iterations observed, then a cycle of windows over the launches whose signature
//                 lacks samples; the others reuse samples that agree.
// The iteration replay strategy asks it at each iteration and group; it never touches the pass
// schedule itself.
#include "collect/pass_schedule.hpp"
#include "collect/strategy.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

namespace roofline::collect {

/// What a device's iteration did, as the window chooser needs it at the iteration's end.
struct IterationFacts {
    std::size_t launches = 0;    ///< launches of the iteration
    bool groupCompleted = false; ///< a group completed in it
    bool inGroup = false;        ///< a group is in progress after it
    bool passStarted = false;    ///< a pass started in it
    bool restartPending = false; ///< a group was abandoned and is to be measured again
    std::size_t iterationsPerPass = 0;
    bool steadyShape = false; ///< it launched as many kernels as the steady iteration
};

/// Launches of an iteration of `launches` that windows starting at `offsets` cover, an image of
/// `capacity` launches each.
inline std::uint64_t launchesCoveredBy(const std::set<std::size_t>& offsets, std::uint64_t launches,
                                       std::size_t capacity) {
    const std::uint64_t cap = std::max<std::uint64_t>(1, capacity);
    std::uint64_t n = 0;
    for (std::size_t offset : offsets)
        if (offset < launches)
            n += std::min<std::uint64_t>(cap, launches - offset);
    return n;
}

/// What the strategy must do after an iteration's end.
struct IterationVerdict {
    bool dropGroup = false; ///< the window's group is abandoned (not the reference's shape)
    std::string mismatch;   ///< the group's passes did different work: this says what
};

class WindowChooser {
public:
    virtual ~WindowChooser() = default;

    // ---- observation (every launch of every iteration) ----
    virtual void iterationBegins() {}
    /// Launch `position` of the iteration.
    virtual void observe(Shared& shared, const Launch& l, const Stack& stack,
                         std::size_t position) {
        (void)shared, (void)l, (void)stack, (void)position;
    }
    /// The iteration ended (before its passes are handled); `groupOpen`: a group is running.
    virtual void iterationObserved(const CollectorConfig& config, bool groupOpen) {
        (void)config, (void)groupOpen;
    }

    // ---- groups ----
    /// No group begins now: there is nothing to measure yet (reuse between cycles).
    virtual bool holdsBack() const { return false; }
    /// The profile is complete: no group begins any more (the device's profiler is released).
    /// `restartPending`: the last group is to be measured again.
    virtual bool complete(Shared& shared, DeviceSlot& slot, bool restartPending) {
        (void)shared, (void)slot, (void)restartPending;
        return false;
    }
    /// The window the next group measures, and the iterations its passes span (0: decided by
    /// the schedule).
    virtual Window window() const = 0;
    /// A group begins on `slot`: its window (what window() says, after any change planned since).
    virtual Window windowForGroup(DeviceSlot& slot) {
        (void)slot;
        return window();
    }
    virtual std::size_t iterationsPerPass() const { return 0; }
    /// Pass 0's launch at `position` (`inside` the iteration, else between two): its record's
    /// index, or -1 when it gets none (filters, launch skip and count).
    virtual std::int64_t admit(Shared& shared, const Launch& l, const Stack& stack,
                               std::size_t position, bool inside) = 0;
    /// A completed group's records hold their values (`members`: record per range, -1: none).
    virtual void recorded(Shared& shared, const std::vector<std::int64_t>& members) {
        (void)shared, (void)members;
    }
    /// A completed group that is measured again (more counters needed) has these records: what
    /// they show may change the window it is measured again over.
    virtual void inspect(Shared& shared, const std::vector<std::int64_t>& members) {
        (void)shared, (void)members;
    }
    /// A group completed and nothing of it is measured again: what it covered.
    virtual void covered(const PassSchedule& schedule) { (void)schedule; }
    /// The iteration's passes are handled: the next window, or the current one given up.
    virtual IterationVerdict iterationEnded(Shared& shared, DeviceSlot& slot,
                                            const IterationFacts& facts) = 0;
    /// After iterationEnded() and what the strategy did about it (`facts` as they are now):
    /// what the next iterations measure (reuse: a cycle begins).
    virtual void plan(Shared& shared, DeviceSlot& slot, const IterationFacts& facts) {
        (void)shared, (void)slot, (void)facts;
    }

    // ---- state ----
    /// The replay helper: more to measure on this device.
    virtual bool pending(const Shared& shared) const {
        (void)shared;
        return false;
    }
    /// Nothing is left to measure on this device.
    virtual bool done(const Shared& shared) const = 0;
    /// Launches of an iteration of `launches` launches that completed groups cover, and the
    /// iterations a complete profile needs (coverage), with `passes` per group.
    virtual std::uint64_t launchesCovered(std::uint64_t launches, std::size_t capacity) const = 0;
    virtual std::uint64_t iterationsNeeded(std::uint64_t launches, std::size_t capacity,
                                           std::size_t passes, std::size_t iterationsPerPass,
                                           bool observeFirst) const = 0;
    /// The stop: what an unfinished cycle still gives.
    virtual void finish(Shared& shared) { (void)shared; }
    /// The iterations it took to measure every launch of one iteration (0: not complete).
    virtual std::uint64_t completedAt() const noexcept { return 0; }
    /// Launch signatures held (reuse; 0 once observation stopped).
    virtual std::size_t signatures() const noexcept { return 0; }
};

} // namespace roofline::collect
