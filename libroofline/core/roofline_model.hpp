#pragma once
// Metric values -> KernelRecord, and records -> what bounds them.

#include "core/device_info.hpp"
#include "core/metric_catalog.hpp"
#include "core/metric_values.hpp"

#include <roofline/kernel_record.hpp>

namespace roofline::core {

/// Identity of one launch, as the launch callbacks saw it.
struct LaunchInfo {
    std::uint64_t launchIndex = 0;
    std::string name;
    std::string mangledName;
    std::string scopePath;
    Dim3 grid, block;
    std::uint64_t stream = 0;
    int chunk = -1;          ///< counter-data chunk holding its range; -1: not measured
    std::uint32_t range = 0; ///< range index inside that chunk
};

/// Dense (no sparsity) datasheet peaks for the device, scaled by its SM count and maximum SM
/// clock when those are known. Unknown devices get empty ceilings (bounds become "unknown").
Ceilings datasheetCeilings(const DeviceInfo& device);

/// The roof the record uses the largest fraction of; Unknown when no roof applies.
Bound classify(const KernelRecord& record, const Ceilings& ceilings);

/// A record from one range's metric values via the chip's formulas.
KernelRecord buildRecord(const ChipProfile& profile, const LaunchInfo& launch,
                         const MetricValues& values, const Ceilings& ceilings);

/// A record for a launch that has no counter values, with the reason in its note.
KernelRecord unmeasuredRecord(const LaunchInfo& launch, std::string reason);

} // namespace roofline::core
