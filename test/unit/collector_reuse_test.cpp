// Iteration replay with repeated-launch reuse on the fake backend, through the collector: cycles
// of windows over a steady iteration (samples measured, the other launches reused; windows that
// follow each other inside an iteration), splits of launches that look alike but work
// differently, short and odd iterations, and which launches run under the profiler. The window
// across the iteration's end: collector_windows_test.cpp.
#include "unit/collector_harness.hpp"
#include "unit/collector_steps.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

using namespace roofline;
using namespace roofline::collect;
using namespace roofline::collect::testing;

// Repeated launches (design 0009): identical layers are measured K times; the first iteration is
// only observed; the cycle's windows leave out what is reused; profiling then stops.
TEST(CollectorIterationReplay, RepeatedLaunchesAreMeasuredKTimesAndReusedElsewhere) {
    Harness h(CollectionMode::IterationReplay, 2, 96, reuseConfig(2, 2));
    int iterations = 0;
    while (h.collector.needsPass() && iterations < 20) {
        layeredTrainStep(h);
        ++iterations;
    }
    // Two observed, window [0, 5) x 2 passes, [13, 14) x 2 from the iteration of [0, 5)'s pass 1.
    EXPECT_EQ(iterations, 2 + 2 + 1);
    auto& l = h.finish();
    ASSERT_EQ(l.size(), 14u); // every launch of one iteration
    std::size_t reused = 0;
    for (const auto& r : l) {
        ASSERT_FALSE(r.values.empty()) << r.name << ": " << r.note;
        const double work = layeredWork(r.mangledName);
        EXPECT_EQ(r.values, all(work)) << r.mangledName << " at " << r.position;
        if (r.reusedSamples > 0) {
            ++reused;
            EXPECT_EQ(r.reusedSamples, 2u);
            EXPECT_NE(r.note.find("reused: mean of 2"), std::string::npos) << r.note;
            EXPECT_GE(r.position, 5);
            EXPECT_LE(r.position, 12);
        }
    }
    EXPECT_EQ(reused, 8u); // layers 2-5
    EXPECT_EQ(h.collector.reusedLaunches(), 8u);
    const core::Coverage cov = h.collector.coverage();
    EXPECT_TRUE(cov.complete());
    EXPECT_EQ(cov.iterationsNeeded, 5u);
}

// Reuse observes before it measures: no profiler while it observes (a first iteration's lazy
// module loads cost no re-creation), an image the size of the cycle's longest window, and no
// profiler once the profile is complete (CUPTI's memory per range goes with it).
TEST(CollectorIterationReplay, ReuseHoldsAProfilerOnlyWhileItMeasures) {
    Harness h(CollectionMode::IterationReplay, 2, 96, reuseConfig(2, 2));
    EXPECT_TRUE(h.backend.released());
    int iterations = 0;
    while (h.collector.needsPass() && iterations < 20) {
        layeredTrainStep(h, iterations == 0); // the first loads the embedding's module
        if (iterations < 2) {
            EXPECT_TRUE(h.backend.released()) << "observing, iteration " << iterations;
        }
        ++iterations;
    }
    EXPECT_EQ(iterations, 2 + 2 + 1);
    EXPECT_EQ(h.backend.reenables, 0);   // the load came while nothing was enabled
    EXPECT_EQ(h.backend.capacity(), 5u); // windows [0, 5) and [13, 14): 5 ranges
    EXPECT_TRUE(h.backend.released());   // complete: released again
    EXPECT_EQ(h.backend.acquires, 1);    // one profiler for the whole cycle
    EXPECT_EQ(h.collector.coverage().launchesPerImage, 96u); // what an image may hold
    auto& l = h.finish();
    ASSERT_EQ(l.size(), 14u);
    for (const auto& r : l)
        EXPECT_FALSE(r.values.empty()) << r.name << ": " << r.note;
}

// A backward pass is often one range around every layer's kernels (PyTorch's autograd, the
// training-step example): its layers are found as one block of launches repeated, and reused as
// layers with their own scopes are.
TEST(CollectorIterationReplay, LayersRepeatedInsideOneScopeAreReused) {
    Harness h(CollectionMode::IterationReplay, 2, 96, reuseConfig(2, 2));
    int iterations = 0;
    while (h.collector.needsPass() && iterations < 20) {
        h.push("Train step");
        h.push("backward");
        h.launch("lossGrad", 1);
        for (int layer = 0; layer < 6; ++layer) {
            h.launch("matmulGrad", 10);
            h.launch("matmulGrad", 11, Dim3{2, 1, 1}); // the weight gradient: another grid
            h.launch("geluGrad", 2);
        }
        h.launch("embeddingGrad", 7);
        h.pop();
        h.pop();
        ++iterations;
    }
    // Two observed, window [0, 7) x 2 passes, [19, 20) x 2 from the iteration of [0, 7)'s pass 1.
    EXPECT_EQ(iterations, 2 + 2 + 1);
    auto& l = h.finish();
    ASSERT_EQ(l.size(), 20u);
    std::size_t reused = 0;
    for (const auto& r : l) {
        ASSERT_FALSE(r.values.empty()) << r.name << ": " << r.note;
        if (r.reusedSamples > 0) {
            ++reused;
            EXPECT_GE(r.position, 7);
            EXPECT_LE(r.position, 18);
            const double work = r.mangledName == "geluGrad" ? 2 : r.grid.x == 2 ? 11 : 10;
            EXPECT_EQ(r.values, all(work)) << r.mangledName << " at " << r.position;
        }
    }
    EXPECT_EQ(reused, 12u); // layers 2-5
}

