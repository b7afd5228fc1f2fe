#pragma once
// Two uses of the CUPTI activity API (one set of buffer callbacks for both):
//   KernelTimer: kernel start/end timestamps, for timing-only collection when counters are
//     unavailable (no permission, another profiler, an unsupported chip, a mid-run failure) or
//     when timing only was asked for;
//   JitWatcher: the driver's JIT compilations, which the counter collector must know about
//     (docs/design/0005-code-loaded-while-profiling.md).
//
// Lifecycle: (1) the constructor registers the buffer callbacks and enables its activity kind
// (throws Error); (2) take() / compilations() flush and read what was recorded so far;
// (3) the destructor disables the activity kind (noexcept). One of each per process.
#include <roofline/kernel_record.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace roofline::cupti {

struct KernelTiming {
    std::uint64_t correlationId = 0;
    std::string mangledName;
    Dim3 grid, block;
    std::uint32_t streamId = 0;
    int device = 0;
    double seconds = 0.0;
};

class KernelTimer {
public:
    KernelTimer();
    ~KernelTimer();
    KernelTimer(const KernelTimer&) = delete;
    KernelTimer& operator=(const KernelTimer&) = delete;

    /// Flushes CUPTI's buffers and moves out every kernel completed so far. Never throws.
    std::vector<KernelTiming> take() noexcept;
    /// Activity records CUPTI reported as dropped (buffers full).
    std::uint64_t dropped() const noexcept;
};

/// Counts the JIT compilations of this process: PTX (or NVVM IR) the driver compiled, as opposed
/// to code loaded as machine code or from the JIT cache.
class JitWatcher {
public:
    JitWatcher();
    ~JitWatcher();
    JitWatcher(const JitWatcher&) = delete;
    JitWatcher& operator=(const JitWatcher&) = delete;

    /// Compilations recorded so far, after delivering pending records (a forced flush; called
    /// only when a module was loaded, so rarely). Never throws.
    std::uint64_t compilations() noexcept;
};

} // namespace roofline::cupti
