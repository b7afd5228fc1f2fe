// The collector's state machines driven through the fake counter backend of collector_harness.hpp.
#include "session/fallback.hpp"
#include "report/recording_text.hpp"
#include "unit/collector_harness.hpp"

#include <roofline/error.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include <stdexcept>

using namespace roofline;
using namespace roofline::collect;

using namespace roofline::collect::testing;

TEST(CollectorKernelReplay, OneRecordPerScopedLaunchAcrossImageReuse) {
    Harness h(CollectionMode::KernelReplay, 3, 2);
    h.launch("outside", 99); // no scope open: not profiled
    h.push("train");
    h.push("step");
    for (int k = 1; k <= 5; ++k)
        h.launch("k", k);
    h.pop();
    h.pop();
    h.launch("outside", 99);
    auto& l = h.finish();
    ASSERT_EQ(l.size(), 5u);
    for (int k = 0; k < 5; ++k) {
        EXPECT_EQ(l[k].values, all(k + 1.0)) << k;
        EXPECT_EQ(l[k].scopePath, "train/step");
        EXPECT_EQ(l[k].threadId, 7u);
        EXPECT_EQ(l[k].stream, 3u);
    }
    EXPECT_EQ(h.backend.configures, 1 + 3); // set-up, then after each of the 3 images
    EXPECT_EQ(h.collector.groupsCompleted(), 3u);
    EXPECT_EQ(h.collector.droppedRanges(), 0u);
    EXPECT_EQ(h.result.images.size(), 3u); // 3 x 100 bytes within the 1000-byte budget
    EXPECT_EQ(l[4].chunk, 2);
    EXPECT_EQ(l[4].range, 0u);
}

TEST(CollectorKernelReplay, FiltersStopTheProfilerForRefusedLaunches) {
    CollectorConfig c;
    c.filter = core::KernelFilter({"b/"}, {}, "regex:^keep");
    c.options.launchSkip = 1;
    c.options.launchCount = 2;
    Harness h(CollectionMode::KernelReplay, 2, 8, c);
    h.push("a");
    h.launch("keep_a", 1); // not under b
    h.push("b");
    h.launch("keep_1", 2); // skipped (launch skip 1)
    h.launch("drop", 3);   // name filter
    h.launch("keep_2", 4);
    h.launch("keep_3", 5);
    h.launch("keep_4", 6); // beyond launch count 2
    h.pop();
    h.pop();
    auto& l = h.finish();
    ASSERT_EQ(l.size(), 2u);
    EXPECT_EQ(l[0].mangledName, "keep_2");
    EXPECT_EQ(l[0].values, all(4));
    EXPECT_EQ(l[1].mangledName, "keep_3");
    EXPECT_EQ(l[1].values, all(5));
}

TEST(CollectorIterationReplay, PassIOnIterationIAssemblesEachKernelsCounters) {
    Harness h(CollectionMode::IterationReplay, 3, 8);
    for (int it = 0; it < 6; ++it) {
        h.push("step");
        h.launch("a", 1 + it * 0); // same work each iteration
        h.launch("b", 10);
        h.pop();
    }
    auto& l = h.finish();
    ASSERT_EQ(l.size(), 4u); // two groups of three passes, two kernels each
    EXPECT_EQ(l[0].values, all(1));
    EXPECT_EQ(l[1].values, all(10));
    EXPECT_EQ(l[2].values, all(1));
    EXPECT_EQ(l[3].values, all(10));
    EXPECT_TRUE(l[0].note.empty()) << l[0].note;
    EXPECT_EQ(h.collector.groupsCompleted(), 2u);
    EXPECT_EQ(h.collector.mismatchedGroups(), 0u);
}

