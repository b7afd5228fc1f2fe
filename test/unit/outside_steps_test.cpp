// Iteration replay's launches no step covers (replay/iteration_replay_outside, design 0026), on
// the fake backend: set-up and warm-up before the first replay group, and every launch of a
// program with no step, are measured in recorded windows; the steps by iteration replay on the
// same profiler; the program's memory -- a number each kernel changes in order -- ends as the
// program computed it.
#include "unit/collector_harness.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

using namespace roofline;
using namespace roofline::collect;
using namespace roofline::collect::testing;

namespace {

CollectorConfig outsideSteps(std::size_t reuse = 0) {
    CollectorConfig c;
    c.windowsOutsideSteps = true;
    c.reuseSamples = reuse;
    c.metricNames = {"sm__sass_thread_inst_executed_op_ffma_pred_on.sum", "lts__t_bytes.sum",
                     "dram__bytes.sum"};
    return c;
}

bool hasCounters(const core::LaunchInfo& r) {
    return !r.values.empty() && !std::isnan(r.values[0]);
}

// A training loop: `steps` iterations of forward (1) and update (3) inside "step".
void steps(Harness& h, int n, std::vector<double>& works) {
    for (int i = 0; i < n; ++i) {
        h.push(("step " + std::to_string(i)).c_str());
        h.launch("forward", 1);
        h.launch("update", 3);
        works.push_back(1);
        works.push_back(3);
        h.pop();
    }
}

} // namespace

// Set-up launches before the first step (weights initialized, a warm-up kernel) get records with
// their own counters from a window; the steps are measured by iteration replay after it, and the
// program's memory is its own.
TEST(OutsideSteps, SetUpIsMeasuredInWindowsAndTheStepsByIterationReplay) {
    Harness h(CollectionMode::IterationReplay, 2, 16, outsideSteps());
    std::vector<double> works = {5, 6, 7};
    h.launch("init_weights", 5);
    h.launch("init_bias", 6);
    h.launch("warm_up", 7);
    steps(h, 6, works);
    auto& l = h.finish();
    ASSERT_GE(l.size(), 5u);
    EXPECT_EQ(l[0].values, all(5)) << l[0].note;
    EXPECT_EQ(l[1].values, all(6)) << l[1].note;
    EXPECT_EQ(l[2].values, all(7)) << l[2].note;
    std::size_t forward = 0, update = 0;
    for (const auto& r : l) {
        if (r.name == "forward" && r.values == all(1))
            ++forward;
        if (r.name == "update" && r.values == all(3))
            ++update;
    }
    EXPECT_GE(forward, 1u) << "the step's launches measured by iteration replay";
    EXPECT_GE(update, 1u);
    EXPECT_EQ(h.backend.memory, unprofiled(works)) << "the program's memory is its own";
    EXPECT_EQ(std::count(h.backend.windowLog.begin(), h.backend.windowLog.end(), "forget"), 1)
        << "one window: the set-up";
    EXPECT_EQ(h.result.counts.tally.outsideIterations, 0u);
}

// A program with no step at all (a benchmark script, a one-shot program) is measured launch by
// launch, each operation's repeats taking its samples' mean.
TEST(OutsideSteps, AProgramWithNoStepIsMeasuredAndItsRepeatsTakeTheirSamples) {
    Harness h(CollectionMode::IterationReplay, 3, 64, outsideSteps(2));
    std::vector<double> works;
    for (int op = 0; op < 3; ++op)
        for (int rep = 0; rep < 40; ++rep) {
            const double w = 10.0 + op;
            h.launch(("op" + std::to_string(op)).c_str(), w);
            works.push_back(w);
        }
    auto& l = h.finish();
    ASSERT_EQ(l.size(), 120u);
    for (std::size_t i = 0; i < l.size(); ++i)
        EXPECT_EQ(l[i].values, all(10.0 + static_cast<double>(i / 40))) << i << ": " << l[i].note;
    EXPECT_EQ(h.backend.memory, unprofiled(works));
    EXPECT_GT(h.result.counts.tally.reused, 0u) << "repeats took their signature's samples";

}

