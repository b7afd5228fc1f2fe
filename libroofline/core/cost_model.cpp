#include "core/cost_model.hpp"

#include "core/json_number.hpp"

#include <roofline/error.hpp>

#include <nlohmann/json.hpp>

#include <cmath>
#include <regex>

namespace roofline::core {

CostPrediction predictCost(const CostParts& parts, const CostCounts& counts) noexcept {
    CostPrediction p;
    p.setupMs = parts.setupMs;
    if (counts.objects > 0)
        p.objectsMs = parts.firstObjectMs + static_cast<double>(counts.objects) * parts.objectMs +
                      static_cast<double>(counts.objectRanges) * parts.objectRangeMs;
    p.passesMs = static_cast<double>(counts.passes) * parts.passMs;
    p.rangesMs = static_cast<double>(counts.rangePasses) * parts.rangeMs;
    return p;
}

std::string toJson(const CostParts& parts) {
    const nlohmann::json j = {{"format", "libroofline-cost-parts"},
                              {"version", 1},
                              {"chip", parts.chip},
                              {"metrics", parts.metrics},
                              {"setup_ms", parts.setupMs},
                              {"first_object_ms", parts.firstObjectMs},
                              {"object_ms", parts.objectMs},
                              {"object_range_ms", parts.objectRangeMs},
                              {"pass_ms", parts.passMs},
                              {"range_ms", parts.rangeMs}};
    return j.dump(2) + "\n";
}

CostParts costPartsFromJson(const std::string& text, const std::string& what) {
    const auto bad = [&](const std::string& why) {
        return Error(ErrorCode::InvalidArgument,
                     "cost parts file '" + what + "' " + why +
                         ": measure them again with `roofline-bench-pass-cost --parts " + what +
                         "`");
    };
    if (text.size() > (std::size_t{1} << 20))
        throw bad("is larger than 1 MiB");
    const nlohmann::json j = parseDocument(text, "libroofline-cost-parts", "cost parts file", bad);
    const auto ms = [&](const char* key) {
        const auto it = j.find(key);
        if (it == j.end() || !it->is_number())
            throw bad(std::string("has no number \"") + key + "\"");
        const double v = it->get<double>();
        if (!std::isfinite(v) || v < 0)
            throw bad(std::string("has \"") + key + "\" " + std::to_string(v) +
                      " (a time in ms, 0 or more)");
        return v;
    };
    const auto str = [&](const char* key) {
        const auto it = j.find(key);
        return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
    };
    CostParts p;
    p.setupMs = ms("setup_ms");
    p.firstObjectMs = ms("first_object_ms");
    p.objectMs = ms("object_ms");
    p.objectRangeMs = ms("object_range_ms");
    p.passMs = ms("pass_ms");
    p.rangeMs = ms("range_ms");
    p.chip = str("chip");
    p.metrics = str("metrics");
    return p;
}

bool countsFromCostLine(const std::string& log, CostCounts& counts) {
    const std::string marker = "libroofline: cost: ";
    const std::size_t at = log.rfind(marker);
    if (at == std::string::npos)
        return false;
    const std::size_t end = log.find('\n', at);
    const std::string line = log.substr(at, end == std::string::npos ? std::string::npos : end - at);
    const auto number = [&](const char* pattern, std::size_t& out) {
        std::smatch m;
        if (!std::regex_search(line, m, std::regex(pattern)))
            return false;
        out = static_cast<std::size_t>(std::stoull(m[1].str()));
        return true;
    };
    CostCounts c;
    if (!number(R"((\d+) passes: Start)", c.passes) ||
        !number(R"(first Start of (\d+) profiler object)", c.objects))
        return false;
    number(R"(object\(s\) \((\d+) image ranges)", c.objectRanges);
    number(R"((\d+) range-passes)", c.rangePasses);
    counts = c;
    return true;
}

} // namespace roofline::core
