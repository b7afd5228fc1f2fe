#pragma once
// A session's counter set-up -- which devices, which metrics, how many passes, aligned passes and
// tensor counters by detection, a counter backend per device -- decided here from the options and
// what the platform says. The platform is the seam: CUDA and CUPTI on a GPU (cuptiPlatform()), a
// fake on the CPU (test/unit/counter_setup_test.cpp).
#include "collect/backend_spec.hpp"
#include "collect/collector_config.hpp"
#include "session/sampled_run.hpp"
#include "session/session_devices.hpp"
#include "session/settings.hpp"
#include "cupti/host.hpp"
#include "cupti/target.hpp"

#include <memory>
#include <string>
#include <vector>

namespace roofline::collect {

struct SessionState; // session/session_state.hpp

/// What setting up counters needs from CUDA and CUPTI.
class CounterPlatform {
public:
    virtual ~CounterPlatform() = default;
    /// CUDA devices visible (0: none, never throws).
    virtual int deviceCount() = 0;
    /// Opens device `ordinal` into `device` (its facts, its retained primary context).
    virtual void open(int ordinal, SessionDevice& device) = 0;
    /// CUPTI's profiler initialized, held by `s` until its teardown.
    virtual void initializeProfiler(SessionDevices& s) = 0;
    virtual std::string chipName(int ordinal) = 0;
    /// Prepares `device` to flush its L2 before each kernel (CUDA: the flush kernel loaded before
    /// any profiler exists on the context, kept in the device until its backend takes it); false,
    /// with a warning that says why, when it cannot.
    virtual bool prepareKernelFlush(SessionDevice& device) = 0;
    /// Whether kernels can be launched again from a recorded window under a device-memory
    /// checkpoint (window replay, and iteration replay's launches outside the steps).
    virtual bool relaunchesWindows() { return false; }
    /// A config image of `metrics` on `chip`, and the passes it needs.
    virtual cupti::ConfigImage configImage(const std::string& chip,
                                           const std::vector<std::string>& metrics) = 0;
    /// The launch callbacks subscribed, each launch to `sink` with `user`; held by `s`.
    virtual void subscribe(SessionDevices& s, cupti::LaunchSink sink, void* user) = 0;
    /// The backend of `device` (which it takes the prepared flush kernel from).
    virtual std::unique_ptr<CounterBackend> backend(SessionDevice& device,
                                                    const BackendSpec& spec) = 0;
    /// The sampling mode's sources on `device`: `metrics` sampled every `periodNs` (throws
    /// roofline::Error naming what refused them).
    virtual std::unique_ptr<SampleSources> sampleSources(SessionDevice& device,
                                                         const std::string& chip,
                                                         const std::vector<std::string>& metrics,
                                                         std::uint64_t periodNs);
    /// The kernels' activity records alone (sampling refused): steps get times, no counters.
    virtual std::unique_ptr<SampleSources> activitySources();
};

/// The platform of the process: CUDA's devices, CUPTI's profiler and callbacks.
std::unique_ptr<CounterPlatform> cuptiPlatform();

/// Sets up counter collection on every device `options` ask for: the devices opened, the
/// session's settings resolved with what they can do (`s.settings`, once), then `s.metrics`,
/// `s.passes`, the backends, the tracker, and the collector's configuration (`config`). Throws
/// roofline::Error on the first failure (the session then decides the fallback; `s.settings` is
/// resolved by then unless opening a device failed).
void setUpCounters(SessionState& s, const Options& options, CollectorConfig& config,
                   CounterPlatform& platform);
/// The sampling mode's set-up (docs/design/0029): the device opened, the settings resolved,
/// CUPTI's profiler initialized, the chip's sampling set on a PM sampler (or, where the sampler is
/// refused, activity records alone, with a warning), the recording opened at `s.outputPath`,
/// sampling started, the launch callbacks subscribed; `config.steps` is the run's series. Throws
/// roofline::Error as setUpCounters does.
void setUpSampling(SessionState& s, const Options& options, CollectorConfig& config,
                   CounterPlatform& platform);
/// Where the launch callbacks of session `s` go (CounterPlatform::subscribe's sink, `s` its user).
void launchSink(const cupti::LaunchEvent& event, void* s) noexcept;

/// The roofs for `info`: measured ones when `roofline ceilings` cached them for this device,
/// bundled or datasheet ones otherwise (a warning says which when it matters).
Ceilings deviceCeilings(const core::DeviceInfo& info);

} // namespace roofline::collect
