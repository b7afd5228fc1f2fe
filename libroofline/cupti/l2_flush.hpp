#pragma once
// The L2 cache flushed before a kernel, as Nsight Compute's `--cache-control all` does, from
// inside an iteration-replay pass: a kernel of libroofline's own reads a buffer twice the L2's
// size on the kernel's stream, so that the L2 holds only clean lines of that buffer when the
// kernel starts -- it reads its data from DRAM and evicts nothing dirty. Inside an auto-range pass
// the flush kernel gets a range of its own, which the collector leaves out. Measured on the H100
// (docs/calibration/flush_probe.cu): a kernel's DRAM bytes then equal ncu's with its cache control.
//
// Lifecycle: (1) the constructor, with the device's context current and before any range profiler
// exists on it, loads the kernel (PTX, JIT-compiled once: code loaded while a profiler is enabled
// would make it unsafe, design 0005), allocates and clears the buffer and runs the kernel once;
// (2) launch() from a launch callback, the context current, the launching thread marked as
// libroofline's own (OwnLaunches); (3) the destructor frees the buffer and unloads the kernel.
#include <cstdint>

namespace roofline::cupti {

class L2Flush {
public:
    /// Throws Error when the driver cannot load the kernel or allocate the buffer.
    explicit L2Flush(std::uint64_t l2Bytes);
    ~L2Flush();
    L2Flush(const L2Flush&) = delete;
    L2Flush& operator=(const L2Flush&) = delete;

    /// Enqueues the flush on `stream` (a CUstream; 0: the default stream). Never throws; false
    /// when the launch failed.
    bool launch(std::uint64_t stream) noexcept;

private:
    void release() noexcept;

    void* module_ = nullptr;
    void* function_ = nullptr;
    unsigned long long buffer_ = 0, sink_ = 0;
    std::uint64_t vectors_ = 0; // 16-byte elements of the buffer
};

/// While one lives on a thread, the launch callbacks ignore that thread's launches (libroofline's
/// own kernels).
class OwnLaunches {
public:
    OwnLaunches() noexcept;
    ~OwnLaunches();
    OwnLaunches(const OwnLaunches&) = delete;
    OwnLaunches& operator=(const OwnLaunches&) = delete;
    /// This thread is launching libroofline's own kernels.
    static bool active() noexcept;
};

} // namespace roofline::cupti
