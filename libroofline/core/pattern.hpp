#pragma once
// Regular expressions for name filters (`regex:` in NVTX filters, --name, --kernel-name): POSIX
// extended syntax through the C library's regcomp/regexec, which match in time and memory linear
// in the text with no recursion -- std::regex recurses once per character and overflows the
// stack on a long kernel name. ECMAScript habits are accepted: \d and \D are rewritten to
// [0-9] and [^0-9], and the lazy quantifiers *? +? ?? match as their greedy forms (a search
// only asks whether there is a match), (?:...) groups as (...), and lookaheads at the start
// (`^(?!.*all_reduce)`, `^(?=.*gemm)(?!.*splitK)`) are evaluated as separate expressions
// anchored at the start. \w \W \s \S \b are GNU extensions regcomp knows.
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace roofline::core {

class Pattern {
public:
    /// Throws std::invalid_argument with regcomp's message when `expression` does not compile.
    explicit Pattern(const std::string& expression);
    /// True when the expression matches somewhere in `text`.
    bool search(std::string_view text) const;
    /// True when the expression matches all of `text`.
    bool matchAll(std::string_view text) const;
    const std::string& expression() const noexcept { return expression_; }

private:
    struct Compiled;
    struct Lookahead {
        bool negated = false;
        std::shared_ptr<const Compiled> at; ///< anchored at the start of the text
    };
    bool lookaheadsHold(std::string_view text) const;
    std::string expression_;
    std::vector<Lookahead> lookaheads_;
    std::shared_ptr<const Compiled> search_, whole_;
};

/// `expression` in regcomp's syntax (the rewrites above).
std::string toPosixExtended(const std::string& expression);

} // namespace roofline::core
