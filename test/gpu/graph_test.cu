// CUDA graphs on the GPU. By default, while counters are collected, a graph launch runs as its
// nodes (docs/design/0016): its kernels are measured like direct launches, with their exact
// FLOPs, in the graph launch's scope, and the graph's results are unchanged. With
// Options::launchGraphNodes off, graph kernels get records with their names, grid and block and
// the scope, without counters, and the replay modes measure around them. Timing-only sessions
// time them. Label: gpu.
#include "calibration/expected.hpp"
#include "calibration/kernels.cuh"
#include "gpu/gpu_test_support.hpp"

#include <roofline/roofline.hpp>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <tuple>
#include <vector>
#include <string>

using roofline::CollectionMode;
using roofline::FlopKind;
namespace cal = calibration;

namespace {

// A graph of FFMA then DFMA, captured from `stream` (instantiated after the session started: the
// session reads a graph's kernels when it is instantiated).
struct CapturedGraph {
    cudaStream_t stream = nullptr;
    cudaGraph_t graph = nullptr;
    cudaGraphExec_t exec = nullptr;
    explicit CapturedGraph(const cal::Buffers& b) {
        EXPECT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
        EXPECT_EQ(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal), cudaSuccess);
        EXPECT_EQ(cal::launchFfmaOn(b, stream), cudaSuccess);
        EXPECT_EQ(cal::launchDfmaOn(b, stream), cudaSuccess);
        EXPECT_EQ(cudaStreamEndCapture(stream, &graph), cudaSuccess);
        EXPECT_EQ(cudaGraphInstantiate(&exec, graph, 0), cudaSuccess);
    }
    ~CapturedGraph() {
        cudaGraphExecDestroy(exec);
        cudaGraphDestroy(graph);
        cudaStreamDestroy(stream);
    }
    void launch() {
        ASSERT_EQ(cudaGraphLaunch(exec, stream), cudaSuccess);
        ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
    }
};

// Steps of a direct FFMA launch and, in the steps `withGraph` picks, the graph inside scope
// "graph" (and once before the first step, in no scope, where `graphBeforeSteps`); the loop runs
// while the session needs passes (at least 4 steps, at most 60).
template <typename Pick>
std::vector<roofline::KernelRecord> runWithGraph(roofline::Options options, Pick withGraph,
                                                 bool graphBeforeSteps = false) {
    cal::Buffers buffers;
    options.reuseSamples = 0;
    options.iterationsPerPass = 1; // one launch per step: passes would otherwise span many steps
    options.flushOnExit = false;
    roofline::Session session{options};
    EXPECT_TRUE(session.countersAvailable()) << session.status();
    CapturedGraph graph{buffers};
    if (graphBeforeSteps)
        graph.launch();
    int steps = 0;
    while ((steps < 4 || session.needsPass()) && steps < 60) {
        roofline::ProfileScope step{"step"};
        EXPECT_EQ(cal::launchFfma(buffers), cudaSuccess);
        EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
        if (withGraph(steps)) {
            roofline::ProfileScope inGraph{"graph"};
            graph.launch();
        }
        ++steps;
    }
    std::vector<roofline::KernelRecord> records = session.stop();
    std::printf("%s: %d steps, %zu records, status %s\n", roofline::toString(options.mode), steps,
                records.size(), session.status().c_str());
    for (std::size_t i = 0; i < records.size() && i < 8; ++i)
        std::printf(
            "  %-12s %-28.28s measured %d kernels %u fp32 %.4g fp64 %.4g time %.3g  %.60s\n",
            records[i].scopePath.c_str(), records[i].name.c_str(), records[i].measured,
            records[i].kernels, records[i].flopsOf(FlopKind::FP32),
            records[i].flopsOf(FlopKind::FP64), records[i].timeSeconds, records[i].note.c_str());
    return records;
}

