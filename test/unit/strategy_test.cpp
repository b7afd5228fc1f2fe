// Each collection strategy alone on the fake backend, driven as the collector drives it (scope
// pushes and pops through the iteration model, launches through the strategy): what its own state
// machine records, without the dispatcher.
#include "replay/iteration_replay.hpp"
#include "replay/kernel_replay.hpp"
#include "replay/reuse/reuse_windows.hpp"
#include "replay/scope_replay.hpp"
#include "collector_harness.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <memory>

namespace roofline::collect {
namespace {

// Iteration replay's reuse chooser, as the session makes it.
MakeReuseChooser reuseChooser() {
    return [](const CollectorConfig& config, std::uint64_t& serials, const DeviceSlot& slot) {
        return std::make_unique<ReuseWindows>(config, serials, slot);
    };
}

using testing::all;
using testing::FakeBackend;

struct Driver {
    Shared& shared;
    Strategy& strategy;
    FakeBackend& backend;
    DeviceSlot& slot;
    Stack stack;

    void push(const std::string& name) {
        stack.push_back(Frame{"", name, {}});
        const bool iteration = shared.model.pushed(stack);
        if (shared.config.mode == CollectionMode::KernelReplay)
            return;
        if (iteration && shared.model.opened(1))
            strategy.iterationBegins();
        if (shared.model.inside() && shared.model.iterationIndex(stack) < stack.size())
            strategy.scopePushed(stack);
    }
    void pop() {
        Frame& f = stack.back();
        if (!f.records.empty())
            strategy.scopePopping(f);
        if (shared.config.mode != CollectionMode::KernelReplay && f.iteration &&
            shared.model.closed())
            strategy.iterationEnds();
        stack.pop_back();
    }
    void launch(const char* name, double work) {
        Launch l;
        l.mangledName = name;
        l.grid = {1, 1, 1};
        l.block = {32, 1, 1};
        strategy.renewStaleProfiler(slot);
        strategy.launch(slot, l, stack);
        backend.kernel(work);
    }
};

// One iteration per pass (short iterations would otherwise share one).
CollectorConfig configFor(CollectionMode mode, std::size_t passes) {
    CollectorConfig c;
    c.mode = mode;
    c.passes = passes;
    c.options.iterationsPerPass = 1;
    return c;
}

TEST(KernelReplayStrategy, OneRecordPerAdmittedLaunchAcrossFullImages) {
    Shared shared(configFor(CollectionMode::KernelReplay, 1), Level::Counters);
    FakeBackend backend(1, 2, false, true);
    DeviceSlot slot(0, &backend, shared);
    KernelReplay strategy(shared, {&slot});
    Driver d{shared, strategy, backend, slot, {}};
    d.launch("outside", 9); // outside every scope: no record, no range
    EXPECT_EQ(shared.records.size(), 0u);
    d.push("step");
    for (int i = 1; i <= 5; ++i)
        d.launch("k", i); // an image holds 2: the third and fifth launch close a window
    d.pop();
    strategy.finish();
    const auto& records = shared.records.all();
    ASSERT_EQ(records.size(), 5u);
    for (std::size_t i = 0; i < records.size(); ++i) {
        EXPECT_EQ(records[i].values, all(static_cast<double>(i + 1))) << i;
        EXPECT_EQ(records[i].scopePath, "step");
    }
    EXPECT_EQ(shared.tally.groupsCompleted, 3u);
}

TEST(ScopeReplayStrategy, OneRecordPerScopeInstanceSummingItsKernels) {
    CollectorConfig config = configFor(CollectionMode::ScopeReplay, 2);
    config.options.scopeLevels = 2;
    config.options.iterationRange = "step";
    Shared shared(config, Level::Counters);
    FakeBackend backend(2, 8, true, false);
    DeviceSlot slot(0, &backend, shared);
    ScopeReplay strategy(shared, {&slot});
    Driver d{shared, strategy, backend, slot, {}};
    for (int step = 0; step < 2; ++step) { // pass 0, pass 1
        d.push("step " + std::to_string(step));
        d.push("forward");
        d.launch("a", 1);
        d.launch("b", 2);
        d.pop();
        d.launch("c", 4);
        d.pop();
    }
    strategy.finish();
    const auto& records = shared.records.all();
    ASSERT_EQ(records.size(), 2u);
    EXPECT_EQ(records[0].name, "step #");
    EXPECT_EQ(records[0].kernels, 3u);
    EXPECT_EQ(records[0].values, all(7));
    EXPECT_EQ(records[1].name, "forward");
    EXPECT_EQ(records[1].kernels, 2u);
    EXPECT_EQ(records[1].values, all(3));
    EXPECT_EQ(shared.tally.mismatchedGroups, 0u);
}

TEST(ScopeReplayStrategy, APassWithOtherKernelsMarksTheGroup) {
    CollectorConfig config = configFor(CollectionMode::ScopeReplay, 2);
    Shared shared(config, Level::Counters);
    FakeBackend backend(2, 8, true, false);
    DeviceSlot slot(0, &backend, shared);
    ScopeReplay strategy(shared, {&slot});
    Driver d{shared, strategy, backend, slot, {}};
    for (const char* kernel : {"a", "b"}) {
        d.push("step");
        d.launch(kernel, 1);
        d.pop();
    }
    strategy.finish();
    ASSERT_EQ(shared.records.size(), 1u);
    EXPECT_EQ(shared.records[0].replay, ReplayStatus::Differs);
    EXPECT_NE(shared.records[0].note.find("pass 1 launch 0 is b"), std::string::npos)
        << shared.records[0].note;
    EXPECT_EQ(shared.tally.mismatchedGroups, 1u);
}

// Six launches per iteration, images of four: two windows of two passes each -- the second
// beginning where the first's image filled, on the iteration of its last pass -- then nothing
// more to measure.
TEST(IterationReplayStrategy, WindowsCoverTheIterationThenItIsDone) {
    CollectorConfig config = configFor(CollectionMode::IterationReplay, 2);
    config.options.idleWhenComplete = true;
    Shared shared(config, Level::Counters);
    FakeBackend backend(2, 4, false, false);
    DeviceSlot slot(0, &backend, shared);
    IterationReplay strategy(shared, {&slot}, reuseChooser());
    Driver d{shared, strategy, backend, slot, {}};
    int iterations = 0;
    for (; iterations < 10 && !strategy.done(); ++iterations) {
        d.push("Train step " + std::to_string(iterations));
        for (int i = 0; i < 6; ++i)
            d.launch(i % 2 ? "odd" : "even", 10 + i);
        d.pop();
    }
    EXPECT_EQ(iterations, 3); // 2 windows x 2 passes, the second's pass 0 on the first's pass 1
    strategy.finish();
    shared.records.finish(true);
    const auto& records = shared.records.all();
    ASSERT_EQ(records.size(), 6u);
    for (std::size_t i = 0; i < records.size(); ++i) {
        EXPECT_EQ(records[i].position, static_cast<std::int64_t>(i));
        EXPECT_EQ(records[i].launchIndex, i);
        EXPECT_EQ(records[i].values, all(10.0 + static_cast<double>(i))) << i;
    }
    core::Coverage c;
    strategy.coverage(c);
    EXPECT_TRUE(c.complete());
    EXPECT_EQ(c.launchesPerIteration, 6u);
}

// Reuse: four identical layers of two launches; one sample per signature is measured and the
// other layers' launches reuse it (the mean of its samples), noted as such.
TEST(IterationReplayStrategy, ReuseCycleMeasuresOneLayerAndReusesItForTheOthers) {
    CollectorConfig config = configFor(CollectionMode::IterationReplay, 2);
    config.reuseSamples = 1;
    config.options.idleWhenComplete = true;
    Shared shared(config, Level::Counters);
    FakeBackend backend(2, 16, false, false);
    DeviceSlot slot(0, &backend, shared);
    IterationReplay strategy(shared, {&slot}, reuseChooser());
    ASSERT_TRUE(strategy.progress().reuses);
    Driver d{shared, strategy, backend, slot, {}};
    int iterations = 0;
    for (; iterations < 12 && !strategy.done(); ++iterations) {
        d.push("Train step " + std::to_string(iterations));
        for (int layer = 0; layer < 4; ++layer) {
            d.push("Layer " + std::to_string(layer));
            d.launch("gemm", 100);
            d.launch("gelu", 7);
            d.pop();
        }
        d.pop();
    }
    EXPECT_TRUE(strategy.done()) << iterations << " iterations";
    strategy.finish();
    shared.records.finish(true);
    const auto& records = shared.records.all();
    ASSERT_EQ(records.size(), 8u);
    std::size_t reused = 0;
    for (std::size_t i = 0; i < records.size(); ++i) {
        EXPECT_EQ(records[i].position, static_cast<std::int64_t>(i));
        EXPECT_EQ(records[i].values, all(i % 2 ? 7 : 100)) << i;
        if (records[i].reusedSamples > 0) {
            ++reused;
            EXPECT_NE(records[i].note.find("reused: mean of 1"), std::string::npos);
        }
    }
    EXPECT_EQ(reused, 6u);
    EXPECT_EQ(shared.tally.reused, 6u);
    EXPECT_GT(strategy.progress().signatures, 0u);
}

// A failing backend turns the session to timing only; the records of the open image say why.
TEST(IterationReplayStrategy, ABackendThatThrowsTurnsTheSessionToTimingOnly) {
    CollectorConfig config = configFor(CollectionMode::IterationReplay, 2);
    Shared shared(config, Level::Counters);
    std::string heard;
    shared.onFailure = [&](const std::string& why) { heard = why; };
    FakeBackend backend(2, 4, false, false);
    backend.failStartAt = 2; // pass 1 cannot start
    DeviceSlot slot(0, &backend, shared);
    IterationReplay strategy(shared, {&slot}, reuseChooser());
    Driver d{shared, strategy, backend, slot, {}};
    for (int step = 0; step < 2; ++step) {
        d.push("step");
        d.launch("k", 1);
        d.pop();
    }
    EXPECT_TRUE(slot.failed);
    EXPECT_EQ(shared.level.load(), Level::TimingOnly);
    EXPECT_NE(heard.find("injected"), std::string::npos);
    ASSERT_EQ(shared.records.size(), 1u);
    EXPECT_NE(shared.records[0].note.find("profiling failed mid-run"), std::string::npos);
}

// Superseded records go; iteration replay's records go back to program order (window by window
// measurement, iterations one after another), records without a position behind their
// predecessor.
TEST(RecordStore, FinishRemovesSupersededAndRestoresProgramOrder) {
    RecordStore store;
    const auto add = [&](const char* name, std::int64_t position) {
        core::LaunchInfo info;
        info.name = name;
        info.position = position;
        return store.add(std::move(info));
    };
    add("c", 2);
    std::vector<std::int64_t> lost{add("a-lost", 0), -1};
    add("a", 0);
    add("graph node", -1);
    add("b", 1);
    add("a2", 0);
    store.supersede(lost);
    EXPECT_TRUE(lost.empty());
    EXPECT_EQ(store.supersededCount(), 1u);
    store.finish(true);
    std::vector<std::string> names;
    for (const auto& r : store.all()) {
        names.push_back(r.name);
        EXPECT_EQ(r.launchIndex, names.size() - 1);
    }
    EXPECT_EQ(names, (std::vector<std::string>{"a", "graph node", "b", "c", "a2"}));
}

TEST(RecordStore, KeepsImagesUpToTheLimit) {
    RecordStore store;
    EXPECT_EQ(store.keepImage(std::vector<std::uint8_t>(60, 1), 100), 0);
    EXPECT_EQ(store.keepImage(std::vector<std::uint8_t>(60, 2), 100), -1);
    EXPECT_EQ(store.keepImage(std::vector<std::uint8_t>(40, 3), 100), 1);
    EXPECT_EQ(store.keptBytes(), 100u);
    EXPECT_EQ(store.keptImages().size(), 2u);
}

} // namespace
} // namespace roofline::collect

