// Ranges opened before a session starts: real trainers open a step range, a validation range
// and a forward pass before their first kernel launch, and `roofline run` starts the session at
// that launch. The scope stacks track every range from the start of the process, and a session
// adopts those open when it starts: the first launch gets its full path, the iteration scope is
// known from the start, and the pops that follow balance.
#include "scopes/scope_stacks.hpp"
#include "unit/collector_harness.hpp"

#include <gtest/gtest.h>

#include <thread>

using namespace roofline;
using namespace roofline::collect;
using namespace roofline::collect::testing;

namespace {

std::uint32_t gNextGeneration = 1000;

// A session on the fake backend, as Session wires one up: the collector behind a ScopeTarget.
struct TargetSession {
    Harness h;
    HostTimes host;
    ScopeTarget target;
    explicit TargetSession(bool processScopes, HostTiming timing = HostTiming::Off,
                           bool listenNvtx = true, std::size_t passes = 2)
        : h(CollectionMode::IterationReplay, passes, 100), host(timing, processScopes) {
        target.generation = ++gNextGeneration;
        target.processScopes = processScopes;
        target.listenNvtx = listenNvtx;
        target.collector = &h.collector;
        target.hostTimes = &host;
        setScopeTarget(&target);
    }
    ~TargetSession() {
        if (scopeTarget() == &target)
            setScopeTarget(nullptr);
    }
    // A launch on this thread, as SessionState::onLaunch feeds it.
    void launch(const char* name, double work = 1) {
        Launch e;
        e.mangledName = name;
        e.threadId = currentThreadId();
        SessionStack open(target);
        h.collector.onLaunch(e, open.stack());
        h.backend.kernel(work);
    }
    std::vector<core::LaunchInfo>& stop() {
        setScopeTarget(nullptr);
        return h.finish();
    }
};

void push(const char* name) {
    trackPush("", name, true);
}
void pop() {
    trackPop("", true);
}

// GPT-2's step: a validation forward with numbered layers inside step 0, then forward, backward.
void trainStepBody(TargetSession& s, int step, bool validation) {
    if (validation) {
        push("validation");
        for (int l = 0; l < 2; ++l) {
            push(("Layer " + std::to_string(l)).c_str());
            s.launch("validation_matmul");
            pop();
        }
        pop();
    }
    for (int l = 0; l < 2; ++l) {
        push(("Layer " + std::to_string(l)).c_str());
        s.launch("matmul_forward");
        pop();
    }
    s.launch("adamw");
    (void)step;
}

} // namespace

TEST(ScopeAdoption, RangesOpenedBeforeTheSessionGiveTheFirstLaunchItsPath) {
    const std::size_t before = openThreadRanges();
    push("Train step 0");
    push("validation");
    push("Layer 0");
    EXPECT_EQ(openThreadRanges(), before + 3); // tracked with no session
    {
        // One pass: step 0 is measured on its own (with more, its validation launches, which
        // later steps do not run, would be measured again on later steps).
        TargetSession s(false, HostTiming::Off, true, 1);
        s.launch("validation_matmul"); // the session's first launch, three ranges deep
        pop();
        pop();
        pop();
        for (int step = 1; step < 4; ++step) {
            push(("Train step " + std::to_string(step)).c_str());
            trainStepBody(s, step, false);
            pop();
        }
        const auto& launches = s.stop();
        ASSERT_FALSE(launches.empty());
        EXPECT_EQ(launches[0].scopePath, "Train step #/validation/Layer 0");
        EXPECT_EQ(launches[0].scopePathRaw, "Train step 0/validation/Layer 0");
        EXPECT_EQ(launches[0].iteration, 0);
        for (const auto& l : launches)
            EXPECT_EQ(l.scopePath.rfind("Train step #", 0), 0u) << l.scopePath;
        EXPECT_EQ(s.h.collector.coverage().launchesPerIteration, 3u); // a steady step
    }
    EXPECT_EQ(openThreadRanges(), before);
}

