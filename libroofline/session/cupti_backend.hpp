#pragma once
// The real CounterBackend: a cupti::RangeProfiler on one context, evaluated by a cupti::Host.
// Calls run with the device's context current (pushed and popped around each call). With several
// configurations (aligned replay) each evaluates its own metrics into the session's order.
#include "collect/backend.hpp"
#include "collect/backend_spec.hpp"
#include "core/stopwatch.hpp"
#include "cupti/host.hpp"
#include "cupti/l2_flush.hpp"
#include "cupti/relaunch.hpp"
#include "cupti/target.hpp"

#include <memory>

namespace roofline::collect {

class CuptiBackend final : public CounterBackend {
public:
    /// The backend of the context as `spec` says (collect/backend_spec.hpp); `l2Bytes`: what a
    /// flush before a pass evicts; `kernelFlush`: the flush kernel for flushBeforeLaunch(),
    /// loaded before this profiler exists (null: no flush before each kernel).
    CuptiBackend(void* context, const BackendSpec& spec, std::uint64_t l2Bytes,
                 std::unique_ptr<cupti::L2Flush> kernelFlush = nullptr);
    ~CuptiBackend() override;

    std::size_t capacity() const noexcept override { return profiler_->capacity(); }
    void configure() override;
    void start() override;
    bool stop() override;
    void pushRange(const std::string& name) override;
    void popRange() override;
    std::size_t decode() override;
    std::vector<RangeValues> evaluate() override;
    std::size_t configurations() const noexcept override { return profiler_->configurations(); }
    void selectConfiguration(std::size_t index) override;
    std::size_t imageSize() const noexcept override { return profiler_->counterData().size(); }
    std::vector<std::uint8_t> imageBytes() const override { return profiler_->counterData(); }
    void flushCaches() noexcept override;
    void flushBeforeLaunch(std::uint64_t stream) noexcept override;
    std::size_t addMetrics(const std::vector<std::string>& metrics) override;
    std::size_t prepareAligned() override;
    /// What configuration 0 collects.
    const std::vector<std::string>& collected() const;
    void reenable(std::size_t configuration) override;
    void release(std::size_t ranges) override;
    bool released() const noexcept override { return profiler_->suspended(); }
    void acquire() override;
    void disable() noexcept override { profiler_->disable(); }
    BackendCost cost() const noexcept override { return cost_; }
    std::vector<double> peakValues() const override { return peaks_; }
    bool recordLaunch(const core::Launch& l, std::string& why) override;
    bool launchArguments(const core::Launch& l, std::string& bytes) override;
    bool checkpointsFit(std::string& why) override;
    void saveMemory(bool after) override;
    void restoreMemory(bool after) override;
    void relaunchRecorded() override;
    void synchronize() override;
    void forgetWindow() noexcept override;
    /// True on a thread that is inside one of the backend's CUPTI/driver calls (code the
    /// profiler loads for itself is not the application's).
    static bool insideCall() noexcept;

private:
    /// A profiler object was created since `since` (a re-creation, for the cost summary).
    void created(core::SteadyClock::time_point since) noexcept;
    /// Waits for the context's work (throws roofline::Error).
    void wait();

    void* context_;
    std::vector<std::string> metrics_;
    std::vector<std::string> fallback_;
    std::size_t alignedPasses_ = 0; // configurations 1..n together (0: not built)
    cupti::Host host_;
    std::unique_ptr<cupti::RangeProfiler> profiler_;
    std::uint64_t l2Bytes_;
    unsigned long long flushBuffer_ = 0;
    std::unique_ptr<cupti::L2Flush> kernelFlush_; // flushBeforeLaunch()'s kernel
    BackendCost cost_;
    std::size_t imagePasses_ = 0; // passes stopped on the current image since it was configured
    bool freshObject_ = true; ///< the profiler object has not started yet
    core::SteadyClock::time_point passBegan_{};
    std::vector<std::string> peakMetrics_;        // core::peakMetrics for the chip
    std::vector<double> peaks_;                   // their values, from the first image with a range
    std::vector<cupti::RecordedLaunch> recorded_; // window replay: the window's launches
    std::unique_ptr<cupti::Checkpoint> before_, after_; // and the memory around it
};

} // namespace roofline::collect
