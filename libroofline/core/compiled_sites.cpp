#include "core/compiled_sites.hpp"

#include <roofline/error.hpp>

namespace roofline::core {

CompiledGraph CompiledGraph::parse(std::string_view text) {
    CompiledGraph g;
    std::size_t at = 0, line = 0;
    while (at < text.size()) {
        const std::size_t end = std::min(text.find('\n', at), text.size());
        const std::string_view l = text.substr(at, end - at);
        at = end + 1;
        ++line;
        if (l.empty())
            continue;
        const auto bad = [&](const char* why) {
            return Error(ErrorCode::InvalidArgument,
                         "compiled graph site " + std::to_string(line) + ": " + why);
        };
        if (l.size() > kMaxLine)
            throw bad("longer than 4096 characters");
        if (g.sites_ >= kMaxSites)
            throw bad("more than 65536 sites");
        const std::size_t t1 = l.find('\t');
        const std::size_t t2 = t1 == std::string_view::npos ? t1 : l.find('\t', t1 + 1);
        if (t2 == std::string_view::npos || t1 == 0 || l.find('\t', t2 + 1) != l.npos)
            throw bad("not '<range>\\t<module>\\t<ops>'");
        g.byRange_[std::string(l.substr(0, t1))].push_back(
            {std::string(l.substr(t1 + 1, t2 - t1 - 1)), std::string(l.substr(t2 + 1))});
        ++g.sites_;
    }
    return g;
}

const CompiledSite* CompiledGraph::site(std::string_view range, std::size_t occurrence) const {
    const auto it = byRange_.find(std::string(range));
    if (it == byRange_.end() || occurrence >= it->second.size())
        return nullptr;
    return &it->second[occurrence];
}

std::string compiledGraphKey(std::string_view range) {
    constexpr std::string_view kBegin = "## Call CompiledFxGraph ", kEnd = " ##";
    if (range.size() <= kBegin.size() + kEnd.size() || range.substr(0, kBegin.size()) != kBegin ||
        range.substr(range.size() - kEnd.size()) != kEnd)
        return {};
    return std::string(range.substr(kBegin.size(), range.size() - kBegin.size() - kEnd.size()));
}

std::string compiledModule(std::string_view prefix, std::string_view relative,
                           std::string_view own) {
    if (prefix.empty() && relative.empty())
        return std::string(own);
    if (prefix.empty())
        return std::string(relative);
    if (relative.empty())
        return std::string(prefix);
    return std::string(prefix) + "." + std::string(relative);
}

} // namespace roofline::core
