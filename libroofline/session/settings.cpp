#include "session/settings.hpp"
#include "collect/mode.hpp"

#include "core/log.hpp"

#include <algorithm>
#include <cstdint>

namespace roofline::collect {
namespace {

constexpr std::size_t kWindowRangesPerImage = 32;

CollectionMode jobMode(const Options& options, const core::ProcessIdentity& process,
                       std::string* refused) {
    return modeForJob(options.mode, process.worldSize, refused);
}

// Options::shareAcrossRanks for `process`: its share, or the reason it measures everything.
void share(Settings& s, const core::ProcessIdentity& process) {
    if (!s.options.shareAcrossRanks)
        return;
    std::string why;
    if (s.reuseSamples == 0 || !modeFacts(s.mode).measuresAgain)
        why = "it needs iteration replay with reuse (ROOFLINE_REUSE above 0)";
    else if (process.rank < 0 || process.worldSize < 2)
        why = "the launcher named no rank and world size above 1 (RANK and WORLD_SIZE, "
              "OMPI_COMM_WORLD_RANK and _SIZE, PMI_RANK and _SIZE, SLURM_PROCID and SLURM_NTASKS)";
    else if (process.rank >= process.worldSize)
        why = "rank " + std::to_string(process.rank) + " is not below the world size " +
              std::to_string(process.worldSize);
    if (!why.empty()) {
        core::log().warn("libroofline: ROOFLINE_SHARE_RANKS: this rank measures everything: {}",
                         why);
        return;
    }
    s.shareIndex = static_cast<std::uint32_t>(process.rank);
    s.shareCount = static_cast<std::uint32_t>(process.worldSize);
    core::log().info("libroofline: rank {} of {} measures the launch signatures first seen in its "
                     "share of an iteration; `roofline merge` fills in the others' counters",
                     process.rank, process.worldSize);
}

// The most ranges a reuse cycle's image grows to by default: 1/32 of the host memory available,
// at ~2 MiB per range (the image's ~0.6 MB with the full set and CUPTI's ~1.4 MiB), at most 1024
// ranges (~2 GiB, where 64 GiB are available): a framework's step of ~700 launches, nearly all
// needed, is then one window across the step's end rather than two chained (the PyTorch GPT-2
// step: 7 iterations instead of 9, as many ranges, +570 MiB). Memory unknown: the image stays at
// rangesPerImage.
std::size_t autoRangesPerImageMax(const Capabilities& capabilities) {
    constexpr std::uint64_t kBytesPerRange = 2ull << 20;
    constexpr std::uint64_t kMost = 1024;
    return static_cast<std::size_t>(
        std::min(kMost, capabilities.memoryAvailable / 32 / kBytesPerRange));
}

// A flush kernel can precede each measured launch inside the passes: a mode with a range per
// launch that replays no kernel and relaunches no window (iteration replay).
bool flushKernelFits(const ModeFacts& facts) {
    return facts.rangePerLaunch && !facts.replaysKernels && !facts.relaunchesWindows;
}

} // namespace

bool needsKernelFlush(const Options& options, const core::ProcessIdentity& process) {
    return options.cacheFlush == CacheFlush::Kernel &&
           flushKernelFits(modeFacts(jobMode(options, process, nullptr)));
}

bool asksWindowsOutsideSteps(const Options& options, bool seesEveryAllocation) {
    return !options.timingOnly &&
           (options.outsideSteps == OutsideSteps::Window ||
            (options.outsideSteps == OutsideSteps::Auto && seesEveryAllocation));
}

Settings resolveSettings(const Options& options, const core::ProcessIdentity& process,
                         const Capabilities& capabilities) {
    Settings s;
    s.options = options;
    std::string refused;
    s.mode = jobMode(options, process, &refused);
    if (!refused.empty())
        core::log().warn("libroofline: {}", refused);
    const ModeFacts facts = modeFacts(s.mode);

    // The cache flush: Auto is on where kernels are replayed (each starts from the cache its
    // first run found), off otherwise.
    s.cacheFlush = options.cacheFlush;
    if (s.cacheFlush == CacheFlush::Auto)
        s.cacheFlush = facts.replaysKernels ? CacheFlush::On : CacheFlush::Off;
    s.flushPasses = s.cacheFlush == CacheFlush::On;
    if (s.cacheFlush == CacheFlush::Kernel) {
        // Before each kernel: kernel replay flushes so anyway; inside iteration replay's passes
        // a flush kernel precedes each launch; scope replay's ranges would count a flush kernel
        // in the scope, so it flushes before each pass.
        s.flushEachKernel = flushKernelFits(facts);
        s.flushPasses = !s.flushEachKernel;
        if (!facts.rangePerLaunch)
            core::log().info("libroofline: ROOFLINE_CACHE_FLUSH=kernel: scope replay measures "
                             "scopes, whose ranges would count a flush kernel: caches are "
                             "flushed before each pass instead");
        if (s.flushEachKernel && !capabilities.flushEachKernel) {
            // The device said why (a warning); the recording says what was done.
            s.flushEachKernel = false;
            s.flushPasses = true;
            s.cacheFlush = CacheFlush::On;
        }
    }
    s.rangesPerImage = options.rangesPerImage;
    // A window holds the launches between two of the program's synchronizing calls, mostly few:
    // an image of 32 ranges is initialized at each window, and set up at each profiler object's
    // first Start, at a third of the cost of 96 (bench_ops under window replay, medians of three
    // runs on an H200: 12.5 s against 13.8 s; 16 ranges: 13.0 s).
    if (facts.relaunchesWindows)
        s.rangesPerImage = std::min(s.rangesPerImage, kWindowRangesPerImage);
    s.rangesPerImageMax = std::max(s.rangesPerImage, options.rangesPerImageMax > 0
                                                         ? options.rangesPerImageMax
                                                         : autoRangesPerImageMax(capabilities));

    s.reuseSamples = facts.measuresAgain || facts.relaunchesWindows ? options.reuseSamples : 0;
    if (s.reuseSamples > 0 && (options.launchSkip > 0 || options.launchCount > 0)) {
        // A launch skip and count select launches in program order: each selected one is
        // measured itself, as Nsight Compute's --launch-skip/--launch-count do.
        core::log().info("libroofline: a launch skip or count is set: every selected launch is "
                         "measured (repeated-launch reuse is off)");
        s.reuseSamples = 0;
    }
    share(s, process);
    s.windowsOutsideSteps = s.mode == CollectionMode::IterationReplay &&
                            capabilities.relaunchesWindows &&
                            asksWindowsOutsideSteps(options, capabilities.seesEveryAllocation);
    if (s.windowsOutsideSteps)
        s.windowRangesPerImage = std::min(s.rangesPerImage, kWindowRangesPerImage);
    return s;
}

} // namespace roofline::collect
