// A session's settings resolved once from its options, its job and what its devices can do: each
// decision that departs from the options, in one place.
#include "session/settings.hpp"

#include <gtest/gtest.h>

namespace roofline::collect {
namespace {

core::ProcessIdentity ranks(int rank, int worldSize) {
    core::ProcessIdentity p;
    p.rank = rank;
    p.worldSize = worldSize;
    return p;
}

// An image may grow to 1/32 of the memory available at ~2 MiB per range, at most 1024 ranges, and
// never below the session's image size; an explicit maximum is taken as it is.
TEST(Settings, ImagesGrowAsTheMemoryAvailableAllows) {
    Options o;
    Capabilities can;
    EXPECT_EQ(resolveSettings(o, {}, can).rangesPerImageMax, 96u); // memory unknown
    can.memoryAvailable = 16ull << 30;                             // 16 GiB: 512 MiB for images
    EXPECT_EQ(resolveSettings(o, {}, can).rangesPerImageMax, 256u);
    can.memoryAvailable = 32ull << 30; // 1 GiB for images
    EXPECT_EQ(resolveSettings(o, {}, can).rangesPerImageMax, 512u);
    can.memoryAvailable = 1ull << 40;
    EXPECT_EQ(resolveSettings(o, {}, can).rangesPerImageMax, 1024u);
    can.memoryAvailable = 2ull << 30;
    EXPECT_EQ(resolveSettings(o, {}, can).rangesPerImageMax, 96u);
    o.rangesPerImageMax = 200;
    EXPECT_EQ(resolveSettings(o, {}, can).rangesPerImageMax, 200u);
    o.rangesPerImage = 300;
    EXPECT_EQ(resolveSettings(o, {}, can).rangesPerImageMax, 300u);
}

// Window replay's windows are short: its images hold at most 32 ranges; other modes keep the
// size asked for.
TEST(Settings, WindowReplayKeepsItsImagesSmall) {
    Options o;
    o.mode = CollectionMode::WindowReplay;
    EXPECT_EQ(resolveSettings(o, {}, {}).rangesPerImage, 32u);
    o.rangesPerImage = 8;
    EXPECT_EQ(resolveSettings(o, {}, {}).rangesPerImage, 8u);
    o.mode = CollectionMode::IterationReplay;
    o.rangesPerImage = 96;
    EXPECT_EQ(resolveSettings(o, {}, {}).rangesPerImage, 96u);
}

// Launches no step covers are measured in windows by default only where the session sees every
// pinned allocation (it started with the process) and windows can be relaunched.
TEST(Settings, WindowsOutsideTheStepsWhereEveryAllocationIsSeen) {
    Options o;
    Capabilities can;
    can.relaunchesWindows = true;
    EXPECT_FALSE(resolveSettings(o, {}, can).windowsOutsideSteps) << "a Session in a program";
    can.seesEveryAllocation = true;
    EXPECT_TRUE(resolveSettings(o, {}, can).windowsOutsideSteps) << "roofline run";
    EXPECT_EQ(resolveSettings(o, {}, can).windowRangesPerImage, 32u) << "window replay's image";
    o.outsideSteps = OutsideSteps::Skip;
    EXPECT_FALSE(resolveSettings(o, {}, can).windowsOutsideSteps);
    o.outsideSteps = OutsideSteps::Window;
    can.seesEveryAllocation = false;
    EXPECT_TRUE(resolveSettings(o, {}, can).windowsOutsideSteps) << "the caller vouches";
    can.relaunchesWindows = false;
    EXPECT_FALSE(resolveSettings(o, {}, can).windowsOutsideSteps) << "no relaunch possible";
    can.relaunchesWindows = true;
    o.mode = CollectionMode::KernelReplay;
    EXPECT_FALSE(resolveSettings(o, {}, can).windowsOutsideSteps) << "iteration replay only";
    o.mode = CollectionMode::IterationReplay;
    o.timingOnly = true;
    EXPECT_FALSE(resolveSettings(o, {}, can).windowsOutsideSteps);
}

TEST(Settings, TheCacheFlushIsWhatIsDone) {
    Options o;
    Settings s = resolveSettings(o, {}, {});
    EXPECT_EQ(s.cacheFlush, CacheFlush::Off); // auto: iteration replay measures the real cache
    EXPECT_FALSE(s.flushPasses);
    o.mode = CollectionMode::KernelReplay;
    s = resolveSettings(o, {}, {});
    EXPECT_EQ(s.cacheFlush, CacheFlush::On); // auto: kernel replay flushes before each kernel
    EXPECT_TRUE(s.flushPasses);
    EXPECT_EQ(s.options.cacheFlush, CacheFlush::Auto); // the options stay as given

    o.mode = CollectionMode::IterationReplay;
    o.cacheFlush = CacheFlush::Kernel;
    o.rangesPerImage = 96;
    EXPECT_TRUE(needsKernelFlush(o, {}));
    s = resolveSettings(o, {}, Capabilities{true});
    EXPECT_EQ(s.cacheFlush, CacheFlush::Kernel);
    EXPECT_TRUE(s.flushEachKernel);
    EXPECT_FALSE(s.flushPasses);
    EXPECT_EQ(s.rangesPerLaunch(), 2u); // the flush kernel's range, then the launch's
    EXPECT_EQ(s.launchesPerImage(), 48u);
    // A device that cannot load the flush kernel: before each pass, and the recording says so.
    s = resolveSettings(o, {}, Capabilities{false});
    EXPECT_EQ(s.cacheFlush, CacheFlush::On);
    EXPECT_FALSE(s.flushEachKernel);
    EXPECT_TRUE(s.flushPasses);
    EXPECT_EQ(s.launchesPerImage(), 96u);
    // Scope replay's ranges would count the flush kernel: before each pass.
    o.mode = CollectionMode::ScopeReplay;
    EXPECT_FALSE(needsKernelFlush(o, {}));
    s = resolveSettings(o, {}, {});
    EXPECT_FALSE(s.flushEachKernel);
    EXPECT_TRUE(s.flushPasses);
}

TEST(Settings, AJobOfSeveralRanksRefusesKernelReplay) {
    Options o;
    o.mode = CollectionMode::KernelReplay;
    o.cacheFlush = CacheFlush::Kernel;
    EXPECT_EQ(resolveSettings(o, ranks(0, 1), {}).mode, CollectionMode::KernelReplay);
    const Settings s = resolveSettings(o, ranks(1, 4), Capabilities{true});
    EXPECT_EQ(s.mode, CollectionMode::IterationReplay);
    EXPECT_EQ(s.options.mode, CollectionMode::KernelReplay);
    EXPECT_TRUE(needsKernelFlush(o, ranks(1, 4))); // iteration replay's flush kernel then
    EXPECT_TRUE(s.flushEachKernel);
}

TEST(Settings, ReuseAndTheRanksShare) {
    Options o;
    o.reuseSamples = 3;
    o.shareAcrossRanks = true;
    Settings s = resolveSettings(o, ranks(2, 4), {});
    EXPECT_EQ(s.reuseSamples, 3u);
    EXPECT_EQ(s.shareIndex, 2u);
    EXPECT_EQ(s.shareCount, 4u);
    EXPECT_EQ(resolveSettings(o, {}, {}).shareCount, 1u);          // no launcher: everything
    EXPECT_EQ(resolveSettings(o, ranks(4, 4), {}).shareCount, 1u); // a rank past the world
    o.launchSkip = 5; // each selected launch measured: no reuse, no share
    s = resolveSettings(o, ranks(2, 4), {});
    EXPECT_EQ(s.reuseSamples, 0u);
    EXPECT_EQ(s.shareCount, 1u);
    o.launchSkip = 0;
    o.mode = CollectionMode::ScopeReplay; // reuse is iteration replay's
    EXPECT_EQ(resolveSettings(o, ranks(2, 4), {}).reuseSamples, 0u);
}

} // namespace
} // namespace roofline::collect
