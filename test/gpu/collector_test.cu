// The collector on the GPU: each collection mode, NVTX from a separately compiled library,
// threads and streams, 100,000 launches, timing-only fallback, exceptions, cache flush. Label: gpu.
#include "calibration/expected.hpp"
#include "calibration/kernels.cuh"
#include "gpu/gpu_test_support.hpp"
#include "gpu/nvtx_lib.cuh"

#include <roofline/roofline.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <stdexcept>
#include <string>
#include <thread>

using roofline::CollectionMode;
using roofline::FlopKind;
using roofline::MemoryLevel;
namespace cal = calibration;

namespace {

__global__ void tinyKernel(float* out, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = fmaf(out[i], 1.0001f, 0.5f);
}

__global__ void copyKernel(const float4* in, float4* out, std::size_t n) {
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
         i += std::size_t(gridDim.x) * blockDim.x)
        out[i] = in[i];
}

// Resident set of this process, in bytes: "VmRSS:" now, "VmHWM:" peak (Linux).
double rssBytes(const std::string& which) {
    std::ifstream status("/proc/self/status");
    std::string key;
    while (status >> key) {
        if (key == which) {
            double kb = 0;
            status >> kb;
            return kb * 1024;
        }
        status.ignore(1 << 16, '\n');
    }
    return 0;
}

struct DeviceBuffer {
    float* p = nullptr;
    explicit DeviceBuffer(std::size_t floats) {
        EXPECT_EQ(cudaMalloc(&p, floats * sizeof(float)), cudaSuccess);
        cudaMemset(p, 0, floats * sizeof(float));
    }
    ~DeviceBuffer() { cudaFree(p); }
};

} // namespace

TEST(GpuIterationReplay, LoopIterationsAssembleExactPerKernelCounters) {
    ROOFLINE_REQUIRE_GPU();
    cal::Buffers buffers;
    roofline::Options options;   // iteration replay, full metric set
    options.rangesPerImage = 12; // 3 kernels a step: a pass spans 12 / (2 x 3) = 2 steps
    // A fixed pass count and every launch measured (this test counts iterations exactly).
    options.tensorCounters = roofline::TensorCounters::All;
    options.reuseSamples = 0;
    options.firstIteration = roofline::FirstIteration::Measure; // pass 0 is step 0
    options.idleWhenComplete = false; // every step measured: two replay groups
    roofline::Session session{options};
    ASSERT_TRUE(session.countersAvailable()) << session.status();
    ASSERT_EQ(session.mode(), CollectionMode::IterationReplay);
    const std::size_t passes = session.passes();
    for (std::size_t step = 0; step < 2 * 2 * passes; ++step) {
        roofline::ProfileScope scope{"step"};
        ASSERT_EQ(cal::launchFfma(buffers), cudaSuccess);
        ASSERT_EQ(cal::launchDfma(buffers), cudaSuccess);
        ASSERT_EQ(cal::launchMmaFp16(buffers), cudaSuccess);
    }
    const auto& records = session.stop();
    ASSERT_EQ(records.size(), 12u); // two replay groups of two steps of three kernels
    for (const auto& r : records) {
        ASSERT_TRUE(r.measured) << r.name << ": " << r.note;
        EXPECT_EQ(r.scopePath, "step");
        EXPECT_GT(r.smClockHz, 0.5e9);
    }
    for (int g = 0; g < 4; ++g) {
        EXPECT_EQ(records[3 * g].flopsOf(FlopKind::FP32), cal::kFfmaFlops);
        EXPECT_EQ(records[3 * g + 1].flopsOf(FlopKind::FP64), cal::kDfmaFlops);
        EXPECT_EQ(records[3 * g + 2].flopsOf(FlopKind::TensorFP16), cal::kMmaFlops);
    }
    EXPECT_EQ(session.replayMismatches(), 0u);
    EXPECT_EQ(session.droppedRanges(), 0u);
}

