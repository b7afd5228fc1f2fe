#include "collect/plain_windows.hpp"

#include <algorithm>

namespace roofline::collect {

// Completed groups cover every launch of the steady iteration: measuring more would give the same
// launches more records and cost the program as much as the first profile did. The device's
// profiler is released (its counter-data image and CUPTI's per-range state with it).
bool PlainWindows::complete(Shared& shared, DeviceSlot& slot, bool restartPending) {
    if (shared.config.measureAfterComplete || shared.model.drivenByHelper() || restartPending ||
        !covers(shared))
        return false;
    if (completedAt_ == 0) // the iteration before this one completed it
        completedAt_ = shared.model.seen() - 1;
    offset_ = 0;
    if (slot.backend && !slot.backend->released())
        slot.guard([&] { slot.backend->release(0); });
    return true;
}

std::int64_t PlainWindows::admit(Shared& shared, const Launch& l, const Stack& stack,
                                 std::size_t position, bool inside) {
    if (!inside || !shared.admits(l, stack))
        return -1;
    const std::int64_t m = shared.addLaunch(l, stack);
    shared.records[m].position = static_cast<std::int64_t>(position);
    return m;
}

void PlainWindows::covered(const PassSchedule& schedule) {
    if (schedule.iterationsPerPass() > 1)
        whole_ = true;
    else
        offsets_.insert(schedule.window().begin);
}

IterationVerdict PlainWindows::iterationEnded(Shared&, DeviceSlot& slot,
                                              const IterationFacts& facts) {
    IterationVerdict v;
    if (facts.groupCompleted) { // the next window
        const std::size_t capacity = slot.launchesInImage();
        offset_ = facts.iterationsPerPass <= 1 && facts.launches > offset_ + capacity
                      ? offset_ + capacity
                      : 0;
    } else if (facts.inGroup && offset_ > 0 && !facts.passStarted && facts.launches <= offset_) {
        v.mismatch = "an iteration launched only " + std::to_string(facts.launches) +
                     " kernels, none inside this group's window";
    }
    return v;
}

bool PlainWindows::covers(const Shared& shared) const {
    if (!shared.model.anyCounted())
        return false;
    const std::uint64_t L = shared.model.steadyLaunches();
    return whole_ || (L > 0 && launchesCovered(L, slot_->launchesPerImage()) >= L);
}

bool PlainWindows::done(const Shared& shared) const {
    return covers(shared);
}

std::uint64_t PlainWindows::launchesCovered(std::uint64_t launches, std::size_t capacity) const {
    return whole_ ? launches : launchesCoveredBy(offsets_, launches, capacity);
}

std::uint64_t PlainWindows::iterationsNeeded(std::uint64_t launches, std::size_t capacity,
                                             std::size_t passes, std::size_t iterationsPerPass,
                                             bool observeFirst) const {
    const std::uint64_t cap = std::max<std::uint64_t>(1, capacity);
    const std::uint64_t n =
        iterationsPerPass > 1 ? passes * iterationsPerPass : (launches + cap - 1) / cap * passes;
    return n + (observeFirst ? 1 : 0); // the first iteration is observed only
}

} // namespace roofline::collect
