#include "collect/plain_windows.hpp"

#include <algorithm>

namespace roofline::collect {

// Completed groups cover every launch of the steady iteration: measuring more would give the same
// launches more records and cost the program as much as the first profile did. The device's
// profiler is released (its counter-data image and CUPTI's per-range state with it).
GroupStart PlainWindows::nextGroup(Shared& shared, bool restarting) {
    GroupStart g;
    if (!shared.config.measureAfterComplete && !shared.model.drivenByHelper() && !restarting &&
        covers(shared)) {
        if (completedAt_ == 0) // the iteration before this one completed it
            completedAt_ = shared.model.seen() - 1;
        offset_ = 0;
        g.complete = true;
        g.changes.push_back(ImageChange{0});
        return g;
    }
    g.window = Window{offset_, Window::kOpen};
    return g;
}

Admission PlainWindows::admit(Shared& shared, const Launch& l, const Stack& stack, std::size_t,
                              bool inside) {
    return Admission{inside && shared.admits(l, stack), nullptr};
}

void PlainWindows::groupCompleted(Shared&, const CompletedGroup& group) {
    if (group.outcome != CompletedGroup::Outcome::Recorded)
        return;
    if (group.iterationsPerPass > 1)
        whole_ = true;
    else
        offsets_.insert(group.window.begin);
}

IterationVerdict PlainWindows::iterationEnded(Shared&, const IterationFacts& facts) {
    IterationVerdict v;
    if (facts.groupCompleted) { // the next window
        const std::size_t capacity = slot_->launchesInImage();
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

ChooserState PlainWindows::state(const Shared& shared) const {
    ChooserState s;
    s.done = covers(shared);
    s.windowAt = offset_;
    s.completedAt = completedAt_;
    return s;
}

std::uint64_t PlainWindows::launchesCovered(std::uint64_t launches, std::size_t capacity) const {
    return whole_ ? launches : launchesCoveredBy(offsets_, launches, capacity);
}

void PlainWindows::coverage(core::Coverage& c, bool observeFirst) const {
    const std::uint64_t cap = std::max<std::uint64_t>(1, c.launchesPerImage);
    const std::uint64_t n = c.iterationsPerPass > 1
                                ? c.passes * c.iterationsPerPass
                                : (c.launchesPerIteration + cap - 1) / cap * c.passes;
    c.iterationsNeeded = n + (observeFirst ? 1 : 0); // the first iteration is observed only
    c.launchesCovered = launchesCovered(c.launchesPerIteration, c.launchesPerImage);
}

} // namespace roofline::collect
