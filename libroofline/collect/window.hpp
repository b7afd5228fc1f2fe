#pragma once
// A replay window: the launch positions [begin, end) of an iteration that a group measures.
#include <cstddef>
#include <limits>

namespace roofline::collect {

/// Launch positions [begin, end) of an iteration; end kOpen: as far as an image holds.
struct Window {
    static constexpr std::size_t kOpen = std::numeric_limits<std::size_t>::max();
    std::size_t begin = 0, end = kOpen;
};

} // namespace roofline::collect
