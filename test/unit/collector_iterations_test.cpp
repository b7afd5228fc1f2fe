// Which iterations iteration replay measures, through the collector on the fake backend: a first
// iteration observed only, skipped or measured; an odd second one; NVTX filters that pick a step,
// with and without repeated-launch reuse.
#include "unit/collector_harness.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

using namespace roofline;
using namespace roofline::collect;
using namespace roofline::collect::testing;

TEST(CollectorIterationReplay, AFirstIterationThatDiffersIsSkippedNotMerged) {
    // Step 0 runs a validation forward and creates the optimizer state: launches the later steps
    // do not have. Step 1, its group's pass 1, shows it; the group starts again on step 2, so the
    // steady-state records come from steps 2-3 and no record merges a validation kernel's
    // counters with a training kernel's.
    CollectorConfig c;
    c.options.firstIteration = FirstIteration::SkipIfDifferent;
    Harness h(CollectionMode::IterationReplay, 2, 8, c);
    auto step = [&](int n) {
        h.push(("Train step " + std::to_string(n)).c_str());
        if (n == 0) {
            h.launch("validation_forward", 7);
            h.launch("fill_state", 8);
        }
        h.launch("forward", 1);
        h.launch("backward", 2, {n == 2 ? 41u : 40u, 1, 1}); // data-dependent grid
        h.launch("adamw", 3);
        h.pop();
    };
    int n = 0;
    step(n++);
    while (h.collector.needsPass() && n < 10)
        step(n++);
    EXPECT_EQ(n, 4); // steps 0-1 lost, steps 2 and 3 are the group's two passes
    EXPECT_TRUE(h.collector.firstIterationSkipped());
    EXPECT_NE(h.collector.firstIterationIssue().find("validation_forward"), std::string::npos)
        << h.collector.firstIterationIssue();
    auto& l = h.finish();
    ASSERT_EQ(l.size(), 3u);
    for (int k = 0; k < 3; ++k) {
        EXPECT_EQ(l[k].values, all(k + 1.0)) << k << ": " << l[k].note;
        EXPECT_EQ(l[k].iteration, 2) << k;
    }
    EXPECT_EQ(l[1].replay, ReplayStatus::Differs); // the grid note, values kept
    EXPECT_EQ(h.collector.unmatchedLaunches(), 0u);
    EXPECT_EQ(h.collector.supersededLaunches(), 5u); // step 0's five records
    EXPECT_EQ(h.backend.reenables, 1u); // CUPTI's replay back at pass 0: a fresh profiler
}

// Launches outside every step -- set-up before the first, a data copy between two -- get no
// record, and are counted for the exit line: none is lost without a word.
TEST(CollectorIterationReplay, LaunchesOutsideEveryStepAreCounted) {
    Harness h(CollectionMode::IterationReplay, 2, 8);
    for (int i = 0; i < 3; ++i)
        h.launch("init_weights", 9);
    int n = 0;
    do {
        h.push(("Train step " + std::to_string(n++)).c_str());
        h.launch("forward", 1);
        h.launch("backward", 2);
        h.pop();
        h.launch("prefetch", 4); // between steps
    } while (h.collector.needsPass() && n < 10);
    EXPECT_EQ(h.collector.launchesOutsideIterations(), 3u + static_cast<unsigned>(n));
    auto& l = h.finish();
    ASSERT_EQ(l.size(), 2u);
    for (const auto& r : l)
        EXPECT_NE(r.mangledName, "init_weights");
}

TEST(CollectorIterationReplay, AFirstIterationLikeTheRestIsMeasured) {
    CollectorConfig c;
    c.options.firstIteration = FirstIteration::SkipIfDifferent;
    Harness h(CollectionMode::IterationReplay, 2, 8, c);
    int n = 0;
    do {
        h.push(("Train step " + std::to_string(n++)).c_str());
        h.launch("forward", 1);
        h.launch("backward", 2, {n == 2 ? 41u : 40u, 1, 1}); // only a grid differs
        h.pop();
    } while (h.collector.needsPass() && n < 10);
    EXPECT_EQ(n, 2);
    EXPECT_FALSE(h.collector.firstIterationSkipped());
    auto& l = h.finish();
    ASSERT_EQ(l.size(), 2u);
    EXPECT_EQ(l[0].iteration, 0);
    EXPECT_EQ(l[1].values, all(2)) << l[1].note;
}

TEST(CollectorIterationReplay, TheFirstIterationIsObservedOnlyWithNoProfiler) {
    // The session's default (FirstIteration::Skip): step 0 validates and creates state; it runs
    // with the profiler released, so nothing of it is measured, and measuring starts at step 1.
    for (CollectionMode mode : {CollectionMode::IterationReplay, CollectionMode::ScopeReplay}) {
        CollectorConfig c;
        c.options.firstIteration = FirstIteration::Skip;
        Harness h(mode, 2, 8, c);
        EXPECT_TRUE(h.backend.released()); // from the start: as the session creates it
        int n = 0;
        h.trainStepWithValidation(n++);
        EXPECT_TRUE(h.backend.released()) << toString(mode); // nothing measured in step 0
        EXPECT_TRUE(h.collector.onlyTheObservedIterationRan());
        while (h.collector.needsPass() && n < 10)
            h.trainStepWithValidation(n++);
        EXPECT_EQ(n, 3) << toString(mode); // step 0 observed, steps 1-2 the group's passes
        EXPECT_TRUE(h.collector.firstIterationSkipped());
        EXPECT_FALSE(h.collector.onlyTheObservedIterationRan());
        EXPECT_EQ(h.backend.acquires, 1);
        EXPECT_EQ(h.backend.reenables, 0);
        if (mode == CollectionMode::IterationReplay) {
            EXPECT_EQ(h.collector.coverage().iterationsNeeded, 3u);
        }
        auto& l = h.finish();
        if (mode == CollectionMode::ScopeReplay) {
            ASSERT_EQ(l.size(), 1u);
            EXPECT_EQ(l[0].values, all(4)) << l[0].note;
            continue;
        }
        ASSERT_EQ(l.size(), 2u);
        EXPECT_EQ(l[0].values, all(1)) << l[0].note;
        EXPECT_EQ(l[1].values, all(3)) << l[1].note;
        EXPECT_EQ(l[0].iteration, 1);
        EXPECT_EQ(h.collector.supersededLaunches(), 0u); // nothing measured twice
    }
}