// The graph's kernels: named, in the graph launch's scope, no counters, timed by CUDA activity in
// kernel replay only (beside iteration and scope replay, kernel activity zeroed the instruction
// counters: measured on the H100); every direct launch measured has its exact FLOPs, and at least
// one was measured.
void expectGraphKernelsAndExactDirectLaunches(const std::vector<roofline::KernelRecord>& records,
                                              CollectionMode mode) {
    const bool perScope = mode == CollectionMode::ScopeReplay;
    const bool timed = mode == CollectionMode::KernelReplay;
    std::size_t ffma = 0, dfma = 0, direct = 0;
    for (const auto& r : records) {
        if (r.note.find("CUDA graph") == std::string::npos) {
            if (!r.measured)
                continue;
            ++direct;
            if (!perScope)
                EXPECT_EQ(r.flopsOf(FlopKind::FP32), cal::kFfmaFlops) << r.name;
            else if (r.scopePath == "step")
                EXPECT_EQ(r.flopsOf(FlopKind::FP32), cal::kFfmaFlops) << r.name;
            continue;
        }
        EXPECT_EQ(r.scopePath, "step/graph");
        EXPECT_FALSE(r.measured) << r.name;
        if (timed)
            EXPECT_GT(r.timeSeconds, 0.0) << r.name << ": " << r.note;
        else
            EXPECT_NE(r.note.find("no duration"), std::string::npos) << r.note;
        EXPECT_EQ(r.grid.x, cal::kGrid);
        EXPECT_EQ(r.block.x, cal::kBlock);
        if (r.name.find("fmaChains<float>") != std::string::npos)
            ++ffma;
        else if (r.name.find("fmaChains<double>") != std::string::npos)
            ++dfma;
        else
            ADD_FAILURE() << "unexpected graph kernel " << r.name;
    }
    EXPECT_GE(ffma, 1u);
    EXPECT_EQ(ffma, dfma);
    EXPECT_GE(direct, 1u);
}

// The graph's kernels, launched as its nodes: measured, exact, in the graph launch's scope;
// every direct launch exact too.
void expectGraphKernelsMeasured(const std::vector<roofline::KernelRecord>& records,
                                CollectionMode mode) {
    std::size_t ffma = 0, dfma = 0;
    for (const auto& r : records) {
        EXPECT_EQ(r.note.find("CUDA graph"), std::string::npos) << r.name << ": " << r.note;
        if (mode == CollectionMode::ScopeReplay) {
            // One record per outermost scope: the direct FFMA and the graph's FFMA and DFMA
            // together (graph kernels launched as a graph counted no instructions here).
            EXPECT_EQ(r.scopePath, "step");
            EXPECT_TRUE(r.measured) << r.note;
            EXPECT_EQ(r.kernels, 3u);
            EXPECT_EQ(r.flopsOf(FlopKind::FP32), 2 * cal::kFfmaFlops);
            EXPECT_EQ(r.flopsOf(FlopKind::FP64), cal::kDfmaFlops);
            ++ffma, ++dfma;
            continue;
        }
        EXPECT_TRUE(r.measured) << r.name << ": " << r.note;
        if (r.scopePath == "step/graph" && r.name.find("fmaChains<double>") != std::string::npos) {
            EXPECT_EQ(r.flopsOf(FlopKind::FP64), cal::kDfmaFlops) << r.name;
            ++dfma;
        } else if (r.name.find("fmaChains<float>") != std::string::npos) {
            EXPECT_EQ(r.flopsOf(FlopKind::FP32), cal::kFfmaFlops) << r.name;
            ffma += r.scopePath == "step/graph" ? 1 : 0;
        } else {
            ADD_FAILURE() << "unexpected record " << r.name << " in " << r.scopePath;
        }
    }
    EXPECT_GE(ffma, 1u);
    EXPECT_EQ(ffma, dfma);
}

__global__ void twiceAndOne(float* x, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        x[i] = 2.0f * x[i] + 1.0f;
}

} // namespace