TEST(GpuIterationReplay, AnIterationWithDifferentKernelsIsFlagged) {
    ROOFLINE_REQUIRE_GPU();
    cal::Buffers buffers;
    roofline::Options options;
    options.iterationsPerPass = 1;
    options.alignPasses = roofline::AlignPasses::Off; // positional: flagged, not measured again
    options.reuseSamples = 0;                         // a fixed loop of session.passes() iterations
    options.firstIteration = roofline::FirstIteration::Measure; // pass 0 is step 0
    roofline::Session session{options};
    for (std::size_t step = 0; step < session.passes(); ++step) {
        roofline::ProfileScope scope{"step"};
        ASSERT_EQ(step == 2 ? cal::launchDfma(buffers) : cal::launchFfma(buffers), cudaSuccess);
    }
    const auto& records = session.stop();
    ASSERT_EQ(records.size(), 1u);
    EXPECT_EQ(session.replayMismatches(), 1u);
    EXPECT_NE(records[0].note.find("pass 2"), std::string::npos) << records[0].note;
    EXPECT_EQ(records[0].replay, roofline::ReplayStatus::Unmatched);
    EXPECT_FALSE(records[0].measured); // pass 2 ran DFMA instead: none of its metrics are FFMA's
}

// Aligned replay (ROOFLINE_ALIGN_PASSES=on): pass 2 launches an extra kernel before the others and
// pass 3 leaves the MMA kernel out. The insertion costs nothing; the omission would cost only that
// launch, and the group is measured once more so that it too gets its values. (With passes
// combined by position in one CUPTI configuration, the insertion would cost every later launch of
// the step.) On GH100 passes 0-3 run single-pass configurations; the last four run two metrics
// that need two passes each, combined by position as CUPTI does.
TEST(GpuIterationReplay, AlignedPassesSurviveAnInsertedAndAMissingLaunch) {
    ROOFLINE_REQUIRE_GPU();
    cal::Buffers buffers;
    roofline::Options options;
    options.iterationsPerPass = 1;
    options.flushOnExit = false;
    options.alignPasses = roofline::AlignPasses::On;
    options.tensorCounters = roofline::TensorCounters::All; // the full set's 6 configurations
    options.reuseSamples = 0;
    options.firstIteration = roofline::FirstIteration::Measure; // pass 0 is step 0
    roofline::Session session{options};
    ASSERT_TRUE(session.countersAvailable()) << session.status();
    ASSERT_GE(session.passes(), 6u);
    std::size_t step = 0;
    while (session.needsPass() && step < 40) {
        roofline::ProfileScope scope{"step"};
        if (step == 2)
            ASSERT_EQ(cal::launchCopy(buffers), cudaSuccess); // inserted
        ASSERT_EQ(cal::launchFfma(buffers), cudaSuccess);
        ASSERT_EQ(cal::launchDfma(buffers), cudaSuccess);
        if (step != 3)
            ASSERT_EQ(cal::launchMmaFp16(buffers), cudaSuccess);
        ++step;
    }
    // The group, then the same window once more for the launch pass 3 did not run.
    EXPECT_EQ(step, 2 * session.passes());
    const auto& records = session.stop();
    ASSERT_EQ(records.size(), 3u);
    ASSERT_TRUE(records[0].measured) << records[0].note;
    ASSERT_TRUE(records[1].measured) << records[1].note;
    EXPECT_EQ(records[0].replay, roofline::ReplayStatus::Clean) << records[0].note;
    EXPECT_EQ(records[1].replay, roofline::ReplayStatus::Clean) << records[1].note;
    EXPECT_EQ(records[0].flopsOf(FlopKind::FP32), cal::kFfmaFlops);
    EXPECT_EQ(records[1].flopsOf(FlopKind::FP64), cal::kDfmaFlops);
    for (int k = 0; k < 2; ++k) { // every configuration's metrics were assembled
        EXPECT_GT(records[k].smClockHz, 0.5e9);
        EXPECT_GT(records[k].timeSeconds, 0.0);
        for (const auto& [metric, value] : records[k].metrics)
            EXPECT_TRUE(std::isfinite(value)) << k << ": " << metric;
    }
    ASSERT_TRUE(records[2].measured) << records[2].note;
    EXPECT_EQ(records[2].replay, roofline::ReplayStatus::Clean) << records[2].note;
    EXPECT_EQ(records[2].flopsOf(FlopKind::TensorFP16), cal::kMmaFlops);
    EXPECT_EQ(session.replayMismatches(), 0u);
}

