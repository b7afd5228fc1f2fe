#include "report/format.hpp"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <set>

namespace roofline::report {

std::string number(double value) {
    if (!std::isfinite(value))
        value = 0.0;
    // Exact: counts as integers (FLOPs, bytes: a CSV reader gets the same integer ncu reports),
    // other values in the shortest form that reads back as the same double.
    char buf[40];
    if (value == std::floor(value) && std::fabs(value) < 9007199254740992.0) {
        std::snprintf(buf, sizeof buf, "%.0f", value);
        return buf;
    }
    for (int digits = 9; digits <= 17; ++digits) {
        std::snprintf(buf, sizeof buf, "%.*g", digits, value);
        if (std::strtod(buf, nullptr) == value)
            break;
    }
    return buf;
}

std::string shortNumber(double value) {
    if (!std::isfinite(value))
        value = 0.0;
    static const char* const kSuffix[] = {"", "k", "M", "G", "T", "P", "E"};
    double v = std::fabs(value);
    int i = 0;
    while (v >= 1000.0 && i < 6)
        v /= 1000.0, ++i;
    char buf[40];
    std::snprintf(buf, sizeof buf, "%s%.3g%s", value < 0 ? "-" : "", v, kSuffix[i]);
    return buf;
}

std::string milliseconds(double seconds) {
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.3f", seconds * 1e3);
    return buf;
}

std::string percent(double part, double whole) {
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.1f%%", whole > 0 ? 100.0 * part / whole : 0.0);
    return buf;
}

std::string fit(const std::string& s, std::size_t width) {
    if (s.size() <= width)
        return s;
    return s.substr(0, width - 3) + "...";
}

std::string shorten(const std::string& s, std::size_t width, bool elideTemplates) {
    if (s.size() <= width)
        return s;
    if (width < 8)
        return fit(s, std::max<std::size_t>(width, 4));
    // Template arguments elided at the outermost level.
    std::string elided;
    int depth = 0;
    for (char c : s) {
        if (c == '<' && depth++ == 0) {
            elided += "<...";
            continue;
        }
        if (c == '>' && depth > 0 && --depth == 0) {
            elided += '>';
            continue;
        }
        if (depth == 0)
            elided += c;
    }
    if (elideTemplates && elided.size() <= width && elided != s)
        return elided;
    const std::size_t head = (width - 3 + 1) / 2, tail = width - 3 - head;
    return s.substr(0, head) + "..." + s.substr(s.size() - tail);
}

namespace {

bool endsWith(const std::string& s, const char* tail) {
    const std::size_t n = std::strlen(tail);
    return s.size() >= n && s.compare(s.size() - n, n, tail) == 0;
}

// The operation a generic kernel template was instantiated for -- a PyTorch elementwise, reduce
// or foreach kernel names it only in its template arguments -- or "" when none stands out:
// an op function (mul_kernel_cuda, threshold_kernel_impl, launch_clamp_scalar) first, else the
// innermost functor (MulFunctor inside BUnaryFunctor, LerpFunctor, sum_functor, MeanOps) or a
// standard operation (multiplies, Sqrt).
std::string operationOf(const std::string& templateArgs) {
    static const std::set<std::string> standard = {
        "plus", "minus", "multiplies", "divides", "negate", "Sqrt", "Exp",     "Log",
        "Abs",  "Neg",   "Reciprocal", "Sigmoid", "Tanh",   "Zero", "maximum", "minimum"};
    std::string functor;
    for (std::size_t i = 0; i < templateArgs.size();) {
        if (!(std::isalpha(static_cast<unsigned char>(templateArgs[i])) ||
              templateArgs[i] == '_')) {
            ++i;
            continue;
        }
        std::size_t j = i;
        while (
            j < templateArgs.size() &&
            (std::isalnum(static_cast<unsigned char>(templateArgs[j])) || templateArgs[j] == '_'))
            ++j;
        const std::string word = templateArgs.substr(i, j - i);
        i = j;
        if (endsWith(word, "_kernel_cuda") || endsWith(word, "_kernel_impl") ||
            word.rfind("launch_", 0) == 0)
            return word;
        const bool wrapper = word.find("Op") != std::string::npos && endsWith(word, "Functor");
        const bool generic = word == "BinaryFunctor" || word == "AUnaryFunctor" ||
                             word == "BUnaryFunctor" || word == "UnaryFunctor";
        if (!wrapper && !generic &&
            (endsWith(word, "Functor") || endsWith(word, "functor") || endsWith(word, "Ops") ||
             word.rfind("CUDAFunctor_", 0) == 0 || standard.count(word)))
            functor = word;
    }
    return functor;
}

} // namespace

std::string displayName(const std::string& demangled) {
    std::string s = demangled;
    const std::string anonymous = "(anonymous namespace)::";
    for (auto at = s.find(anonymous); at != std::string::npos; at = s.find(anonymous))
        s.erase(at, anonymous.size());
    if (s.rfind("void ", 0) == 0)
        s.erase(0, 5);
    int depth = 0;
    std::size_t lastQualifier = std::string::npos;
    for (std::size_t i = 0; i < s.size(); ++i) {
        const char c = s[i];
        if (c == '<')
            ++depth;
        else if (c == '>')
            --depth;
        else if (c == '(' && depth == 0) {
            s.erase(i);
            break;
        } else if (c == ':' && depth == 0 && i + 1 < s.size() && s[i + 1] == ':')
            lastQualifier = i + 1;
    }
    std::string name = lastQualifier == std::string::npos ? s : s.substr(lastQualifier + 1);
    // A generic wrapper around one named kernel (cutlass::Kernel2<cutlass_80_simt_sgemm_...>):
    // the kernel's name.
    const std::size_t open = name.find('<');
    if (open != std::string::npos && open <= 8 && name.back() == '>' &&
        name.find_first_of("<>, :", open + 1) == name.size() - 1 && name.size() - open > 3)
        return name.substr(open + 1, name.size() - open - 2);
    // A long template argument list that names an operation: "base[operation]".
    if (open != std::string::npos && name.size() - open > 40) {
        const std::string op = operationOf(name.substr(open));
        if (!op.empty())
            return name.substr(0, open) + '[' + op + ']';
    }
    return name;
}

std::string csvCell(const std::string& s) {
    if (s.find_first_of(",\"\n\r") == std::string::npos)
        return s;
    std::string out = "\"";
    for (char c : s)
        out += (c == '"') ? std::string("\"\"") : std::string(1, c);
    return out + "\"";
}

} // namespace roofline::report