// Launches that look alike but do different work (the same GEMM kernel and grid, another depth
// in each layer): their samples' work counters differ, so the signature is split and each of its
// launches is measured on its own -- no record is the mean of different work.
TEST(CollectorIterationReplay, LaunchesThatLookAlikeButWorkDifferentlyAreEachMeasured) {
    CollectorConfig c;
    c.reuseSamples = 2;
    c.reuseMaxGap = 2;
    c.metricNames = {"sm__sass_thread_inst_executed_op_ffma_pred_on.sum", "lts__t_bytes.sum"};
    Harness h(CollectionMode::IterationReplay, 2, 96, c);
    int iterations = 0;
    while (h.collector.needsPass() && iterations < 20) {
        h.push("Train step");
        h.push("backward");
        for (int layer = 0; layer < 5; ++layer) {
            h.launch("matmulGrad", 10 + layer); // looks alike, works more in each layer
            h.launch("geluGrad", 2);
        }
        h.pop();
        h.pop();
        ++iterations;
    }
    EXPECT_LT(iterations, 20);
    auto& l = h.finish();
    ASSERT_EQ(l.size(), 10u);
    EXPECT_EQ(h.collector.reusedDiffering(), 0u);
    for (std::size_t i = 0; i < l.size(); ++i) {
        SCOPED_TRACE(std::to_string(i) + " " + l[i].note);
        EXPECT_EQ(l[i].position, static_cast<std::int64_t>(i));
        EXPECT_EQ(l[i].values, all(i % 2 ? 2.0 : 10.0 + static_cast<double>(i / 2)));
        if (l[i].mangledName == "matmulGrad") {
            EXPECT_EQ(l[i].reusedSamples, 0u);
        }
    }
}

// One kernel launched at two problem sizes under one grid, each call inside a range of its own
// (as GPT-2's trainer wraps its matmul functions): every launch's place in its scope instance is
// the same, so they share a signature until their samples show different work.
TEST(CollectorIterationReplay, OneKernelAtTwoSizesUnderOneGridKeepsEachLaunchsWork) {
    CollectorConfig c;
    c.reuseSamples = 2;
    c.metricNames = {"sm__ops_path_tensor_src_bf16_dst_fp32.sum", "dram__bytes.sum",
                     "l1tex__t_bytes.sum"};
    c.options.idleWhenComplete = true; // as a session that goes idle once complete
    Harness h(CollectionMode::IterationReplay, 3, 8, c); // images of 8: not the whole step
    const auto step = [&](int n) {
        h.push(("Train step " + std::to_string(n)).c_str());
        for (int layer = 0; layer < 6; ++layer) {
            h.push(("Layer " + std::to_string(layer)).c_str());
            h.push("matmul");
            h.launch("gemm", 1); // K = C
            h.pop();
            h.launch("gelu", 7);
            h.push("matmul");
            h.launch("gemm", 4); // K = 4C: the same kernel and grid
            h.pop();
            h.pop();
        }
        h.pop();
    };
    int n = 0;
    while (!h.collector.takeCompletion() && n < 30)
        step(n++);
    EXPECT_LT(n, 30) << "never complete";
    auto& l = h.finish();
    ASSERT_EQ(l.size(), 18u);
    std::size_t reused = 0;
    for (std::size_t i = 0; i < l.size(); ++i) {
        SCOPED_TRACE(std::to_string(i) + " " + l[i].mangledName + ": " + l[i].note);
        const double work = i % 3 == 1 ? 7 : i % 3 == 0 ? 1 : 4;
        EXPECT_EQ(l[i].values, all(work));
        reused += l[i].reusedSamples > 0 && l[i].mangledName == "gemm" ? 1 : 0;
    }
    // The places of the two matmul ranges in each layer tell the depths apart: a layer's GEMMs
    // reuse the samples of the same depth in other layers.
    EXPECT_GT(reused, 0u);
    EXPECT_EQ(h.collector.reusedDiffering(), 0u);
}

