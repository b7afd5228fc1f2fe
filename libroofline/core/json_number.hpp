#pragma once
// JSON read from files a user may be handed, in bounded time, stack and memory:
// - integers without undefined behaviour: nlohmann's get<int>() converts a floating-point number
//   (1e300) or an out-of-range integer with a plain cast. These accept only integers within T's
//   range and throw std::out_of_range naming the field otherwise;
// - parseBounded(): refuses nesting deeper than a limit before parsing (nlohmann's dump() and
//   the code that walks a document recurse once per level: 100,000 levels overflowed the stack).
#include <nlohmann/json.hpp>

#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <string_view>

namespace roofline::core {

/// Names, scope paths, notes: real demangled kernel names reach a few KB (Eigen's tens of KB).
constexpr std::size_t kMaxTextBytes = 64u << 10;

/// At most kMaxTextBytes, cut at a character boundary, so that what is written can be read back.
inline std::string capped(const std::string& text) {
    if (text.size() <= kMaxTextBytes)
        return text;
    std::size_t end = kMaxTextBytes - 3;
    while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80)
        --end;
    return text.substr(0, end) + "...";
}

/// A text field, at most kMaxTextBytes long; absent: std::out_of_range when `required`, else "".
/// Not a string: nlohmann's type_error.
inline std::string textAt(const nlohmann::json& j, const char* key, bool required) {
    const auto it = j.find(key);
    if (it == j.end()) {
        if (required)
            throw std::out_of_range(std::string("no field '") + key + "'");
        return {};
    }
    auto text = it->get<std::string>();
    if (text.size() > kMaxTextBytes)
        throw std::length_error(std::string("'") + key + "' is " + std::to_string(text.size()) +
                                " bytes long (at most " + std::to_string(kMaxTextBytes) + ")");
    return text;
}

/// Deepest nesting of arrays and objects libroofline's files use is 5; readers allow this much.
constexpr std::size_t kMaxJsonDepth = 64;

/// The nesting depth of the JSON text (strings skipped), stopping early past `limit`.
inline std::size_t jsonDepth(std::string_view text, std::size_t limit = kMaxJsonDepth) {
    std::size_t depth = 0, deepest = 0;
    bool inString = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (inString) {
            if (c == '\\')
                ++i;
            else if (c == '"')
                inString = false;
        } else if (c == '"') {
            inString = true;
        } else if (c == '[' || c == '{') {
            if (++depth > deepest && (deepest = depth) > limit)
                return deepest;
        } else if ((c == ']' || c == '}') && depth > 0) {
            --depth;
        }
    }
    return deepest;
}

/// nlohmann::json::parse after refusing nesting deeper than kMaxJsonDepth (std::invalid_argument).
inline nlohmann::json parseBounded(std::string_view text) {
    if (jsonDepth(text) > kMaxJsonDepth)
        throw std::invalid_argument("its JSON nests deeper than " + std::to_string(kMaxJsonDepth) +
                                    " levels");
    return nlohmann::json::parse(text);
}

/// `text` parsed (parseBounded) as a document of ours: an object whose "format" is `format`. Else
/// throws what `bad(why)` returns (`kind` names the document in `why`: "cost parts file").
template <typename Bad>
nlohmann::json parseDocument(std::string_view text, const std::string& format,
                             const std::string& kind, Bad&& bad) {
    nlohmann::json j;
    try {
        j = parseBounded(text);
    } catch (const std::exception& e) {
        throw bad(std::string("is not valid JSON (") + e.what() + ")");
    }
    const auto f = j.is_object() ? j.find("format") : j.end();
    if (!j.is_object() || f == j.end() || !f->is_string() || f->get<std::string>() != format)
        throw bad("is not a " + kind + " (no \"format\": \"" + format + "\")");
    return j;
}

/// A short rendering of a JSON value for error messages: scalars as written, arrays and objects
/// by kind (never recursing into them).
inline std::string shortJson(const nlohmann::json& v) {
    if (v.is_object())
        return "an object";
    if (v.is_array())
        return "an array";
    std::string s = v.dump();
    return s.size() > 40 ? s.substr(0, 40) + "..." : s;
}

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
                            ", " + std::to_string(L::max()) + "]: " + shortJson(v));
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