// The default (ROOFLINE_ALIGN_PASSES=auto): positional passes until pass 2 launches an extra
// kernel; the session then switches to aligned passes and measures the group again, so every
// launch ends with exact, clean values.
TEST(GpuIterationReplay, AutoSwitchesToAlignedPassesAtAnInsertion) {
    ROOFLINE_REQUIRE_GPU();
    cal::Buffers buffers;
    roofline::Options options;
    options.iterationsPerPass = 1;
    options.flushOnExit = false;
    options.tensorCounters = roofline::TensorCounters::All; // the full set's 7 passes
    options.reuseSamples = 0;
    roofline::Session session{options};
    ASSERT_TRUE(session.countersAvailable()) << session.status();
    const std::size_t positional = session.passes();
    std::size_t step = 0;
    while (session.needsPass() && step < 40) {
        roofline::ProfileScope scope{"step"};
        if (step == 2)
            ASSERT_EQ(cal::launchCopy(buffers), cudaSuccess); // inserted
        ASSERT_EQ(cal::launchFfma(buffers), cudaSuccess);
        ASSERT_EQ(cal::launchDfma(buffers), cudaSuccess);
        ASSERT_EQ(cal::launchMmaFp16(buffers), cudaSuccess);
        ++step;
    }
    EXPECT_GE(session.passes(), positional); // aligned now (GH100: 8 against 7)
    EXPECT_EQ(step, 3 + session.passes());   // steps 0-2 positional, then one aligned group
    const auto& records = session.stop();
    ASSERT_EQ(records.size(), 3u); // the abandoned group's records are gone
    for (const auto& r : records) {
        ASSERT_TRUE(r.measured) << r.name << ": " << r.note;
        EXPECT_EQ(r.replay, roofline::ReplayStatus::Clean) << r.note;
        EXPECT_EQ(r.iteration, 3);
    }
    EXPECT_EQ(records[0].flopsOf(FlopKind::FP32), cal::kFfmaFlops);
    EXPECT_EQ(records[1].flopsOf(FlopKind::FP64), cal::kDfmaFlops);
    EXPECT_EQ(records[2].flopsOf(FlopKind::TensorFP16), cal::kMmaFlops);
}

TEST(GpuScopeReplay, OneRecordPerScopeIncludingSassFlops) {
    ROOFLINE_REQUIRE_GPU();
    cal::Buffers buffers;
    roofline::Options options;
    options.mode = CollectionMode::ScopeReplay;
    options.scopeLevels = 2;
    roofline::Session session{options};
    int passes = 0;
    while (session.needsPass()) {
        roofline::ProfileScope step{"step"};
        {
            roofline::ProfileScope s{"fp32"};
            ASSERT_EQ(cal::launchFfma(buffers), cudaSuccess);
            ASSERT_EQ(cal::launchFfma(buffers), cudaSuccess);
        }
        {
            roofline::ProfileScope s{"fp64"};
            ASSERT_EQ(cal::launchDfma(buffers), cudaSuccess);
        }
        ++passes;
    }
    // The first iteration is observed only (Options::firstIteration), then one per pass.
    EXPECT_EQ(static_cast<std::size_t>(passes), session.passes() + 1);
    const auto& records = session.stop();
    ASSERT_EQ(records.size(), 3u);
    const auto* step = findByScope(records, "step");
    const auto* fp32 = findByScope(records, "step/fp32");
    const auto* fp64 = findByScope(records, "step/fp64");
    ASSERT_TRUE(step && fp32 && fp64);
    for (const auto* r : {step, fp32, fp64}) {
        ASSERT_TRUE(r->measured) << r->scopePath << ": " << r->note;
        EXPECT_TRUE(r->scopeRecord);
    }
    EXPECT_EQ(step->kernels, 3u);
    EXPECT_EQ(fp32->kernels, 2u);
    EXPECT_EQ(fp32->flopsOf(FlopKind::FP32), 2 * cal::kFfmaFlops);
    EXPECT_EQ(fp64->flopsOf(FlopKind::FP64), cal::kDfmaFlops);
    EXPECT_EQ(step->flopsOf(FlopKind::FP32), 2 * cal::kFfmaFlops);
    EXPECT_EQ(step->flopsOf(FlopKind::FP64), cal::kDfmaFlops);
}

