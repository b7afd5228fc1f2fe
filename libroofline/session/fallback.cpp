#include "session/fallback.hpp"

namespace roofline::collect {

Fallback decideFallback(ErrorCode code, const std::string& what) {
    Fallback f;
    const std::string timing = "libroofline continues with timing-only records (kernel durations, "
                               "no counters)";
    switch (code) {
    case ErrorCode::InvalidArgument:
        f.action = Fallback::Action::Rethrow;
        f.message = what;
        break;
    case ErrorCode::NoDevice:
        f.action = Fallback::Action::Nothing;
        f.message = "libroofline: no CUDA device to profile (" + what +
                    "); the session records nothing and the application runs unchanged";
        break;
    case ErrorCode::InsufficientPrivileges:
        f.message = "libroofline: GPU performance counters are restricted to administrators; " +
                    timing +
                    ". Fix: load the nvidia module with NVreg_RestrictProfilingToAdminUsers=0 "
                    "(docs/troubleshooting.md) or run with CAP_SYS_ADMIN";
        break;
    case ErrorCode::ProfilerBusy:
        f.message = "libroofline: another CUPTI client (Nsight Systems/Compute, a framework "
                    "profiler such as kineto) holds the profiler (" +
                    what + "); " + timing +
                    ". Fix: run without the other profiler, or disable its CUPTI use";
        break;
    case ErrorCode::UnsupportedChip:
    case ErrorCode::UnknownMetric:
        f.message = "libroofline: this GPU cannot be profiled with libroofline's metric catalog (" +
                    what + "); " + timing;
        break;
    default:
        f.message = "libroofline: counter collection could not start (" + what + "); " + timing;
        break;
    }
    return f;
}

} // namespace roofline::collect
