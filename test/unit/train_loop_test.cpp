// The collector on a loop shaped like a real trainer's (unit/train_loop_shape.hpp). With the
// session's defaults (iteration replay, the first iteration observed only, reused repeated
// launches, aligned passes available) it must find the step by itself, state the steady step's
// launch count, give every launch of one step one record with values, and emit them in program
// order.
#include "report/recording_text.hpp"
#include "unit/collector_harness.hpp"
#include "unit/train_loop_shape.hpp"

#include "core/merge.hpp"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <utility>
#include <vector>

using namespace roofline;
using namespace roofline::collect;
using namespace roofline::collect::testing;

namespace {

constexpr std::uint64_t kStepLaunches = TrainLoopShape::kStepLaunches;

CollectorConfig sessionDefaults(std::size_t reuseSamples, std::uint32_t shareIndex = 0,
                                std::uint32_t shareCount = 1, std::size_t rangesPerImageMax = 0) {
    CollectorConfig c;
    c.rangesPerImageMax = rangesPerImageMax;
    c.shareIndex = shareIndex;
    c.shareCount = shareCount;
    c.options.firstIteration = FirstIteration::Skip;
    c.reuseSamples = reuseSamples;
    c.options.iterationsPerPass = kAuto;
    c.options.idleWhenComplete = true; // Options::idleWhenComplete
    return c;
}

// The loop's launches go straight to the collector, with the scopes open on the thread.
struct Loop : TrainLoopShape {
    Harness h;
    ScopeTarget target;
    std::uint32_t launches = 0;
    int idleCalls = 0;
    bool idle = false;      // as the session after Options::idleWhenComplete: callbacks off
    int idleAfterStep = -1; // the step whose end made it idle

    Loop(std::size_t reuseSamples, std::size_t capacity, std::size_t passes = 2,
         std::uint32_t shareIndex = 0, std::uint32_t shareCount = 1,
         std::size_t rangesPerImageMax = 0)
        : h(CollectionMode::IterationReplay, passes, capacity,
            sessionDefaults(reuseSamples, shareIndex, shareCount, rangesPerImageMax), passes) {
        static std::uint32_t generation = 5000;
        target.generation = ++generation;
        target.collector = &h.collector;
        target.user = this;
        target.complete = [](void* user) noexcept {
            Loop& loop = *static_cast<Loop*>(user);
            ++loop.idleCalls;
            loop.idle = true;
            loop.idleAfterStep = loop.currentStep;
            setScopeTarget(nullptr);
        };
    }
    std::vector<core::LaunchInfo>& measure(int steps) {
        run(steps);
        setScopeTarget(nullptr);
        return h.finish();
    }

protected:
    void beforeFirstLaunch() override {
        setScopeTarget(&target); // the first launch starts the session, three deep
    }
    void launch(const std::string& name, std::uint32_t gridX) override {
        ++launches;
        if (idle)
            return; // the launch callbacks are off: the collector sees nothing
        Launch e;
        e.mangledName = name.c_str();
        e.grid = {gridX, 1, 1};
        e.threadId = currentThreadId();
        {
            SessionStack open(target);
            h.collector.onLaunch(e, open.stack());
        }
        h.backend.kernel(1 + gridX);
    }
};

} // namespace

TEST(TrainLoop, TheDefaultFindsTheStepAndStatesItsSteadyLaunchCount) {
    Loop loop(2, 64);
    const auto& records = loop.measure(12);
    const core::Coverage c = loop.h.collector.coverage();
    EXPECT_EQ(c.launchesPerIteration, kStepLaunches) << "the steady step, not the first or last";
    EXPECT_EQ(c.iterationsRun, 4u); // those the collector followed: idle after the fourth
    EXPECT_TRUE(c.complete()) << report::describe(c);
    expectOneStepInProgramOrder(records);
    // Observed steps 0 and 1 (0 differs: step 1 is taken as the reference, step 2 confirms it),
    // then one cycle of one window x 2 passes (steps 2 and 3): complete at the end of step 3;
    // nothing is followed after that.
    EXPECT_EQ(loop.idleCalls, 1);
    EXPECT_EQ(loop.idleAfterStep, 3);
    EXPECT_EQ(loop.h.collector.completedAfterIterations(), 4u);
    EXPECT_TRUE(loop.h.backend.released());
}

