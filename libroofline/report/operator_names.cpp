#include "report/operator_names.hpp"

#include <cctype>
#include <vector>

namespace roofline::report {
namespace {

const std::string kCut = "..";

bool identifierChar(char c, bool dot) noexcept {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || (dot && c == '.');
}

// "aten::addmm", "inductor::fused_add_mul", "aten::add.Tensor": one namespace, one name.
bool oneOperator(std::string_view op) noexcept {
    const std::size_t sep = op.find("::");
    if (sep == std::string_view::npos || sep == 0 || sep + 2 >= op.size())
        return false;
    for (std::size_t i = 0; i < sep; ++i)
        if (!identifierChar(op[i], false))
            return false;
    for (std::size_t i = sep + 2; i < op.size(); ++i)
        if (!identifierChar(op[i], true))
            return false;
    return true;
}

// The label without its phase suffix (" [backward]"), and the suffix.
std::pair<std::string_view, std::string_view> splitPhase(std::string_view name) noexcept {
    const std::size_t open = name.rfind(" [");
    if (open != std::string_view::npos && !name.empty() && name.back() == ']')
        return {name.substr(0, open), name.substr(open)};
    return {name, {}};
}

std::vector<std::string> operatorsOf(std::string_view base) {
    std::vector<std::string> ops;
    std::size_t at = 0;
    while (true) {
        const std::size_t plus = base.find('+', at);
        ops.emplace_back(base.substr(at, plus == std::string_view::npos ? plus : plus - at));
        if (plus == std::string_view::npos)
            return ops;
        at = plus + 1;
    }
}

// `op` shorter, step by step: without its namespace, then with whole words ('_'-separated) left
// out at its end, marked "..". The last variant keeps one word.
std::vector<std::string> shorterForms(const std::string& op) {
    std::vector<std::string> forms;
    const std::size_t sep = op.find("::");
    const std::string bare = sep == std::string::npos ? op : op.substr(sep + 2);
    forms.push_back(bare);
    std::size_t end = bare.size();
    while (end > 0) {
        const std::size_t cut = bare.rfind('_', end - 1);
        if (cut == std::string::npos || cut == 0)
            break;
        // a leading '_' ("_scaled_dot") belongs to the first word
        if (bare.find_first_not_of('_') >= cut)
            break;
        end = cut;
        forms.push_back(bare.substr(0, end) + kCut);
    }
    return forms;
}

} // namespace

bool operatorLabel(std::string_view name) noexcept {
    const std::string_view base = splitPhase(name).first;
    if (base.empty())
        return false;
    std::size_t at = 0;
    while (true) {
        const std::size_t plus = base.find('+', at);
        if (!oneOperator(base.substr(at, plus == std::string_view::npos ? plus : plus - at)))
            return false;
        if (plus == std::string_view::npos)
            return true;
        at = plus + 1;
    }
}

std::size_t firstOperatorDifference(const std::string& a, const std::string& b) {
    const std::vector<std::string> x = operatorsOf(splitPhase(a).first);
    const std::vector<std::string> y = operatorsOf(splitPhase(b).first);
    for (std::size_t i = 0; i < x.size() || i < y.size(); ++i)
        if (i >= x.size() || i >= y.size() || x[i] != y[i])
            return i;
    return std::string::npos;
}

std::string fitOperators(const std::string& name, std::size_t width, std::size_t keep) {
    if (name.size() <= width)
        return name;
    const auto parts = splitPhase(name);
    const std::string_view base = parts.first, phase = parts.second;
    const std::vector<std::string> ops = operatorsOf(base);
    const std::size_t n = ops.size();
    const bool withKeep = keep > 0 && keep < n;
    // The first `k` operators, then `keep`'s when it is not among them, "+.." for the rest.
    const auto render = [&](std::size_t k, const std::string& first) {
        std::string s = first;
        for (std::size_t i = 1; i < k; ++i)
            s += "+" + ops[i];
        std::size_t last = k - 1;
        if (withKeep && keep >= k) {
            s += (keep > k ? "+" + kCut + "+" : std::string("+")) + ops[keep];
            last = keep;
        }
        if (last + 1 < n)
            s += "+" + kCut;
        return s + std::string(phase);
    };
    for (std::size_t k = n; k >= 1; --k)
        if (const std::string s = render(k, ops[0]); s.size() <= width)
            return s;
    for (const std::string& form : shorterForms(ops[0]))
        if (const std::string s = render(1, form); s.size() <= width)
            return s;
    // Not even one word fits beside the phase: the label's head, cut.
    const std::string s = render(1, shorterForms(ops[0]).back());
    return width <= kCut.size() ? s.substr(0, width) : s.substr(0, width - kCut.size()) + kCut;
}

} // namespace roofline::report
