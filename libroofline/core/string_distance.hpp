#pragma once
#include <cstddef>
#include <string>
#include <vector>

namespace roofline::core {
/// Levenshtein distance.
std::size_t editDistance(const std::string& a, const std::string& b);
/// Up to `count` candidates closest to `name`, closest first.
std::vector<std::string> closestNames(const std::string& name,
                                      const std::vector<std::string>& candidates,
                                      std::size_t count = 3);
} // namespace roofline::core
