#pragma once
// The CUPTI range profiler on one CUDA context, auto range + kernel replay: one range per kernel,
// CUPTI replays each kernel once per pass (saving and restoring device memory).
//
// Lifecycle: (1) construct: Enable on the context, size and initialize the counter-data image,
// SetConfig; (2) start()/stop() around each profiled window (stop() also decodes into the image;
// ranges accumulate); (3) counterData() is evaluated by the Host; (4) disable() (idempotent,
// noexcept, also run by the destructor) releases the profiler object.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

struct CUpti_RangeProfiler_Object; // CUPTI's opaque handle, declared here to keep cupti headers out

namespace roofline::cupti {

class RangeProfiler {
public:
    RangeProfiler(void* context, const std::vector<std::string>& metrics,
                  std::vector<std::uint8_t> configImage, std::size_t maxRanges);
    ~RangeProfiler();
    RangeProfiler(const RangeProfiler&) = delete;
    RangeProfiler& operator=(const RangeProfiler&) = delete;

    void start();
    /// Stops collection and decodes what was collected into the counter-data image.
    void stop();
    bool running() const noexcept { return running_; }
    /// Releases the CUPTI object; stops first if needed. Logs failures; safe to call again.
    void disable() noexcept;

    const std::vector<std::uint8_t>& counterData() const noexcept { return counterData_; }
    /// Moves the image out (after disable(): CUPTI no longer writes to it).
    std::vector<std::uint8_t> takeCounterData() noexcept { return std::move(counterData_); }
    std::size_t droppedRanges() const noexcept { return dropped_; }
    std::size_t capacity() const noexcept { return maxRanges_; }

private:
    ::CUpti_RangeProfiler_Object* object_ = nullptr;
    std::vector<std::uint8_t> configImage_;
    std::vector<std::uint8_t> counterData_;
    std::size_t maxRanges_;
    std::size_t dropped_ = 0;
    bool running_ = false;
};

} // namespace roofline::cupti