TEST(TrainLoop, MeasuringEveryLaunchCompletesInWindowsAndEmitsProgramOrder) {
    Loop loop(0, 5); // windows of 5 ranges: the step is measured window by window
    const auto& records = loop.measure(24);
    const core::Coverage c = loop.h.collector.coverage();
    EXPECT_EQ(c.launchesPerIteration, kStepLaunches);
    EXPECT_TRUE(c.complete()) << report::describe(c);
    expectOneStepInProgramOrder(records);
    // Step 0 observed, then 3 windows x 2 passes, each window after the first taking its pass 0
    // on the step of the one before's pass 1: idle after step 4.
    EXPECT_EQ(loop.idleCalls, 1);
    EXPECT_EQ(loop.idleAfterStep, 4);
    EXPECT_TRUE(loop.h.backend.released());
}

// Launch after launch the session stays attached while it measures; once idle, a step costs the
// collector nothing: it sees none of the later steps' launches or scopes.
TEST(TrainLoop, NothingReachesTheCollectorOnceIdle) {
    Loop loop(2, 64);
    loop.measure(40);
    EXPECT_EQ(loop.idleCalls, 1);
    EXPECT_EQ(loop.h.collector.coverage().iterationsRun, 4u);
}

// A program that drives the replay itself (a benchmark: one needsPass() loop per case) decides
// when it is done: each case is measured, and the session never goes idle.
TEST(TrainLoop, ReplayLoopsDrivenByNeedsPassAreEachMeasured) {
    Harness h(CollectionMode::IterationReplay, 2, 8, sessionDefaults(0), 2);
    for (const char* kernel : {"case_a", "case_b"}) {
        int guard = 0;
        while (h.collector.needsPass() && ++guard < 20) {
            h.push(kernel);
            h.launch(kernel, 1);
            h.pop();
        }
    }
    const auto& records = h.finish();
    ASSERT_EQ(records.size(), 2u);
    EXPECT_EQ(records[0].name, "case_a");
    EXPECT_EQ(records[1].name, "case_b");
    EXPECT_TRUE(records[1].values == all(1)) << records[1].note;
    EXPECT_FALSE(h.collector.takeCompletion());
}

// A benchmark names its cases' scopes after the shapes they run ("c0.conv1_2", "c1.conv2_1"): the
// first looks like a numbered instance ("c0.conv1_#"), the next ones are not of its family. Each
// is still a case of its own, measured in its own passes: every engine's launches keep their
// own values.
TEST(TrainLoop, NeedsPassCasesNamedLikeNumberedInstancesAreEachMeasured) {
    Harness h(CollectionMode::IterationReplay, 2, 96, sessionDefaults(2), 2);
    const std::vector<std::pair<const char*, std::vector<int>>> cases = {
        {"c0.conv1_2", {1, 3, 2}}, {"c1.conv2_1", {1, 1, 1, 1}}, {"c2.conv2_1", {2, 1}}};
    double work = 1;
    std::map<std::string, double> expected; // each launch's scope and name: its work
    for (const auto& [name, kernelsPerEngine] : cases) {
        for (int k : kernelsPerEngine) // verification and timing, outside every scope
            for (int i = 0; i < k; ++i)
                h.launch("untimed", 1);
        std::map<std::string, double> works;
        int passes = 0;
        while (h.collector.needsPass() && ++passes < 20) {
            h.push(name);
            for (std::size_t e = 0; e < kernelsPerEngine.size(); ++e) {
                const std::string engine = "eng" + std::to_string(e);
                h.push(engine.c_str());
                h.push("fwd");
                for (int i = 0; i < kernelsPerEngine[e]; ++i) {
                    const std::string kernel = engine + "_k" + std::to_string(i);
                    const std::string key = std::string(name) + "/" + kernel;
                    if (!works.count(key))
                        works[key] = work++;
                    h.launch(kernel.c_str(), works[key]);
                }
                h.pop();
                h.pop();
            }
            h.pop();
        }
        EXPECT_LT(passes, 20) << name;
        expected.insert(works.begin(), works.end());
    }
    const auto& records = h.finish();
    ASSERT_EQ(records.size(), expected.size());
    for (const auto& r : records) {
        const std::string raw = r.scopePathRaw.empty() ? r.scopePath : r.scopePathRaw;
        const std::string key = raw.substr(0, raw.find('/')) + "/" + r.name;
        ASSERT_TRUE(expected.count(key)) << key;
        EXPECT_TRUE(r.values == all(expected[key])) << key << ": " << r.note;
    }
    EXPECT_FALSE(h.collector.takeCompletion());
}

