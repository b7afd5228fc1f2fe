// Windows of iteration replay with repeated-launch reuse, through the collector on the fake
// backend: a cycle's last and first windows measured as one across the iteration's end (in every
// pass mode, kept apart by launches between iterations, dropped with its pass open, cut short by
// launches between), and a training step's shape that completes in 8 iterations.
#include "report/recording_text.hpp"
#include "unit/collector_harness.hpp"
#include "unit/collector_steps.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

using namespace roofline;
using namespace roofline::collect;
using namespace roofline::collect::testing;

// A cycle whose last window ends the iteration and whose first begins it: with 3 passes the two
// are measured as one window across the iteration's end -- each pass from the head (launch 13)
// of one step into the embedding and first layers (launches 0-4) of the next -- in 3 + 1
// iterations, not 2 x 3 - 1.
TEST(CollectorIterationReplay, TheLastAndFirstWindowsAreOneAcrossTheIterationsEnd) {
    Harness h(CollectionMode::IterationReplay, 3, 96, reuseConfig(2, 2));
    int iterations = 0;
    while (h.collector.needsPass() && iterations < 20) {
        layeredTrainStep(h);
        ++iterations;
    }
    EXPECT_EQ(iterations, 2 + 3 + 1);
    EXPECT_EQ(h.backend.capacity(), 1u + 5u + 2u); // the tail, the head, room between
    auto& l = h.finish();
    ASSERT_EQ(l.size(), 14u);
    std::size_t reused = 0;
    for (const auto& r : l) {
        ASSERT_FALSE(r.values.empty()) << r.name << ": " << r.note;
        const double work = layeredWork(r.mangledName);
        EXPECT_EQ(r.values, all(work)) << r.mangledName << " at " << r.position;
        EXPECT_EQ(r.replay, ReplayStatus::Clean) << r.note;
        reused += r.reusedSamples > 0 ? 1 : 0;
    }
    EXPECT_EQ(reused, 8u);
    const core::Coverage cov = h.collector.coverage();
    EXPECT_TRUE(cov.complete());
    EXPECT_EQ(cov.iterationsNeeded, 6u);
    EXPECT_EQ(h.collector.mismatchedGroups(), 0u);
}

// Planned as [0, 10), [10, 16), [24, 25): the first window and the tail overflow an image of 10
// with the room between them. The head stops at launch 7 instead, leaving room for the tail, and
// launches 7-9 join the middle window: [24, 25) + [0, 7) across the end, then [7, 16), in
// 2 + 1 + 2 + 2 + 1 = 8 iterations instead of 2 + 1 + 3 x 2 = 9.
TEST(CollectorIterationReplay, AShorterHeadMakesRoomForTheTailAcrossTheEnd) {
    Harness h(CollectionMode::IterationReplay, 3, 10, reuseConfig(2, 2));
    const auto step = [&] {
        h.push("Train step");
        for (const char* k : {"e", "a", "b", "c", "d"})
            h.launch(k, 1);
        for (int layer = 0; layer < 3; ++layer) {
            h.launch("matmul", 10);
            h.launch("gelu", 2);
        }
        h.launch("x", 5);
        for (int layer = 0; layer < 6; ++layer) {
            h.launch("matmul", 10);
            h.launch("gelu", 2);
        }
        h.launch("head", 7);
        h.pop();
    };
    int iterations = 0;
    while (h.collector.needsPass() && iterations < 20) {
        step();
        ++iterations;
    }
    EXPECT_EQ(iterations, 8);
    EXPECT_LE(h.backend.capacity(), 10u);
    const core::Coverage cov = h.collector.coverage();
    EXPECT_TRUE(cov.complete());
    EXPECT_TRUE(cov.windowAcrossEnd);
    auto& l = h.finish();
    ASSERT_EQ(l.size(), 25u);
    for (const auto& r : l) {
        const double work = r.mangledName == "matmul" ? 10
                            : r.mangledName == "gelu" ? 2
                            : r.mangledName == "x"    ? 5
                            : r.mangledName == "head" ? 7
                                                      : 1;
        EXPECT_EQ(r.values, all(work)) << r.mangledName << " at " << r.position << ": " << r.note;
        EXPECT_EQ(r.replay, ReplayStatus::Clean) << r.note;
    }
}

