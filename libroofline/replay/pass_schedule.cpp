#include "replay/pass_schedule.hpp"

#include <algorithm>

namespace roofline::collect {

void PassSchedule::iterationBegins() noexcept {
    position_ = 0;
    startedThisIteration_ = false;
    completedThisIteration_ = false;
    firstPassThisIteration_ = false;
}

void PassSchedule::startOfIteration(Listener& l) {
    if (group_ && !passOpen_ && window_.begin == 0)
        l.startPass();
}

void PassSchedule::launch(std::size_t capacity, Listener& l) {
    const std::size_t at = position_++;
    if (!group_)
        return; // the group completed earlier in this iteration, or none began
    if (passOpen_ && at >= window_.end && startedThisIteration_)
        l.endPass(); // the window ends here: later launches are not measured
    if (passOpen_ && !startedThisIteration_ && window_.wraps() && at >= window_.next)
        l.endPass(); // the head of a window across the iteration's end ends here
    if (passOpen_ && ranges_ == capacity) {
        if (iterationsPerPass_ == 0)
            iterationsPerPass_ = 1; // one iteration fills an image: covered window by window
        l.endPass();                // later launches: a later window
    }
    // A window's pass starts at its first launch -- the next group's too, when the listener began
    // it (chainGroup) as the group before it completed at this launch.
    if (group_ && at == window_.begin && at > 0 && !passOpen_ && !startedThisIteration_ &&
        l.mayStartWindow(window_.begin, pass_))
        l.startPass();
    if (!passOpen_ || (at < window_.begin && (startedThisIteration_ || !window_.wraps())))
        return;
    firstPassThisIteration_ = firstPassThisIteration_ || pass_ == 0;
    l.measure(ranges_++, at, true); // (before `begin`: the head of a window across an end)
}

void PassSchedule::launchBetween(std::size_t capacity, Listener& l) {
    if (!passOpen_)
        return;
    if (ranges_ == capacity)
        l.endPass();
    else
        l.measure(ranges_++, 0, false);
}

bool PassSchedule::iterationEnds(std::size_t capacity, std::size_t launches, PassLength length,
                                 Listener& l) {
    if (!passOpen_)
        return true;
    ++passIterations_;
    if (window_.wraps() && startedThisIteration_)
        return true; // the pass goes on into the next iteration's head; this one is handled
    if (iterationsPerPass_ == 0) {
        // Short iterations share a pass (up to an image's worth of launches), which amortizes
        // the per-pass cost; half an image of margin covers launches between iterations and
        // variations.
        iterationsPerPass_ = length.configured != 0 ? length.configured
                             : (window_.begin == 0 && launches > 0 && length.mayShare)
                                 ? std::max<std::size_t>(1, capacity / (2 * launches))
                                 : 1;
    }
    if (passIterations_ < iterationsPerPass_)
        return false;
    l.endPass();
    return true;
}

void PassSchedule::beginGroup(Window window, std::uint64_t iteration,
                              std::size_t iterationsPerPass) {
    group_ = true;
    restart_ = false;
    pass_ = 0;
    window_ = window;
    groupStart_ = iteration;
    iterationsPerPass_ = iterationsPerPass;
}

void PassSchedule::chainGroup(Window window, std::uint64_t iteration,
                              std::size_t iterationsPerPass) {
    beginGroup(window, iteration, iterationsPerPass);
    startedThisIteration_ = false; // its pass 0 starts at its window, later in this iteration
}

void PassSchedule::passStarted() noexcept {
    passOpen_ = true;
    startedThisIteration_ = true;
    ranges_ = 0;
    passIterations_ = 0;
}

void PassSchedule::groupCompleted() noexcept {
    group_ = false;
    completedThisIteration_ = true;
}

void PassSchedule::abandon() noexcept {
    group_ = false;
    passOpen_ = false;
    restart_ = true;
}

void PassSchedule::measureAgain() noexcept {
    group_ = false;
    restart_ = true;
}

} // namespace roofline::collect
