#pragma once
// The CUPTI range profiler on one CUDA context, in one of three configurations:
//   auto range + kernel replay: one range per kernel; CUPTI replays each kernel once per pass,
//                               saving and restoring device memory;
//   auto range + user replay:   one range per kernel; the application runs the region once per
//                               pass (Start ... Stop) until stop() reports all passes submitted;
//   user range + user replay:   one range per pushRange()/popRange() pair, nesting levels
//                               1..levels, each level costing a full set of passes.
//
// Lifecycle: (1) construct: Enable on the context, size a counter-data image per configuration;
// (2) configure(): (re)initialize the current configuration's image and SetConfig at pass 0 --
// call again to reuse the image once its ranges were evaluated; select(i) does the same for
// configuration i (aligned replay: one configuration per pass, switched only once every pass of
// the previous one is in; a fresh profiler object each time); (3) start()/stop() around each window
// or pass; (4) decode() moves the collected data into the image; (5) disable() (idempotent,
// noexcept, also run by the destructor) releases the profiler object.
//
// Config images and counter-data buffers live as long as the RangeProfiler and never move: CUPTI
// keeps pointers to what SetConfig was given, so switching configurations never frees or
// reallocates a buffer it may still hold. Probed on the H100: start/stop/decode/configure may be
// called from inside a driver launch callback (docs/design/0002-collector.md).
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

struct CUpti_RangeProfiler_Object; // CUPTI's opaque handle, declared here to keep cupti headers out

namespace roofline::cupti {

enum class RangeMode { AutoKernelReplay, AutoUserReplay, UserUserReplay };

/// Metrics and the config image CUPTI's host API built for them.
struct Configuration {
    std::vector<std::string> metrics;
    std::vector<std::uint8_t> image;
};

class RangeProfiler {
public:
    /// `suspended`: the object is created (what CUPTI refuses without profiling permission, it
    /// refuses here) and released at once, unconfigured: resume() or start() create it again.
    RangeProfiler(void* context, std::vector<Configuration> configurations, std::size_t maxRanges,
                  RangeMode mode, std::uint16_t nestingLevels = 1, bool suspended = false);
    ~RangeProfiler();
    RangeProfiler(const RangeProfiler&) = delete;
    RangeProfiler& operator=(const RangeProfiler&) = delete;

    /// Fresh counter-data image and SetConfig at pass 0, for the current configuration.
    void configure();
    /// Makes configuration `index` current and configures it; another configuration than the
    /// current one re-creates the profiler object (CUPTI applies a config image only to a fresh
    /// object), so only between complete groups of passes.
    void select(std::size_t index);
    std::size_t configurations() const noexcept { return configs_.size(); }
    /// Adds configurations after the existing ones (the current one and its object stay).
    void appendConfigurations(std::vector<Configuration> more);
    /// Replaces every configuration and re-creates the profiler object at `index`, fresh image at
    /// pass 0 (the passes collected so far are lost). While suspended no object is created:
    /// resume() or start() create it with these.
    void replaceConfigurations(std::vector<Configuration> configurations, std::size_t index = 0);
    std::size_t current() const noexcept { return current_; }
    const std::vector<std::string>& metrics() const noexcept { return configs_[current_].metrics; }
    const std::vector<std::string>& metricsOf(std::size_t index) const {
        return configs_.at(index).metrics;
    }
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
    /// Disables and enables the profiler object again, at configuration 0 with a fresh image at
    /// pass 0: the passes
    /// collected so far are lost. Needed after code was loaded while it was enabled
    /// (docs/design/0005-code-loaded-while-profiling.md).
    void reenable(std::size_t configuration = 0);

    /// Releases the profiler object and the counter-data images -- CUPTI's memory per range goes
    /// with them -- between groups (`maxRanges` > 0: what the next image holds). While suspended,
    /// configure(), select() and reenable() only choose the configuration; resume() (or start())
    /// creates the fresh object at pass 0.
    void suspend(std::size_t maxRanges);
    void resume();
    bool suspended() const noexcept { return object_ == nullptr; }

    /// The current configuration's counter-data image.
    const std::vector<std::uint8_t>& counterData() const noexcept { return counterData_[current_]; }
    std::size_t capacity() const noexcept { return maxRanges_; }
    RangeMode mode() const noexcept { return mode_; }

private:
    void enable(bool configureIt = true);
    void recreate(std::size_t index);
    void disableOrThrow(const char* what);
    std::size_t counterDataSize(std::size_t config);

    ::CUpti_RangeProfiler_Object* object_ = nullptr;
    void* context_;
    std::vector<Configuration> configs_;
    std::vector<std::vector<std::uint8_t>> counterData_; // one per configuration
    std::size_t current_ = 0;
    bool sized_ = false; // the object's counter-data size was queried (for current_)
    std::size_t maxRanges_;
    RangeMode mode_;
    std::uint16_t levels_;
    bool running_ = false;
};

} // namespace roofline::cupti