// The window across the iteration's end in every pass mode: positional and aligned passes, the
// L2 flushed before each kernel by a kernel whose range is left out, and a first window whose
// MMA work needs the tensor counters (measured again with them): every launch gets its own work,
// clean, and the profile completes.
TEST(CollectorIterationReplay, AWindowAcrossTheEndHoldsInEveryPassMode) {
    for (const bool aligned : {false, true})
        for (const bool flush : {false, true})
            for (const bool mma : {false, true}) {
                SCOPED_TRACE(std::string(aligned ? "aligned" : "positional") +
                             (flush ? ", flush kernel" : "") + (mma ? ", MMA found" : ""));
                CollectorConfig c = reuseConfig(2, 2);
                c.alignFromStart = aligned;
                c.flushEachKernel = flush;
                bool grown = false;
                if (mma)
                    matmulNeedsTensorCounters(c, grown);
                Harness h(CollectionMode::IterationReplay, 3, 96, c, aligned ? 3 : 0);
                int iterations = 0;
                while (h.collector.needsPass() && iterations < 40) {
                    if (h.collector.metricExpansions() > 0)
                        grown = true;
                    layeredTrainStep(h);
                    ++iterations;
                }
                EXPECT_LT(iterations, 40);
                EXPECT_EQ(h.collector.metricExpansions(), mma ? 1u : 0u);
                if (!mma) {
                    EXPECT_EQ(iterations, 2 + 3 + 1);
                }
                auto& l = h.finish();
                ASSERT_EQ(l.size(), 14u);
                for (const auto& r : l) {
                    const double work = layeredWork(r.mangledName);
                    EXPECT_EQ(r.values, all(work))
                        << r.mangledName << " at " << r.position << ": " << r.note;
                    EXPECT_EQ(r.replay, ReplayStatus::Clean) << r.note;
                }
                EXPECT_EQ(h.collector.mismatchedGroups(), 0u);
            }
}

// Launches between the steps (outside the step's range) keep the windows apart: a launch there
// that comes and goes would put the passes of a window across the end out of step.
TEST(CollectorIterationReplay, LaunchesBetweenIterationsKeepTheWindowsApart) {
    Harness h(CollectionMode::IterationReplay, 3, 96, reuseConfig(2, 2));
    int iterations = 0;
    while (h.collector.needsPass() && iterations < 20) {
        layeredTrainStep(h);
        h.launch("zeroGrad", 3); // outside the step: no record
        ++iterations;
    }
    EXPECT_EQ(iterations, 2 + 3 + 2); // [0, 5) x 3, [13, 14) x 3 from [0, 5)'s last iteration
    auto& l = h.finish();
    ASSERT_EQ(l.size(), 14u);
    for (const auto& r : l)
        EXPECT_FALSE(r.values.empty()) << r.name << ": " << r.note;
}

// Launches between the steps that begin only once the cycle is planned (a logger that starts at
// step 3) fill the image of a window across the end before the head is in: the head launches it
// lost are measured by a later window, and every launch still gets its own work.
TEST(CollectorIterationReplay, LaunchesBetweenStepsThatFillAWindowAcrossTheEndLoseNoLaunch) {
    Harness h(CollectionMode::IterationReplay, 3, 96, reuseConfig(2, 2));
    int iterations = 0;
    while (h.collector.needsPass() && iterations < 30) {
        layeredTrainStep(h);
        if (iterations >= 2)
            for (int k = 0; k < 5; ++k)
                h.launch("logger", 9); // outside the step: no record
        ++iterations;
    }
    EXPECT_LT(iterations, 30);
    auto& l = h.finish();
    ASSERT_EQ(l.size(), 14u);
    for (const auto& r : l) {
        const double work = layeredWork(r.mangledName);
        EXPECT_EQ(r.values, all(work)) << r.mangledName << " at " << r.position << ": " << r.note;
    }
}

