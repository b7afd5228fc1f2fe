#pragma once
// Calibration kernels of the instruction roofline (docs/design/0023), each with counts worked out
// by hand: global loads at a stride, shared-memory loads with n-way bank conflicts, a divergent
// branch and an integer-only kernel. Each launches on the default stream inside ProfileScope
// "instructions/<name>" and returns the launch's error.
#include <cuda_runtime.h>

namespace calibration {

/// Warps of every instruction kernel: 264 blocks of 256 threads (8 warps each).
inline constexpr int kInstructionBlocks = 264;
inline constexpr int kInstructionThreadsPerBlock = 256;
inline constexpr double kInstructionWarps = kInstructionBlocks * kInstructionThreadsPerBlock / 32;
/// Shared-memory loads per thread of the conflict kernels.
inline constexpr int kSharedLoads = 64;
/// FFMAs per active thread of the divergent kernel's branch, and the active lanes of each warp.
inline constexpr int kDivergentFmas = 256;
inline constexpr int kDivergentLanes = 8;

struct InstructionBuffers {
    InstructionBuffers();
    ~InstructionBuffers();
    InstructionBuffers(const InstructionBuffers&) = delete;
    InstructionBuffers& operator=(const InstructionBuffers&) = delete;
    float* in = nullptr;  ///< 32 floats per thread of the grid (stride 32's reach)
    float* out = nullptr; ///< one per thread
};

/// Each thread loads one float at (thread index x stride) and stores it at its own index: one
/// load and one store request per warp; the load touches min(32, 4 x stride) sectors (stride 1,
/// 2, 8, 32: 4, 8, 32, 32), the store 4. Scope "instructions/stride<N>".
cudaError_t launchStrided(const InstructionBuffers& b, int stride);
/// Blocks of one warp fill 1088 shared floats without conflict (34 stores per thread), then load
/// kSharedLoads words at (lane x way + r): a `way`-way bank conflict on every load (1, 2, 8, 32).
/// Scope "instructions/shared<N>way".
cudaError_t launchSharedConflicts(const InstructionBuffers& b, int way);
/// kDivergentLanes lanes of each warp run kDivergentFmas dependent FFMAs, the others skip them.
/// Scope "instructions/divergent".
cudaError_t launchDivergent(const InstructionBuffers& b);
/// A 32-bit xorshift hash per thread (64 rounds) stored as an integer: no floating-point
/// instruction. Scope "instructions/integer".
cudaError_t launchIntegerOnly(const InstructionBuffers& b);
/// All of the above in order: stride 1, 2, 8, 32; shared 1, 2, 8, 32-way; divergent; integer.
cudaError_t runInstructionSuite(const InstructionBuffers& b);

} // namespace calibration
