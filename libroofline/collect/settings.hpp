#pragma once
// A session's settings, resolved once at its start (session/settings.hpp, docs/design/0021): the
// options as given, the collection mode its job allows, what the cache flush does on its
// devices, the image size and the ranges one measured launch takes, repeated-launch reuse and the
// rank's share of it. Read-only from then on: the counter set-up, the collector (CollectorConfig
// is these settings and what the counter set-up found) and the recording read them, and nothing
// writes them back. Pure: no CUDA.
#include <roofline/options.hpp>

#include <cstddef>
#include <cstdint>

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
    /// Iteration replay: launches no step covers are measured in recorded windows until the
    /// first step begins (Options::outsideSteps, where windows can be relaunched).
    bool windowsOutsideSteps = false;
    /// Ranges the image of those windows holds (a small image costs less at each profiler
    /// object's first Start); 0: the session's image.
    std::size_t windowRangesPerImage = 0;

    /// Ranges one measured launch takes in a pass: the flush kernel's, then its own.
    std::size_t rangesPerLaunch() const noexcept { return flushEachKernel ? 2 : 1; }
    /// Launches an image of the session's size holds.
    std::size_t launchesPerImage() const noexcept { return rangesPerImage / rangesPerLaunch(); }
};

} // namespace roofline::collect
