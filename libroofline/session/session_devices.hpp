#pragma once
// The parts of a session's state that the counter set-up fills (session/counter_setup): its
// devices, their metrics and passes, CUPTI's profiler and the launch subscription, and what
// setting them up cost. The session (session/session_state.hpp) is made of these and its lifecycle.
#include "collect/backend.hpp"
#include "core/device_info.hpp"
#include "cupti/device.hpp"
#include "cupti/l2_flush.hpp"
#include "cupti/launch.hpp"

#include <roofline/kernel_record.hpp>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace roofline::collect {

struct SessionDevice {
    core::DeviceInfo info;
    cupti::PrimaryContext context;           ///< retained while the session holds the device
    std::unique_ptr<CounterBackend> backend; ///< CuptiBackend on a GPU
    /// The L2 flush kernel, prepared before the backend exists and then taken by it.
    std::unique_ptr<cupti::L2Flush> kernelFlush;
};

/// The devices a session profiles and what the counter set-up put in place on them.
struct SessionDevices {
    std::vector<SessionDevice> devices;
    std::vector<std::string> metrics;
    std::vector<std::uint8_t> configImage;
    std::size_t passes = 0;
    std::size_t configurations = 0; ///< aligned replay's configurations (0: none)
    bool tensorDetection = false;   ///< tensor counters by detection (design 0008)
    Ceilings ceilings;
    std::optional<cupti::ProfilerInitialization> profiler; ///< CUPTI's, while counters are set up
    std::unique_ptr<cupti::LaunchTracker> tracker;         ///< the launch callbacks
};

/// What setting up counters cost (the summary at the stop).
struct SetupTimings {
    double setupMs = 0; ///< counter set-up (device, profiler, config images, backends)
    /// Of which: opening the devices, initializing CUPTI's profiler, building config images on
    /// the host, subscribing to launches, creating the range profilers.
    double deviceMs = 0, cuptiInitMs = 0, configImagesMs = 0, trackerMs = 0, profilersMs = 0;
};

} // namespace roofline::collect
