#include "replay/step_places.hpp"

namespace roofline::collect {

StepPlaces::StepPlaces(std::vector<int> step) : step_(std::move(step)) {
    for (std::size_t p = 0; p < step_.size(); ++p)
        if (step_[p] >= 0)
            bySignature_[step_[p]].push_back(static_cast<std::int64_t>(p));
}

// Neighbours of `launches[at]` equal to those of the step's position `p`, counted outward on each
// side until the first that differs.
std::size_t StepPlaces::matched(const std::vector<int>& launches, std::size_t at,
                                std::int64_t p) const {
    const auto m = static_cast<std::int64_t>(step_.size());
    const auto stepAt = [&](std::int64_t q) { return step_[static_cast<std::size_t>(((q % m) + m) % m)]; };
    std::size_t n = 0;
    for (std::size_t j = 1; j <= kContext && j <= at; ++j, ++n)
        if (launches[at - j] < 0 || launches[at - j] != stepAt(p - static_cast<std::int64_t>(j)))
            break;
    for (std::size_t j = 1; j <= kContext && at + j < launches.size(); ++j, ++n)
        if (launches[at + j] < 0 || launches[at + j] != stepAt(p + static_cast<std::int64_t>(j)))
            break;
    return n;
}

std::vector<std::int64_t> StepPlaces::placesOf(const std::vector<int>& launches,
                                               std::size_t at) const {
    std::vector<std::int64_t> best;
    if (at >= launches.size())
        return best;
    const auto it = bySignature_.find(launches[at]);
    if (it == bySignature_.end() || it->second.size() > kMaxCandidates)
        return best;
    std::size_t most = kMinMatched;
    for (const std::int64_t p : it->second) {
        const std::size_t n = matched(launches, at, p);
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