// The second iteration is taken as the reference at once and the third checks it: when the
// third differs, the window across its end -- its pass 0 still open -- is dropped, the profiler
// re-created, and a later cycle measures every launch.
TEST(CollectorIterationReplay, AWindowAcrossTheEndIsDroppedWhenTheThirdIterationDiffers) {
    Harness h(CollectionMode::IterationReplay, 3, 96, reuseConfig(2, 2));
    int iterations = 0;
    while (h.collector.needsPass() && iterations < 30) {
        // The first and the third launch one more kernel at their end.
        layeredTrainStep(h, false,
                         iterations == 0   ? "warmup"
                         : iterations == 2 ? "dropout"
                                           : nullptr);
        ++iterations;
    }
    EXPECT_LT(iterations, 30);
    EXPECT_GE(h.backend.reenables, 1);
    auto& l = h.finish();
    ASSERT_EQ(l.size(), 14u);
    for (const auto& r : l) {
        EXPECT_FALSE(r.values.empty()) << r.name << ": " << r.note;
        EXPECT_NE(r.mangledName, "dropout");
    }
    EXPECT_GE(h.collector.supersededLaunches(), 1u); // the dropped window's pass-0 records
}

// The shape of a transformer's training step (examples/training_step, 28 layers): validation
// inside step 0, an embedding, layers of six launches under their own ranges, the head and the
// loss; a backward pass of ten launches per layer under one range, an embedding backward whose
// grid follows the data, the optimizer (its state filled on first use). With the default reuse
// (2 samples, windows as long as an image of 96 holds) and 3 passes, the cycle's windows are the
// first layers, the loss and last layers' backward, and the tail; the tail and the next step's
// first layers are measured as one window across the step's end, the middle one follows on the
// iteration that window completes: complete after 2 observed + 4 + 2 = 8 steps.
// Images that may grow (rangesPerImageMax) keep their size here: one window over the whole step
// would take in every launch already sampled, three passes over ~480 ranges for an iteration
// fewer.
static void trainingStepsShape(std::size_t rangesPerImageMax);

TEST(CollectorIterationReplay, ATrainingStepsShapeCompletesInEightIterations) {
    for (const std::size_t most : {0, 512})
        trainingStepsShape(most);
}