TEST(CollectorIterationReplay, ShortIterationsShareAPassUpToAnImage) {
    CollectorConfig c;
    c.options.iterationsPerPass = kAuto;
    Harness h(CollectionMode::IterationReplay, 2, 12, c); // 2 kernels per step: 3 steps a pass
    for (int it = 0; it < 12; ++it) {
        h.push("step");
        h.launch("a", it % 3 + 1.0); // a different value per step within the pass
        h.launch("b", 10);
        h.pop();
        h.launch("between", 100); // outside the scope, inside a pass: a range, no record
    }
    auto& l = h.finish();
    ASSERT_EQ(l.size(), 12u); // two groups of 3 steps x 2 kernels
    EXPECT_EQ(h.collector.groupsCompleted(), 2u);
    for (int i = 0; i < 12; i += 2) {
        EXPECT_EQ(l[i].values, all(i / 2 % 3 + 1.0)) << i << ": " << l[i].note;
        EXPECT_EQ(l[i + 1].values, all(10));
    }
    EXPECT_EQ(h.collector.mismatchedGroups(), 0u);
}

TEST(CollectorIterationReplay, ADifferentKernelInAReplayedPassCostsOnlyThatLaunch) {
    CollectorConfig c;
    c.options.firstIteration = FirstIteration::Measure; // pass 0 is the first iteration here
    Harness h(CollectionMode::IterationReplay, 2, 8, c);
    h.push("step");
    h.launch("kern_a", 1);
    h.launch("kern_b", 2);
    h.pop();
    h.push("step");
    h.launch("kern_a", 1);
    h.launch("kern_c", 5, {4, 1, 1}); // a different kernel in pass 1
    h.pop();
    auto& l = h.finish();
    ASSERT_EQ(l.size(), 2u);
    EXPECT_EQ(h.collector.mismatchedGroups(), 1u);
    EXPECT_NE(l[1].note.find("iteration replay mismatch: pass 1 launch 1 is kern_c <<<4x1x1"),
              std::string::npos)
        << l[1].note;
    EXPECT_TRUE(l[1].values.empty()); // its range combines kern_b's and kern_c's counters
    EXPECT_EQ(l[0].values, all(1)) << l[0].note; // kern_a ran in both passes: clean
    EXPECT_EQ(l[0].note, "");
    EXPECT_EQ(h.collector.unmatchedLaunches(), 1u);
    EXPECT_EQ(h.collector.differingLaunches(), 0u);
}

TEST(CollectorIterationReplay, ADataDependentGridKeepsItsValuesWithANote) {
    // An embedding-backward-like kernel whose grid follows the data: 3042 blocks, then 3045.
    Harness h(CollectionMode::IterationReplay, 3, 8);
    for (int pass = 0; pass < 3; ++pass) {
        h.push("step");
        h.launch("gemm", 1);
        h.launch("embedding_backward", 2, {pass == 1 ? 3045u : 3042u, 1, 1});
        h.launch("adamw", 3);
        h.pop();
    }
    auto& l = h.finish();
    ASSERT_EQ(l.size(), 3u);
    for (int k = 0; k < 3; ++k)
        EXPECT_EQ(l[k].values, all(k + 1.0)) << k << ": " << l[k].note;
    EXPECT_EQ(l[0].note, "");
    EXPECT_EQ(l[2].note, "");
    EXPECT_NE(l[1].note.find("pass 1 ran it as embedding_backward <<<3045x1x1"), std::string::npos)
        << l[1].note;
    EXPECT_EQ(h.collector.differingLaunches(), 1u);
    EXPECT_EQ(h.collector.unmatchedLaunches(), 0u);
    EXPECT_EQ(h.collector.mismatchedGroups(), 1u);
}

TEST(CollectorIterationReplay, AnInsertedLaunchCostsTheLaunchesItShifts) {
    // Pass 1 launches an extra kernel before the third one: CUPTI's auto ranges are positional,
    // so every later launch of that pass lands one range further.
    CollectorConfig c;
    c.options.firstIteration = FirstIteration::Measure; // pass 0 is the first iteration here
    Harness h(CollectionMode::IterationReplay, 2, 8, c);
    h.push("step");
    for (int k = 0; k < 5; ++k)
        h.launch(("k" + std::to_string(k)).c_str(), k + 1.0);
    h.pop();
    h.push("step");
    h.launch("k0", 1);
    h.launch("k1", 2);
    h.launch("extra", 9);
    for (int k = 2; k < 5; ++k)
        h.launch(("k" + std::to_string(k)).c_str(), k + 1.0);
    h.pop();
    auto& l = h.finish();
    ASSERT_EQ(l.size(), 5u);
    EXPECT_EQ(l[0].values, all(1));
    EXPECT_EQ(l[1].values, all(2));
    for (int k = 2; k < 5; ++k)
        EXPECT_TRUE(l[k].values.empty()) << k;
    EXPECT_NE(l[3].note.find("pass 1 went out of step at launch 2"), std::string::npos)
        << l[3].note;
    EXPECT_EQ(h.collector.unmatchedLaunches(), 3u);
}

