#pragma once
// What a device's counter backend is created with: one value, decided by the counter set-up
// (session/counter_setup) from the session's settings, and taken whole by the backend.
#include "cupti/target.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace roofline::collect {

struct BackendSpec {
    std::string chip;
    std::vector<std::string> metrics; ///< the session's metric order
    /// Configuration 0 holding what is collected first, then (aligned replay) several that
    /// together hold each of those once.
    std::vector<cupti::Configuration> configurations;
    std::size_t rangesPerImage = 0; ///< Settings::rangesPerImage
    cupti::RangeMode mode = cupti::RangeMode::AutoUserReplay;
    std::uint16_t levels = 1;
    /// What a grown metric set falls back to when it would need more passes than this (the full
    /// set without detection counters); empty: no limit.
    std::vector<std::string> fallback;
    /// The profiler is created for the permission check and released at once, until the first
    /// pass.
    bool released = false;
};

} // namespace roofline::collect
