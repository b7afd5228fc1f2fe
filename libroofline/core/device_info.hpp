#pragma once
#include "core/occupancy.hpp"

#include <cstdint>
#include <string>

namespace roofline::core {
/// What we know of the profiled device; read from the driver when a GPU is present, otherwise
/// from a recording.
struct DeviceInfo {
    int ordinal = 0;
    std::string name; ///< "NVIDIA H100 80GB HBM3"
    std::string chip; ///< CUPTI chip name, "GH100"
    int computeMajor = 0;
    int computeMinor = 0;
    int smCount = 0;
    double smClockHz = 0.0; ///< maximum SM clock
    double memoryClockHz = 0.0;
    int memoryBusWidthBits = 0;
    std::uint64_t l2Bytes = 0;
    std::uint64_t memoryBytes = 0;
    int driverVersion = 0;
    OccupancyLimits occupancy; ///< per-SM limits (unknown in older recordings)
};
} // namespace roofline::core
