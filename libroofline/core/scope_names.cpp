#include "core/scope_names.hpp"

#include <cctype>
#include <limits>

namespace roofline::core {
namespace {

// Start of the trailing run of digits; name.size() when there is none.
std::size_t digitsStart(const std::string& name) {
    std::size_t i = name.size();
    while (i > 0 && std::isdigit(static_cast<unsigned char>(name[i - 1])))
        --i;
    return i;
}

bool isSeparator(char c) {
    return c == ' ' || c == '_' || c == '-' || c == '#' || c == ':' || c == '=' || c == '.';
}

} // namespace

std::string uniformInstance(const std::string& name) {
    const std::size_t at = digitsStart(name);
    return at == name.size() ? name : name.substr(0, at) + "#";
}

std::int64_t instanceNumber(const std::string& name) {
    const std::size_t at = digitsStart(name);
    if (at == name.size() || name.size() - at > 18)
        return -1;
    std::int64_t n = 0;
    for (std::size_t i = at; i < name.size(); ++i)
        n = n * 10 + (name[i] - '0');
    return n;
}

bool separatedInstance(const std::string& name) {
    const std::size_t at = digitsStart(name);
    return at > 0 && at < name.size() && isSeparator(name[at - 1]) && name[at - 1] != '.';
}

bool isInstanceOf(const std::string& name, const std::string& pattern) {
    if (name == pattern || (!pattern.empty() && uniformInstance(name) == pattern))
        return true;
    const std::size_t at = digitsStart(name);
    if (at == name.size() || at < pattern.size() || name.compare(0, pattern.size(), pattern) != 0)
        return false;
    for (std::size_t i = pattern.size(); i < at; ++i) // only separators between name and number
        if (!isSeparator(name[i]))
            return false;
    return true;
}

} // namespace roofline::core
