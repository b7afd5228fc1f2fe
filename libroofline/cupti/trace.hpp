#pragma once
// ROOFLINE_TRACE_CODE_LOADS=1: one line on stderr, unbuffered, for each event that decides whether
// a launch runs on a profiler that saw code compiled (module loads, kernels loaded ahead of their
// launch, JIT records, re-creations, launches). A diagnostic for crashes inside CUPTI: the last
// lines before a crash say what the driver did last (docs/troubleshooting.md). Each line carries
// the milliseconds since the first traced one.
#include "core/stopwatch.hpp"

#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace roofline::cupti {

inline bool tracingCodeLoads() noexcept {
    static const bool on = [] {
        const char* v = std::getenv("ROOFLINE_TRACE_CODE_LOADS");
        return v && *v && std::strcmp(v, "0") != 0;
    }();
    return on;
}

#if defined(__GNUC__)
__attribute__((format(printf, 1, 2)))
#endif
inline void
traceCodeLoad(const char* format, ...) noexcept {
    if (!tracingCodeLoads())
        return;
    static const core::SteadyClock::time_point first = core::SteadyClock::now();
    const double ms = core::msSince(first);
    va_list args;
    va_start(args, format);
    std::fprintf(stderr, "[roofline-trace %.3f ms] ", ms);
    std::vfprintf(stderr, format, args);
    std::fputc('\n', stderr);
    va_end(args);
}

// Traces how long one CUPTI call took (nothing when tracing is off).
class TraceCall {
public:
    explicit TraceCall(const char* what) noexcept
        : what_(tracingCodeLoads() ? what : nullptr),
          start_(what_ ? core::SteadyClock::now() : core::SteadyClock::time_point{}) {}
    ~TraceCall() {
        if (what_)
            traceCodeLoad("%s took %.3f ms", what_, core::msSince(start_));
    }
    TraceCall(const TraceCall&) = delete;
    TraceCall& operator=(const TraceCall&) = delete;

private:
    const char* what_;
    core::SteadyClock::time_point start_;
};

} // namespace roofline::cupti
