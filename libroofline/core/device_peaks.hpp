#pragma once
// Roofs from the device itself: each roof's counter has a peak rate per cycle of its unit's clock
// (the counter API's `<metric>.peak_sustained`, evaluated by cupti/evaluate.cpp from a kept
// counter-data image), and the roof is that rate times the clock times the share kernels reach
// (ChipProfile::peak*Share). Pure logic: the values come in, Ceilings go out.
#include "core/device_info.hpp"
#include "core/metric_catalog.hpp"
#include "core/roofline_model.hpp"

#include <roofline/kernel_record.hpp>

#include <string>
#include <vector>

namespace roofline::core {

/// Which clock a peak rate per cycle is multiplied by.
enum class PeakClock : std::uint8_t { Sm, L2, Memory };

/// One roof of the family and the peak_sustained metric it comes from.
struct PeakRoof {
    RoofRef roof;
    std::string metric;    ///< "<counter>.peak_sustained"
    double perUnit = 1.0;  ///< FLOPs (or bytes) per counted unit times the attainable share
    PeakClock clock = PeakClock::Sm;
};

/// The family's roofs with a peak metric: the FMA term of each CUDA-core formula (its FLOPs per
/// instruction), the first term of each tensor and byte formula.
std::vector<PeakRoof> peakRoofs(const ChipProfile& profile);
/// The peak metrics of peakRoofs(), in order.
std::vector<std::string> peakMetrics(const std::vector<PeakRoof>& roofs);

/// The clocks the peaks are multiplied by; 0: unknown (those roofs stay 0).
struct PeakClocks {
    double smHz = 0;     ///< the device's maximum SM clock (DeviceInfo::smClockHz)
    double l2Hz = 0;     ///< the L2's clock as measured (median over the recording's launches)
    double memoryHz = 0; ///< the device's memory clock (DeviceInfo::memoryClockHz)
};

/// Roofs from `values` (peakMetrics order; NaN or <= 0: unknown) and the clocks, each with
/// RoofSource::Device. `name` and `source` say so, and which roofs are missing and why.
Ceilings deviceCeilings(const std::vector<PeakRoof>& roofs, const std::vector<double>& values,
                        const PeakClocks& clocks, const DeviceInfo& device);

/// The median of `metric` over the launches that have values (0 when the metric is not in
/// `metrics` or no launch has a positive value): the recording's L2 clock.
double medianMetric(const std::vector<LaunchInfo>& launches,
                    const std::vector<std::string>& metrics, const std::string& metric);

/// Each roof from the best source that has it: `measured` (RoofSource::Measured, any value > 0),
/// then `device`, then `datasheet`. Name and source say which roofs came from where.
Ceilings combineCeilings(const Ceilings& measured, const Ceilings& device,
                         const Ceilings& datasheet);

/// "measured: fp64, fp32, L1, DRAM; device peak: L2" (sources in RoofSource order).
std::string describeSources(const Ceilings& ceilings);

} // namespace roofline::core
