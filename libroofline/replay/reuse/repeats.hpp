#pragma once
// Repeats inside one scope instance (docs/design/0009-repeated-launches.md): a backward
// pass is often one NVTX range ("backward") around every layer's kernels, so its launches have
// no per-layer scope to tell that layer 7 repeats layer 6. findRepeat finds the longest stretch
// of a scope instance's launch sequence that is one block of launches repeated back to back, and
// phaseLabel names each launch by its phase in that block, so that the launches of every
// repetition share their reuse signature. A step with no scope at all (a PyTorch loop with no
// NVTX range) repeats twice in one instance -- the forward's layers, then the backward's --
// findRepeats finds each such block. Pure logic: no CUDA, unit-tested in
// test/unit/repeats_test.cpp.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace roofline::collect {

/// `count` repetitions of the `period` launches starting at `start`; period 0: none.
struct Repeat {
    std::size_t start = 0, period = 0, count = 0;
    std::size_t end() const noexcept { return start + period * count; }
};

/// The longest block findRepeat looks for, by default.
constexpr std::size_t kMaxRepeatPeriod = 1024;

/// The periodic stretch of `tokens` (equal tokens: the same kernel, grid, block and shared
/// memory) that covers the most launches; among equal coverage the shortest period, then the
/// earliest start. Evidence of a loop over identical work, not of launches that merely look
/// alike: at least `minPeriod` launches repeated at least `minCount` times (one kernel launched
/// twice with one grid may be two GEMMs of different depth). Periods up to `maxPeriod` (and the
/// work bounded for very long sequences).
Repeat findRepeat(const std::vector<std::uint32_t>& tokens, std::size_t minPeriod = 2,
                  std::size_t minCount = 3, std::size_t maxPeriod = kMaxRepeatPeriod);

/// The label of the launch at `index` of a scope instance with repeat `r`: its index before the
/// repeat, "~P:phase" inside it, "+k" for the k-th launch after it (the same whatever the count).
std::string phaseLabel(const Repeat& r, std::size_t index);

/// Every block repeated back to back in `tokens`, by start: findRepeat's over the whole sequence,
/// then findRepeat's again in the stretches before and after it, and so on, at most `maxRepeats`
/// blocks and about `budget` token comparisons in all (a long sequence's later searches are
/// left out rather than slowing the iteration's end).
std::vector<Repeat> findRepeats(const std::vector<std::uint32_t>& tokens,
                                std::size_t maxRepeats = 16,
                                std::size_t budget = std::size_t{64} << 20);

/// The label of the launch at `index` with the blocks `repeats` (by start, none overlapping):
/// its index before the first block; "~P:phase" inside the first, "+k" for the k-th launch after
/// it; "#j~P:phase" inside block j > 0 and "#j+k" after it. With one block (or none) it is
/// phaseLabel's: the blocks are numbered by order, so a launch count that differs before a block
/// does not change its labels.
std::string phaseLabel(const std::vector<Repeat>& repeats, std::size_t index);

} // namespace roofline::collect
