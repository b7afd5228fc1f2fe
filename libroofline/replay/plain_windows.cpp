#include "replay/plain_windows.hpp"

#include <algorithm>
#include <utility>

namespace roofline::collect {

// Completed groups cover every launch of the steady iteration: measuring more would give the same
// launches more records and cost the program as much as the first profile did. The device's
// profiler is released (its counter-data image and CUPTI's per-range state with it).
GroupStart PlainWindows::nextGroup(Shared& shared, bool restarting) {
    GroupStart g;
    if (!shared.config.measuresAfterComplete() && !shared.model.drivenByHelper() && !restarting &&
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
    chained_ = false;
    if (group.iterationsPerPass > 1)
        whole_ = true;
    else
        offsets_.insert(group.window.begin);
}

// A window whose image filled mid-iteration is followed by the next one at once: its passes
// begin at the launch where the image filled, on the same iteration.
std::optional<GroupStart> PlainWindows::chain(Shared& shared, std::size_t position) {
    if (whole_ || position != offset_ + slot_->launchesInImage())
        return std::nullopt;
    if (!shared.config.measuresAfterComplete() && !shared.model.drivenByHelper() && covers(shared))
        return std::nullopt; // complete: the next iteration's nextGroup() says so
    offset_ = position;
    chained_ = true;
    GroupStart g;
    g.window = Window{offset_, Window::kOpen};
    return g;
}

IterationVerdict PlainWindows::iterationEnded(Shared&, const IterationFacts& facts) {
    IterationVerdict v;
    const bool chained = std::exchange(chained_, false);
    if (facts.groupCompleted && !chained) { // the next window
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
    // Window after window, each but the first starting on the last iteration of the one before
    // (chain()): 1 + windows x (passes - 1).
    const std::uint64_t windows = (c.launchesPerIteration + cap - 1) / cap;
    const std::uint64_t n = c.iterationsPerPass > 1 ? c.passes * c.iterationsPerPass
                            : windows == 0
                                ? 0
                                : 1 + windows * (std::max<std::uint64_t>(1, c.passes) - 1);
    c.iterationsNeeded = n + (observeFirst ? 1 : 0); // the first iteration is observed only
    c.launchesCovered = launchesCovered(c.launchesPerIteration, c.launchesPerImage);
}

} // namespace roofline::collect
