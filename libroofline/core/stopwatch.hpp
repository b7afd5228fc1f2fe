#pragma once
// Milliseconds since a steady-clock time point: the cost figures of sessions, backends and
// benchmarks; and the two clocks of host timing in nanoseconds.
#include <chrono>
#include <cstdint>
#include <ctime>

namespace roofline::core {

using SteadyClock = std::chrono::steady_clock;

inline double msSince(SteadyClock::time_point start) {
    return std::chrono::duration<double, std::milli>(SteadyClock::now() - start).count();
}

/// The steady clock (wall time), nanoseconds.
inline std::int64_t steadyNowNs() noexcept {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               SteadyClock::now().time_since_epoch())
        .count();
}

/// The system clock (Unix time), nanoseconds.
inline std::uint64_t unixNowNs() noexcept {
    return static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                          std::chrono::system_clock::now().time_since_epoch())
                                          .count());
}

/// The calling thread's CPU time (CLOCK_THREAD_CPUTIME_ID, a system call on Linux),
/// nanoseconds; -1 when unavailable.
inline std::int64_t threadCpuNowNs() noexcept {
    timespec ts{};
    if (::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
        return -1;
    return static_cast<std::int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

} // namespace roofline::core
