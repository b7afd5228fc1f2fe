#pragma once
// NVTX filter expressions with Nsight Compute's syntax and meaning (docs/configuration.md):
//   "A"          start/end range A is open          "A/"        push/pop range A is on the stack
//   "A/B"        B directly inside A                "A/*/B"     B inside A, any ranges between
//   "[A"         A at the bottom of the stack       "A]"        A at the top (innermost)
//   "D@A/"       ranges of domain D only            "regex:..." every name is an ECMAScript regex
// A backslash escapes / @ [ ] * and itself. Push/pop stacks are matched per domain.
#include "core/pattern.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace roofline::core {

struct NvtxRange {
    std::string_view domain; ///< "" for the default domain
    std::string_view name;
};

class NvtxExpression {
public:
    /// Throws Error(InvalidArgument) pointing at the offending character with a caret.
    static NvtxExpression parse(const std::string& text);

    /// `pushPop`: the thread's push/pop stack, bottom (outermost) first; `startEnd`: the
    /// start/end ranges open in the process.
    bool matches(const std::vector<NvtxRange>& pushPop,
                 const std::vector<NvtxRange>& startEnd) const;
    const std::string& text() const noexcept { return text_; }

private:
    struct Parser;
    struct Token {
        bool wildcard = false;
        std::string literal;
        std::optional<Pattern> pattern;
    };
    bool nameMatches(const Token& token, std::string_view name) const;
    bool matchFrom(const std::vector<NvtxRange>& stack, std::size_t i, std::size_t j) const;

    std::string text_;
    bool regex_ = false;
    bool hasDomain_ = false;
    Token domain_;
    bool pushPop_ = false;
    bool anchorBottom_ = false;
    bool anchorTop_ = false;
    std::vector<Token> tokens_;
};

/// Which launches a Session profiles: NVTX include/exclude expressions (a launch is profiled when
/// it matches any include -- or there are none -- and no exclude) and a kernel-name filter (exact
/// function or demangled name, or "regex:..." searched in the demangled and mangled names).
class KernelFilter {
public:
    KernelFilter() = default;
    /// Throws Error(InvalidArgument) naming the option and pointing at the bad character.
    KernelFilter(const std::vector<std::string>& includes, const std::vector<std::string>& excludes,
                 const std::string& kernelName);
    bool nvtxAdmits(const std::vector<NvtxRange>& pushPop,
                    const std::vector<NvtxRange>& startEnd) const;
    bool nameAdmits(std::string_view demangled, std::string_view mangled) const;
    bool hasNameFilter() const noexcept { return !kernelName_.empty(); }
    bool hasNvtxFilter() const noexcept { return !includes_.empty() || !excludes_.empty(); }

private:
    std::vector<NvtxExpression> includes_, excludes_;
    std::string kernelName_;
    bool nameRegex_ = false;
    std::optional<Pattern> namePattern_;
};

} // namespace roofline::core
