#pragma once
// One kernel launch, as every layer sees it: what the driver's launch callback reads (kernel,
// grid, block, resources, stream, API call), and where the session places it (device slot,
// device, thread, a graph's kernel node or not). Its identity -- kernel, grid and block -- is
// what replayed passes are checked by and what repeated launches are grouped by. Pure: no CUDA.
#include <roofline/kernel_record.hpp>

#include <cstddef>
#include <cstdint>
#include <string>

namespace roofline::core {

/// A launch's identity: the same kernel with the same grid and block.
struct LaunchKey {
    std::string name; ///< mangled kernel name
    Dim3 grid, block;
};

struct Launch {
    const char* mangledName = ""; ///< valid during the callback only
    Dim3 grid, block;
    std::uint32_t dynamicSharedBytes = 0; ///< the launch's dynamic shared memory
    std::uint32_t staticSharedBytes = 0;  ///< the kernel's static shared memory
    int registers = -1;                   ///< per thread; -1: unknown
    std::uint64_t stream = 0;
    std::uint64_t correlationId = 0; ///< CUPTI's id of the API call (joins activity records)
    // Placed by the session:
    std::size_t slot = 0; ///< device slot (index into the session's devices)
    int device = 0;       ///< CUDA device ordinal
    std::uint64_t threadId = 0;
    bool inGraph = false; ///< a kernel node of a CUDA graph launch (its scope: the launch's)
    /// A kernel node of a CUDA graph: CUPTI's id of the node in the application's graph (the
    /// graph launch's node, or the one a replayed node launch stands for); 0: not a graph's.
    std::uint64_t graphNode = 0;
    /// The driver call making the launch (CUPTI's callback id) and its parameters, valid during
    /// the callback only: what window replay records to launch it again (0 / null: unknown).
    unsigned driverCall = 0;
    const void* driverParams = nullptr;

    std::uint32_t sharedMemBytes() const noexcept { return dynamicSharedBytes + staticSharedBytes; }
    LaunchKey identity() const { return {mangledName, grid, block}; }
};

/// Same x, y and z.
bool sameDim(const Dim3& a, const Dim3& b);
/// "gx×gy×gz" as "4x1x1".
std::string dimText(const Dim3& d);
/// Same grid and block (the kernel aside).
bool sameConfiguration(const LaunchKey& a, const LaunchKey& b);
/// Same kernel, grid and block.
bool sameLaunch(const LaunchKey& a, const LaunchKey& b);
/// "kernel <<<gx×gy×gz, bx×by×bz>>>" with the kernel name demangled.
std::string launchText(const LaunchKey& key);

/// The communication library a kernel belongs to, by its mangled name: "NCCL" (ncclKernel_*,
/// ncclDevKernel_*), "NVSHMEM" (nvshmem*), "PyTorch symmetric memory" (c10d::symmetric_memory);
/// nullptr for any other kernel. Such a kernel waits for its peers' kernels on other GPUs or in
/// other processes, so it must never be replayed alone: a second run would wait for peers that
/// ran once.
const char* communicationLibrary(const char* mangledName) noexcept;

} // namespace roofline::core
