// Resident blocks per SM by the occupancy rules, checked against the CUDA occupancy
// calculator's figures for an H100 (sm_90: 2048 threads, 32 blocks, 65536 registers and 228 KiB of
// shared memory per SM, 1 KiB reserved per block).
#include "core/occupancy.hpp"

#include <gtest/gtest.h>

namespace roofline::core {
namespace {

OccupancyLimits h100() {
    OccupancyLimits l;
    l.maxThreadsPerSm = 2048;
    l.maxBlocksPerSm = 32;
    l.registersPerSm = 65536;
    l.sharedBytesPerSm = 233472;
    l.reservedSharedPerBlock = 1024;
    return l;
}

TEST(Occupancy, EachLimitBindsWhereTheCalculatorSaysSo) {
    const OccupancyLimits l = h100();
    // Threads: 256-thread blocks, few registers, no shared memory: 2048 / 256 = 8.
    EXPECT_EQ(residentBlocksPerSm(l, 256, 32, 0), 8);
    // Blocks: 32-thread blocks would allow 64 by threads; the block limit is 32.
    EXPECT_EQ(residentBlocksPerSm(l, 32, 16, 0), 32);
    // Registers: 128 per thread x 256 threads = 32768 per block -> 2 blocks.
    EXPECT_EQ(residentBlocksPerSm(l, 256, 128, 0), 2);
    // Register granularity: 65 registers round up to 2304 per warp -> 28 warps -> 3 blocks of 8.
    EXPECT_EQ(residentBlocksPerSm(l, 256, 65, 0), 3);
    // Shared memory: 100 KiB + 1 KiB reserved per block -> 2 blocks in 228 KiB.
    EXPECT_EQ(residentBlocksPerSm(l, 128, 32, 100 * 1024), 2);
    // A block that needs more shared memory than an SM has does not fit.
    EXPECT_EQ(residentBlocksPerSm(l, 128, 32, 240 * 1024), 0);
}

TEST(Occupancy, UnknownLimitsOrResourcesGiveZero) {
    EXPECT_EQ(residentBlocksPerSm(OccupancyLimits{}, 256, 32, 0), 0);
    EXPECT_EQ(residentBlocksPerSm(h100(), 256, -1, 0), 0);
    EXPECT_EQ(residentBlocksPerSm(h100(), 4096, 32, 0), 0); // more threads than an SM holds
}

TEST(Occupancy, WavesRoundUp) {
    EXPECT_EQ(waves(264, 2, 132), 1.0);
    EXPECT_EQ(waves(265, 2, 132), 2.0);
    EXPECT_EQ(waves(1, 8, 132), 1.0);
    EXPECT_EQ(waves(100, 0, 132), 0.0);
}

} // namespace
} // namespace roofline::core
