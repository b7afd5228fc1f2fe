// The window choosers alone: which window each next group measures, what a group's completion
// covers, when nothing is left -- driven by the facts iteration replay hands them at each
// iteration's end, on the fake backend.
#include "collect/plain_windows.hpp"
#include "collect/reuse_windows.hpp"
#include "collector_harness.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace roofline::collect {
namespace {

using testing::FakeBackend;

// A completed group over `window` (the schedule as iteration replay leaves it).
PassSchedule completedGroup(Window window, std::size_t iterationsPerPass) {
    PassSchedule s;
    s.beginGroup(window, 1, iterationsPerPass);
    s.passStarted();
    s.passStopped();
    s.groupCompleted();
    return s;
}

TEST(PlainWindows, WindowAfterWindowUntilTheSteadyIterationIsCovered) {
    CollectorConfig config;
    config.measureAfterComplete = false;
    Shared shared(config, Level::Counters);
    FakeBackend backend(1, 4, false, false);
    DeviceSlot slot(0, &backend, shared);
    PlainWindows w(slot);
    shared.model.countLaunches(10); // the first iteration
    shared.model.countLaunches(10); // the steady one: 10 launches, 3 windows of 4
    IterationFacts facts;
    facts.launches = 10;
    facts.groupCompleted = true;
    facts.iterationsPerPass = 1;
    for (std::size_t begin : {0u, 4u, 8u}) {
        EXPECT_EQ(w.window().begin, begin);
        EXPECT_FALSE(w.done(shared));
        w.covered(completedGroup(w.window(), 1));
        w.iterationEnded(shared, slot, facts);
    }
    EXPECT_EQ(w.window().begin, 0u);
    EXPECT_EQ(w.launchesCovered(10, 4), 10u);
    EXPECT_TRUE(w.done(shared));
    EXPECT_TRUE(w.complete(shared, slot, false)); // no more groups: the profiler is released
    EXPECT_TRUE(backend.released());
    EXPECT_EQ(w.iterationsNeeded(10, 4, 2, 1, true), 3u * 2 + 1);
}

TEST(PlainWindows, AnIterationThatEndsBeforeTheWindowIsAMismatch) {
    Shared shared(CollectorConfig{}, Level::Counters);
    FakeBackend backend(1, 4, false, false);
    DeviceSlot slot(0, &backend, shared);
    PlainWindows w(slot);
    IterationFacts facts;
    facts.launches = 10;
    facts.groupCompleted = true;
    w.iterationEnded(shared, slot, facts); // the window moves to 4
    facts.groupCompleted = false;
    facts.inGroup = true;
    facts.launches = 3; // a short iteration: none inside [4, 8)
    const IterationVerdict v = w.iterationEnded(shared, slot, facts);
    EXPECT_FALSE(v.dropGroup);
    EXPECT_NE(v.mismatch.find("launched only 3 kernels"), std::string::npos);
}

// Reuse: nothing is measured before a steady iteration; a steady one starts a cycle whose first
// window covers the launches lacking samples.
TEST(ReuseWindows, ACycleBeginsOnASteadyIteration) {
    CollectorConfig config;
    config.mode = CollectionMode::IterationReplay;
    config.reuseSamples = 1;
    Shared shared(config, Level::Counters);
    FakeBackend backend(1, 16, false, false);
    DeviceSlot slot(0, &backend, shared);
    std::uint64_t serials = 0;
    ReuseWindows w(config, serials);
    const auto iteration = [&](int n) {
        Stack stack{Frame{"", "Train step " + std::to_string(n), {}}};
        shared.model.pushed(stack);
        w.iterationBegins();
        for (std::size_t i = 0; i < 3; ++i) {
            Launch l;
            l.mangledName = i == 1 ? "b" : "a";
            w.observe(shared, l, stack, i);
        }
        w.iterationObserved(config, false);
        IterationFacts facts;
        facts.launches = 3;
        facts.steadyShape = true;
        w.iterationEnded(shared, slot, facts);
        w.plan(shared, slot, facts);
    };
    iteration(0);
    EXPECT_TRUE(w.holdsBack()); // one iteration: not known to be steady
    EXPECT_TRUE(w.pending(shared));
    iteration(1);
    EXPECT_FALSE(w.holdsBack());
    EXPECT_EQ(w.window().begin, 0u);
    EXPECT_EQ(w.window().end, 3u); // each launch its own place in the step: each lacks a sample
    EXPECT_EQ(w.iterationsPerPass(), 1u);
    EXPECT_FALSE(w.done(shared));
}

TEST(ReuseWindows, SameWorkComparesWorkCountersOnly) {
    const auto work =
        workCounters({"sm__sass_thread_inst_executed_op_ffma_pred_on.sum", "dram__bytes.sum",
                      "l1tex__t_bytes.sum", "sm__ops_path_tensor_src_bf16_dst_fp32.sum"});
    EXPECT_EQ(work, (std::vector<std::size_t>{0, 2, 3}));
    EXPECT_TRUE(sameWork({100, 5, 7, 0}, {100, 900, 7, 0}, work)); // DRAM bytes vary
    EXPECT_FALSE(sameWork({100, 5, 7, 0}, {400, 5, 7, 0}, work));
    EXPECT_FALSE(sameWork({100, 5, 7, 0}, {100, 5, 7, 4096}, work));
    EXPECT_TRUE(sameWork({11204, 0, 0, 0}, {11210, 0, 0, 0}, work));        // run-to-run jitter
    EXPECT_TRUE(sameWork({100, 5, std::nan(""), 0}, {100, 5, 9, 0}, work)); // not collected
}

} // namespace
} // namespace roofline::collect
