#pragma once
// The CUPTI range profiler on one CUDA context, in one of three configurations:
//   auto range + kernel replay: one range per kernel; CUPTI replays each kernel once per pass,
//                               saving and restoring device memory;
//   auto range + user replay:   one range per kernel; the application runs the region once per
//                               pass (Start ... Stop) until stop() reports all passes submitted;
//   user range + user replay:   one range per pushRange()/popRange() pair, nesting levels
//                               1..levels, each level costing a full set of passes.
//
// Lifecycle: (1) construct: Enable on the context, size the counter-data image; (2) configure():
// (re)initialize the image and SetConfig at pass 0 -- call again to reuse the image once its
// ranges were evaluated; (3) start()/stop() around each window or pass; (4) decode() moves the
// collected data into the image; (5) disable() (idempotent, noexcept, also run by the destructor)
// releases the profiler object. Probed on the H100: start/stop/decode/configure may be called
// from inside a driver launch callback (docs/design/0002-collector.md).
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

struct CUpti_RangeProfiler_Object; // CUPTI's opaque handle, declared here to keep cupti headers out

namespace roofline::cupti {

enum class RangeMode { AutoKernelReplay, AutoUserReplay, UserUserReplay };

class RangeProfiler {
public:
    RangeProfiler(void* context, const std::vector<std::string>& metrics,
                  std::vector<std::uint8_t> configImage, std::size_t maxRanges, RangeMode mode,
                  std::uint16_t nestingLevels = 1);
    ~RangeProfiler();
    RangeProfiler(const RangeProfiler&) = delete;
    RangeProfiler& operator=(const RangeProfiler&) = delete;

    /// Fresh counter-data image and SetConfig at pass 0.
    void configure();
    void start();
    /// Ends the window or pass. Returns true when every pass of the group was submitted
    /// (always true in kernel replay).
    bool stop();
    void pushRange(const char* name);
    void popRange();
    /// Moves collected data into the image; returns the ranges CUPTI dropped.
    std::size_t decode();
    bool running() const noexcept { return running_; }
    /// Releases the CUPTI object; stops first if needed. Logs failures; safe to call again.
    void disable() noexcept;
    /// Disables and enables the profiler object again, with a fresh image at pass 0: the passes
    /// collected so far are lost. Needed after code was loaded while it was enabled
    /// (docs/design/0005-code-loaded-while-profiling.md).
    void reenable();

    const std::vector<std::uint8_t>& counterData() const noexcept { return counterData_; }
    std::size_t capacity() const noexcept { return maxRanges_; }
    RangeMode mode() const noexcept { return mode_; }

private:
    void enable();

    ::CUpti_RangeProfiler_Object* object_ = nullptr;
    void* context_;
    std::vector<std::string> metrics_;
    std::vector<std::uint8_t> configImage_;
    std::vector<std::uint8_t> counterData_;
    std::size_t maxRanges_;
    RangeMode mode_;
    std::uint16_t levels_;
    bool running_ = false;
};

} // namespace roofline::cupti