TEST(CollectorIterationReplay, APassThatEndsEarlyCostsTheLaunchesItLacks) {
    CollectorConfig c;
    c.options.firstIteration = FirstIteration::Measure; // pass 0 is the first iteration here
    Harness h(CollectionMode::IterationReplay, 2, 8, c);
    h.push("step");
    h.launch("a", 1);
    h.launch("b", 2);
    h.launch("validate", 3);
    h.pop();
    h.push("step");
    h.launch("a", 1);
    h.launch("b", 2);
    h.pop();
    auto& l = h.finish();
    ASSERT_EQ(l.size(), 3u);
    EXPECT_EQ(l[0].values, all(1));
    EXPECT_EQ(l[1].values, all(2));
    EXPECT_TRUE(l[2].values.empty());
    EXPECT_NE(l[2].note.find("pass 1 ended after 2 launches"), std::string::npos) << l[2].note;
}

TEST(CollectorIterationReplay, LongIterationsAreCoveredWindowByWindow) {
    Harness h(CollectionMode::IterationReplay, 2, 2); // 2 ranges per image, 5 kernels per step
    int iterations = 0;
    while (h.collector.needsPass()) {
        h.push("step");
        for (int k = 0; k < 5; ++k)
            h.launch("k", k + 1.0);
        h.pop();
        ++iterations;
        if (iterations > 20)
            break;
    }
    // Windows [0,2) [2,4) [4,5), two passes each; each window after the first takes its pass 0
    // on the iteration of the one before's pass 1, from where that one ended.
    EXPECT_EQ(iterations, 4);
    auto& l = h.finish();
    ASSERT_EQ(l.size(), 5u);
    for (int k = 0; k < 5; ++k)
        EXPECT_EQ(l[k].values, all(k + 1.0)) << k << ": " << l[k].note;
    const core::Coverage c = h.collector.coverage();
    ASSERT_TRUE(c.known);
    EXPECT_EQ(c.launchesPerIteration, 5u);
    EXPECT_EQ(c.iterationsNeeded, 4u);
    EXPECT_EQ(c.iterationsRun, 4u);
    EXPECT_EQ(c.launchesCovered, 5u);
    EXPECT_TRUE(c.complete());
}

TEST(CollectorIterationReplay, CoverageSaysWhenTheRunStoppedShort) {
    Harness h(CollectionMode::IterationReplay, 2, 2);
    for (int it = 0; it < 2; ++it) { // windows [0,2) complete, [2,4) at 1 of 2 passes
        h.push("step");
        for (int k = 0; k < 5; ++k)
            h.launch("k", k + 1.0);
        h.pop();
    }
    h.finish();
    const core::Coverage c = h.collector.coverage();
    EXPECT_EQ(c.iterationsNeeded, 4u);
    EXPECT_EQ(c.iterationsRun, 2u);
    EXPECT_EQ(c.launchesCovered, 2u);
    EXPECT_FALSE(c.complete());
    EXPECT_NE(report::describe(c).find("2 of 5 launches covered (incomplete"), std::string::npos)
        << report::describe(c);
}

TEST(CollectorIterationReplay, ReplayHelperRunsExactlyThePassesNeeded) {
    Harness h(CollectionMode::IterationReplay, 4, 8);
    int passes = 0;
    while (h.collector.needsPass()) {
        h.push("region");
        h.launch("k", 2);
        h.pop();
        ++passes;
    }
    EXPECT_EQ(passes, 4);
    auto& l = h.finish();
    ASSERT_EQ(l.size(), 1u);
    EXPECT_EQ(l[0].values, all(2));
}

