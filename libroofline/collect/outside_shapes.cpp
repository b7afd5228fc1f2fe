#include "collect/outside_shapes.hpp"

#include <string_view>
#include <unordered_set>

namespace roofline::collect {
namespace {

std::uint64_t mix(std::uint64_t h, std::uint64_t v) noexcept {
    return (h ^ v) * 0x100000001b3ull; // FNV-1a step over a word
}

std::uint64_t shapeOf(std::string_view name, const Dim3& grid, const Dim3& block,
                      std::uint64_t shared) noexcept {
    std::uint64_t h = std::hash<std::string_view>{}(name);
    for (const std::uint64_t v : {std::uint64_t{grid.x}, std::uint64_t{grid.y},
                                  std::uint64_t{grid.z}, std::uint64_t{block.x},
                                  std::uint64_t{block.y}, std::uint64_t{block.z}, shared})
        h = mix(h, v);
    return h;
}

} // namespace

void OutsideShapes::add(const core::Launch& l) {
    ++launches_;
    const std::uint64_t shape =
        shapeOf(l.mangledName ? l.mangledName : "", l.grid, l.block, l.sharedMemBytes());
    if (const auto it = counts_.find(shape); it != counts_.end())
        ++it->second;
    else if (counts_.size() < kMaxShapes)
        counts_.emplace(shape, 1);
}

std::uint64_t OutsideShapes::alikeStep(const std::vector<core::LaunchInfo>& records) const {
    if (counts_.empty())
        return 0;
    std::unordered_set<std::uint64_t> step;
    for (const core::LaunchInfo& r : records)
        if (r.iteration >= 0 && !r.values.empty())
            step.insert(shapeOf(r.mangledName, r.grid, r.block, r.sharedMemBytes));
    std::uint64_t alike = 0;
    for (const auto& [shape, count] : counts_)
        if (step.count(shape) > 0)
            alike += count;
    return alike;
}

} // namespace roofline::collect
