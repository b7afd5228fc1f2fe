#include "core/pattern.hpp"

#include <regex.h>

#include <stdexcept>

namespace roofline::core {

struct Pattern::Compiled {
    regex_t re{};
    explicit Compiled(const std::string& posix, const std::string& shown) {
        if (const int rc = regcomp(&re, posix.c_str(), REG_EXTENDED | REG_NOSUB); rc != 0) {
            char message[256];
            regerror(rc, &re, message, sizeof message);
            regfree(&re);
            throw std::invalid_argument("invalid regular expression '" + shown + "' (" + message +
                                        ")");
        }
    }
    ~Compiled() { regfree(&re); }
    Compiled(const Compiled&) = delete;
    Compiled& operator=(const Compiled&) = delete;

    bool run(std::string_view text) const {
        // REG_STARTEND: the text is [rm_so, rm_eo), no terminating NUL needed, NULs allowed.
        regmatch_t span{0, static_cast<regoff_t>(text.size())};
        const char* data = text.data() != nullptr ? text.data() : "";
        return regexec(&re, data, 1, &span, REG_STARTEND) == 0;
    }
};

namespace {

// Whether the ']' at `i` closes the bracket expression it is in: a ']' right after the opening
// '[' or '[^' is a literal.
bool closesBracket(const std::string& e, std::size_t i) {
    return e[i] == ']' && e[i - 1] != '[' && !(e[i - 1] == '^' && i >= 2 && e[i - 2] == '[');
}

} // namespace

std::string toPosixExtended(const std::string& e) {
    std::string out;
    out.reserve(e.size());
    bool inBracket = false;
    for (std::size_t i = 0; i < e.size(); ++i) {
        const char c = e[i];
        if (inBracket) {
            if (closesBracket(e, i))
                inBracket = false;
            if (c == '\\' && i + 1 < e.size() && e[i + 1] == 'd') {
                out += "0-9";
                ++i;
                continue;
            }
            out += c;
            continue;
        }
        if (c == '\\' && i + 1 < e.size()) {
            const char n = e[++i];
            if (n == 'd')
                out += "[0-9]";
            else if (n == 'D')
                out += "[^0-9]";
            else
                out += {c, n};
            continue;
        }
        if (c == '[')
            inBracket = true;
        if (c == '(' && i + 1 < e.size() && e[i + 1] == '?') {
            if (i + 2 < e.size() && e[i + 2] == ':') {
                out += '(';
                i += 2;
                continue;
            }
            throw std::invalid_argument(
                "invalid regular expression '" + e + "': (? at character " +
                std::to_string(i + 1) +
                " -- lookarounds are supported only at the start, as ^(?!...) or ^(?=...)");
        }
        if (c == '?' && !out.empty() && (out.back() == '*' || out.back() == '+' || out.back() == '?') &&
            (out.size() < 2 || out[out.size() - 2] != '\\'))
            continue; // lazy quantifier: the greedy one matches the same texts
        out += c;
    }
    return out;
}

namespace {

// The end of the group that starts at `open` (an index of '('), or npos.
std::size_t groupEnd(const std::string& e, std::size_t open) {
    int depth = 0;
    bool inBracket = false;
    for (std::size_t i = open; i < e.size(); ++i) {
        const char c = e[i];
        if (c == '\\') {
            ++i;
            continue;
        }
        if (inBracket) {
            if (closesBracket(e, i))
                inBracket = false;
            continue;
        }
        if (c == '[')
            inBracket = true;
        else if (c == '(')
            ++depth;
        else if (c == ')' && --depth == 0)
            return i;
    }
    return std::string::npos;
}

} // namespace

Pattern::Pattern(const std::string& expression) : expression_(expression) {
    // Leading lookaheads: ^(?!X) and ^(?=X), any number of them.
    std::string rest = expression;
    while (rest.rfind("^(?!", 0) == 0 || rest.rfind("^(?=", 0) == 0) {
        const std::size_t end = groupEnd(rest, 1);
        if (end == std::string::npos)
            throw std::invalid_argument("invalid regular expression '" + expression +
                                        "' (a lookahead is not closed)");
        const std::string inner = rest.substr(4, end - 4);
        lookaheads_.push_back(
            {rest[3] == '!',
             std::make_shared<const Compiled>("^(" + toPosixExtended(inner) + ")", expression)});
        rest = "^" + rest.substr(end + 1);
    }
    const std::string posix = toPosixExtended(rest);
    search_ = std::make_shared<const Compiled>(posix, expression);
    whole_ = std::make_shared<const Compiled>("^(" + posix + ")$", expression);
}

bool Pattern::lookaheadsHold(std::string_view text) const {
    for (const auto& l : lookaheads_)
        if (l.at->run(text) == l.negated)
            return false;
    return true;
}

bool Pattern::search(std::string_view text) const {
    return lookaheadsHold(text) && search_->run(text);
}

bool Pattern::matchAll(std::string_view text) const {
    return lookaheadsHold(text) && whole_->run(text);
}

} // namespace roofline::core
