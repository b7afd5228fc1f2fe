#include "replay/step_places.hpp"

namespace roofline::collect {

StepPlaces::StepPlaces(std::vector<int> step, std::uint64_t maxComparisons)
    : maxComparisons_(maxComparisons) {
    // The step with kContext positions of the one before and of the one after: a neighbour
    // across the step's ends without a modulo per comparison.
    const auto m = static_cast<std::int64_t>(step.size());
    const auto context = static_cast<std::int64_t>(kContext);
    if (m > 0)
        for (std::int64_t q = -context; q < m + context; ++q)
            step_.push_back(step[static_cast<std::size_t>(((q % m) + m) % m)]);
    for (std::size_t p = 0; p < step.size(); ++p)
        if (step[p] >= 0)
            bySignature_[step[p]].push_back(static_cast<std::int64_t>(p));
}

// Neighbours of `launches[at]` equal to those of the step's position `p`, counted outward on each
// side until the first that differs.
std::size_t StepPlaces::matched(const std::vector<int>& launches, std::size_t at,
                                std::int64_t p) const {
    const int* around = step_.data() + kContext + static_cast<std::size_t>(p); // position p
    std::size_t n = 0;
    for (std::size_t j = 1; j <= kContext && j <= at; ++j, ++n)
        if (launches[at - j] < 0 || launches[at - j] != *(around - j))
            break;
    for (std::size_t j = 1; j <= kContext && at + j < launches.size(); ++j, ++n)
        if (launches[at + j] < 0 || launches[at + j] != around[j])
            break;
    return n;
}

std::vector<std::int64_t> StepPlaces::placesOf(const std::vector<int>& launches,
                                               std::size_t at) {
    std::vector<std::int64_t> best;
    if (at >= launches.size() || exhausted())
        return best;
    const auto it = bySignature_.find(launches[at]);
    if (it == bySignature_.end() || it->second.size() > kMaxCandidates)
        return best;
    std::size_t most = kMinMatched;
    for (const std::int64_t p : it->second) {
        const std::size_t n = matched(launches, at, p);
        comparisons_ += n + 2; // the neighbours that matched, and the one on each side that did not
        if (n > most) {
            most = n;
            best.clear();
        }
        if (n == most)
            best.push_back(p);
    }
    return best;
}

} // namespace roofline::collect