TEST(GpuNvtx, PlainNvtxInASeparateLibraryNamesTheRecords) {
    ROOFLINE_REQUIRE_GPU();
    DeviceBuffer buffer(132 * 128);
    roofline::Options options;
    options.mode = CollectionMode::KernelReplay;
    roofline::Session session{options};
    double work = 0, scoped = 0;
    {
        roofline::ProfileScope app{"app"};
        work = nvtxLibWork(buffer.p);
        scoped = nvtxLibScoped(buffer.p);
    }
    nvtxLibUnbalancedPop();
    const auto& records = session.stop();
    ASSERT_EQ(records.size(), 2u);
    EXPECT_EQ(records[0].scopePath, "app/lib/inner");
    EXPECT_EQ(records[1].scopePath, "app/scoped");
    EXPECT_EQ(records[0].flopsOf(FlopKind::FP32), work);
    EXPECT_EQ(records[1].flopsOf(FlopKind::FP32), scoped);
    EXPECT_EQ(session.unbalancedNvtxPops(), 1u);
}

TEST(GpuNvtx, ListeningOffLeavesOnlyProfileScopes) {
    ROOFLINE_REQUIRE_GPU();
    DeviceBuffer buffer(132 * 128);
    roofline::Options options;
    options.mode = CollectionMode::KernelReplay;
    options.listenNvtx = false;
    roofline::Session session{options};
    {
        roofline::ProfileScope app{"app"};
        nvtxLibWork(buffer.p);
    }
    nvtxLibWork(buffer.p); // NVTX ranges only: not a scope while listening is off
    nvtxLibUnbalancedPop();
    const auto& records = session.stop();
    ASSERT_EQ(records.size(), 1u);
    EXPECT_EQ(records[0].scopePath, "app");
    EXPECT_EQ(session.unbalancedNvtxPops(), 1u);
}

TEST(GpuNvtx, FiltersUseNsightComputeSyntax) {
    ROOFLINE_REQUIRE_GPU();
    DeviceBuffer buffer(132 * 128);
    for (const auto& [filter, expected] :
         std::vector<std::pair<std::string, std::string>>{{"mydomain@inner/", "app/lib/inner"},
                                                          {"phase", "app/scoped"},
                                                          {"[app/scoped]", "app/scoped"},
                                                          {"regex:^l.b$/", "app/lib/inner"}}) {
        roofline::Options options;
        options.mode = CollectionMode::KernelReplay;
        options.nvtxInclude = {filter};
        roofline::Session session{options};
        {
            roofline::ProfileScope app{"app"};
            nvtxLibWork(buffer.p);
            nvtxLibScoped(buffer.p);
        }
        const auto& records = session.stop();
        ASSERT_EQ(records.size(), 1u) << filter;
        EXPECT_EQ(records[0].scopePath, expected) << filter;
        EXPECT_TRUE(records[0].measured) << records[0].note;
    }
}