TEST(CollectorIterationReplay, AGroupCutShortKeepsWhatItsPassesGaveAndSaysHowToFinishIt) {
    Harness h(CollectionMode::IterationReplay, 3, 8);
    h.push("train"); // one outermost scope around the whole loop: a single iteration
    for (int s = 0; s < 3; ++s) {
        h.push("step");
        h.launch("k", 1);
        h.pop();
    }
    h.pop();
    auto& l = h.finish();
    ASSERT_EQ(l.size(), 3u);
    for (const auto& r : l) {
        ASSERT_EQ(r.values.size(), kMetrics);
        for (std::size_t m = 0; m < kMetrics; ++m) // pass 0's metrics; the others unknown
            if (m % 3 == 0)
                EXPECT_EQ(r.values[m], 1.0) << m;
            else
                EXPECT_TRUE(std::isnan(r.values[m])) << m;
        EXPECT_NE(r.note.find("replay cut short: the session stopped after 1 of 3 passes;"),
                  std::string::npos)
            << r.note;
        EXPECT_NE(r.note.find("ROOFLINE_ITERATION_RANGE"), std::string::npos);
    }
}

TEST(CollectorIterationReplay, IterationRangeNamesTheLoopBody) {
    CollectorConfig c;
    c.options.iterationRange = "step";
    Harness h(CollectionMode::IterationReplay, 3, 8, c);
    h.push("train");
    for (int s = 0; s < 3; ++s) {
        h.push("step");
        h.launch("k", 4);
        h.pop();
    }
    h.pop();
    auto& l = h.finish();
    ASSERT_EQ(l.size(), 1u);
    EXPECT_EQ(l[0].values, all(4));
    EXPECT_EQ(l[0].scopePath, "train/step");
}

TEST(CollectorIterationReplay, CachesFlushedBeforeEachPassWhenAsked) {
    CollectorConfig c;
    c.flushPasses = true;
    Harness h(CollectionMode::IterationReplay, 2, 8, c);
    for (int it = 0; it < 2; ++it) {
        h.push("step");
        h.launch("k", 1);
        h.pop();
    }
    h.finish();
    EXPECT_EQ(h.backend.flushes, 2);
}

TEST(CollectorScopeReplay, OneRecordPerScopeWithAllItsKernels) {
    CollectorConfig c;
    c.options.scopeLevels = 2;
    Harness h(CollectionMode::ScopeReplay, 2, 8, c);
    for (int it = 0; it < 2; ++it) {
        h.push("step");
        h.push("a");
        h.launch("k1", 1);
        h.pop();
        h.push("b");
        h.launch("k2", 2);
        h.launch("k3", 3);
        h.push("deep"); // level 3: not measured on its own, counted in b and step
        h.launch("k4", 4);
        h.pop();
        h.pop();
        h.pop();
    }
    auto& l = h.finish();
    ASSERT_EQ(l.size(), 3u);
    EXPECT_EQ(l[0].scopePath, "step");
    EXPECT_TRUE(l[0].scopeRecord);
    EXPECT_EQ(l[0].kernels, 4u);
    EXPECT_EQ(l[0].values, all(10));
    EXPECT_EQ(l[1].scopePath, "step/a");
    EXPECT_EQ(l[1].kernels, 1u);
    EXPECT_EQ(l[1].values, all(1));
    EXPECT_EQ(l[2].scopePath, "step/b");
    EXPECT_EQ(l[2].kernels, 3u);
    EXPECT_EQ(l[2].values, all(9));
    EXPECT_TRUE(l[2].note.empty()) << l[2].note;
}

TEST(CollectorScopeReplay, ShortIterationsShareAPassAsDistinctRanges) {
    CollectorConfig c;
    c.options.iterationsPerPass = kAuto;
    Harness h(CollectionMode::ScopeReplay, 2, 8, c); // one scope a step: 4 steps a pass
    for (int it = 0; it < 8; ++it) {
        h.push("step");
        h.launch("k", it % 4 + 1.0);
        h.pop();
    }
    auto& l = h.finish();
    ASSERT_EQ(l.size(), 4u);
    for (int i = 0; i < 4; ++i) {
        EXPECT_EQ(l[i].values, all(i + 1.0)) << l[i].note;
        EXPECT_EQ(l[i].scopePath, "step");
        EXPECT_TRUE(l[i].note.empty()) << l[i].note;
    }
}

