#pragma once
// CUPTI profiler host API: chips, metric validation, config images, pass counts and evaluation of
// counter-data images. Needs no GPU and no driver: the CLI and the CPU tests use it directly.
//
// Lifecycle: (1) Host(chip) initializes a host object for that chip; (2) validate/configImage/
// evaluate may be called any number of times (each config image gets a fresh host object, since
// ConfigAddMetrics accumulates); (3) the destructor deinitializes, logging failures, never
// throwing.
#include "core/metric_values.hpp"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace roofline::cupti {

struct MetricProperties {
    std::string description;
    std::string hardwareUnit;
    std::string dimension;
    std::string type; ///< counter, ratio or throughput
};

/// Which of CUPTI's instruments a host object configures and evaluates for: the range profiler
/// (replayed passes, any number of them) or PM sampling (one pass, sampled on a period; its
/// metrics are another list, and its configuration must fit one pass).
enum class Instrument { RangeProfiler, PmSampling };

struct ConfigImage {
    std::vector<std::uint8_t> bytes;
    std::size_t passes = 0;
};

class Host {
public:
    /// Chips the installed CUPTI can configure and evaluate ("GV100", ..., "GH100", ...).
    static std::vector<std::string> supportedChips();

    /// Throws Error(UnsupportedChip) listing the supported chips when `chip` is not one of them.
    explicit Host(const std::string& chip, Instrument instrument = Instrument::RangeProfiler);
    ~Host();
    Host(Host&&) noexcept;
    Host& operator=(Host&&) noexcept;
    Host(const Host&) = delete;
    Host& operator=(const Host&) = delete;

    const std::string& chip() const noexcept;
    Instrument instrument() const noexcept;
    /// Base metric names of every type, sorted.
    std::vector<std::string> baseMetrics() const;
    /// Throws Error(UnknownMetric) naming the metric, the chip and the closest valid names.
    MetricProperties properties(const std::string& metric) const;
    /// Validates every name first (same error), then builds the image and counts its passes.
    ConfigImage configImage(const std::vector<std::string>& metrics) const;

    /// Splits `metrics` into configurations of one pass each where CUPTI can (first fit, in the
    /// given order); a metric that needs several passes on its own gets its own configuration.
    /// Aligned iteration replay runs one configuration per pass (docs/design/0006).
    std::vector<std::vector<std::string>>
    singlePassGroups(const std::vector<std::string>& metrics) const;

    /// Ranges stored in a counter-data image.
    std::size_t rangeCount(const std::vector<std::uint8_t>& counterData) const;
    /// Name CUPTI gave range `range`: "0","1",... for auto ranges, "outer/inner" for user ranges.
    std::string rangeName(const std::vector<std::uint8_t>& counterData, std::size_t range) const;
    /// Values in the order of `metrics`.
    std::vector<double> evaluateValues(const std::vector<std::uint8_t>& counterData,
                                       std::size_t range,
                                       const std::vector<std::string>& metrics) const;
    core::MetricValues evaluate(const std::vector<std::uint8_t>& counterData, std::size_t range,
                                const std::vector<std::string>& metrics) const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

} // namespace roofline::cupti