TEST(GpuThreads, ScopesOnTwoThreadsAndStreamsLandOnTheirOwnPaths) {
    ROOFLINE_REQUIRE_GPU();
    roofline::Options options;
    options.mode = CollectionMode::KernelReplay;
    roofline::Session session{options};
    constexpr int kPerThread = 6;
    auto worker = [](const char* name, int blocks) {
        cudaStream_t stream;
        cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
        DeviceBuffer buffer(1 << 20);
        roofline::ProfileScope scope{name};
        for (int i = 0; i < kPerThread; ++i)
            tinyKernel<<<blocks, 256, 0, stream>>>(buffer.p, blocks * 256);
        cudaStreamSynchronize(stream);
        cudaStreamDestroy(stream);
    };
    std::thread a(worker, "worker_a", 8), b(worker, "worker_b", 16);
    a.join();
    b.join();
    const auto& records = session.stop();
    ASSERT_EQ(records.size(), 2u * kPerThread);
    std::uint64_t threadA = 0, threadB = 0;
    for (const auto& r : records) {
        ASSERT_TRUE(r.measured) << r.note;
        // Each kernel's grid tells which thread launched it: its record must carry that
        // thread's scope, thread id and stream (and FLOPs of its own size).
        const bool isA = r.grid.x == 8;
        EXPECT_EQ(r.scopePath, isA ? "worker_a" : "worker_b");
        EXPECT_EQ(r.flopsOf(FlopKind::FP32), 2.0 * r.grid.x * 256);
        (isA ? threadA : threadB) = r.threadId;
        EXPECT_NE(r.stream, 0u);
    }
    EXPECT_NE(threadA, threadB);
}

TEST(GpuLaunches, HundredThousandLaunchesGiveHundredThousandRecords) {
    ROOFLINE_REQUIRE_GPU();
    std::size_t total = 100000;
    if (const char* v = std::getenv("ROOFLINE_TEST_LAUNCHES"))
        total = std::strtoul(v, nullptr, 10);
    std::size_t kPerIteration = 100; // launches per iteration = ranges per image
    if (const char* v = std::getenv("ROOFLINE_TEST_PER_ITERATION"))
        kPerIteration = std::strtoul(v, nullptr, 10);
    DeviceBuffer buffer(256);
    cudaFuncAttributes loaded{}; // the kernel's code is loaded before the session (design 0005)
    ASSERT_EQ(cudaFuncGetAttributes(&loaded, tinyKernel), cudaSuccess);
    const double rssBefore = rssBytes("VmRSS:");
    const auto t0 = std::chrono::steady_clock::now();
    roofline::Options options;
    options.metrics = roofline::MetricSet::Time;
    options.rangesPerImage = kPerIteration;
    options.reuseSamples = 0; // every launch measured: this test sizes memory per range
    options.firstIteration = roofline::FirstIteration::Measure; // a fixed loop of passes
    options.idleWhenComplete = false; // every iteration measured, not only the first profile
    roofline::Session session{options};
    const double rssSession = rssBytes("VmRSS:");
    const std::size_t iterations = total / kPerIteration * session.passes();
    double rssTenth = 0;
    for (std::size_t it = 0; it < iterations; ++it) {
        roofline::ProfileScope scope{"iteration"};
        for (std::size_t k = 0; k < kPerIteration; ++k)
            tinyKernel<<<1, 256>>>(buffer.p, 256);
        if (it == iterations / 10)
            rssTenth = rssBytes("VmRSS:");
    }
    const double rssLoopEnd = rssBytes("VmRSS:");
    const auto& records = session.stop();
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const double mib = 1 << 20;
    std::printf("%zu launches (%zu passes): %zu records, %llu dropped ranges, %.1f s; RSS: before "
                "%.0f MiB, session set up %.0f, after 10%% %.0f, loop end %.0f, after stop %.0f, "
                "peak %.0f MiB\n",
                iterations * kPerIteration, session.passes(), records.size(),
                static_cast<unsigned long long>(session.droppedRanges()), seconds, rssBefore / mib,
                rssSession / mib, rssTenth / mib, rssLoopEnd / mib, rssBytes("VmRSS:") / mib,
                rssBytes("VmHWM:") / mib);
    // CUPTI allocates its per-pass state at the first pass (~1.4 MiB per range), records grow by
    // well under 1 KB each; nothing else grows with the number of launches.
    const double rssGrowth = rssLoopEnd - rssTenth;
    EXPECT_LT(rssTenth - rssSession, 256.0 * (1 << 20)); // profiling state, allocated once
    ASSERT_EQ(records.size(), total);
    EXPECT_EQ(session.droppedRanges(), 0u);
    EXPECT_EQ(session.droppedKernels(), 0u);
    EXPECT_TRUE(records.back().measured) << records.back().note;
    EXPECT_GT(records.back().timeSeconds, 0.0);
    EXPECT_LT(rssGrowth, 0.9 * total * 1024); // < 1 KB per record
}