TEST(GpuGraphs, KernelReplayMeasuresGraphKernelsLaunchedAsTheirNodes) {
    ROOFLINE_REQUIRE_GPU();
    roofline::Options options;
    options.mode = CollectionMode::KernelReplay;
    expectGraphKernelsMeasured(runWithGraph(options, [](int) { return true; }), options.mode);
}

TEST(GpuGraphs, IterationReplayMeasuresGraphKernelsLaunchedAsTheirNodes) {
    ROOFLINE_REQUIRE_GPU();
    roofline::Options options;
    options.mode = CollectionMode::IterationReplay;
    expectGraphKernelsMeasured(runWithGraph(options, [](int) { return true; }), options.mode);
}

TEST(GpuGraphs, ScopeReplayMeasuresGraphKernelsLaunchedAsTheirNodes) {
    ROOFLINE_REQUIRE_GPU();
    roofline::Options options;
    options.mode = CollectionMode::ScopeReplay;
    expectGraphKernelsMeasured(runWithGraph(options, [](int) { return true; }), options.mode);
}

// Window replay records a graph's nodes as the launches they are and launches them again in its
// windows' passes, as any launch.
TEST(GpuGraphs, WindowReplayMeasuresGraphKernelsLaunchedAsTheirNodes) {
    ROOFLINE_REQUIRE_GPU();
    roofline::Options options;
    options.mode = CollectionMode::WindowReplay;
    expectGraphKernelsMeasured(runWithGraph(options, [](int) { return true; }), options.mode);
}

// A graph launched before the first step (set-up, a warm-up) is measured as its nodes in a window
// outside the steps, each kernel with its exact FLOPs; the steps are measured as ever.
TEST(GpuGraphs, AGraphBeforeTheFirstStepIsMeasuredInAWindow) {
    ROOFLINE_REQUIRE_GPU();
    roofline::Options options;
    options.outsideSteps = roofline::OutsideSteps::Window;
    const auto records = runWithGraph(options, [](int) { return false; }, true);
    ASSERT_FALSE(records.empty());
    std::size_t before = 0, inSteps = 0;
    for (const auto& r : records) {
        EXPECT_TRUE(r.measured) << r.name << " in '" << r.scopePath << "': " << r.note;
        const bool outside = r.scopePath.empty();
        if (r.name.find("fmaChains<double>") != std::string::npos) {
            EXPECT_TRUE(outside) << r.scopePath;
            EXPECT_EQ(r.flopsOf(FlopKind::FP64), cal::kDfmaFlops);
            ++before;
        } else if (r.name.find("fmaChains<float>") != std::string::npos) {
            EXPECT_EQ(r.flopsOf(FlopKind::FP32), cal::kFfmaFlops) << r.scopePath;
            ++(outside ? before : inSteps);
        } else {
            ADD_FAILURE() << "unexpected record " << r.name;
        }
    }
    EXPECT_EQ(before, 2u) << "the graph's FFMA and DFMA, before the first step";
    EXPECT_GE(inSteps, 1u);
}

