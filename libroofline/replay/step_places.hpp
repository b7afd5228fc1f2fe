#pragma once
// Where in the step a launch that ran outside it ran: the step's positions whose neighbouring
// launches are the launch's own neighbours. A signature (kernel, grid, block, shared memory) whose
// launches in the step do different work -- a fill of 8 elements and one of 512 take one block
// alike -- lends a launch outside the step the counters of the step's launch at the same place
// (the first iteration, before the step was found, runs the step's launches in the step's order).
// Pure logic: unit-tested in test/unit/step_places_test.cpp.
#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <vector>

namespace roofline::collect {

class StepPlaces {
public:
    /// Launches compared on each side of a launch.
    static constexpr std::size_t kContext = 16;
    /// The fewest neighbours (both sides together) that must match the step's for a place.
    static constexpr std::size_t kMinMatched = 8;
    /// Signatures the step runs more often than this are not placed (the cost stays bounded).
    static constexpr std::size_t kMaxCandidates = 4096;
    /// Neighbours compared in all, over every placesOf() (~0.1 s at the program's exit on a
    /// 2-core CPU): past it, nothing more is placed (exhausted()).
    static constexpr std::uint64_t kMaxComparisons = std::uint64_t{1} << 26;

    /// `step`: a signature id per position of the step (-1: unknown). The step repeats: its last
    /// position is followed by its first.
    explicit StepPlaces(std::vector<int> step, std::uint64_t maxComparisons = kMaxComparisons);

    /// The step's positions where `launches[at]` ran: those of its signature whose neighbours
    /// match `launches`' around `at` the longest, with at least kMinMatched matching; empty when
    /// none does.
    std::vector<std::int64_t> placesOf(const std::vector<int>& launches, std::size_t at);
    /// The comparisons' bound was reached: later calls place nothing.
    bool exhausted() const noexcept { return comparisons_ >= maxComparisons_; }

private:
    std::size_t matched(const std::vector<int>& launches, std::size_t at, std::int64_t p) const;

    std::vector<int> step_; // kContext positions before the step's first and after its last
    std::uint64_t maxComparisons_, comparisons_ = 0;
    std::unordered_map<int, std::vector<std::int64_t>> bySignature_;
};

} // namespace roofline::collect
