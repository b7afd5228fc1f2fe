#pragma once
// Known work of the calibration kernels (calibration/kernels.cu), counted by hand. Shared by the
// GPU tests (live) and the CPU fixture test (the committed H100 recording), so both check the
// same numbers. Each kernel keeps 4 independent chains per thread, loaded from and stored to
// memory, so the compiler can neither merge nor drop them and adds no other arithmetic.
#include <cstdint>

namespace calibration {

constexpr std::uint32_t kGrid = 264; // 2 blocks per SM on a 132-SM H100
constexpr std::uint32_t kBlock = 256;
constexpr std::uint64_t kThreads = std::uint64_t{kGrid} * kBlock;
constexpr std::uint64_t kIterations = 1024;
constexpr std::uint64_t kChains = 4;

// FP32: one FFMA per chain per iteration, 2 FLOPs each.
constexpr double kFfmaFlops = 2.0 * kThreads * kIterations * kChains;
// FP64: one DFMA per chain per iteration.
constexpr double kDfmaFlops = 2.0 * kThreads * kIterations * kChains;
// FP16: one HFMA2 (two lanes) per chain per iteration: 4 FLOPs per instruction.
constexpr double kHfma2Instructions = 1.0 * kThreads * kIterations * kChains;
constexpr double kHfma2Flops = 4.0 * kHfma2Instructions;

// Tensor FP16: each warp issues kMmaIterations wmma 16x16x16 (2*16*16*16 FLOPs).
constexpr std::uint32_t kMmaGrid = 132;
constexpr std::uint32_t kMmaBlock = 128; // 4 warps
constexpr std::uint64_t kMmaIterations = 256;
constexpr double kMmaWarps = kMmaGrid * kMmaBlock / 32;
constexpr double kMmaFlops = 2.0 * 16 * 16 * 16 * kMmaIterations * kMmaWarps;
// The other WMMA types: BF16 16x16x16, TF32 16x16x8, FP64 8x8x4, INT8 16x16x16 (operations).
constexpr double kMmaBf16Flops = 2.0 * 16 * 16 * 16 * kMmaIterations * kMmaWarps;
constexpr double kMmaTf32Flops = 2.0 * 16 * 16 * 8 * kMmaIterations * kMmaWarps;
constexpr double kMmaFp64Flops = 2.0 * 8 * 8 * 4 * kMmaIterations * kMmaWarps;
constexpr double kMmaInt8Ops = 2.0 * 16 * 16 * 16 * kMmaIterations * kMmaWarps;

// Device-to-device copy with float4 loads/stores: every byte read once and written once.
constexpr std::uint64_t kCopyBytes = 256ull << 20;
constexpr double kCopyTraffic = 2.0 * kCopyBytes;

} // namespace calibration
