#include "core/string_distance.hpp"

#include <algorithm>
#include <utility>

namespace roofline::core {

std::size_t editDistance(const std::string& a, const std::string& b) {
    std::vector<std::size_t> row(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j)
        row[j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i) {
        std::size_t diagonal = row[0];
        row[0] = i;
        for (std::size_t j = 1; j <= b.size(); ++j) {
            const std::size_t up = row[j];
            row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] != b[j - 1])});
            diagonal = up;
        }
    }
    return row[b.size()];
}

std::vector<std::string> closestNames(const std::string& name,
                                      const std::vector<std::string>& candidates,
                                      std::size_t count) {
    std::vector<std::pair<std::size_t, const std::string*>> scored;
    scored.reserve(candidates.size());
    for (const auto& c : candidates)
        scored.emplace_back(editDistance(name, c), &c);
    const std::size_t n = std::min(count, scored.size());
    std::partial_sort(scored.begin(), scored.begin() + static_cast<std::ptrdiff_t>(n), scored.end(),
                      [](const auto& x, const auto& y) {
                          return x.first != y.first ? x.first < y.first : *x.second < *y.second;
                      });
    std::vector<std::string> out;
    for (std::size_t i = 0; i < n; ++i)
        out.push_back(*scored[i].second);
    return out;
}

} // namespace roofline::core
