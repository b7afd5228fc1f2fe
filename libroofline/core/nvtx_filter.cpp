#include "core/nvtx_filter.hpp"

#include <roofline/error.hpp>

#include <algorithm>
#include <stdexcept>

namespace roofline::core {
namespace {

[[noreturn]] void fail(const std::string& text, std::size_t at, const std::string& why) {
    throw Error(ErrorCode::InvalidArgument,
                "NVTX filter '" + text + "': " + why + " at character " + std::to_string(at + 1) +
                    "\n    " + text + "\n    " + std::string(at, ' ') + "^");
}

bool isSpecial(char c) {
    return c == '/' || c == '@' || c == '[' || c == ']' || c == '*' || c == '\\';
}

std::optional<Pattern> compile(const std::string& text, std::size_t at,
                               const std::string& pattern) {
    try {
        return Pattern(pattern);
    } catch (const std::invalid_argument& e) {
        fail(text, at, e.what());
    }
}

} // namespace

// The expression's text read character by character into its domain and its ranges (the pieces
// between '/'), each piece remembering where it starts for error positions.
struct NvtxExpression::Parser {
    struct Piece {
        std::string value;
        std::size_t at;
        bool star = false;
    };
    Parser(NvtxExpression& expression, const std::string& expressionText, std::size_t start)
        : e(expression), text(expressionText), bodyStart(start), current{"", start} {}

    NvtxExpression& e;
    const std::string& text;
    std::size_t bodyStart; ///< where the range part starts (after "regex:" and a domain)
    Piece current;
    std::vector<Piece> pieces;
    bool sawSlash = false, sawDomain = false;

