#pragma once
// A session's settings, resolved once at its start (docs/design/0021): the options as given, the
// collection mode its job allows, what the cache flush does on its devices, the image size and the
// ranges one measured launch takes, repeated-launch reuse and the rank's share of it. Read-only
// from then on: the counter set-up, the collector and the recording read them, and nothing writes
// them back. Pure: no CUDA (test/unit/settings_test.cpp).
#include "core/output_path.hpp"

#include <roofline/options.hpp>

#include <cstddef>
#include <cstdint>
#include <string>

namespace roofline::collect {

struct Settings {
    Options options; ///< as given
    /// options.mode, or iteration replay where a job of several ranks refuses kernel replay.
    CollectionMode mode = CollectionMode::IterationReplay;
    /// What the cache flush does (never Auto): Kernel only where a flush kernel precedes each
    /// measured launch inside iteration replay's passes.
    CacheFlush cacheFlush = CacheFlush::Off;
    /// Caches flushed before each pass (before each kernel in kernel replay).
    bool flushPasses = false;
    /// Iteration replay: the L2 flushed before each measured kernel by a kernel whose range is
    /// left out (as ncu's --cache-control all).
    bool flushEachKernel = false;
    /// Ranges a counter-data image holds (options.rangesPerImage; 0 only before resolution).
    std::size_t rangesPerImage = 0;
    /// The most ranges a reuse cycle's image grows to where that takes fewer windows (at least
    /// rangesPerImage): Options::rangesPerImageMax, or from the memory available.
    std::size_t rangesPerImageMax = 0;
    /// Samples per launch signature (design 0009); 0: every launch measured (kernel and scope
    /// replay, or a launch skip or count: each selected launch is measured).
    std::size_t reuseSamples = 0;
    /// Options::shareAcrossRanks in a job of several ranks: this rank's index and the ranks
    /// sharing; shareCount 1: this rank measures everything.
    std::uint32_t shareIndex = 0, shareCount = 1;

    /// Ranges one measured launch takes in a pass: the flush kernel's, then its own.
    std::size_t rangesPerLaunch() const noexcept { return flushEachKernel ? 2 : 1; }
    /// Launches an image of the session's size holds.
    std::size_t launchesPerImage() const noexcept { return rangesPerImage / rangesPerLaunch(); }
};

/// What the session's devices can do, as far as the settings depend on it.
struct Capabilities {
    /// Every device can flush its L2 before each kernel (the flush kernel loaded). Asked only when
    /// needsKernelFlush(); a session with no device keeps the default.
    bool flushEachKernel = true;
    /// Host memory available to the process (MemAvailable), bytes; 0: unknown.
    std::uint64_t memoryAvailable = 0;
};

/// Whether the settings depend on Capabilities::flushEachKernel: ROOFLINE_CACHE_FLUSH=kernel in a
/// mode with a range per launch that replays no kernel (iteration replay).
bool needsKernelFlush(const Options& options, const core::ProcessIdentity& process);

/// The session's settings. Logs each decision that departs from the options (kernel replay
/// refused, reuse off under a launch skip or count, a share refused, a flush moved to the passes).
Settings resolveSettings(const Options& options, const core::ProcessIdentity& process,
                         const Capabilities& capabilities);

} // namespace roofline::collect
