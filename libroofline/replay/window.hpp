#pragma once
// A replay window: the launch positions [begin, end) of an iteration that a group measures -- or,
// across an iteration's end, [begin, the end) of one iteration and [0, next) of the next.
#include <cstddef>
#include <limits>

namespace roofline::collect {

/// Launch positions [begin, end) of an iteration; end kOpen: as far as an image holds. `next` > 0:
/// the window goes on across the iteration's end (end is kOpen then), through the launches
/// between iterations, to the next iteration's launches [0, next): an iteration's tail and the
/// next one's head measured as one window.
struct Window {
    static constexpr std::size_t kOpen = std::numeric_limits<std::size_t>::max();
    std::size_t begin = 0, end = kOpen;
    std::size_t next = 0;
    bool wraps() const noexcept { return next > 0; }
};

} // namespace roofline::collect