TEST(CollectorIterationReplay, IterationsAFilterRefusesDoNotSpendTheReplay) {
    // ncu-style "Train step 5/" include: steps 0-4 admit nothing. Their passes 0 end at once
    // (before, steps 1-4 ran as that group's later passes and step 5 was spent as pass 5 of a
    // group with no records); step 5 is pass 0 of the group that records its launches.
    CollectorConfig c;
    c.filter = core::KernelFilter({"Train step 5/"}, {}, "");
    Harness h(CollectionMode::IterationReplay, 3, 8, c);
    int n = 0;
    bool more = true;
    while ((n < 6 || more) && n < 20) { // a training loop of 6 steps, longer while needed
        h.push(("Train step " + std::to_string(n++)).c_str());
        h.launch("forward", 1);
        h.launch("backward", 2);
        h.pop();
        more = h.collector.needsPass();
    }
    EXPECT_EQ(n, 8); // steps 5, 6, 7: the group's three passes
    EXPECT_EQ(h.collector.emptyGroups(), 5u);
    auto& l = h.finish();
    ASSERT_EQ(l.size(), 2u);
    EXPECT_EQ(l[0].iteration, 5);
    EXPECT_EQ(l[0].values, all(1)) << l[0].note;
    EXPECT_EQ(l[1].values, all(2)) << l[1].note;
}

// The same include with repeated-launch reuse on (the default): the filter's step is measured.
TEST(CollectorIterationReplay, AStepFilterWithReuseRecordsThatStep) {
    CollectorConfig c;
    c.reuseSamples = 2; // the default
    c.filter = core::KernelFilter({"Train step 5/"}, {}, "");
    Harness h(CollectionMode::IterationReplay, 3, 8, c);
    int n = 0;
    bool more = true;
    while ((n < 6 || more) && n < 30) {
        h.push(("Train step " + std::to_string(n++)).c_str());
        h.launch("forward", 1);
        h.launch("backward", 2);
        h.pop();
        more = h.collector.needsPass();
    }
    auto& l = h.finish();
    ASSERT_EQ(l.size(), 2u) << "steps run: " << n;
    EXPECT_EQ(l[0].iteration, 5);
    EXPECT_EQ(l[0].values, all(1)) << l[0].note;
    EXPECT_EQ(l[1].values, all(2)) << l[1].note;
}

// The same include in a session that goes idle once the profile is complete (roofline run): the
// steps before step 5 admit nothing, so they cannot complete the profile -- it waits for step 5.
TEST(CollectorIterationReplay, AStepFilterWithReuseIsNotCompleteBeforeItsStep) {
    CollectorConfig c;
    c.reuseSamples = 2;
    c.options.idleWhenComplete = true;
    c.filter = core::KernelFilter({"Train step 5/"}, {}, "");
    Harness h(CollectionMode::IterationReplay, 3, 8, c);
    int n = 0;
    bool complete = false;
    while (!complete && n < 30) {
        h.push(("Train step " + std::to_string(n++)).c_str());
        h.launch("forward", 1);
        h.launch("backward", 2);
        h.pop();
        complete = h.collector.takeCompletion();
    }
    EXPECT_GT(n, 6);
    EXPECT_LT(n, 30);
    auto& l = h.finish();
    ASSERT_EQ(l.size(), 2u) << "steps run: " << n;
    EXPECT_EQ(l[0].iteration, 5);
    EXPECT_EQ(l[0].values, all(1)) << l[0].note;
    EXPECT_EQ(l[1].values, all(2)) << l[1].note;
}

// The second iteration is taken as the reference at once; when the third launches other kernels,
// the second was not the steady one: the cycle is dropped and starts again on a steady iteration,
// and no record describes the odd step's launches.
TEST(CollectorIterationReplay, AnOddSecondIterationIsNotTheReference) {
    CollectorConfig c;
    c.reuseSamples = 2;
    c.options.idleWhenComplete = true;
    Harness h(CollectionMode::IterationReplay, 2, 16, c);
    int n = 0;
    bool complete = false;
    while (!complete && n < 20) {
        h.push(("Train step " + std::to_string(n)).c_str());
        if (n == 0)
            h.launch("validation", 9);
        h.launch("forward", 1);
        if (n == 1)
            h.launch("lazyInit", 5); // the second step differs too
        h.launch("backward", 2);
        h.pop();
        complete = h.collector.takeCompletion();
        ++n;
    }
    EXPECT_LT(n, 20);
    auto& l = h.finish();
    ASSERT_EQ(l.size(), 2u);
    EXPECT_EQ(l[0].mangledName, "forward");
    EXPECT_EQ(l[0].values, all(1)) << l[0].note;
    EXPECT_EQ(l[1].mangledName, "backward");
    EXPECT_EQ(l[1].values, all(2)) << l[1].note;
    EXPECT_GE(l[0].iteration, 2);
}