TEST(GpuFallback, TimingOnlyRecordsCarryDurationsAndScopes) {
    ROOFLINE_REQUIRE_GPU();
    cal::Buffers buffers;
    ::setenv("ROOFLINE_TIMING_ONLY", "1", 1);
    roofline::Session session;
    ::unsetenv("ROOFLINE_TIMING_ONLY");
    EXPECT_FALSE(session.countersAvailable());
    {
        roofline::ProfileScope s{"timed"};
        ASSERT_EQ(cal::launchFfma(buffers), cudaSuccess);
        ASSERT_EQ(cal::launchCopy(buffers), cudaSuccess);
    }
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    const auto& records = session.stop();
    ASSERT_EQ(records.size(), 2u);
    for (const auto& r : records) {
        EXPECT_FALSE(r.measured);
        EXPECT_EQ(r.scopePath, "timed");
        EXPECT_GT(r.timeSeconds, 0.0) << r.note;
        EXPECT_NE(r.note.find("timing only"), std::string::npos) << r.note;
    }
    EXPECT_GT(records[1].timeSeconds, 1e-5); // a 256 MiB copy takes well over 10 us
}

TEST(GpuSession, AnExceptionThroughAScopeUnwindsCleanly) {
    ROOFLINE_REQUIRE_GPU();
    cal::Buffers buffers;
    roofline::Options options;
    options.mode = CollectionMode::KernelReplay;
    roofline::Session session{options};
    try {
        roofline::ProfileScope s{"throws"};
        ASSERT_EQ(cal::launchFfma(buffers), cudaSuccess);
        throw std::runtime_error("application error");
    } catch (const std::runtime_error&) {
    }
    {
        roofline::ProfileScope s{"after"};
        ASSERT_EQ(cal::launchDfma(buffers), cudaSuccess);
    }
    const auto& records = session.stop();
    ASSERT_EQ(records.size(), 2u);
    EXPECT_EQ(records[0].scopePath, "throws");
    EXPECT_EQ(records[1].scopePath, "after");
    EXPECT_EQ(records[1].flopsOf(FlopKind::FP64), cal::kDfmaFlops);
}