TEST(CollectorFailure, MidRunFailureSwitchesToTimingOnlyAndKeepsRecords) {
    Harness h(CollectionMode::IterationReplay, 1, 8);
    h.backend.failStartAt = 2;
    std::string cause;
    h.collector.setFailureHandler([&cause](const std::string& why) { cause = why; });
    for (int it = 0; it < 3; ++it) {
        h.push("step");
        h.launch("k", 5);
        h.pop();
    }
    auto& l = h.finish();
    EXPECT_EQ(h.collector.level(), Level::TimingOnly);
    EXPECT_NE(cause.find("injected"), std::string::npos);
    ASSERT_EQ(l.size(), 3u);
    EXPECT_EQ(l[0].values, all(5)); // measured before the failure
    EXPECT_TRUE(l[1].values.empty());
    EXPECT_NE(l[1].note.find("timing only: counter collection failed mid-run"), std::string::npos)
        << l[1].note;
}

TEST(CollectorThreads, PathsComeFromTheLaunchingThreadsStack) {
    Harness h(CollectionMode::KernelReplay, 1, 8);
    Stack other{{"", "loader", {}}, {"", "decode", {}}};
    h.push("train");
    h.launch("main_kernel", 1);
    Launch e;
    e.mangledName = "loader_kernel";
    e.threadId = 99;
    e.stream = 5;
    h.collector.onLaunch(e, other);
    h.backend.kernel(2);
    h.pop();
    auto& l = h.finish();
    ASSERT_EQ(l.size(), 2u);
    EXPECT_EQ(l[0].scopePath, "train");
    EXPECT_EQ(l[1].scopePath, "loader/decode");
    EXPECT_EQ(l[1].threadId, 99u);
    EXPECT_EQ(l[1].stream, 5u);
}

TEST(CollectorTimingOnly, RecordsLaunchesWithTheReason) {
    CollectorConfig c;
    c.timingReason = "timing only: counters restricted";
    Collector collector(c, {}, Level::TimingOnly, makeStrategy);
    Stack stack{{"", "step", {}}};
    Launch e;
    e.mangledName = "_Z3fooi";
    e.correlationId = 42;
    collector.onLaunch(e, stack);
    const CollectionResult r = collector.finish();
    ASSERT_EQ(r.launches.size(), 1u);
    EXPECT_EQ(r.launches[0].name, "foo(int)");
    EXPECT_EQ(r.launches[0].correlationId, 42u);
    EXPECT_EQ(r.launches[0].note, "timing only: counters restricted");
    EXPECT_EQ(r.counts.level, Level::TimingOnly);
    EXPECT_TRUE(collector.finish().launches.empty()); // once
}

TEST(Fallback, DecisionsNameTheCauseAndTheFix) {
    const Fallback priv = decideFallback(ErrorCode::InsufficientPrivileges, "x");
    EXPECT_EQ(priv.action, Fallback::Action::TimingOnly);
    EXPECT_NE(priv.message.find("NVreg_RestrictProfilingToAdminUsers=0"), std::string::npos);
    EXPECT_EQ(decideFallback(ErrorCode::InvalidArgument, "bad").action, Fallback::Action::Rethrow);
    EXPECT_EQ(decideFallback(ErrorCode::NoDevice, "none").action, Fallback::Action::Nothing);
    const Fallback busy = decideFallback(ErrorCode::ProfilerBusy, "subscriber");
    EXPECT_EQ(busy.action, Fallback::Action::TimingOnly);
    EXPECT_NE(busy.message.find("another CUPTI client"), std::string::npos);
    EXPECT_EQ(decideFallback(ErrorCode::UnsupportedChip, "GX1").action,
              Fallback::Action::TimingOnly);
    EXPECT_EQ(decideFallback(ErrorCode::Cupti, "boom").action, Fallback::Action::TimingOnly);
}

