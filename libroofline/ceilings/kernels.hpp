#pragma once
// Microbenchmark kernels behind `roofline ceilings`: each launcher starts one kernel on the
// current device's default stream and returns the cudaError_t of the launch (0: launched). The
// work a launch does is returned by the matching *Work function, counted by hand from the code.
#include <cstdint>
#include <string>

namespace roofline::ceilings {

struct Shape {
    int blocks = 1;
    int threads = 128;
};

/// Written by thread 0 of block 0 at kernel start and end: SM cycles (clock64) and nanoseconds
/// (%globaltimer), whose ratio is the SM clock the kernel ran at.
struct ClockProbe {
    long long cycles0, cycles1, ns0, ns1;
};

// ---- CUDA-core FMA throughput: each thread runs `chains` independent FMA chains ------------
enum class Fma { FP64, FP32, FP16x2 };
constexpr int kFmaUnroll = 16; ///< FMA rounds per loop iteration
int launchFma(Fma kind, int chains, Shape shape, int iters, ClockProbe* probe);
/// FLOPs of one launch (an FMA is 2; an HFMA2 is 4).
double fmaWork(Fma kind, int chains, Shape shape, int iters);

// ---- Tensor-core throughput ------------------------------------------------------------------
/// wgmma (sm_90a) m64n256 per input type; DMMA (mma.sync) for FP64.
enum class Mma { FP16, BF16, TF32, FP8, INT8, FP64_m8n8k4, FP64_m16n8k16 };
constexpr int kMmaUnroll = 8; ///< MMA instructions per loop iteration and accumulator set
/// Whether this build holds the kernel for the device's architecture (wgmma needs sm_90a).
bool mmaBuilt(Mma kind);
int launchMma(Mma kind, int chains, Shape shape, int iters, ClockProbe* probe);
/// FLOPs (INT8: integer ops) of one launch: 2·M·N·K per instruction.
double mmaWork(Mma kind, int chains, Shape shape, int iters);
std::size_t mmaSharedBytes(Mma kind);

// ---- Bandwidth -----------------------------------------------------------------------------
/// Streams `count` float4 from `in` (and to `out` for Copy) `reps` times; ld.global.cg for L2
/// (bypasses L1), default caching for DRAM-sized buffers.
enum class Stream { Read, ReadL2, Copy };
int launchStream(Stream kind, int unroll, Shape shape, const void* in, void* out,
                 std::uint64_t count, int reps);
/// Bytes moved by one launch (reads + writes).
double streamWork(Stream kind, std::uint64_t count, int reps);

/// Each block reads a `windowBytes` window (a power of two, fits in L1 / shared memory) `reps`
/// times with 16-byte loads: ld.global.ca (L1) or ld.shared.
enum class Local { L1, Shared };
int launchLocal(Local kind, Shape shape, const void* in, std::uint32_t windowBytes, int reps);
double localWork(Local kind, Shape shape, int reps);

const char* toString(Fma kind);
const char* toString(Mma kind);
const char* toString(Stream kind);
const char* toString(Local kind);

} // namespace roofline::ceilings