// Thread scopes: a worker thread that opens its own numbered range at its top ("Layer 1") while
// the main thread is in a step does not open an iteration; nor does a top-level range between
// steps. The step stays the iteration.
TEST(TrainLoop, ANumberedRangeOtherThanTheStepIsNeverTheIteration) {
    Harness h(CollectionMode::IterationReplay, 2, 8, sessionDefaults(0), 2);
    Stack worker;
    for (int n = 0; n < 8; ++n) {
        h.push(("Train step " + std::to_string(n)).c_str());
        h.launch("forward", 1);
        worker.push_back(Frame{"", "Layer 1", {}});
        h.collector.onPush(worker, 99);
        Launch e;
        e.mangledName = "worker_kernel";
        e.threadId = 99;
        h.collector.onLaunch(e, worker);
        h.backend.kernel(2);
        h.collector.onPop(worker);
        worker.pop_back();
        h.pop();
        h.push("checkpoint"); // between steps, at the top
        h.launch("save", 1);
        h.pop();
    }
    const auto& records = h.finish();
    EXPECT_EQ(h.collector.coverage().iterationsRun, 8u);
    EXPECT_EQ(h.collector.coverage().launchesPerIteration, 2u);
    for (const auto& r : records)
        EXPECT_NE(r.name, "save") << "a launch between steps has no record";
}

// A trainer that validates every few steps inside the step (llm.c's val_loss_every): those steps
// run more launches before the window measured, so a pass taken on one finds other kernels at
// the window's positions. The profile still completes, with values for every launch of one
// steady step. Returns the iterations it took.
namespace {
std::uint64_t expectValidatingLoopCompletes(Loop& loop, int every, int steps) {
    loop.validateEvery = every;
    const auto& records = loop.measure(steps);
    const core::Coverage c = loop.h.collector.coverage();
    EXPECT_EQ(c.launchesPerIteration, kStepLaunches) << every;
    EXPECT_TRUE(c.complete()) << every << ": " << report::describe(c);
    expectOneStepInProgramOrder(records);
    EXPECT_EQ(loop.idleCalls, 1) << every;
    EXPECT_EQ(loop.h.collector.unmatchedLaunches(), 0u) << every;
    return loop.h.collector.completedAfterIterations();
}
} // namespace

// Every launch measured, in windows of 5 launches.
TEST(TrainLoop, StepsThatAlsoValidateDoNotCostLaunchesTheirValues) {
    for (int every : {3, 4, 5, 10}) {
        Loop loop(0, 5);
        // Without the odd steps: step 0 observed, then 3 windows x 2 passes; a step that also
        // validates delays a pass by a step or two (measured: 11 steps at every = 3, 9 at 5).
        EXPECT_LE(expectValidatingLoopCompletes(loop, every, 40), 12u) << every;
    }
}

// The same with the session's default reuse of repeated launches and three passes (as GH100's
// metric set). Validating every third step leaves no three steps in a row without validation, so
// a window at the step's start never has its passes on like steps: not covered yet.
TEST(TrainLoop, StepsThatAlsoValidateWithReuseComplete) {
    for (int every : {4, 5, 10}) {
        Loop loop(2, 96, 3);
        expectValidatingLoopCompletes(loop, every, 60);
    }
}

// A loop whose launches before a window differ in every iteration (a kernel chosen by the data
// first): waiting for an iteration like pass 0's would never end, so after two restarts of a
// window positions decide again, and the profile completes.
TEST(TrainLoop, LaunchesThatVaryEveryIterationStillComplete) {
    Harness h(CollectionMode::IterationReplay, 2, 4, sessionDefaults(0), 2);
    int n = 0;
    for (; n < 60 && !h.collector.takeCompletion(); ++n) {
        h.push(("Train step " + std::to_string(n)).c_str());
        h.launch(n % 2 ? "pick_a" : (n % 3 ? "pick_b" : "pick_c"), 1);
        for (int k = 0; k < 9; ++k)
            h.launch(("k" + std::to_string(k)).c_str(), 1);
        h.pop();
    }
    EXPECT_LT(n, 60) << "the profile never completed";
    const auto& records = h.finish();
    EXPECT_EQ(records.size(), 10u);
}