namespace roofline::collect {
namespace {

// The collector's result and the session's context become the recording, field by field.
TEST(CollectionResult, BecomesTheRecording) {
    CollectionResult r;
    core::LaunchInfo l;
    l.name = "k";
    r.launches.push_back(l);
    r.images.push_back({1, 2, 3});
    r.counts.coverage.known = true;
    r.counts.coverage.launchesPerIteration = 7;
    r.counts.tally.dropped = 2;
    r.counts.tally.reused = 5;
    r.counts.passes = 4;
    r.counts.shareIndex = 1;
    r.counts.shareCount = 2;
    RecordingContext c;
    c.libraryVersion = "0.1.0";
    c.createdUtc = "2026-11-25T00:00:00Z";
    c.mode = "iteration-replay";
    c.status = "counters";
    c.cacheFlush = "per-kernel";
    c.bytes = "nersc";
    c.device.name = "NVIDIA H100 80GB HBM3";
    c.device.chip = "GH100";
    c.metrics = {"dram__bytes.sum"};
    c.configImage = {9};
    c.process.pid = 42;
    c.devicePeaks = {{"peak", 1.5}};
    c.passesAtStart = 3;
    const CollectionCounts counts = r.counts; // what the summary reads, beside the records
    EXPECT_EQ(counts.tally.reused, 5u);
    const core::Recording rec = recordingOf(std::move(r), c);
    ASSERT_EQ(rec.launches.size(), 1u);
    EXPECT_EQ(rec.launches[0].name, "k");
    EXPECT_EQ(rec.counterData, (std::vector<std::vector<std::uint8_t>>{{1, 2, 3}}));
    EXPECT_EQ(rec.coverage.launchesPerIteration, 7u);
    EXPECT_EQ(rec.droppedRanges, 2u);
    EXPECT_EQ(rec.passes, 4u); // as the collection ended (the metric set may have grown)
    EXPECT_EQ(rec.shareIndex, 1u);
    EXPECT_EQ(rec.shareCount, 2u);
    EXPECT_EQ(rec.libraryVersion, "0.1.0");
    EXPECT_EQ(rec.createdUtc, "2026-11-25T00:00:00Z");
    EXPECT_EQ(rec.mode, "iteration-replay");
    EXPECT_EQ(rec.status, "counters");
    EXPECT_EQ(rec.cacheFlush, "per-kernel");
    EXPECT_EQ(rec.bytes, "nersc");
    EXPECT_EQ(rec.chip, "GH100");
    EXPECT_EQ(rec.device.name, "NVIDIA H100 80GB HBM3");
    EXPECT_EQ(rec.metrics, c.metrics);
    EXPECT_EQ(rec.configImage, c.configImage);
    EXPECT_EQ(rec.process.pid, 42);
    EXPECT_EQ(rec.devicePeaks, c.devicePeaks);

    CollectionResult timing; // no counters: the planned passes, no coverage
    timing.counts.level = Level::TimingOnly;
    timing.counts.coverage.known = true;
    const core::Recording t = recordingOf(std::move(timing), c);
    EXPECT_EQ(t.passes, 3u);
    EXPECT_FALSE(t.coverage.known);
    EXPECT_EQ(t.shareCount, 1u);
}

} // namespace
} // namespace roofline::collect