namespace {

// A graph whose kernel updates its buffer in place (running it twice would show) and a memset
// and copy around it: launched as its nodes under `mode` -- iteration replay, or window replay's
// windows, which launch the nodes again -- every launch's result is the graph's own, bit for bit.
void expectTheGraphsOwnResults(CollectionMode mode) {
    const int n = 1 << 16;
    float *x = nullptr, *y = nullptr;
    ASSERT_EQ(cudaMalloc(&x, n * sizeof(float)), cudaSuccess);
    ASSERT_EQ(cudaMalloc(&y, n * sizeof(float)), cudaSuccess);
    std::vector<float> start(n);
    for (int i = 0; i < n; ++i)
        start[i] = 0.001f * static_cast<float>(i % 997) - 0.25f;
    const auto run = [&](bool profiled) {
        std::unique_ptr<roofline::Session> session;
        if (profiled) {
            roofline::Options options;
            options.mode = mode;
            options.flushOnExit = false;
            session = std::make_unique<roofline::Session>(options);
            EXPECT_TRUE(session->countersAvailable()) << session->status();
        }
        cudaStream_t s = nullptr;
        EXPECT_EQ(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess);
        cudaGraph_t graph = nullptr;
        cudaGraphExec_t exec = nullptr;
        EXPECT_EQ(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal), cudaSuccess);
        EXPECT_EQ(cudaMemsetAsync(y, 0, n * sizeof(float), s), cudaSuccess);
        twiceAndOne<<<n / 256, 256, 0, s>>>(x, n);
        EXPECT_EQ(cudaMemcpyAsync(y, x, n * sizeof(float), cudaMemcpyDeviceToDevice, s),
                  cudaSuccess);
        twiceAndOne<<<n / 256, 256, 0, s>>>(y, n);
        EXPECT_EQ(cudaStreamEndCapture(s, &graph), cudaSuccess);
        EXPECT_EQ(cudaGraphInstantiate(&exec, graph, 0), cudaSuccess);
        EXPECT_EQ(cudaMemcpy(x, start.data(), n * sizeof(float), cudaMemcpyHostToDevice),
                  cudaSuccess);
        int steps = 0;
        while ((steps < 6 || (session && session->needsPass())) && steps < 40) {
            roofline::ProfileScope step{"step"};
            EXPECT_EQ(cudaGraphLaunch(exec, s), cudaSuccess);
            EXPECT_EQ(cudaStreamSynchronize(s), cudaSuccess);
            ++steps;
        }
        std::vector<float> out(2 * static_cast<std::size_t>(n));
        EXPECT_EQ(cudaMemcpy(out.data(), x, n * sizeof(float), cudaMemcpyDeviceToHost),
                  cudaSuccess);
        EXPECT_EQ(cudaMemcpy(out.data() + n, y, n * sizeof(float), cudaMemcpyDeviceToHost),
                  cudaSuccess);
        std::size_t measured = 0;
        if (session)
            for (const auto& r : session->stop())
                measured += r.measured ? 1 : 0;
        cudaGraphExecDestroy(exec);
        cudaGraphDestroy(graph);
        cudaStreamDestroy(s);
        return std::make_tuple(out, steps, measured);
    };
    const auto [profiled, profiledSteps, measured] = run(true);
    EXPECT_GE(measured, 2u); // both kernel nodes of the steady step
    // The same number of launches without libroofline.
    std::vector<float> plain;
    {
        const int keep = profiledSteps;
        EXPECT_EQ(cudaMemcpy(x, start.data(), n * sizeof(float), cudaMemcpyHostToDevice),
                  cudaSuccess);
        cudaStream_t s = nullptr;
        EXPECT_EQ(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess);
        for (int k = 0; k < keep; ++k) {
            EXPECT_EQ(cudaMemsetAsync(y, 0, n * sizeof(float), s), cudaSuccess);
            twiceAndOne<<<n / 256, 256, 0, s>>>(x, n);
            EXPECT_EQ(cudaMemcpyAsync(y, x, n * sizeof(float), cudaMemcpyDeviceToDevice, s),
                      cudaSuccess);
            twiceAndOne<<<n / 256, 256, 0, s>>>(y, n);
        }
        EXPECT_EQ(cudaStreamSynchronize(s), cudaSuccess);
        plain.resize(2 * static_cast<std::size_t>(n));
        EXPECT_EQ(cudaMemcpy(plain.data(), x, n * sizeof(float), cudaMemcpyDeviceToHost),
                  cudaSuccess);
        EXPECT_EQ(cudaMemcpy(plain.data() + n, y, n * sizeof(float), cudaMemcpyDeviceToHost),
                  cudaSuccess);
        cudaStreamDestroy(s);
    }
    EXPECT_EQ(std::memcmp(profiled.data(), plain.data(), plain.size() * sizeof(float)), 0)
        << "x[5] " << profiled[5] << " vs " << plain[5] << " after " << profiledSteps << " steps";
    cudaFree(x);
    cudaFree(y);
}

} // namespace

