#pragma once
// Milliseconds since a steady-clock time point: the cost figures of sessions, backends and
// benchmarks.
#include <chrono>

namespace roofline::core {

using SteadyClock = std::chrono::steady_clock;

inline double msSince(SteadyClock::time_point start) {
    return std::chrono::duration<double, std::milli>(SteadyClock::now() - start).count();
}

} // namespace roofline::core