TEST(GpuCache, FlushBeforeEachPassGivesColdDramFigures) {
    ROOFLINE_REQUIRE_GPU();
    constexpr std::size_t kBytes = 8u << 20; // far below the 50 MB L2
    float4 *in = nullptr, *out = nullptr;
    ASSERT_EQ(cudaMalloc(&in, kBytes), cudaSuccess);
    ASSERT_EQ(cudaMalloc(&out, kBytes), cudaSuccess);
    cudaMemset(in, 1, kBytes);
    const auto run = [&](CollectionMode mode, roofline::CacheFlush flush) {
        roofline::Options options;
        options.mode = mode;
        options.cacheFlush = flush;
        options.reuseSamples = 0; // each of the three copies measured
        roofline::Session session{options};
        std::vector<double> dram;
        while (session.needsPass()) {
            roofline::ProfileScope s{"copy"};
            for (int i = 0; i < 3; ++i)
                copyKernel<<<264, 256>>>(in, out, kBytes / sizeof(float4));
        }
        for (const auto& r : session.stop()) {
            EXPECT_TRUE(r.measured) << r.note;
            dram.push_back(r.bytesAt(MemoryLevel::DRAM));
            std::printf("%s, cache flush %s: DRAM %.2f MB for %.2f MB read\n", toString(mode),
                        toString(flush), r.bytesAt(MemoryLevel::DRAM) / 1e6, kBytes / 1e6);
        }
        return dram;
    };
    // Iteration replay: every pass starts cold, so the pass's first copy reads all its input
    // from DRAM (the next two find the same buffer in L2, by design of this workload).
    const auto iteration = run(CollectionMode::IterationReplay, roofline::CacheFlush::On);
    ASSERT_EQ(iteration.size(), 3u);
    EXPECT_GE(iteration[0], 0.95 * kBytes);
    run(CollectionMode::IterationReplay, roofline::CacheFlush::Off);
    // Kernel replay: CUPTI replays the passes inside the launch, so the flush sets only the
    // state the first pass starts from; the later passes' figures lie between the warm and the
    // cold one and vary from launch to launch (docs/methodology.md, "Caches"). Asserted: every
    // launch measured, with DRAM bytes above the warm copy's and at most a cold read and write.
    for (const auto flush : {roofline::CacheFlush::On, roofline::CacheFlush::Off}) {
        const auto kernel = run(CollectionMode::KernelReplay, flush);
        ASSERT_EQ(kernel.size(), 3u);
        for (const double bytes : kernel) {
            EXPECT_GT(bytes, 0.1 * kBytes);
            EXPECT_LE(bytes, 2.1 * kBytes);
        }
    }
    cudaFree(in);
    cudaFree(out);
}

// Resident blocks per SM and waves: each record's, from the kernel's registers and
// shared memory as the launch callback read them and the device's limits, against the CUDA
// runtime's own occupancy calculator for the same kernel, block and shared memory.
TEST(GpuOccupancy, ResidentBlocksMatchTheRuntimesOccupancyCalculator) {
    ROOFLINE_REQUIRE_GPU();
    DeviceBuffer buffer(1 << 20);
    roofline::Options options;
    options.mode = CollectionMode::KernelReplay;
    options.metrics = roofline::MetricSet::Time;
    options.flushOnExit = false;
    struct Shape {
        unsigned block;
        std::size_t sharedBytes;
    };
    const Shape shapes[] = {{256, 0}, {1024, 0}, {128, 48 << 10}, {64, 100 << 10}};
    for (const Shape& s : shapes)
        if (s.sharedBytes > 48 << 10)
            ASSERT_EQ(cudaFuncSetAttribute(tinyKernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                           static_cast<int>(s.sharedBytes)),
                      cudaSuccess);
    roofline::Session session{options};
    ASSERT_TRUE(session.countersAvailable()) << session.status();
    {
        roofline::ProfileScope scope{"occupancy"};
        for (const Shape& s : shapes)
            tinyKernel<<<1000, s.block, s.sharedBytes>>>(buffer.p, 1 << 20);
        ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    }
    const auto& records = session.stop();
    ASSERT_EQ(records.size(), std::size(shapes));
    int sms = 0;
    ASSERT_EQ(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0), cudaSuccess);
    for (std::size_t i = 0; i < records.size(); ++i) {
        int expected = 0;
        ASSERT_EQ(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
                      &expected, tinyKernel, shapes[i].block, shapes[i].sharedBytes),
                  cudaSuccess);
        cudaFuncAttributes attributes{};
        ASSERT_EQ(cudaFuncGetAttributes(&attributes, tinyKernel), cudaSuccess);
        EXPECT_EQ(records[i].registersPerThread, attributes.numRegs) << i;
        EXPECT_EQ(records[i].sharedMemBytes, shapes[i].sharedBytes + attributes.sharedSizeBytes)
            << i;
        EXPECT_EQ(records[i].residentBlocksPerSm, expected)
            << "block " << shapes[i].block << ", shared " << shapes[i].sharedBytes;
        EXPECT_EQ(records[i].waves, std::ceil(1000.0 / (expected * sms))) << i;
    }
}