// A job that stops before the split launches are measured on their own: their records have no
// values (never the mean of different work) and say why.
TEST(CollectorIterationReplay, AStopBeforeSplitLaunchesAreMeasuredLeavesThemWithoutValues) {
    CollectorConfig c;
    c.reuseSamples = 2;
    c.reuseMaxGap = 0;
    c.metricNames = {"sm__sass_thread_inst_executed_op_ffma_pred_on.sum"};
    Harness h(CollectionMode::IterationReplay, 2, 96, c);
    const auto step = [&] {
        h.push("Train step");
        h.push("backward");
        for (int layer = 0; layer < 5; ++layer) {
            h.launch("matmulGrad", 10 + layer);
            h.launch("geluGrad", 2);
        }
        h.pop();
        h.pop();
    };
    for (int i = 0; i < 4; ++i) // two observed, then the first window's two passes (launches 0-3)
        step();
    auto& l = h.finish();
    ASSERT_EQ(l.size(), 10u);
    EXPECT_EQ(h.collector.reusedDiffering(), 3u);
    for (std::size_t i = 0; i < l.size(); ++i) {
        SCOPED_TRACE(std::to_string(i) + ": " + l[i].note);
        if (i % 2) {
            EXPECT_EQ(l[i].values, all(2)); // geluGrad: measured or reused, the same work
        } else if (i < 4) {
            EXPECT_EQ(l[i].values, all(10.0 + static_cast<double>(i / 2)));
        } else {
            EXPECT_TRUE(l[i].values.empty());
            EXPECT_NE(l[i].note.find("did different work"), std::string::npos);
        }
    }
}

// A launch whose grid depends on the data has a new signature in every iteration: it is measured
// in its cycle, and once the profile is complete it does not start cycles forever.
TEST(CollectorIterationReplay, ADataDependentGridDoesNotKeepReuseProfiling) {
    CollectorConfig c;
    c.reuseSamples = 2;
    Harness h(CollectionMode::IterationReplay, 2, 96, c);
    int iterations = 0;
    while (h.collector.needsPass() && iterations < 20) {
        h.push("Train step");
        h.launch("matmul", 10);
        h.launch("embeddingBackward", 3, Dim3{100u + static_cast<std::uint32_t>(iterations), 1, 1});
        h.pop();
        ++iterations;
    }
    EXPECT_EQ(iterations, 2 + 2); // two observed, then one window of two passes
    const std::uint64_t groups = h.collector.groupsCompleted();
    for (int i = 0; i < 3; ++i) { // the program goes on: nothing more is measured
        h.push("Train step");
        h.launch("matmul", 10);
        h.launch("embeddingBackward", 3, Dim3{200u + static_cast<std::uint32_t>(i), 1, 1});
        h.pop();
    }
    EXPECT_EQ(h.collector.groupsCompleted(), groups);
    auto& l = h.finish();
    ASSERT_EQ(l.size(), 2u);
    EXPECT_EQ(l[1].values, all(3));
    EXPECT_EQ(l[1].replay, ReplayStatus::Differs); // its grid differed between the passes
}

// A grid that changes with every iteration adds a signature each time, and host memory with it,
// for as long as the program runs: past a bound, observation stops (the profile stays).
TEST(CollectorIterationReplay, ReuseStopsObservingAProgramThatNeverRepeatsItsGrids) {
    CollectorConfig c;
    c.reuseSamples = 2;
    c.reuseMaxSignatures = 20;
    Harness h(CollectionMode::IterationReplay, 2, 96, c);
    std::size_t most = 0;
    for (std::uint32_t i = 0; i < 40; ++i) {
        h.push("Train step");
        h.launch("matmul", 10);
        h.launch("counter", 3, Dim3{100u + i, 1, 1});
        h.pop();
        most = std::max(most, h.collector.reuseSignatures());
    }
    EXPECT_EQ(most, 20u); // the iteration that goes past 20 stops observation
    EXPECT_EQ(h.collector.reuseSignatures(), 0u); // stopped: no more signatures kept
    auto& l = h.finish();
    ASSERT_EQ(l.size(), 2u); // the profile made before stays
    EXPECT_EQ(l[0].values, all(10));
}

