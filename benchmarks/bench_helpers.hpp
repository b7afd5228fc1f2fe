#pragma once
// Small helpers the benchmark programs share: a comma-separated argument list, the median of
// repeated timings, a child command run with its output logged, and a main that reports what the
// run threw.
#include "core/stopwatch.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/wait.h>
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

/// `s` as one word for the shell (single-quoted).
inline std::string shellQuoted(const std::string& s) {
    std::string q = "'";
    for (char c : s)
        q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return q + "'";
}

/// What a child command did: its exit status (-1: it did not exit), its wall time, its output.
struct ChildRun {
    int rc = -1;
    double wallMs = 0;
    std::string out;
};

/// `command` run by the shell under `timeout` (a child that never ends must not stall the
/// benchmark), its stdout and stderr into `log`, then read back.
inline ChildRun runChild(const std::string& command, const std::string& log, int timeoutSeconds) {
    ChildRun r;
    const auto t0 = roofline::core::SteadyClock::now();
    const std::string full = "timeout " + std::to_string(timeoutSeconds) + " " + command + " > " +
                             shellQuoted(log) + " 2>&1";
    const int status = std::system(full.c_str());
    r.wallMs = roofline::core::msSince(t0);
    r.rc = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    std::ifstream in(log);
    std::stringstream ss;
    ss << in.rdbuf();
    r.out = ss.str();
    return r;
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
