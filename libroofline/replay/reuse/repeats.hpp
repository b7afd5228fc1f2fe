#pragma once
// Repeats inside one scope instance (docs/design/0009-repeated-launches.md): a backward
// pass is often one NVTX range ("backward") around every layer's kernels, so its launches have
// no per-layer scope to tell that layer 7 repeats layer 6. findRepeat finds the longest stretch
// of a scope instance's launch sequence that is one block of launches repeated back to back, and
// phaseLabel names each launch by its phase in that block, so that the launches of every
// repetition share their reuse signature. Pure logic: no CUDA, unit-tested in
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

/// The periodic stretch of `tokens` (equal tokens: the same kernel, grid, block and shared
/// memory) that covers the most launches; among equal coverage the shortest period, then the
/// earliest start. Evidence of a loop over identical work, not of launches that merely look
/// alike: at least `minPeriod` launches repeated at least `minCount` times (one kernel launched
/// twice with one grid may be two GEMMs of different depth). Periods up to `maxPeriod` (and the
/// work bounded for very long sequences).
Repeat findRepeat(const std::vector<std::uint32_t>& tokens, std::size_t minPeriod = 2,
                  std::size_t minCount = 3, std::size_t maxPeriod = 1024);

/// The label of the launch at `index` of a scope instance with repeat `r`: its index before the
/// repeat, "~P:phase" inside it, "+k" for the k-th launch after it (the same whatever the count).
std::string phaseLabel(const Repeat& r, std::size_t index);

} // namespace roofline::collect