// An FSDP job's NCCL communicator is set up at the first collective, inside step 0, and NCCL's
// range for it ("ncclCommInitRankConfig", domain NCCL) is never popped. NVTX pops per domain, so
// step 0 closes under it: the session sees step 0 end, and the later steps, inside NCCL's range,
// are iterations too (it saw one iteration and measured nothing before).
TEST(ScopeAdoption, AStepClosingUnderALibrarysOpenRangeEndsItsIteration) {
    const std::size_t before = openThreadRanges();
    {
        TargetSession s(false, HostTiming::Wall, true, 2);
        push("step 0");
        trackPush("NCCL", "ncclCommInitRankConfig", true); // left open by NCCL
        trainStepBody(s, 0, false);
        pop(); // "step 0", under NCCL's range
        for (int step = 1; step < 8; ++step) {
            push(("step " + std::to_string(step)).c_str());
            trainStepBody(s, step, false);
            pop();
        }
        const auto coverage = s.h.collector.coverage();
        const auto& launches = s.stop();
        EXPECT_EQ(coverage.launchesPerIteration, 3u);
        ASSERT_GE(launches.size(), 6u) << "one iteration seen, nothing measured";
        for (const auto& l : launches) {
            EXPECT_EQ(l.scopePath.rfind("step #", 0), 0u) << l.scopePath;
            EXPECT_FALSE(l.values.empty()) << l.note;
        }
        EXPECT_EQ(launches.back().scopePath, "step #") << "later steps: NCCL's range is no scope";
        trackPop("NCCL", true);
    }
    EXPECT_EQ(openThreadRanges(), before);
}

TEST(ScopeAdoption, ProcessWideRangesReachLaunchesOfOtherThreads) {
    const std::size_t before = openProcessRanges();
    push("Train step 0");
    push("backward");
    {
        TargetSession s(true);
        std::thread worker([&] { s.launch("autograd_kernel"); }); // PyTorch's autograd thread
        worker.join();
        pop();
        pop();
        const auto& launches = s.stop();
        ASSERT_EQ(launches.size(), 1u);
        // One numbered instance only: the name stays as opened (three make it an iteration).
        EXPECT_EQ(launches[0].scopePath, "Train step 0/backward");
    }
    EXPECT_EQ(openProcessRanges(), before);
}

TEST(ScopeAdoption, RangesStillOpenWhenASessionStopsAreAdoptedByTheNext) {
    const std::uint64_t unbalanced = unbalancedPops();
    push("run");
    {
        TargetSession first(false, HostTiming::Wall);
        push("phase 1");
        first.launch("k1");
        pop();
        first.stop();
    }
    {
        TargetSession second(false, HostTiming::Wall);
        push("phase 2");
        second.launch("k2");
        pop();
        pop(); // "run": opened before both sessions
        const auto& launches = second.stop();
        ASSERT_EQ(launches.size(), 1u);
        EXPECT_EQ(launches[0].scopePathRaw.empty() ? launches[0].scopePath
                                                   : launches[0].scopePathRaw,
                  "run/phase 2");
        // "run" was open before the session: its time is unknown, its nested scope is timed.
        const auto scopes = second.host.collect();
        bool phase = false;
        for (const HostScope& h : scopes) {
            EXPECT_NE(h.scopePath, "run") << "an adopted range has no time of its own";
            phase = phase || h.scopePath == "run/phase 2";
        }
        EXPECT_TRUE(phase);
    }
    EXPECT_EQ(unbalancedPops(), unbalanced);
}

TEST(ScopeAdoption, ASessionIgnoringNvtxNeverPopsAProfileScopeForAnNvtxRange) {
    const std::size_t before = openThreadRanges(), beforeProcess = openProcessRanges();
    push("nvtx outer"); // NVTX, before the session: left out by a session ignoring NVTX
    {
        TargetSession s(false, HostTiming::Off, /*listenNvtx=*/false);
        trackPush("", "scope"); // a ProfileScope
        push("nvtx inner");
        s.launch("k");
        pop();          // "nvtx inner"
        pop();          // "nvtx outer": must not pop the ProfileScope
        s.launch("k2"); // still inside "scope"
        trackPop("");   // the ProfileScope
        const auto& launches = s.stop();
        ASSERT_EQ(launches.size(), 2u);
        EXPECT_EQ(launches[0].scopePath, "scope");
        EXPECT_EQ(launches[1].scopePath, "scope");
    }
    EXPECT_EQ(openThreadRanges(), before);
    EXPECT_EQ(openProcessRanges(), beforeProcess)
        << "the process's stack, which that session did not follow, closed the NVTX ranges too";
}

// The same with a session that follows the process's stack: the ranges it ignored -- opened
// before it, or while it ran -- are closed on the thread's stack as well, so a later session
// adopts none of them.
TEST(ScopeAdoption, RangesASessionIgnoredAreClosedForTheNext) {
    const std::size_t before = openThreadRanges(), beforeProcess = openProcessRanges();
    push("nvtx outer");
    {
        TargetSession s(true, HostTiming::Off, /*listenNvtx=*/false);
        push("nvtx inner");
        trackPush("", "scope");
        s.launch("k");
        trackPop("");
        pop(); // "nvtx inner"
        pop(); // "nvtx outer"
        s.stop();
    }
    EXPECT_EQ(openThreadRanges(), before);
    EXPECT_EQ(openProcessRanges(), beforeProcess) << "a later session adopts none of them";
}
