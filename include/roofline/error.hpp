#pragma once
/// \file error.hpp
/// The one error type libroofline throws (from setup calls only; hot paths never throw).

#include <roofline/export.hpp>

#include <stdexcept>
#include <string>

namespace roofline {

/// What went wrong, coarse enough to branch on.
enum class ErrorCode {
    InvalidArgument,        ///< a bad option, name or value given by the caller
    UnsupportedChip,        ///< the chip has no entry in the metric catalog or is unknown to CUPTI
    UnknownMetric,          ///< a metric name the chip does not have (message lists close names)
    NoDevice,               ///< no CUDA device, or the requested index does not exist
    InsufficientPrivileges, ///< counters restricted to admins (NVreg_RestrictProfilingToAdminUsers)
    ProfilerBusy,           ///< another CUPTI subscriber or profiling session owns the profiler
    Cupti,                  ///< any other CUPTI failure (rawStatus() holds the CUptiResult)
    Cuda,                   ///< a CUDA driver failure (rawStatus() holds the CUresult)
    Io,                     ///< a file could not be read or written
    CorruptRecording,       ///< a recording is truncated, damaged or not a recording at all
    UnsupportedVersion,     ///< a recording written by a newer libroofline
    InvalidState,           ///< a call made at the wrong time (e.g. save() before stop())
};

/// Name of an ErrorCode, e.g. "UnknownMetric".
ROOFLINE_API const char* toString(ErrorCode code) noexcept;

/// libroofline's exception. The message names the thing that failed and how to fix it; for CUPTI
/// and CUDA failures rawStatus() keeps the library's status code.
///
///     try { roofline::Session s; } catch (const roofline::Error& e) { std::cerr << e.what(); }
class ROOFLINE_API Error : public std::runtime_error {
public:
    Error(ErrorCode code, const std::string& message, int rawStatus = 0);
    ErrorCode code() const noexcept { return code_; }
    int rawStatus() const noexcept { return rawStatus_; }

private:
    ErrorCode code_;
    int rawStatus_;
};

} // namespace roofline