// Once the process holds pinned, mapped or managed memory, no window opens (a restore would undo
// another thread's store into it): those launches still get records, which take the counters of
// their signature's launches in the step (the step's kernel at its launch shape) or say why they
// have none; the stop says why no window measured them.
TEST(OutsideSteps, HostVisibleMemoryStopsTheWindowsAndTheStepLendsItsCounters) {
    Harness h(CollectionMode::IterationReplay, 2, 16, outsideSteps());
    std::vector<double> works = {5};
    h.launch("init_weights", 5);
    h.collector.onHostVisibleMemory(); // a DataLoader's pinned buffers
    h.launch("warm_up", 7);
    h.launch("forward", 1);            // the step's kernel, at its launch shape
    h.launch("forward", 1, {2, 1, 1}); // at another
    works.insert(works.end(), {7, 1, 1});
    steps(h, 6, works);
    auto& l = h.finish();
    ASSERT_GE(l.size(), 4u);
    EXPECT_EQ(l[0].values, all(5)) << "measured before the pinned allocation";
    EXPECT_EQ(h.result.counts.tally.outsideIterations, 0u) << "no launch without a record";
    EXPECT_EQ(h.result.counts.tally.outsideRecords, 3u);
    EXPECT_EQ(h.result.counts.tally.outsideLent, 1u);
    int warm = 0, lent = 0, otherShape = 0;
    for (const core::LaunchInfo& r : l) {
        if (r.iteration >= 0)
            continue;
        if (r.name == "warm_up") {
            ++warm;
            EXPECT_FALSE(hasCounters(r));
            EXPECT_EQ(r.note, "no counters: ran outside every step (after the process allocated "
                              "pinned, mapped or managed memory), where no window measured it");
        } else if (r.name == "forward" && r.grid.x == 1) {
            ++lent;
            EXPECT_EQ(r.values, all(1)) << r.note;
            EXPECT_GE(r.reusedSamples, 1u) << r.note;
            EXPECT_NE(r.note.find("measured launches of the same signature (the step's, at "
                                  "position 0); "),
                      std::string::npos)
                << r.note;
        } else if (r.name == "forward") {
            ++otherShape;
            EXPECT_FALSE(hasCounters(r)) << "no launch of the step has its shape";
        }
    }
    EXPECT_EQ(warm, 1);
    EXPECT_EQ(lent, 1);
    EXPECT_EQ(otherShape, 1);
    EXPECT_NE(h.result.counts.outsideWhy.find("pinned"), std::string::npos)
        << h.result.counts.outsideWhy;
    EXPECT_EQ(h.backend.memory, unprofiled(works));
}

// Launches between steps are not windowed (iteration replay releases the profiler while it
// observes the first step, and holds it between the passes of its groups): each gets a record,
// with the step's counters where the step runs its signature, and the stop says why no window
// measured them; those before the first step have their own counters.
TEST(OutsideSteps, LaunchesBetweenStepsGetRecordsWithTheStepsCounters) {
    CollectorConfig c = outsideSteps();
    c.options.firstIteration = FirstIteration::Skip;
    Harness h(CollectionMode::IterationReplay, 2, 16, c);
    std::vector<double> works = {5};
    h.launch("init_weights", 5);
    for (int i = 0; i < 6; ++i) {
        steps(h, 1, works);
        h.launch("log_metrics", 9);
        h.launch("update", 3); // the step's kernel, run again between steps
        works.insert(works.end(), {9, 3});
    }
    auto& l = h.finish();
    ASSERT_FALSE(l.empty());
    EXPECT_EQ(l[0].values, all(5)) << l[0].note;
    EXPECT_EQ(h.result.counts.tally.outsideIterations, 0u);
    EXPECT_EQ(h.result.counts.tally.outsideRecords, 12u);
    EXPECT_EQ(h.result.counts.tally.outsideLent, 6u);
    EXPECT_NE(h.result.counts.outsideWhy.find("between steps"), std::string::npos)
        << h.result.counts.outsideWhy;
    const auto between = [&](const char* name) {
        return std::count_if(l.begin(), l.end(), [&](const core::LaunchInfo& r) {
            return r.name == name && r.iteration < 0;
        });
    };
    EXPECT_EQ(between("log_metrics"), 6);
    EXPECT_EQ(between("update"), 6);
    for (const core::LaunchInfo& r : l) {
        if (r.iteration < 0 && r.name == "update") {
            EXPECT_EQ(r.values, all(3)) << r.note;
        } else if (r.name == "log_metrics") {
            EXPECT_EQ(r.note, "no counters: ran outside every step (between steps), where no "
                              "window measured it");
        }
    }
    EXPECT_EQ(h.backend.memory, unprofiled(works));
    EXPECT_GE(h.backend.releases, 2) << "released at the first step, as before any window";
}

