#pragma once
// The H100 SXM the unit tests describe: NVIDIA H100 80GB HBM3, GH100, 132 SMs at 1.98 GHz, HBM3
// at 2.619 GHz (the machine the fixtures were recorded on).
#include "core/device_info.hpp"
#include "core/roofline_model.hpp"

namespace roofline::test {

inline core::DeviceInfo h100Device() {
    core::DeviceInfo d;
    d.name = "NVIDIA H100 80GB HBM3";
    d.chip = "GH100";
    d.smCount = 132;
    d.smClockHz = 1.98e9;
    d.memoryClockHz = 2.619e9;
    return d;
}

/// Its datasheet ceilings (scaled to 132 SMs at 1.98 GHz).
inline Ceilings h100DatasheetCeilings() {
    return core::datasheetCeilings(h100Device());
}

} // namespace roofline::test
