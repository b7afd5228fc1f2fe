// Communication kernels (NCCL, NVSHMEM, PyTorch symmetric memory) wait for their peers' kernels on
// other GPUs or in other processes. Kernel replay must run them once, unmeasured: a replayed
// all-reduce would wait forever for peers that ran once. Iteration replay replays no kernel and
// measures them like any launch. On the fake backend.
#include "collector_harness.hpp"
#include "core/launch.hpp"

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

namespace roofline::collect::testing {
namespace {

// Kernel names as the libraries build them: NCCL 2.28 and NCCL before 2.19; NVSHMEM 3 and PyTorch
// 2.11 (as their libraries on the H100 machine hold them).
constexpr const char* kNcclAllReduce =
    "_Z39ncclDevKernel_AllReduce_Sum_f32_RING_LL24ncclDevKernelArgsStorageILm4096EE";
constexpr const char* kOldNccl = "ncclKernel_AllReduce_RING_LL_Sum_float";
constexpr const char* kNvshmem = "_Z25nvshmemi_signal_op_kernelPmmii";
constexpr const char* kSymmetric = "_ZN4c10d16symmetric_memory14barrier_kernelEPPjiiim";

TEST(CommunicationKernels, NamedByTheirLibrary) {
    EXPECT_STREQ(core::communicationLibrary(kNcclAllReduce), "NCCL");
    EXPECT_STREQ(core::communicationLibrary(kOldNccl), "NCCL");
    EXPECT_STREQ(core::communicationLibrary(kNvshmem), "NVSHMEM");
    EXPECT_STREQ(core::communicationLibrary(kSymmetric), "PyTorch symmetric memory");
    for (const char* other : {"_Z6fma_f32Pfi", "allreduce_local", "ampere_sgemm_128x64_nn", ""})
        EXPECT_EQ(core::communicationLibrary(other), nullptr) << other;
    EXPECT_EQ(core::communicationLibrary(nullptr), nullptr);
}

TEST(CommunicationKernels, KernelReplayRunsThemOnceWithoutTheProfiler) {
    Harness h(CollectionMode::KernelReplay, 2, 8);
    h.push("step");
    h.launch("forward", 1);
    for (const char* comm : {kNcclAllReduce, kNvshmem, kSymmetric}) {
        Launch e;
        e.mangledName = comm;
        e.stream = 4;
        h.collector.onLaunch(e, h.stack);
        EXPECT_FALSE(h.backend.collecting()) << comm << " would be replayed";
        h.backend.kernel(100); // no range: its work reaches no record
    }
    h.launch("backward", 2);
    h.pop();
    auto& l = h.finish();
    ASSERT_EQ(l.size(), 5u);
    EXPECT_EQ(l[0].values, all(1));
    for (int i : {1, 2, 3}) {
        EXPECT_TRUE(l[i].values.empty()) << l[i].mangledName;
        EXPECT_NE(l[i].note.find("kernel replay cannot run it twice"), std::string::npos)
            << l[i].note;
        EXPECT_EQ(l[i].scopePath, "step");
    }
    EXPECT_NE(l[1].note.find("a NCCL kernel"), std::string::npos) << l[1].note;
    EXPECT_EQ(l[4].values, all(2)); // the profiler starts again for the next launch
}

// The session starts activity timing when it hears the collector ask, after the profiler
// stopped: for the first launch kernel replay leaves unmeasured, not for measured ones.
TEST(CommunicationKernels, KernelReplayAsksForTimingOnceTheProfilerStopped) {
    Harness h(CollectionMode::KernelReplay, 2, 8);
    std::vector<bool> collectingWhenAsked;
    h.collector.setTimingHandler([&] { collectingWhenAsked.push_back(h.backend.collecting()); });
    h.push("step");
    h.launch("forward", 1);
    EXPECT_TRUE(collectingWhenAsked.empty()) << "a measured launch asked for timing";
    h.launch(kNcclAllReduce, 5);
    h.graphLaunch({"g1"});
    h.launch("backward", 2);
    h.pop();
    h.finish();
    EXPECT_EQ(collectingWhenAsked, (std::vector<bool>{false, false}));
}

TEST(CommunicationKernels, IterationReplayMeasuresThemLikeAnyLaunch) {
    Harness h(CollectionMode::IterationReplay, 2, 8);
    bool asked = false;
    h.collector.setTimingHandler([&] { asked = true; });
    for (int it = 0; it < 6 && (it < 2 || h.collector.needsPass()); ++it) {
        h.push("step");
        h.launch("backward", 1);
        h.launch(kNcclAllReduce, 5);
        h.pop();
    }
    auto& l = h.finish();
    ASSERT_GE(l.size(), 2u);
    std::size_t nccl = 0;
    for (const auto& r : l) {
        if (r.values.empty())
            continue;
        const bool comm = r.mangledName == kNcclAllReduce;
        nccl += comm;
        EXPECT_EQ(r.values, all(comm ? 5 : 1)) << r.mangledName << ": " << r.note;
    }
    EXPECT_GE(nccl, 1u);
    EXPECT_FALSE(asked) << "iteration replay measures them: nothing to time";
}

} // namespace
} // namespace roofline::collect::testing

namespace roofline::collect::testing {
namespace {

// A process of a multi-rank job never gets kernel replay: its restores would undo the peers'
// writes into its memory (DDP's losses changed under it on two H100s; two H200s hung).
TEST(CommunicationKernels, KernelReplayIsRefusedInAJobOfSeveralRanks) {
    std::string why;
    EXPECT_EQ(modeForJob(CollectionMode::KernelReplay, 2, &why), CollectionMode::IterationReplay);
    EXPECT_NE(why.find("kernel replay refused in a job of 2 ranks"), std::string::npos) << why;
    EXPECT_NE(why.find("using iteration replay"), std::string::npos);
    for (int world : {-1, 0, 1}) {
        std::string none;
        EXPECT_EQ(modeForJob(CollectionMode::KernelReplay, world, &none),
                  CollectionMode::KernelReplay);
        EXPECT_TRUE(none.empty());
    }
    EXPECT_EQ(modeForJob(CollectionMode::ScopeReplay, 8, nullptr), CollectionMode::ScopeReplay);
    // Window replay restores memory too.
    why.clear();
    EXPECT_EQ(modeForJob(CollectionMode::WindowReplay, 4, &why), CollectionMode::IterationReplay);
    EXPECT_NE(why.find("window replay refused in a job of 4 ranks"), std::string::npos) << why;
    EXPECT_EQ(modeForJob(CollectionMode::WindowReplay, 1, nullptr), CollectionMode::WindowReplay);
}

// Window replay launches nothing again that waits for peers: a communication kernel runs once,
// unmeasured, timed, and the launches around it are measured in windows of their own.
TEST(CommunicationKernels, WindowReplayRunsThemOnceBetweenWindows) {
    Harness h(CollectionMode::WindowReplay, 2, 8);
    h.launch("gemm", 1);
    h.launch("ncclDevKernel_AllReduce_Sum_f32_RING_LL", 50);
    h.launch("gemm", 2);
    auto& l = h.finish();
    ASSERT_EQ(l.size(), 3u);
    EXPECT_EQ(l[0].values, all(1));
    EXPECT_NE(l[1].note.find("NCCL kernel waits for other GPUs' kernels"), std::string::npos)
        << l[1].note;
    EXPECT_EQ(l[2].values, all(2));
    const auto& log = h.backend.windowLog;
    EXPECT_EQ(std::count(log.begin(), log.end(), "forget"), 2) << "closed before it";
}

} // namespace
} // namespace roofline::collect::testing