// A device whose memory cannot hold a window's two checkpoints opens none: the launch runs
// unmeasured, its record says why, and the program's memory is untouched.
TEST(OutsideSteps, NoRoomForTheCheckpointsLeavesTheLaunchUnmeasuredAndSaysWhy) {
    Harness h(CollectionMode::IterationReplay, 2, 16, outsideSteps());
    h.backend.full = true;
    h.launch("init_weights", 5);
    auto& l = h.finish();
    ASSERT_EQ(l.size(), 1u);
    EXPECT_FALSE(hasCounters(l[0]));
    EXPECT_NE(l[0].note.find("cannot hold two copies"), std::string::npos) << l[0].note;
    EXPECT_TRUE(h.backend.windowLog.empty()) << "nothing saved";
    EXPECT_EQ(h.backend.memory, unprofiled({5}));
}

// Aligned passes from the start keep the backend at a single-pass configuration: windows take it
// to configuration 0 (every metric, every pass) and the steps get theirs back.
TEST(OutsideSteps, AlignedPassesGetTheirConfigurationBackWhenTheStepsBegin) {
    CollectorConfig c = outsideSteps();
    c.alignFromStart = true;
    Harness h(CollectionMode::IterationReplay, 2, 16, c, 3);
    std::vector<double> works = {5};
    h.launch("init_weights", 5);
    steps(h, 8, works);
    auto& l = h.finish();
    ASSERT_FALSE(l.empty());
    EXPECT_EQ(l[0].values, all(5)) << "every metric: configuration 0's passes " << l[0].note;
    EXPECT_TRUE(std::any_of(l.begin(), l.end(), [](const core::LaunchInfo& r) {
        return r.name == "forward" && r.values == all(1);
    })) << "the steps measured in aligned passes";
    EXPECT_EQ(h.backend.memory, unprofiled(works));
}

// The windows use an image of their own size (each profiler object a code load makes costs less at
// its first Start); the steps get the session's image back.
TEST(OutsideSteps, WindowsUseTheirOwnImageSizeAndTheStepsGetTheSessionsBack) {
    CollectorConfig c = outsideSteps();
    c.windowRangesPerImage = 4;
    Harness h(CollectionMode::IterationReplay, 2, 16, c);
    std::vector<double> works;
    for (int i = 0; i < 6; ++i) {
        h.launch("init", 5);
        works.push_back(5);
    }
    EXPECT_EQ(h.backend.capacity(), 4u) << "the windows' image";
    steps(h, 6, works);
    EXPECT_EQ(h.backend.capacity(), 16u) << "the session's image again";
    auto& l = h.finish();
    for (std::size_t i = 0; i < 6; ++i)
        EXPECT_EQ(l[i].values, all(5)) << i << ": " << l[i].note;
    EXPECT_EQ(std::count(h.backend.windowLog.begin(), h.backend.windowLog.end(), "forget"), 2)
        << "windows of 4 and 2 launches";
    EXPECT_EQ(h.backend.memory, unprofiled(works));
}

