#include "core/occupancy.hpp"

#include <algorithm>

namespace roofline::core {
namespace {
std::uint64_t roundUp(std::uint64_t v, std::uint64_t unit) {
    return unit == 0 ? v : (v + unit - 1) / unit * unit;
}
} // namespace

int residentBlocksPerSm(const OccupancyLimits& limits, std::uint64_t threadsPerBlock,
                        int registersPerThread, std::uint64_t sharedBytes) noexcept {
    if (!limits.known() || threadsPerBlock == 0 || registersPerThread < 0 ||
        threadsPerBlock > static_cast<std::uint64_t>(limits.maxThreadsPerSm))
        return 0;
    const std::uint64_t warpsPerBlock = (threadsPerBlock + 31) / 32;
    std::uint64_t blocks = static_cast<std::uint64_t>(limits.maxBlocksPerSm);
    blocks =
        std::min(blocks, static_cast<std::uint64_t>(limits.maxThreadsPerSm / 32) / warpsPerBlock);
    if (registersPerThread > 0 && limits.registersPerSm > 0) {
        const std::uint64_t perWarp =
            roundUp(static_cast<std::uint64_t>(registersPerThread) * 32,
                    static_cast<std::uint64_t>(limits.registerUnitPerWarp));
        const std::uint64_t warps = static_cast<std::uint64_t>(limits.registersPerSm) / perWarp;
        blocks = std::min(blocks, warps / warpsPerBlock);
    }
    if (limits.sharedBytesPerSm > 0) {
        const std::uint64_t perBlock =
            roundUp(sharedBytes + static_cast<std::uint64_t>(limits.reservedSharedPerBlock),
                    static_cast<std::uint64_t>(limits.sharedUnit));
        if (perBlock > 0)
            blocks =
                std::min(blocks, static_cast<std::uint64_t>(limits.sharedBytesPerSm) / perBlock);
    }
    return static_cast<int>(blocks);
}

double waves(std::uint64_t blocks, int residentPerSm, int smCount) noexcept {
    if (residentPerSm <= 0 || smCount <= 0)
        return 0;
    const std::uint64_t perWave =
        static_cast<std::uint64_t>(residentPerSm) * static_cast<std::uint64_t>(smCount);
    return static_cast<double>((blocks + perWave - 1) / perWave);
}

} // namespace roofline::core