static void trainingStepsShape(std::size_t rangesPerImageMax) {
    SCOPED_TRACE("images up to " + std::to_string(rangesPerImageMax) + " ranges");
    constexpr int kLayers = 28;
    CollectorConfig c;
    c.reuseSamples = 2;
    c.options.idleWhenComplete = true;
    c.rangesPerImageMax = rangesPerImageMax;
    Harness h(CollectionMode::IterationReplay, 3, 96, c);
    const auto gemm = [&](double work, std::uint32_t m, std::uint32_t n) {
        h.push("matmul");
        h.launch("gemm", work, Dim3{m, n, 1});
        h.pop();
    };
    const auto step = [&](int n) {
        h.push(("Train step " + std::to_string(n)).c_str());
        if (n == 0) {
            h.push("Validation");
            for (int l = 0; l < 4; ++l)
                h.launch("validation_forward", 9);
            h.pop();
        }
        h.push("forward");
        h.launch("embeddingForward", 1);
        for (int l = 0; l < kLayers; ++l) {
            h.push(("Layer " + std::to_string(l)).c_str());
            h.launch("layernormForward", 2);
            gemm(10, 4, 4);
            h.launch("castToBf16", 3);
            gemm(11, 16, 4);
            h.launch("geluForward", 4);
            gemm(12, 4, 16);
            h.pop();
        }
        h.launch("layernormForward", 2);
        gemm(13, 64, 4);
        h.launch("crossEntropy", 5);
        h.pop();
        h.push("backward");
        gemm(14, 4, 64);
        gemm(15, 2, 64);
        h.launch("layernormBackward", 6);
        h.launch("layernormParamGrad", 7);
        for (int l = kLayers - 1; l >= 0; --l) {
            h.launch("castToBf16", 3);
            gemm(16, 16, 8);
            gemm(17, 4, 16);
            h.launch("geluBackward", 8);
            gemm(18, 4, 8);
            gemm(19, 16, 4);
            h.launch("castToBf16", 3);
            gemm(20, 4, 8);
            gemm(21, 4, 4);
            h.launch("layernormParamGrad", 7);
            h.launch("layernormBackward", 6);
        }
        h.launch("embeddingBackward", 22, Dim3{static_cast<std::uint32_t>(100 + n % 5), 1, 1});
        h.pop();
        h.push("optimizer");
        if (n == 0) {
            h.launch("fill", 0.5);
            h.launch("fill", 0.5);
        }
        h.launch("adamw", 23);
        h.launch("castToBf16", 3);
        h.pop();
        h.pop();
    };
    int n = 0;
    while (!h.collector.takeCompletion() && n < 40)
        step(n++);
    EXPECT_EQ(n, 8);
    const core::Coverage cov = h.collector.coverage();
    EXPECT_EQ(cov.iterationsNeeded, 8u);
    EXPECT_EQ(cov.windows, 2u);
    EXPECT_TRUE(cov.windowAcrossEnd);
    EXPECT_NE(report::describe(cov).find("8 iterations needed (2 windows of up to 96 ranges x 3 "
                                         "passes, one across the iteration's end)"),
              std::string::npos)
        << report::describe(cov);
    auto& l = h.finish();
    const std::size_t perStep = 1 + 6 * kLayers + 3 + 4 + 11 * kLayers + 1 + 2;
    ASSERT_EQ(l.size(), perStep);
    for (const auto& r : l) {
        ASSERT_EQ(r.values.size(), kMetrics)
            << r.mangledName << " at " << r.position << ": " << r.note;
        EXPECT_FALSE(std::isnan(r.values[0])) << r.mangledName << ": " << r.note;
        // Only the embedding backward's grid differs between passes (it follows the data).
        EXPECT_EQ(r.replay, r.mangledName == "embeddingBackward" ? ReplayStatus::Differs
                                                                 : ReplayStatus::Clean)
            << r.mangledName << ": " << r.note;
    }
}

// A step of launches that are all different (a ResNet's convolutions, batch norms and their
// backward, each layer with its own shapes) needs every launch measured: images that may grow
// measure it in one window of 300 ranges instead of four of up to 96 -- 5 iterations instead of
// 11 -- for as many ranges.
TEST(CollectorIterationReplay, ImagesGrowWhereFewerWindowsMeasureAsManyRanges) {
    for (const std::size_t most : {0, 320}) {
        SCOPED_TRACE("images up to " + std::to_string(most) + " ranges");
        CollectorConfig c;
        c.reuseSamples = 2;
        c.options.idleWhenComplete = true;
        c.rangesPerImageMax = most;
        Harness h(CollectionMode::IterationReplay, 3, 96, c);
        int n = 0;
        while (!h.collector.takeCompletion() && n < 40) {
            h.push(("step " + std::to_string(n++)).c_str());
            for (int k = 0; k < 300; ++k)
                h.launch(("layer" + std::to_string(k)).c_str(), 1.0 + k);
            h.pop();
        }
        const core::Coverage cov = h.collector.coverage();
        EXPECT_EQ(n, most == 0 ? 11 : 5);
        EXPECT_EQ(cov.windows, most == 0 ? 4u : 1u);
        EXPECT_EQ(cov.launchesPerImage, most == 0 ? 96u : 300u);
        auto& l = h.finish();
        ASSERT_EQ(l.size(), 300u);
        for (std::size_t i = 0; i < l.size(); ++i)
            EXPECT_EQ(l[i].values, all(1.0 + static_cast<double>(i))) << i << ": " << l[i].note;
    }
}
