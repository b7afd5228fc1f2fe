#pragma once
// A recording's settings and coverage in words, for the report's header and the session's
// summary.
#include "core/recording.hpp"

#include <string>

namespace roofline::report {

/// "one iteration = 500 launches: 42 iterations needed (6 windows x 7 passes), 50 run, 480 of
/// 500 launches covered (incomplete)"; "" when unknown.
std::string describe(const core::Coverage& coverage);
/// What a recording's `cache_flush` says about the cache each kernel started from ("off": the
/// program's own; "on": flushed before each pass; "kernel": flushed before each kernel, as
/// Nsight Compute's --cache-control all).
std::string describeCaches(const std::string& cacheFlush);

} // namespace roofline::report
