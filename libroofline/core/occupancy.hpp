#pragma once
// Resident blocks per SM and waves of a launch, by the occupancy rules of the device (the CUDA
// occupancy calculator's): warps, blocks, registers and shared memory per SM each limit how many
// blocks of a launch fit on one SM at a time. For SEER's model and the records.
#include <cstdint>

namespace roofline::core {

/// Per-SM limits of a device (cuDeviceGetAttribute) and its allocation granularities.
struct OccupancyLimits {
    int maxThreadsPerSm = 0;
    int maxBlocksPerSm = 0;
    int registersPerSm = 0;
    int sharedBytesPerSm = 0; ///< the largest shared-memory carveout
    int reservedSharedPerBlock =
        0;                         ///< the driver's own shared memory in each block (sm_80+: 1 KiB)
    int registerUnitPerWarp = 256; ///< registers are allocated per warp in this many
    int sharedUnit = 128;          ///< shared memory is allocated per block in this many bytes
    bool known() const noexcept { return maxThreadsPerSm > 0 && maxBlocksPerSm > 0; }
};

/// Blocks of `threadsPerBlock` threads, `registersPerThread` registers each and `sharedBytes`
/// shared memory (static + dynamic) that fit on one SM at once; 0 when a block cannot fit at all
/// or the limits (or the kernel's resources) are unknown (registersPerThread < 0).
int residentBlocksPerSm(const OccupancyLimits& limits, std::uint64_t threadsPerBlock,
                        int registersPerThread, std::uint64_t sharedBytes) noexcept;

/// ceil(blocks / (resident per SM x SMs)); 0 when resident or SMs is 0.
double waves(std::uint64_t blocks, int residentPerSm, int smCount) noexcept;

} // namespace roofline::core