// A window whose MMA work needs tensor counters the set lacks (design 0008) is measured again,
// every pass, once the set grew: its records have every counter and say nothing is missing; the
// program's memory is its own.
TEST(OutsideSteps, AWindowWhoseMmaWorkNeedsMoreCountersIsMeasuredAgain) {
    CollectorConfig c = outsideSteps();
    FakeBackend* backend = nullptr;
    c.infer = [&](std::vector<double>& values) {
        if (values[0] == 5.0 && backend && backend->added.empty())
            return std::vector<std::string>{"tensor"}; // "gemm" ran MMA: unknown until grown
        return std::vector<std::string>{};
    };
    Harness h(CollectionMode::IterationReplay, 2, 16, c);
    backend = &h.backend;
    h.launch("plain", 1);
    h.launch("gemm", 5);
    h.collector.onMemoryOperation(0); // closes the window
    auto& l = h.finish();
    ASSERT_EQ(l.size(), 2u);
    EXPECT_EQ(l[0].values, all(1)) << l[0].note;
    EXPECT_EQ(l[1].values, all(5)) << l[1].note;
    EXPECT_EQ(l[1].note.find("partial"), std::string::npos) << l[1].note;
    EXPECT_EQ(h.backend.added, std::vector<std::string>{"tensor"});
    EXPECT_EQ(std::count(h.backend.windowLog.begin(), h.backend.windowLog.end(), "relaunch 2"), 3)
        << "pass 1, then passes 0 and 1 again with the grown set";
    EXPECT_EQ(h.backend.memory, unprofiled({1, 5}));
}

namespace {

// The windows stopped on the device and nothing else: one launch after them a record, `why` said,
// the steps measured, no failure, and the program's memory its own.
void expectOnlyTheWindowsStopped(const Harness& h, const std::vector<core::LaunchInfo>& l,
                                 const char* why, const std::vector<double>& works) {
    EXPECT_EQ(h.result.counts.tally.outsideRecords, 1u) << "the launch after them, a record";
    EXPECT_NE(h.result.counts.outsideWhy.find(why), std::string::npos)
        << h.result.counts.outsideWhy;
    EXPECT_TRUE(std::any_of(l.begin(), l.end(), [](const core::LaunchInfo& r) {
        return r.name == "forward" && r.values == all(1);
    })) << "the steps measured";
    EXPECT_TRUE(h.result.counts.failure.empty()) << h.result.counts.failure;
    EXPECT_EQ(h.backend.memory, unprofiled(works)) << "the program's memory is its own";
}

} // namespace

// A window that cannot open (its memory not saved) stops the windows on that device, and only
// them: the launch says why, the next launches outside the steps are counted with the reason, and
// the steps are measured as ever.
TEST(OutsideSteps, AWindowThatCannotOpenStopsTheWindowsNotTheProfile) {
    Harness h(CollectionMode::IterationReplay, 2, 16, outsideSteps());
    h.backend.failSaveBefore = true;
    std::vector<double> works = {5, 6};
    h.launch("init_weights", 5);
    h.launch("init_bias", 6);
    h.backend.failSaveBefore = false;
    steps(h, 6, works);
    auto& l = h.finish();
    ASSERT_FALSE(l.empty());
    EXPECT_FALSE(hasCounters(l[0]));
    EXPECT_NE(l[0].note.find("a window could not open"), std::string::npos) << l[0].note;
    expectOnlyTheWindowsStopped(h, l, "could not open", works); // init_bias counted
}

// A window whose replay fails once the program has its memory back stops the windows on that
// device, and only them: its launches say why, the next launches outside the steps are counted
// with the reason, and the steps are measured as ever. Before, the device turned to timing only.
TEST(OutsideSteps, AWindowWhoseReplayFailsStopsTheWindowsNotTheProfile) {
    for (const bool inPass : {false, true}) {
        SCOPED_TRACE(inPass ? "a pass's Start failed" : "the memory after it was not saved");
        Harness h(CollectionMode::IterationReplay, 2, 16, outsideSteps());
        std::vector<double> works = {5, 6, 7};
        h.launch("init_weights", 5);
        h.launch("init_bias", 6);
        if (inPass)
            h.backend.failStartAt = h.backend.starts + 1; // the next Start: the window's pass 1
        else
            h.backend.failSaveAfter = true;
        h.collector.onMemoryOperation(0); // closes the window: its replay fails
        h.backend.failStartAt = 0;
        h.backend.failSaveAfter = false;
        h.launch("warm_up", 7);
        steps(h, 6, works);
        auto& l = h.finish();
        ASSERT_GE(l.size(), 2u);
        for (int i = 0; i < 2; ++i) {
            EXPECT_FALSE(hasCounters(l[i])) << l[i].name;
            EXPECT_NE(l[i].note.find("a window's replay failed"), std::string::npos) << l[i].note;
        }
        expectOnlyTheWindowsStopped(h, l, "replay failed", works); // warm_up counted
    }
}

