#pragma once
// A session's settings (collect/settings.hpp) resolved once at its start from its options, its
// job and what its devices can do (docs/design/0021). Pure: no CUDA
// (test/unit/settings_test.cpp).
#include "collect/settings.hpp"
#include "core/output_path.hpp"

#include <roofline/options.hpp>

#include <cstddef>
#include <cstdint>
#include <string>

namespace roofline::collect {

/// What the session's devices can do, as far as the settings depend on it.
struct Capabilities {
    /// Every device can flush its L2 before each kernel (the flush kernel loaded). Asked only when
    /// needsKernelFlush(); a session with no device keeps the default.
    bool flushEachKernel = true;
    /// Host memory available to the process (MemAvailable), bytes; 0: unknown.
    std::uint64_t memoryAvailable = 0;
    /// Kernels can be launched again from a recorded window (cupti/relaunch).
    bool relaunchesWindows = false;
    /// The session started at the process's first CUDA call (`roofline run`): every pinned,
    /// mapped or managed allocation is seen.
    bool seesEveryAllocation = false;
};

/// Whether the settings depend on Capabilities::flushEachKernel: ROOFLINE_CACHE_FLUSH=kernel in a
/// mode with a range per launch that replays no kernel (iteration replay).
bool needsKernelFlush(const Options& options, const core::ProcessIdentity& process);

/// Whether the options ask for iteration replay's windows outside the steps
/// (Options::outsideSteps), before the mode and what the devices can do are known: only then is
/// Capabilities::relaunchesWindows asked (it loads CUPTI's checkpoint library).
bool asksWindowsOutsideSteps(const Options& options, bool seesEveryAllocation);

/// The session's settings. Logs each decision that departs from the options (kernel replay
/// refused, reuse off under a launch skip or count, a share refused, a flush moved to the passes).
Settings resolveSettings(const Options& options, const core::ProcessIdentity& process,
                         const Capabilities& capabilities);

} // namespace roofline::collect
