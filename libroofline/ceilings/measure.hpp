#pragma once
// The sweep behind `roofline ceilings`: every microbenchmark in kernels.hpp over launch shapes and
// work per thread, keeping the best rate per roof (the Empirical Roofline Toolkit's method).
#include "core/ceilings_file.hpp"

#include <functional>
#include <string>

namespace roofline::ceilings {

struct SweepOptions {
    int device = 0;
    bool quick = false;            ///< a few shapes per roof (seconds), for tests and smoke runs
    double secondsPerTrial = 0.02; ///< target duration of one timed launch
    std::function<void(const std::string&)> progress; ///< one line per roof when set
};

/// Runs the sweep on `options.device`. Throws Error(NoDevice) without a usable GPU and Error(Cuda)
/// when a CUDA call fails outside a single configuration (configurations the device refuses are
/// skipped and counted).
core::MeasuredCeilings measure(const SweepOptions& options);

} // namespace roofline::ceilings
