// The window choosers alone: which window each next group measures, what a group's completion
// covers, when nothing is left -- driven by the facts iteration replay hands them at each
// iteration's end, on the fake backend.
#include "replay/plain_windows.hpp"
#include "replay/reuse/reuse_windows.hpp"
#include "collector_harness.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace roofline::collect {
namespace {

using testing::FakeBackend;

// A completed group over `window`, its records in `members`.
CompletedGroup recorded(Window window, const std::vector<std::int64_t>& members) {
    return CompletedGroup{CompletedGroup::Outcome::Recorded, &members, window, 1};
}

TEST(PlainWindows, WindowAfterWindowUntilTheSteadyIterationIsCovered) {
    CollectorConfig config;
    config.options.idleWhenComplete = true;
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
    const std::vector<std::int64_t> none;
    for (std::size_t begin : {0u, 4u, 8u}) {
        const GroupStart g = w.nextGroup(shared, false);
        EXPECT_FALSE(g.complete);
        EXPECT_EQ(g.window.begin, begin);
        EXPECT_TRUE(g.changes.empty());
        EXPECT_FALSE(w.state(shared).done);
        w.groupCompleted(shared, recorded(g.window, none));
        EXPECT_TRUE(w.iterationEnded(shared, facts).changes.empty());
    }
    EXPECT_EQ(w.state(shared).windowAt, 0u);
    EXPECT_TRUE(w.state(shared).done);
    EXPECT_FALSE(w.nextGroup(shared, true).complete); // a group starting again: not complete
    const GroupStart last = w.nextGroup(shared, false);
    EXPECT_TRUE(last.complete); // no more groups: the profiler is to be released, not by it
    ASSERT_EQ(last.changes.size(), 1u);
    EXPECT_EQ(last.changes[0].launches, 0u);
    EXPECT_FALSE(backend.released());
    core::Coverage c;
    c.launchesPerIteration = 10;
    c.launchesPerImage = 4;
    c.passes = 2;
    c.iterationsPerPass = 1;
    w.coverage(c, true);
    EXPECT_EQ(c.launchesCovered, 10u);
    // Observed first, then 3 windows x 2 passes, each after the first from the one before's last
    // iteration.
    EXPECT_EQ(c.iterationsNeeded, 1u + 1 + 3 * 1);
}

// A window whose image filled mid-iteration is followed at once: the next window begins at the
// launch where it filled, on the same iteration, and the iteration's end moves nothing further.
TEST(PlainWindows, TheNextWindowBeginsWhereTheImageFilled) {
    CollectorConfig config;
    config.options.idleWhenComplete = true;
    Shared shared(config, Level::Counters);
    FakeBackend backend(1, 4, false, false);
    DeviceSlot slot(0, &backend, shared);
    PlainWindows w(slot);
    shared.model.countLaunches(10);
    shared.model.countLaunches(10);
    const std::vector<std::int64_t> none;
    GroupStart g = w.nextGroup(shared, false);
    ASSERT_EQ(g.window.begin, 0u);
    w.groupCompleted(shared, recorded(g.window, none));
    EXPECT_FALSE(w.chain(shared, 3)); // not where the image filled
    const auto next = w.chain(shared, 4);
    ASSERT_TRUE(next);
    EXPECT_EQ(next->window.begin, 4u);
    EXPECT_EQ(next->window.end, Window::kOpen);
    IterationFacts facts;
    facts.launches = 10;
    facts.groupCompleted = true;
    facts.inGroup = true;
    facts.passStarted = true;
    facts.iterationsPerPass = 1;
    w.iterationEnded(shared, facts);
    EXPECT_EQ(w.state(shared).windowAt, 4u); // chosen already
    w.groupCompleted(shared, recorded(next->window, none));
    ASSERT_TRUE(w.chain(shared, 8));
    w.groupCompleted(shared, recorded(Window{8, Window::kOpen}, none));
    EXPECT_FALSE(w.chain(shared, 12)); // every launch covered: nothing follows
    EXPECT_TRUE(w.state(shared).done);
}

TEST(PlainWindows, AnIterationThatEndsBeforeTheWindowIsAMismatch) {
    Shared shared(CollectorConfig{}, Level::Counters);
    FakeBackend backend(1, 4, false, false);
    DeviceSlot slot(0, &backend, shared);
    PlainWindows w(slot);
    IterationFacts facts;
    facts.launches = 10;
    facts.groupCompleted = true;
    w.iterationEnded(shared, facts); // the window moves to 4
    facts.groupCompleted = false;
    facts.inGroup = true;
    facts.launches = 3; // a short iteration: none inside [4, 8)
    const IterationVerdict v = w.iterationEnded(shared, facts);
    EXPECT_FALSE(v.dropGroup);
    EXPECT_NE(v.mismatch.find("launched only 3 kernels"), std::string::npos);
}

// Reuse: nothing is measured before a steady iteration; a steady one starts a cycle whose first
// window covers the launches lacking samples, and asks for an image that holds that window.
TEST(ReuseWindows, ACycleBeginsOnASteadyIteration) {
    CollectorConfig config;
    config.mode = CollectionMode::IterationReplay;
    config.reuseSamples = 1;
    Shared shared(config, Level::Counters);
    FakeBackend backend(1, 16, false, false);
    DeviceSlot slot(0, &backend, shared);
    std::uint64_t serials = 0;
    ReuseWindows w(config, serials, slot);
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
        return w.iterationEnded(shared, facts);
    };
    EXPECT_TRUE(iteration(0).changes.empty());
    EXPECT_TRUE(w.state(shared).holdsBack); // one iteration: not known to be steady
    EXPECT_TRUE(w.state(shared).pending);
    const IterationVerdict second = iteration(1);
    ASSERT_EQ(second.changes.size(), 1u); // an image of the cycle's longest window
    EXPECT_EQ(second.changes[0].launches, 3u);
    EXPECT_FALSE(backend.released()); // asked for, not done
    EXPECT_FALSE(w.state(shared).holdsBack);
    const GroupStart g = w.nextGroup(shared, false);
    EXPECT_FALSE(g.complete);
    EXPECT_EQ(g.window.begin, 0u);
    EXPECT_EQ(g.window.end, 3u); // each launch its own place in the step: each lacks a sample
    EXPECT_EQ(g.iterationsPerPass, 1u);
    EXPECT_FALSE(w.state(shared).done);
    EXPECT_GT(w.state(shared).signatures, 0u);
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
