#pragma once
// Launches outside every step that no window measured (counted, no record; design 0026): what they
// ran, by shape -- kernel, grid, block and shared memory -- so that the stop can say how many of
// them ran what the step runs (a first step before the step was known, set-up that warms the
// step's kernels up), measured there. Pure logic, bounded: unit-tested in
// test/unit/outside_shapes_test.cpp.
#include "core/launch.hpp"
#include "core/roofline_model.hpp"

#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <vector>

namespace roofline::collect {

class OutsideShapes {
public:
    /// Distinct shapes kept; launches of other shapes beyond them are counted as unlike.
    static constexpr std::size_t kMaxShapes = 1 << 16;

    /// A launch outside every step that gets no record.
    void add(const core::Launch& l);
    /// Of the launches added, those whose shape a step's record (iteration >= 0) with counter
    /// values has.
    std::uint64_t alikeStep(const std::vector<core::LaunchInfo>& records) const;
    std::uint64_t launches() const noexcept { return launches_; }

private:
    std::unordered_map<std::uint64_t, std::uint64_t> counts_; // by shape hash
    std::uint64_t launches_ = 0;
};

} // namespace roofline::collect
