// Communication kernels on the GPU (label gpu). NCCL's kernels wait for their peers on other GPUs;
// kernel replay must run them once, unmeasured and timed, or a replayed all-reduce would wait
// forever. One GPU cannot run NCCL's kernels between ranks, so a stand-in named as NCCL names its
// kernels busy-waits a fixed time, and the wall time of its launch tells how often it ran (CUPTI's
// kernel replay saves and restores every buffer a kernel could write, host-mapped memory
// included, so a run counter in memory always reads one run). Iteration replay replays no kernel
// and measures it like any launch. Two ranks of a real NCCL job: test/gpu/two_gpus.sh (gpu2).
#include "calibration/expected.hpp"
#include "calibration/kernels.cuh"
#include "gpu/gpu_test_support.hpp"

#include <roofline/roofline.hpp>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

using roofline::CollectionMode;
using roofline::FlopKind;
namespace cal = calibration;

namespace {

constexpr std::uint64_t kSpinNs = 20'000'000; // each run of a probe kernel: 20 ms

__device__ std::uint64_t globalNs() {
    std::uint64_t t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

__device__ void spinAndWork(float* x) {
    const std::uint64_t start = globalNs();
    while (globalNs() - start < kSpinNs) {
    }
    x[threadIdx.x] = x[threadIdx.x] * 1.5f + 0.5f; // one FFMA per thread
}

} // namespace

// Named as NCCL (before 2.19) names its kernels, so the session takes it for one of NCCL's.
extern "C" __global__ void ncclKernel_AllReduce_RING_LL_Sum_float(float* x) {
    spinAndWork(x);
}

// The same work under a name of no library: kernel replay runs it once per pass.
extern "C" __global__ void local_reduce_probe(float* x) {
    spinAndWork(x);
}

namespace {

// One step: an FFMA calibration kernel, the NCCL-named probe twice, the other probe once; the wall
// time of a probe's launch to its end, in units of one run. The second NCCL-named launch is the
// one timed: the first one pays for stopping the profiler and for enabling activity records.
struct Probes {
    float* x = nullptr;
    double ncclRuns = 0, localRuns = 0;
    Probes() {
        EXPECT_EQ(cudaMalloc(&x, 32 * sizeof(float)), cudaSuccess);
        EXPECT_EQ(cudaMemset(x, 0, 32 * sizeof(float)), cudaSuccess);
    }
    ~Probes() { cudaFree(x); }
    template <typename Launch> double runs(Launch&& launch) {
        const auto t0 = std::chrono::steady_clock::now();
        launch();
        EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
        const std::chrono::duration<double, std::nano> d = std::chrono::steady_clock::now() - t0;
        return d.count() / kSpinNs;
    }
    void step(const cal::Buffers& b) {
        ASSERT_EQ(cal::launchFfma(b), cudaSuccess);
        ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
        ncclKernel_AllReduce_RING_LL_Sum_float<<<1, 32>>>(x);
        ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
        ncclRuns = runs([&] { ncclKernel_AllReduce_RING_LL_Sum_float<<<1, 32>>>(x); });
        localRuns = runs([&] { local_reduce_probe<<<1, 32>>>(x); });
    }
};

void print(const std::vector<roofline::KernelRecord>& records) {
    for (const auto& r : records)
        std::printf("  %-42.42s measured %d  FP32 %.0f  time %.3g s  %s\n", r.name.c_str(),
                    r.measured, r.flopsOf(FlopKind::FP32), r.timeSeconds, r.note.c_str());
}

} // namespace

TEST(GpuCommunication, KernelReplayRunsACommunicationKernelOnceAndTimesIt) {
    ROOFLINE_REQUIRE_GPU();
    cal::Buffers buffers;
    Probes probes;
    roofline::Options options;
    options.mode = CollectionMode::KernelReplay;
    options.flushOnExit = false;
    roofline::Session session{options};
    ASSERT_TRUE(session.countersAvailable()) << session.status();
    {
        roofline::ProfileScope scope{"step"};
        probes.step(buffers);
    }
    const auto records = session.stop();
    print(records);
    std::printf("wall time in runs of %.0f ms: NCCL-named kernel %.2f, the other %.2f (%zu "
                "passes)\n",
                kSpinNs / 1e6, probes.ncclRuns, probes.localRuns, session.passes());
    // Replayed over its passes it would take at least that many runs' time.
    EXPECT_LT(probes.ncclRuns, 1.5) << "a communication kernel was replayed";
    EXPECT_GT(probes.localRuns, 0.9 * session.passes())
        << "kernel replay ran the other kernel once: the check above proves nothing";
    ASSERT_EQ(records.size(), 4u);
    EXPECT_TRUE(records[0].measured);
    EXPECT_EQ(records[0].flopsOf(FlopKind::FP32), cal::kFfmaFlops);
    for (int i : {1, 2}) {
        const auto& comm = records[i];
        EXPECT_EQ(comm.name, "ncclKernel_AllReduce_RING_LL_Sum_float");
        EXPECT_FALSE(comm.measured);
        EXPECT_GT(comm.timeSeconds, kSpinNs * 0.9e-9) << "not timed";
        EXPECT_LT(comm.timeSeconds, kSpinNs * 1.5e-9);
        EXPECT_NE(comm.note.find("a NCCL kernel waits for other GPUs' kernels"),
                  std::string::npos)
            << comm.note;
        EXPECT_EQ(comm.scopePath, "step");
    }
    EXPECT_TRUE(records[3].measured);
    EXPECT_EQ(records[3].flopsOf(FlopKind::FP32), 32.0 * 2);
}

TEST(GpuCommunication, IterationReplayMeasuresACommunicationKernelInEachIterationOnce) {
    ROOFLINE_REQUIRE_GPU();
    cal::Buffers buffers;
    Probes probes;
    roofline::Options options = everyLaunchOptions(roofline::TensorCounters::Detect);
    roofline::Session session{options};
    ASSERT_TRUE(session.countersAvailable()) << session.status();
    unsigned steps = 0;
    while (session.needsPass() && steps < 30) {
        roofline::ProfileScope scope{"step"};
        probes.step(buffers);
        ++steps;
    }
    const auto records = session.stop();
    print(records);
    std::printf("%u iterations\n", steps);
    ASSERT_EQ(records.size(), 4u);
    for (const auto& r : records)
        EXPECT_TRUE(r.measured) << r.name << ": " << r.note;
    EXPECT_EQ(records[1].flopsOf(FlopKind::FP32), 32.0 * 2);
    EXPECT_EQ(records[2].flopsOf(FlopKind::FP32), 32.0 * 2);
}
