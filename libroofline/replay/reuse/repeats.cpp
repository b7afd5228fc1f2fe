#include "replay/reuse/repeats.hpp"

#include <algorithm>
#include <utility>

namespace roofline::collect {
namespace {

// The periods findRepeat tries over `n` tokens: O(n * periods) comparisons, bounded to ~32M for
// very long scope instances.
std::size_t periodsSearched(std::size_t n, std::size_t maxPeriod) {
    const std::size_t bound =
        std::max<std::size_t>(1, (std::size_t{32} << 20) / std::max<std::size_t>(n, 1));
    return std::min({maxPeriod, n / 2, bound});
}

} // namespace

Repeat findRepeat(const std::vector<std::uint32_t>& tokens, std::size_t minPeriod,
                  std::size_t minCount, std::size_t maxPeriod) {
    const std::size_t n = tokens.size();
    Repeat best;
    const std::size_t periods = periodsSearched(n, maxPeriod);
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

std::vector<Repeat> findRepeats(const std::vector<std::uint32_t>& tokens, std::size_t maxRepeats,
                                std::size_t budget) {
    std::vector<Repeat> found;
    // Stretches still to search, [begin, end); the whole sequence first, so that its longest
    // block is found as findRepeat finds it.
    std::vector<std::pair<std::size_t, std::size_t>> stretches{{0, tokens.size()}};
    std::size_t spent = 0;
    while (!stretches.empty() && found.size() < maxRepeats) {
        const auto [begin, end] = stretches.back();
        stretches.pop_back();
        const std::size_t n = end - begin;
        if (n < 4) // two launches twice: the shortest block findRepeat reports
            continue;
        const std::size_t cost = n * periodsSearched(n, kMaxRepeatPeriod);
        if (spent + cost > budget && !found.empty())
            continue;
        spent += cost;
        const std::vector<std::uint32_t> part(tokens.begin() + static_cast<long>(begin),
                                              tokens.begin() + static_cast<long>(end));
        Repeat r = findRepeat(part);
        if (r.period == 0)
            continue;
        r.start += begin;
        found.push_back(r);
        stretches.emplace_back(r.end(), end);
        stretches.emplace_back(begin, r.start);
    }
    std::sort(found.begin(), found.end(),
              [](const Repeat& a, const Repeat& b) { return a.start < b.start; });
    return found;
}

std::string phaseLabel(const std::vector<Repeat>& repeats, std::size_t index) {
    if (repeats.empty() || index < repeats.front().start)
        return std::to_string(index);
    std::size_t j = 0; // the last block that starts at or before `index`
    while (j + 1 < repeats.size() && repeats[j + 1].start <= index)
        ++j;
    const std::string inside = phaseLabel(repeats[j], index); // "~P:phase" or "+k"
    return j == 0 ? inside : '#' + std::to_string(j) + inside;
}

} // namespace roofline::collect