TEST(CollectorKernelReplay, EveryLaunchRunsUnderTheProfiler) {
    Harness h(CollectionMode::KernelReplay, 2, 8);
    h.push("step");
    EXPECT_TRUE(h.launch("k", 1));
    h.pop();
    // Not measured (no scope open), but the profiler stays enabled: CUPTI's work still slows it.
    EXPECT_TRUE(h.launch("outside", 1));
    h.finish();
}

// The L2 flushed before each measured kernel (ROOFLINE_CACHE_FLUSH=kernel): each flush is a kernel
// with a range of its own before the launch's, in every pass; the records take the launches'
// ranges, and an image holds half as many launches.
TEST(CollectorIterationReplay, AFlushBeforeEachKernelTakesARangeOfItsOwnAndIsLeftOut) {
    for (const bool aligned : {false, true}) {
        SCOPED_TRACE(aligned ? "aligned" : "positional");
        CollectorConfig c;
        c.flushEachKernel = true;
        c.alignFromStart = aligned;
        Harness h(CollectionMode::IterationReplay, 2, 8, c, aligned ? 2 : 0);
        int n = 0;
        while ((n < 2 || h.collector.needsPass()) && n < 20) {
            h.push("Train step");
            for (int k = 0; k < 6; ++k)
                h.launch(k % 2 ? "odd" : "even", 10 + k);
            h.pop();
            ++n;
        }
        // 6 launches, 4 to an image of 8 ranges: 2 windows x 2 passes, the second window's pass 0
        // on the first one's pass 1.
        EXPECT_EQ(n, 3);
        auto& l = h.finish();
        ASSERT_EQ(l.size(), 6u);
        for (std::size_t i = 0; i < l.size(); ++i) {
            EXPECT_EQ(l[i].position, static_cast<std::int64_t>(i));
            EXPECT_EQ(l[i].values, all(10.0 + static_cast<double>(i))) << l[i].note;
            if (!aligned) {
                EXPECT_EQ(l[i].range % 2, 1u); // its flush's range before it
            }
        }
        EXPECT_EQ(h.backend.kernelFlushes, 6 * 2); // every measured launch, every pass
        EXPECT_EQ(h.collector.coverage().launchesPerImage, 4u);
    }
}

// The session's cost summary adds every device's parts: each field of one backend's cost is
// carried into the sum.
TEST(BackendCostSummary, AddCarriesEveryPart) {
    roofline::collect::BackendCost a;
    a.creations = 1;
    a.creationMs = 2;
    a.evaluationMs = 3;
    a.ranges = 4;
    a.starts = 5;
    a.startMs = 6;
    a.objectStarts = 7;
    a.objectStartMs = 8;
    a.passMs = 9;
    a.stopMs = 11;
    a.memoryCopies = 12;
    a.memoryMs = 13;
    a.waitMs = 14;
    a.recordMs = 15;
    a.rangePasses = 16;
    a.objectRanges = 17;
    roofline::collect::BackendCost sum = a;
    sum.add(a);
    EXPECT_EQ(sum.creations, 2u);
    EXPECT_DOUBLE_EQ(sum.creationMs, 4);
    EXPECT_DOUBLE_EQ(sum.evaluationMs, 6);
    EXPECT_EQ(sum.ranges, 8u);
    EXPECT_EQ(sum.starts, 10u);
    EXPECT_DOUBLE_EQ(sum.startMs, 12);
    EXPECT_EQ(sum.objectStarts, 14u);
    EXPECT_DOUBLE_EQ(sum.objectStartMs, 16);
    EXPECT_DOUBLE_EQ(sum.passMs, 18);
    EXPECT_DOUBLE_EQ(sum.stopMs, 22);
    EXPECT_EQ(sum.memoryCopies, 24u);
    EXPECT_DOUBLE_EQ(sum.memoryMs, 26);
    EXPECT_DOUBLE_EQ(sum.waitMs, 28);
    EXPECT_DOUBLE_EQ(sum.recordMs, 30);
    EXPECT_EQ(sum.rangePasses, 32u);
    EXPECT_EQ(sum.objectRanges, 34u);
}
