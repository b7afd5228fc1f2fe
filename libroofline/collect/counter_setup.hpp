#pragma once
// A session's counter set-up -- which devices, which metrics, how many passes, aligned passes and
// tensor counters by detection, a counter backend per device -- decided here from the options and
// what the platform says. The platform is the seam: CUDA and CUPTI on a GPU (cuptiPlatform()), a
// fake on the CPU (test/unit/counter_setup_test.cpp).
#include "collect/collector_config.hpp"
#include "collect/session_impl.hpp"

#include <memory>
#include <string>
#include <vector>

namespace roofline::collect {

/// What a device's counter backend is created with.
struct BackendSpec {
    std::string chip;
    std::vector<std::string> metrics; ///< the session's metric order
    std::vector<cupti::Configuration> configurations;
    std::size_t rangesPerImage = 0;
    cupti::RangeMode mode = cupti::RangeMode::AutoUserReplay;
    std::uint16_t levels = 1;
    std::vector<std::string> fallback; ///< what a grown set falls back to (detection)
    bool released = false;             ///< created for the permission check, then released
    bool flushKernels = false;         ///< prepared to flush the L2 before each kernel
};

/// What setting up counters needs from CUDA and CUPTI.
class CounterPlatform {
public:
    virtual ~CounterPlatform() = default;
    /// CUDA devices visible (0: none, never throws).
    virtual int deviceCount() = 0;
    /// Opens device `ordinal` into `device` (its facts, its retained primary context).
    virtual void open(int ordinal, SessionDevice& device) = 0;
    /// CUPTI's profiler initialized, held by `s` until its teardown.
    virtual void initializeProfiler(SessionState& s) = 0;
    virtual std::string chipName(int ordinal) = 0;
    /// A config image of `metrics` on `chip`, and the passes it needs.
    virtual cupti::ConfigImage configImage(const std::string& chip,
                                           const std::vector<std::string>& metrics) = 0;
    /// The launch callbacks subscribed for `s`, held by it.
    virtual void subscribe(SessionState& s) = 0;
    virtual std::unique_ptr<CounterBackend> backend(const SessionDevice& device,
                                                    const BackendSpec& spec) = 0;
};

/// The platform of the process: CUDA's devices, CUPTI's profiler and callbacks.
std::unique_ptr<CounterPlatform> cuptiPlatform();

/// Sets up counter collection on every device the options ask for (`s.devices`, `s.metrics`,
/// `s.passes`, the backends, the tracker) and what the collector needs to know of it in `config`.
/// Throws roofline::Error on the first failure (the session then decides the fallback).
void setUpCounters(SessionState& s, CollectorConfig& config, CounterPlatform& platform);

/// The roofs for `info`: measured ones when `roofline ceilings` cached them for this device,
/// bundled or datasheet ones otherwise (a warning says which when it matters).
Ceilings deviceCeilings(const core::DeviceInfo& info);

} // namespace roofline::collect