// Off (the default of a bare configuration, and ROOFLINE_OUTSIDE_STEPS=skip): nothing outside the
// steps is recorded, as before windows existed.
TEST(OutsideSteps, OffLeavesLaunchesOutsideTheStepsCounted) {
    Harness h(CollectionMode::IterationReplay, 2, 16);
    std::vector<double> works = {5};
    h.launch("init_weights", 5);
    steps(h, 6, works);
    auto& l = h.finish();
    EXPECT_TRUE(std::none_of(l.begin(), l.end(), [](const core::LaunchInfo& r) {
        return r.name == "init_weights";
    }));
    EXPECT_EQ(h.result.counts.tally.outsideIterations, 1u);
    EXPECT_TRUE(h.backend.windowLog.empty());
}

// A graph's kernel node launched as its own launch is measured in a window like any launch. A
// launch a window cannot launch again (a communication kernel) gets a record that says why, and
// starts no activity timer: kernel activity beside the range profiler's user replay zeroes every
// later range's instruction counters (design 0011), the steps' included.
TEST(OutsideSteps, LaunchesNoWindowCanMeasureStartNoTimerBesideTheReplay) {
    Harness h(CollectionMode::IterationReplay, 2, 16, outsideSteps());
    bool asked = false;
    h.collector.setTimingHandler([&] { asked = true; });
    std::vector<double> works = {5, 4, 2};
    h.launch("init_weights", 5);
    h.graphNode("graph_gemm", 4, 77);
    h.launch("_Z39ncclDevKernel_AllReduce_Sum_f32_RING_LL24ncclDevKernelArgsStorageILm4096EE", 2);
    steps(h, 6, works);
    auto& l = h.finish();
    EXPECT_FALSE(asked) << "an activity timer would zero the replay's instruction counters";
    ASSERT_GE(l.size(), 5u);
    EXPECT_EQ(l[0].values, all(5)) << l[0].note;
    EXPECT_EQ(l[1].values, all(4)) << l[1].note << " -- a graph's node, measured as its launch";
    EXPECT_FALSE(hasCounters(l[2]));
    EXPECT_NE(l[2].note.find("NCCL"), std::string::npos) << l[2].note;
    std::size_t update = 0;
    for (const auto& r : l)
        update += r.name == "update" && r.values == all(3);
    EXPECT_GE(update, 1u) << "the steps measured as ever";
    EXPECT_EQ(h.backend.memory, unprofiled(works)) << "the program's memory is its own";
}

// Window replay, where windows are all there is: a graph launch closes the window and its kernels
// get names and no counters or duration -- no timer beside the windows' replay either.
TEST(OutsideSteps, AGraphInWindowReplayStartsNoTimerEither) {
    Harness h(CollectionMode::WindowReplay, 2, 16);
    bool asked = false;
    h.collector.setTimingHandler([&] { asked = true; });
    h.launch("before", 5);
    h.graphLaunch({"g1", "g2"});
    h.launch("after", 6);
    auto& l = h.finish();
    EXPECT_FALSE(asked);
    ASSERT_EQ(l.size(), 4u);
    EXPECT_EQ(l[0].values, all(5)) << l[0].note;
    EXPECT_NE(l[1].note.find("no duration"), std::string::npos) << l[1].note;
    EXPECT_EQ(l[3].values, all(6)) << l[3].note << " -- the window after the graph";
}

