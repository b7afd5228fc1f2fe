#pragma once
// Integers read from JSON files without undefined behaviour: nlohmann's get<int>() converts a
// floating-point number (1e300) or an out-of-range integer with a plain cast. These accept only
// integers within T's range and throw std::out_of_range naming the field otherwise.
#include <nlohmann/json.hpp>

#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>

namespace roofline::core {

template <typename T> T integerOf(const nlohmann::json& v, const std::string& field) {
    using L = std::numeric_limits<T>;
    if (v.is_number_unsigned()) {
        const auto u = v.get<std::uint64_t>();
        if (u <= static_cast<std::uint64_t>(L::max()))
            return static_cast<T>(u);
    } else if (v.is_number_integer()) {
        const auto s = v.get<std::int64_t>();
        if (s >= static_cast<std::int64_t>(L::min()) &&
            (s < 0 || static_cast<std::uint64_t>(s) <= static_cast<std::uint64_t>(L::max())))
            return static_cast<T>(s);
    }
    throw std::out_of_range("'" + field + "' is not an integer in [" + std::to_string(L::min()) +
                            ", " + std::to_string(L::max()) + "]: " + v.dump());
}

/// j[key] as integerOf, or `fallback` when j has no such key.
template <typename T> T integerOr(const nlohmann::json& j, const std::string& key, T fallback) {
    const auto it = j.find(key);
    return it == j.end() ? fallback : integerOf<T>(*it, key);
}

/// j.at(key) as integerOf (std::out_of_range also when the key is missing).
template <typename T> T integerAt(const nlohmann::json& j, const std::string& key) {
    const auto it = j.find(key);
    if (it == j.end())
        throw std::out_of_range("no field '" + key + "'");
    return integerOf<T>(*it, key);
}

} // namespace roofline::core
