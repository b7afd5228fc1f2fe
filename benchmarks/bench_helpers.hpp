#pragma once
// Small helpers the benchmark programs share: a comma-separated argument list, the median of
// repeated timings, and a main that reports what the run threw.
#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

namespace bench_helpers {

/// "a,b,,c" -> {"a", "b", "c"} (empty items dropped).
inline std::vector<std::string> commaList(const std::string& s) {
    std::vector<std::string> out;
    std::size_t at = 0;
    while (at <= s.size()) {
        const std::size_t comma = std::min(s.find(',', at), s.size());
        if (comma > at)
            out.push_back(s.substr(at, comma - at));
        at = comma + 1;
    }
    return out;
}

/// The median (the mean of the two middle values for an even count); 0 for none.
inline double median(std::vector<double> v) {
    if (v.empty())
        return 0;
    std::sort(v.begin(), v.end());
    return v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
}

/// `run(argc, argv)`'s exit status; what it threw goes to stderr after the program's `name`, and
/// the status is then 1.
template <typename Run> int guardedMain(const char* name, Run&& run, int argc, char** argv) {
    try {
        return run(argc, argv);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "%s: %s\n", name, e.what());
        return 1;
    }
}

} // namespace bench_helpers