// Two data-parallel ranks share the profile (Options::shareAcrossRanks): each measures the
// signatures first launched in its half of the step, in fewer windows than one rank alone needs,
// and gives the other half records that name the rank measuring them. Merged, every launch of
// the step has values, each from the rank that measured its place.
TEST(TrainLoop, RanksSharingTheProfileEachMeasureTheirHalfAndTheMergeCompletesIt) {
    constexpr std::size_t capacity = 3; // windows of 3: the step's 11 launches take 4 alone
    Loop alone(2, capacity);
    alone.measure(24);
    const std::uint64_t aloneIterations = alone.h.collector.completedAfterIterations();
    std::vector<core::MergeInput> inputs;
    std::uint64_t slowest = 0;
    for (std::uint32_t rank : {0u, 1u}) {
        Loop loop(2, capacity, 2, rank, 2);
        const auto records = loop.measure(24);
        ASSERT_TRUE(loop.h.collector.coverage().complete()) << rank;
        slowest = std::max(slowest, loop.h.collector.completedAfterIterations());
        ASSERT_EQ(records.size(), kStepLaunches) << rank;
        std::size_t own = 0;
        for (const auto& r : records) {
            // rank 0's block: positions 0-5 (p * 2 / 11 == 0), rank 1's: 6-10
            const int owner =
                r.position * 2 / static_cast<std::int64_t>(kStepLaunches) == 0 ? 0 : 1;
            if (owner == static_cast<int>(rank)) {
                ++own;
                EXPECT_FALSE(r.values.empty()) << rank << " " << r.position << ": " << r.note;
                EXPECT_EQ(r.countersRank, -1);
            } else {
                EXPECT_TRUE(r.values.empty()) << rank << " " << r.position;
                EXPECT_EQ(r.countersRank, owner) << rank << " " << r.position;
                EXPECT_NE(r.note.find(core::awaitingCountersNote(owner)), std::string::npos)
                    << r.note;
            }
        }
        EXPECT_EQ(own, rank == 0 ? 6u : 5u);
        EXPECT_EQ(loop.h.collector.foreignRecords(), kStepLaunches - own);
        core::Recording rec;
        rec.version = 2;
        rec.chip = "GH100";
        rec.mode = "iteration-replay";
        rec.metrics = {"a", "b"};
        rec.process.pid = 100 + rank;
        rec.process.rank = static_cast<int>(rank);
        rec.shareIndex = rank;
        rec.shareCount = 2;
        rec.launches = records;
        inputs.push_back({"rank" + std::to_string(rank) + ".rfl", std::move(rec)});
    }
    EXPECT_LT(slowest, aloneIterations) << "sharing took as many iterations as one rank alone";
    const core::Recording merged = core::mergeRecordings(std::move(inputs));
    ASSERT_EQ(merged.launches.size(), 2 * kStepLaunches);
    for (const auto& l : merged.launches) {
        EXPECT_FALSE(l.values.empty()) << l.rank << " " << l.position << ": " << l.note;
        if (l.countersRank >= 0) {
            EXPECT_NE(l.countersRank, l.rank);
            EXPECT_NE(l.note.find("counters from rank " + std::to_string(l.countersRank) +
                                  "'s launch at the same place"),
                      std::string::npos)
                << l.note;
            EXPECT_EQ(l.note.find("fills them in"), std::string::npos) << l.note;
        }
    }
}

// Images that may grow: the ranks split the windows of the image the whole cycle takes. One
// window holds the step's launches, so the first rank measures them all, in as many iterations as
// one rank alone, and the other none.
TEST(TrainLoop, RanksSharingTheProfileWithImagesThatGrowSplitTheLargerImagesWindows) {
    Loop alone(2, 3, 2, 0, 1, 12);
    alone.measure(24);
    const std::uint64_t aloneIterations = alone.h.collector.completedAfterIterations();
    EXPECT_LE(aloneIterations, 4u); // one window: two observed, two passes
    std::size_t measured[2] = {0, 0};
    for (std::uint32_t rank : {0u, 1u}) {
        Loop loop(2, 3, 2, rank, 2, 12);
        const auto records = loop.measure(24);
        ASSERT_TRUE(loop.h.collector.coverage().complete()) << rank;
        EXPECT_LE(loop.h.collector.completedAfterIterations(), aloneIterations) << rank;
        ASSERT_EQ(records.size(), kStepLaunches) << rank;
        for (const auto& r : records) {
            measured[rank] += r.values.empty() ? 0 : 1;
            if (r.values.empty()) {
                EXPECT_EQ(r.countersRank, 0) << rank << " " << r.position;
            }
        }
    }
    EXPECT_EQ(measured[0], kStepLaunches);
    EXPECT_EQ(measured[1], 0u);
}
