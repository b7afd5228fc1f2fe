#pragma once
// KernelTimer: kernel start/end timestamps from the CUPTI activity API, for timing-only collection
// when counters are unavailable (no permission, another profiler, an unsupported chip, a mid-run
// failure) or when timing only was asked for.
//
// Lifecycle: (1) the constructor registers the buffer callbacks (once per process) and enables
// kernel activity (throws Error); (2) take() flushes and reads what was recorded so far; (3) the
// destructor disables kernel activity (noexcept). One per process. Every call here uses CUPTI,
// which attaches it again where a finished profile detached it: a session takes and destroys
// its timer before it detaches CUPTI, never after.
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
    std::uint64_t startNs = 0; ///< GPU timestamp: orders the kernels of one graph launch
    std::uint64_t endNs = 0;   ///< GPU timestamp, the clock of startNs and of PM samples
};

class KernelTimer {
public:
    KernelTimer();
    ~KernelTimer();
    KernelTimer(const KernelTimer&) = delete;
    KernelTimer& operator=(const KernelTimer&) = delete;

    /// Flushes CUPTI's buffers and moves out every kernel recorded so far. Never throws.
    /// `forced`: every buffer, those holding kernels still running included (their records come
    /// with a zero start or end: CUPTI does not deliver them again); else only buffers whose
    /// records are all complete (what a periodic reader asks for).
    std::vector<KernelTiming> take(bool forced = true) noexcept;
    /// Activity records CUPTI reported as dropped (buffers full).
    std::uint64_t dropped() const noexcept;
    /// Kernel activity turned on or off (process-wide; ~10 us on the H200). Called inside a
    /// launch's API-enter callback, it decides whether that launch's kernel is recorded.
    /// Never throws: a failure is logged and leaves the state as it was.
    void record(bool on) noexcept;
};

/// CUPTI's clock, the one of the activity records' timestamps (cuptiGetTimestamp); 0 on failure.
std::uint64_t timestampNs() noexcept;

} // namespace roofline::cupti
