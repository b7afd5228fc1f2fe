#pragma once
// Session internals: the one active session of the process, the per-thread scope stacks and the
// launch list. Locking: one mutex guards the launch list and the profiler state; the ProfileScope
// hot path takes it only when a Session is active.
#include "core/device_info.hpp"
#include "core/metric_catalog.hpp"
#include "core/recording.hpp"
#include "cupti/launch.hpp"
#include "cupti/target.hpp"

#include <roofline/kernel_record.hpp>
#include <roofline/options.hpp>

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace roofline::collect {

struct SessionState {
    std::uint32_t generation = 0; // unique per Session in this process, never 0
    Options options;
    core::DeviceInfo device;
    std::vector<std::string> metrics;
    std::vector<std::uint8_t> configImage;
    std::size_t passes = 0;
    Ceilings ceilings;
    void* context = nullptr;
    bool profilerInitialized = false;
    std::unique_ptr<cupti::LaunchTracker> tracker;
    std::unique_ptr<cupti::RangeProfiler> profiler;

    std::mutex mutex;
    int openScopes = 0;            // across threads; the profiler runs while > 0
    std::size_t graphLaunches = 0; // cuGraphLaunch inside scopes: its kernels are not attributed
    std::size_t profiled = 0;      // launches given a range so far
    bool failed = false;           // a start/stop failed mid-run: no more collection
    std::vector<core::LaunchInfo> launches;
    bool stopped = false;
    core::Recording recorded; // built once by stop(); what save() writes
    std::vector<KernelRecord> records;

    void onPush() noexcept;
    void onPop() noexcept;
    void onLaunch(const cupti::LaunchEvent& event) noexcept;
    /// After teardown(): everything measured, the counter-data image moved out of the profiler.
    core::Recording takeRecording();
    void teardown() noexcept;
};

/// The active session, or null. The ProfileScope hot path reads it with one atomic load.
extern std::atomic<SessionState*> gActive;

/// This thread's open scopes, outermost first, each with the generation of the Session that took
/// it. Paths are built from the active session's entries only.
struct ScopeEntry {
    const char* name;
    std::uint32_t generation;
};
std::vector<ScopeEntry>& threadScopes() noexcept;

} // namespace roofline::collect
