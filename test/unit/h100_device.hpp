#pragma once
// The H100 SXM the unit tests describe: NVIDIA H100 80GB HBM3, GH100, 132 SMs at 1.98 GHz, HBM3
// at 2.619 GHz (the machine the fixtures were recorded on).
#include "core/device_info.hpp"
#include "core/roofline_model.hpp"

#include <gtest/gtest.h>

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

/// The same H100 with every field of DeviceInfo set (no value 0), for round trips.
inline core::DeviceInfo everyDeviceField() {
    core::DeviceInfo d = h100Device();
    d.ordinal = 3;
    d.computeMajor = 9;
    d.computeMinor = 1;
    d.memoryBusWidthBits = 5120;
    d.l2Bytes = 50u << 20;
    d.memoryBytes = 85ull << 30;
    d.driverVersion = 13000;
    d.occupancy = {2048, 32, 65536, 233472, 1024};
    return d;
}

/// Every field of `got` is `want`'s (a gtest failure names each one that is not).
inline void expectSameDevice(const core::DeviceInfo& want, const core::DeviceInfo& got) {
    EXPECT_EQ(got.ordinal, want.ordinal);
    EXPECT_EQ(got.name, want.name);
    EXPECT_EQ(got.chip, want.chip);
    EXPECT_EQ(got.computeMajor, want.computeMajor);
    EXPECT_EQ(got.computeMinor, want.computeMinor);
    EXPECT_EQ(got.smCount, want.smCount);
    EXPECT_EQ(got.smClockHz, want.smClockHz);
    EXPECT_EQ(got.memoryClockHz, want.memoryClockHz);
    EXPECT_EQ(got.memoryBusWidthBits, want.memoryBusWidthBits);
    EXPECT_EQ(got.l2Bytes, want.l2Bytes);
    EXPECT_EQ(got.memoryBytes, want.memoryBytes);
    EXPECT_EQ(got.driverVersion, want.driverVersion);
    EXPECT_EQ(got.occupancy.maxThreadsPerSm, want.occupancy.maxThreadsPerSm);
    EXPECT_EQ(got.occupancy.maxBlocksPerSm, want.occupancy.maxBlocksPerSm);
    EXPECT_EQ(got.occupancy.registersPerSm, want.occupancy.registersPerSm);
    EXPECT_EQ(got.occupancy.sharedBytesPerSm, want.occupancy.sharedBytesPerSm);
    EXPECT_EQ(got.occupancy.reservedSharedPerBlock, want.occupancy.reservedSharedPerBlock);
}

/// Its datasheet ceilings (scaled to 132 SMs at 1.98 GHz).
inline Ceilings h100DatasheetCeilings() {
    return core::datasheetCeilings(h100Device());
}

} // namespace roofline::test
