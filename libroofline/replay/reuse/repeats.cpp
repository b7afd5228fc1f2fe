#include "replay/reuse/repeats.hpp"

#include <algorithm>

namespace roofline::collect {

Repeat findRepeat(const std::vector<std::uint32_t>& tokens, std::size_t minPeriod,
                  std::size_t minCount, std::size_t maxPeriod) {
    const std::size_t n = tokens.size();
    Repeat best;
    // O(n * periods): bounded to ~32M comparisons for very long scope instances.
    const std::size_t bound =
        std::max<std::size_t>(1, (std::size_t{32} << 20) / std::max<std::size_t>(n, 1));
    const std::size_t periods = std::min({maxPeriod, n / 2, bound});
    for (std::size_t p = std::max<std::size_t>(minPeriod, 1); p <= periods; ++p) {
        // A run of positions i with tokens[i] == tokens[i + p], [s, s + run), makes
        // tokens[s, s + run + p) p-periodic: (run + p) / p whole repetitions.
        std::size_t run = 0;
        for (std::size_t i = 0; i + p <= n; ++i) {
            const bool match = i + p < n && tokens[i] == tokens[i + p];
            if (match) {
                ++run;
                continue;
            }
            if (run >= p) {
                const std::size_t start = i - run, count = (run + p) / p;
                // A block of one kernel over and over is no block (minPeriod > 1 asks for one).
                const bool block = minPeriod <= 1 ||
                                   std::any_of(tokens.begin() + static_cast<long>(start) + 1,
                                               tokens.begin() + static_cast<long>(start + p),
                                               [&](std::uint32_t t) { return t != tokens[start]; });
                if (block && count >= minCount && count * p > best.period * best.count)
                    best = Repeat{start, p, count};
            }
            run = 0;
        }
    }
    return best;
}

std::string phaseLabel(const Repeat& r, std::size_t index) {
    if (r.period == 0 || index < r.start)
        return std::to_string(index);
    if (index < r.end())
        return '~' + std::to_string(r.period) + ':' + std::to_string((index - r.start) % r.period);
    return '+' + std::to_string(index - r.end());
}

} // namespace roofline::collect