    void read() {
        for (std::size_t i = bodyStart; i < text.size(); ++i)
            if (!syntax(i))
                literal(i);
    }
    // The character at `i` as the syntax reads it; false: it is part of a name.
    bool syntax(std::size_t& i) {
        const char c = text[i];
        if (c == '\\') {
            escape(i);
            return true;
        }
        if (c == '@') {
            domainEnds(i);
            return true;
        }
        if (e.regex_ && inCharacterClass(i)) {
            current.value += c;
            return true;
        }
        if (c == '[' || c == ']') {
            anchor(i);
            return true;
        }
        if (c == '/') {
            rangeEnds(i);
            return true;
        }
        if (c == '*' && current.value.empty() &&
            (i + 1 == text.size() || text[i + 1] == '/' || text[i + 1] == ']')) {
            current.star = true;
            return true;
        }
        return false;
    }
    void escape(std::size_t& i) {
        if (i + 1 == text.size())
            fail(text, i, "a backslash must be followed by the character it escapes");
        const char next = text[i + 1];
        if (e.regex_ && !isSpecial(next))
            current.value += '\\'; // a regex escape such as \d stays for the regex
        current.value += next;
        ++i;
    }
    void domainEnds(std::size_t i) {
        if (sawDomain)
            fail(text, i, "a second '@' (only one domain per expression; escape it as \\@)");
        if (sawSlash || !pieces.empty() || i == bodyStart)
            fail(text, i,
                 i == bodyStart ? "empty domain name before '@'"
                                : "'@' must follow the domain name at the start");
        sawDomain = true;
        e.hasDomain_ = true;
        e.domain_.literal = current.value;
        if (e.regex_)
            e.domain_.pattern = compile(text, current.at, current.value);
        current = Piece{"", i + 1};
        bodyStart = i + 1;
    }
    // A regex's '[' or ']' that belongs to a character class, not to the stack anchors.
    bool inCharacterClass(std::size_t i) const {
        if (text[i] == '[')
            return i != bodyStart;
        if (text[i] == ']')
            return i + 1 != text.size() ||
                   std::count(current.value.begin(), current.value.end(), '[') >
                       std::count(current.value.begin(), current.value.end(), ']');
        return false;
    }
    void anchor(std::size_t i) {
        if (text[i] == '[') {
            if (i != bodyStart)
                fail(text, i,
                     "'[' (bottom of stack) may only start the range part; escape it as \\[");
            e.anchorBottom_ = true;
            e.pushPop_ = true;
            current.at = i + 1;
            return;
        }
        if (i + 1 != text.size())
            fail(text, i, "']' (top of stack) may only end the expression; escape it as \\]");
        e.anchorTop_ = true;
        e.pushPop_ = true;
    }
    void rangeEnds(std::size_t i) {
        sawSlash = true;
        e.pushPop_ = true;
        if (current.value.empty() && !current.star)
            fail(text, i, "empty range name before '/'");
        pieces.push_back(current);
        current = Piece{"", i + 1};
    }
    void literal(std::size_t i) {
        const char c = text[i];
        if (current.star || (c == '*' && !e.regex_))
            fail(text, i, "'*' stands for whole ranges only (write A/*/B; escape it as \\*)");
        current.value += c;
    }
    // The last piece, the checks on the whole, and the tokens.
    void finish() {
        if (!current.value.empty() || current.star)
            pieces.push_back(current);
        else if (!sawSlash || e.anchorTop_)
            fail(text, text.size() > 0 ? text.size() - 1 : 0, "missing range name");
        if (pieces.empty())
            fail(text, bodyStart, "missing range name");
        if (!e.pushPop_ && pieces.size() == 1 && pieces[0].star)
            fail(text, pieces[0].at, "'*' alone matches everything; leave the filter out instead");
        for (const Piece& p : pieces) {
            Token t;
            t.wildcard = p.star;
            t.literal = p.value;
            if (e.regex_ && !p.star)
                t.pattern = compile(text, p.at, p.value);
            e.tokens_.push_back(std::move(t));
        }
    }
};

NvtxExpression NvtxExpression::parse(const std::string& text) {
    NvtxExpression e;
    e.text_ = text;
    std::size_t pos = 0;
    const std::string kRegex = "regex:";
    if (text.compare(0, kRegex.size(), kRegex) == 0) {
        e.regex_ = true;
        pos = kRegex.size();
    }
    if (pos == text.size())
        fail(text, pos, "empty expression");
    Parser parser(e, text, pos);
    parser.read();
    parser.finish();
    return e;
}

bool NvtxExpression::nameMatches(const Token& token, std::string_view name) const {
    if (token.wildcard)
        return true;
    if (!regex_)
        return name == token.literal;
    return token.pattern->matchAll(name);
}

bool NvtxExpression::matchFrom(const std::vector<NvtxRange>& stack, std::size_t i,
                               std::size_t j) const {
    if (j == tokens_.size())
        return !anchorTop_ || i == stack.size();
    if (tokens_[j].wildcard) {
        for (std::size_t k = i; k <= stack.size(); ++k)
            if (matchFrom(stack, k, j + 1))
                return true;
        return false;
    }
    return i < stack.size() && nameMatches(tokens_[j], stack[i].name) &&
           matchFrom(stack, i + 1, j + 1);
}

bool NvtxExpression::matches(const std::vector<NvtxRange>& pushPop,
                             const std::vector<NvtxRange>& startEnd) const {
    auto inDomain = [this](const NvtxRange& r) {
        if (!hasDomain_)
            return r.domain.empty();
        if (!regex_)
            return r.domain == domain_.literal;
        return domain_.pattern->matchAll(r.domain);
    };
    if (!pushPop_) {
        for (const NvtxRange& r : startEnd)
            if (inDomain(r) && nameMatches(tokens_[0], r.name))
                return true;
        return false;
    }
    std::vector<NvtxRange> stack;
    for (const NvtxRange& r : pushPop)
        if (inDomain(r))
            stack.push_back(r);
    if (anchorBottom_)
        return matchFrom(stack, 0, 0);
    for (std::size_t start = 0; start <= stack.size(); ++start)
        if (matchFrom(stack, start, 0))
            return true;
    return false;
}

KernelFilter::KernelFilter(const std::vector<std::string>& includes,
                           const std::vector<std::string>& excludes, const std::string& kernelName)
    : kernelName_(kernelName) {
    for (const auto& s : includes)
        includes_.push_back(NvtxExpression::parse(s));
    for (const auto& s : excludes)
        excludes_.push_back(NvtxExpression::parse(s));
    const std::string kRegex = "regex:";
    if (kernelName_.compare(0, kRegex.size(), kRegex) == 0) {
        nameRegex_ = true;
        const std::string pattern = kernelName_.substr(kRegex.size());
        try {
            namePattern_.emplace(pattern);
        } catch (const std::invalid_argument& e) {
            throw Error(ErrorCode::InvalidArgument,
                        "kernel-name filter '" + kernelName_ + "': " + e.what());
        }
    }
}

bool KernelFilter::nvtxAdmits(const std::vector<NvtxRange>& pushPop,
                              const std::vector<NvtxRange>& startEnd) const {
    bool in = includes_.empty();
    for (const auto& e : includes_)
        if (!in && e.matches(pushPop, startEnd))
            in = true;
    if (!in)
        return false;
    for (const auto& e : excludes_)
        if (e.matches(pushPop, startEnd))
            return false;
    return true;
}

bool KernelFilter::nameAdmits(std::string_view demangled, std::string_view mangled) const {
    if (kernelName_.empty())
        return true;
    if (nameRegex_)
        return namePattern_->search(demangled) || namePattern_->search(mangled);
    // The function name: the demangled name without parameters, template arguments, return type
    // or namespaces.
    std::string_view base = demangled.substr(0, demangled.find('('));
    if (const auto lt = base.find('<'); lt != std::string_view::npos)
        base = base.substr(0, lt);
    if (const auto sp = base.rfind(' '); sp != std::string_view::npos)
        base = base.substr(sp + 1);
    if (const auto colon = base.rfind("::"); colon != std::string_view::npos)
        base = base.substr(colon + 2);
    return base == kernelName_ || demangled == kernelName_ || mangled == kernelName_;
}

} // namespace roofline::core