namespace {

// A step whose backward runs one kernel four times with the same arguments and different work
// (a GELU's backward: its data decides its FP32 work), between kernels that do the same work at
// every launch. `setUp`: the program first runs that kernel three times before its first step
// (its first step, outside every step, as a PyTorch loop with no NVTX range shows it).
struct DataDependentStep {
    Harness h{CollectionMode::IterationReplay, 3, 16, outsideSteps(2)};
    int iterations = 0;
    explicit DataDependentStep(bool setUp) {
        if (setUp) // FLOP counts a few in a hundred thousand apart (the work counters' tolerance
                   // is one in a thousand): the data decides them all the same
            for (double w : {1400000.0, 1400030.0, 1400060.0})
                h.launch("gelu_grad", w);
        while (iterations < 40 && (iterations < 3 || h.collector.needsPass())) {
            h.push(("step " + std::to_string(iterations++)).c_str());
            for (int layer = 0; layer < kLayers; ++layer) {
                h.launch("matmul_grad", 2);
                h.launch("gelu_grad", 4.0 + layer);
                h.launch("add", 1);
                h.launch("norm_grad", 5);
            }
            h.launch("update", 3);
            h.pop();
        }
        h.finish();
    }
    static constexpr int kLayers = 8;
};

} // namespace

// Windows before the first step saw the kernel do different work from the same arguments: the
// step's first cycle measures each of its launches on its own, rather than sampling two, finding
// them different and measuring the others in windows of their own -- the same values, in fewer
// iterations.
TEST(OutsideSteps, WorkTheDataDecidesBeforeTheStepsIsMeasuredLaunchByLaunchFromTheFirstWindow) {
    DataDependentStep told(true), untold(false);
    ASSERT_LT(untold.iterations, 40) << "complete";
    EXPECT_LT(told.iterations, untold.iterations); // 7 against 11 when written
    for (const DataDependentStep* run : {&told, &untold}) {
        int gelu = 0;
        for (const core::LaunchInfo& r : run->h.result.launches) {
            if (r.iteration < 0 || r.name != "gelu_grad")
                continue;
            const double layer = static_cast<double>(gelu++ % DataDependentStep::kLayers);
            EXPECT_EQ(r.values, all(4.0 + layer)) << r.position << ": " << r.note;
        }
        EXPECT_EQ(gelu, DataDependentStep::kLayers) << "one step's launches";
    }
}

// A PyTorch loop with no NVTX range: one scope instance whose forward repeats 20 layers and whose
// backward repeats 40, a GELU's backward in each backward layer doing work its data decides --
// which the windows before the first step saw. The step's samples of the forward are its first
// layers; every GELU backward is measured on its own. The cycle's window takes in the backward
// from its first needed launch to the step's end and, across the end, the next step's first
// layers -- leaving out the forward's other 18 layers: one window of 172 ranges, complete after 7
// steps, where windows taking in every launch between the ones they need are two (10 steps).
TEST(OutsideSteps, AStepWithNoScopeIsMeasuredInOneWindowAcrossItsEnd) {
    CollectorConfig c = outsideSteps(2);
    c.options.idleWhenComplete = true;
    c.rangesPerImageMax = 180;
    Harness h(CollectionMode::IterationReplay, 4, 32, c);
    for (double w : {1400000.0, 1400030.0, 1400060.0})
        h.launch("gelu_grad", w);
    std::vector<double> gelu;
    int n = 0;
    while (!h.collector.takeCompletion() && n < 40) {
        h.push(("step " + std::to_string(n++)).c_str());
        for (int layer = 0; layer < 20; ++layer) {
            h.launch("layernorm", 2);
            h.launch("gemm", 10);
            h.launch("gelu", 4);
            h.launch("gemm", 11, {2, 1, 1});
        }
        h.launch("loss", 5);
        for (int layer = 0; layer < 40; ++layer) {
            h.launch("gemm_grad", 12);
            h.launch("gelu_grad", 100.0 + layer);
            h.launch("layernorm_grad", 6);
            h.launch("gemm_grad", 13, {2, 1, 1});
        }
        h.launch("update", 3);
        h.pop();
    }
    const core::Coverage cov = h.collector.coverage();
    EXPECT_EQ(cov.windows, 1u);
    EXPECT_EQ(cov.launchesPerImage, 172u);
    EXPECT_EQ(n, 7);
    auto& l = h.finish();
    int geluGrad = 0;
    for (const core::LaunchInfo& r : l) {
        if (r.iteration < 0)
            continue;
        if (r.name == "gelu_grad") {
            EXPECT_EQ(r.values, all(100.0 + geluGrad++)) << r.position << ": " << r.note;
            EXPECT_EQ(r.reusedSamples, 0u) << r.note;
        }
    }
    EXPECT_EQ(geluGrad, 40);
}