// Benchmark-style use: one replay loop per case, each case its own scope. Every case is measured
// (a later case's launches start their own cycle once they repeat).
TEST(CollectorIterationReplay, ReuseMeasuresEveryCaseOfASequenceOfReplayLoops) {
    CollectorConfig c;
    c.reuseSamples = 2;
    Harness h(CollectionMode::IterationReplay, 2, 96, c);
    for (const char* kase : {"case0", "case1", "case2"}) {
        int iterations = 0;
        while (h.collector.needsPass() && iterations < 20) {
            h.push(kase);
            h.launch("conv", 5);
            h.launch("conv", 6); // the same kernel and grid again: its own signature (ordinal)
            h.pop();
            ++iterations;
        }
        EXPECT_EQ(iterations, 2 + 2) << kase;
    }
    auto& l = h.finish();
    ASSERT_EQ(l.size(), 6u);
    for (std::size_t i = 0; i < l.size(); ++i) {
        EXPECT_EQ(l[i].values, all(i % 2 ? 6.0 : 5.0)) << i;
        EXPECT_EQ(l[i].reusedSamples, 0u);
    }
}

// a, b, six identical layers of c (one in a short iteration), d, e.
static void layeredStep(Harness& h, bool shortOne) {
    h.push("step");
    h.launch("a", 1);
    h.launch("b", 2);
    for (int i = 0; i < (shortOne ? 1 : 6); ++i) { // identical layers
        const std::string layer = "Layer " + std::to_string(i);
        h.push(layer.c_str());
        h.launch("c", 3);
        h.pop();
    }
    if (!shortOne) {
        h.launch("d", 4);
        h.launch("e", 5);
    }
    h.pop();
}

// An iteration that ends before the cycle's next window begins drops the cycle (warning); a
// later steady iteration starts another, which measures only what still lacks samples.
TEST(CollectorIterationReplay, AShortIterationDropsTheReuseCycleAndALaterOneFinishesIt) {
    Harness h(CollectionMode::IterationReplay, 2, 96, reuseConfig(1, 1));
    const auto iteration = [&](bool shortOne) { layeredStep(h, shortOne); };
    // Observed twice, then window [0, 3) in two passes; the next iteration is short: dropped.
    for (int i = 0; i < 4; ++i)
        iteration(false);
    iteration(true);
    int more = 0;
    while (h.collector.needsPass() && more < 20) {
        iteration(false);
        ++more;
    }
    // Unsteady after the short one, then steady, then window [8, 10) in two passes.
    EXPECT_EQ(more, 4);
    auto& l = h.finish();
    // The dropped cycle's window (a, b, the first c) keeps its 3 records; the completed cycle
    // gives a whole iteration: d and e measured, the other 8 reused from earlier samples.
    ASSERT_EQ(l.size(), 3u + 10u);
    std::size_t reused = 0;
    for (const auto& r : l) {
        ASSERT_FALSE(r.values.empty()) << r.mangledName << " " << r.note;
        reused += r.reusedSamples > 0 ? 1 : 0;
    }
    EXPECT_EQ(reused, 8u);
}

// The same when the short iteration comes after the window's first pass: that pass's records go
// (no record without values is left) and the profiler is re-created (CUPTI's replay at pass 0).
TEST(CollectorIterationReplay, AShortIterationInTheMiddleOfAWindowSupersedesItsFirstPass) {
    Harness h(CollectionMode::IterationReplay, 2, 96, reuseConfig(1, 1));
    const auto iteration = [&](bool shortOne) { layeredStep(h, shortOne); };
    // Observed x2, window [0, 3) x2, window [8, 10)'s pass 0 on the iteration of [0, 3)'s pass 1.
    for (int i = 0; i < 4; ++i)
        iteration(false);
    const int reenables = h.backend.reenables;
    iteration(true); // pass 1 of window [8, 10) cannot run
    EXPECT_EQ(h.backend.reenables, reenables + 1);
    int more = 0;
    while (h.collector.needsPass() && more < 20) {
        iteration(false);
        ++more;
    }
    auto& l = h.finish();
    ASSERT_EQ(l.size(), 3u + 10u);
    for (const auto& r : l)
        EXPECT_FALSE(r.values.empty()) << r.mangledName << " at " << r.position << ": " << r.note;
    EXPECT_GE(h.collector.supersededLaunches(), 2u); // d and e of the dropped first pass
}

// The host side leaves out the scope instances whose kernels ran under the profiler: the
// collector says which launches do (a pass open), and which run without it.
TEST(CollectorIterationReplay, EachLaunchSaysWhetherItRunsUnderTheProfiler) {
    Harness h(CollectionMode::IterationReplay, 2, 96, reuseConfig(2, 2));
    std::vector<bool> profiled;
    for (int it = 0; it < 8; ++it) {
        h.push("step");
        profiled.push_back(h.launch("a", 1));
        profiled.push_back(h.launch("b", 2));
        h.pop();
    }
    h.finish();
    // Reuse observes two iterations without a profiler, measures the two passes in the next
    // two, and holds no profiler once the profile is complete.
    const std::vector<bool> expected{false, false, false, false, true,  true,  true,  true,
                                     false, false, false, false, false, false, false, false};
    EXPECT_EQ(profiled, expected);
}