TEST(GpuGraphs, AGraphLaunchedAsItsNodesGivesTheGraphsResults) {
    ROOFLINE_REQUIRE_GPU();
    expectTheGraphsOwnResults(CollectionMode::IterationReplay);
}

TEST(GpuGraphs, AGraphLaunchedAgainInWindowsGivesTheGraphsResults) {
    ROOFLINE_REQUIRE_GPU();
    expectTheGraphsOwnResults(CollectionMode::WindowReplay);
}

TEST(GpuGraphs, KernelReplayMeasuresTheDirectLaunchesAndTimesTheGraphKernels) {
    ROOFLINE_REQUIRE_GPU();
    roofline::Options options;
    options.mode = CollectionMode::KernelReplay;
    options.launchGraphNodes = false; // graphs as they are
    expectGraphKernelsAndExactDirectLaunches(runWithGraph(options, [](int) { return true; }),
                                             options.mode);
}

TEST(GpuGraphs, IterationReplayMeasuresAgainAroundAnOccasionalGraph) {
    ROOFLINE_REQUIRE_GPU();
    roofline::Options options;
    options.mode = CollectionMode::IterationReplay;
    options.launchGraphNodes = false; // graphs as they are
    expectGraphKernelsAndExactDirectLaunches(
        runWithGraph(options, [](int step) { return step == 2; }), options.mode);
}

TEST(GpuGraphs, IterationReplayStopsMeasuringWhenEveryIterationLaunchesAGraph) {
    ROOFLINE_REQUIRE_GPU();
    roofline::Options options;
    options.mode = CollectionMode::IterationReplay;
    options.launchGraphNodes = false; // graphs as they are
    const auto records = runWithGraph(options, [](int) { return true; });
    std::size_t graphKernels = 0;
    for (const auto& r : records) {
        EXPECT_FALSE(r.measured) << r.name;
        graphKernels += r.note.find("CUDA graph") != std::string::npos ? 1 : 0;
    }
    EXPECT_GE(graphKernels, 8u); // two per step, every step
}

TEST(GpuGraphs, ScopeReplayMeasuresAgainAroundAnOccasionalGraph) {
    ROOFLINE_REQUIRE_GPU();
    roofline::Options options;
    options.mode = CollectionMode::ScopeReplay;
    options.launchGraphNodes = false; // graphs as they are
    expectGraphKernelsAndExactDirectLaunches(
        runWithGraph(options, [](int step) { return step == 2; }), options.mode);
}

TEST(GpuGraphs, TimingOnlyGraphKernelsGetNamesScopesAndDurations) {
    ROOFLINE_REQUIRE_GPU();
    cal::Buffers buffers;
    roofline::Options options;
    options.flushOnExit = false;
    options.timingOnly = true;
    roofline::Session session{options};
    CapturedGraph graph{buffers};
    {
        roofline::ProfileScope s{"timed"};
        graph.launch();
        graph.launch();
    }
    const auto& records = session.stop();
    ASSERT_EQ(records.size(), 4u);
    for (const auto& r : records) {
        EXPECT_EQ(r.scopePath, "timed");
        EXPECT_GT(r.timeSeconds, 0.0) << r.name << ": " << r.note;
        EXPECT_NE(r.note.find("CUDA graph"), std::string::npos) << r.note;
    }
    EXPECT_NE(records[0].name.find("fmaChains<float>"), std::string::npos) << records[0].name;
    EXPECT_NE(records[1].name.find("fmaChains<double>"), std::string::npos) << records[1].name;
}
