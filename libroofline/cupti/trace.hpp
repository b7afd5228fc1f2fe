#pragma once
// ROOFLINE_TRACE_CODE_LOADS=1: one line on stderr, unbuffered, for each event that decides whether
// a launch runs on a profiler that saw code compiled (module loads, kernels loaded ahead of their
// launch, JIT records, re-creations, launches). A diagnostic for crashes inside CUPTI: the last
// lines before a crash say what the driver did last (docs/troubleshooting.md).
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
    va_list args;
    va_start(args, format);
    std::fputs("[roofline-trace] ", stderr);
    std::vfprintf(stderr, format, args);
    std::fputc('\n', stderr);
    va_end(args);
}

} // namespace roofline::cupti
