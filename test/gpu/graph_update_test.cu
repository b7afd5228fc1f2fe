// CUDA graphs changed in place between launches, as XLA changes its command buffers at each run
// (JAX): a kernel node pointed at another buffer (cudaGraphExecKernelNodeSetParams), a child
// graph -- a captured library call -- replaced by one with other arguments
// (cudaGraphExecChildGraphNodeSetParams), and kernels joined by a programmatic (PDL) edge.
// Launched as its nodes while counters are collected, the graph gives its own results bit for
// bit and its kernels are measured. Label: gpu.
#include "gpu/gpu_test_support.hpp"

#include <roofline/roofline.hpp>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

namespace {

__global__ void scaleAndAdd(float* x, int n, float a) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        x[i] = a * x[i] + 1.0f;
}

constexpr int kN = 1 << 16;
constexpr int kBlock = 256;

cudaKernelNodeParams kernelParams(void** args) {
    cudaKernelNodeParams p{};
    p.func = reinterpret_cast<void*>(&scaleAndAdd);
    p.gridDim = dim3(kN / kBlock);
    p.blockDim = dim3(kBlock);
    p.kernelParams = args;
    return p;
}

// A child graph of one kernel on `x`, as a library call captured into its own graph.
cudaGraph_t childOn(float* x, float a) {
    cudaGraph_t child = nullptr;
    EXPECT_EQ(cudaGraphCreate(&child, 0), cudaSuccess);
    int n = kN;
    void* args[] = {&x, &n, &a};
    const cudaKernelNodeParams p = kernelParams(args);
    cudaGraphNode_t node = nullptr;
    EXPECT_EQ(cudaGraphAddKernelNode(&node, child, nullptr, 0, &p), cudaSuccess);
    return child;
}

// The graph: first -(programmatic)-> second -> child; every node on one buffer, switched between
// two at each run. Returns the buffers' contents after `runs` runs.
std::vector<float> runUpdatedGraph(int runs, bool profiled, int& measured) {
    std::vector<float> start(2 * static_cast<std::size_t>(kN));
    for (std::size_t i = 0; i < start.size(); ++i)
        start[i] = 0.001f * static_cast<float>(i % 991) - 0.3f;
    float* buffers = nullptr;
    EXPECT_EQ(cudaMalloc(&buffers, start.size() * sizeof(float)), cudaSuccess);
    EXPECT_EQ(
        cudaMemcpy(buffers, start.data(), start.size() * sizeof(float), cudaMemcpyHostToDevice),
        cudaSuccess);
    std::unique_ptr<roofline::Session> session;
    if (profiled) {
        roofline::Options options;
        options.flushOnExit = false;
        session = std::make_unique<roofline::Session>(options);
        EXPECT_TRUE(session->countersAvailable()) << session->status();
    }
    float* x = buffers;
    int n = kN;
    float a1 = 0.5f, a2 = 0.75f;
    void* first[] = {&x, &n, &a1};
    void* second[] = {&x, &n, &a2};
    cudaGraph_t graph = nullptr;
    EXPECT_EQ(cudaGraphCreate(&graph, 0), cudaSuccess);
    cudaGraphNode_t k1 = nullptr, k2 = nullptr, c = nullptr;
    const cudaKernelNodeParams p1 = kernelParams(first), p2 = kernelParams(second);
    EXPECT_EQ(cudaGraphAddKernelNode(&k1, graph, nullptr, 0, &p1), cudaSuccess);
    EXPECT_EQ(cudaGraphAddKernelNode(&k2, graph, nullptr, 0, &p2), cudaSuccess);
    cudaGraphEdgeData edge{};
    edge.type = cudaGraphDependencyTypeProgrammatic;
    edge.from_port = cudaGraphKernelNodePortProgrammatic;
    EXPECT_EQ(cudaGraphAddDependencies(graph, &k1, &k2, &edge, 1), cudaSuccess);
    cudaGraph_t child = childOn(x, 1.25f);
    EXPECT_EQ(cudaGraphAddChildGraphNode(&c, graph, &k2, 1, child), cudaSuccess);
    cudaGraphDestroy(child);
    cudaGraphExec_t exec = nullptr;
    EXPECT_EQ(cudaGraphInstantiate(&exec, graph, 0), cudaSuccess);
    cudaStream_t s = nullptr;
    EXPECT_EQ(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess);
    for (int run = 0; run < runs; ++run) {
        roofline::ProfileScope step{"step"};
        x = buffers + (run % 2) * kN; // the arguments are read when the setters are called
        const cudaKernelNodeParams q1 = kernelParams(first), q2 = kernelParams(second);
        EXPECT_EQ(cudaGraphExecKernelNodeSetParams(exec, k1, &q1), cudaSuccess);
        EXPECT_EQ(cudaGraphExecKernelNodeSetParams(exec, k2, &q2), cudaSuccess);
        cudaGraph_t now = childOn(x, 1.25f + 0.125f * static_cast<float>(run % 3));
        EXPECT_EQ(cudaGraphExecChildGraphNodeSetParams(exec, c, now), cudaSuccess);
        cudaGraphDestroy(now);
        EXPECT_EQ(cudaGraphLaunch(exec, s), cudaSuccess);
        EXPECT_EQ(cudaStreamSynchronize(s), cudaSuccess);
    }
    std::vector<float> out(start.size());
    EXPECT_EQ(cudaMemcpy(out.data(), buffers, out.size() * sizeof(float), cudaMemcpyDeviceToHost),
              cudaSuccess);
    measured = 0;
    if (session)
        for (const auto& r : session->stop())
            if (r.measured && r.name.find("scaleAndAdd") != std::string::npos) {
                ++measured;
                // one FFMA (2 FLOPs) per element
                EXPECT_EQ(r.flopsOf(roofline::FlopKind::FP32), 2.0 * kN) << r.scopePath;
            }
    cudaGraphExecDestroy(exec);
    cudaGraphDestroy(graph);
    cudaStreamDestroy(s);
    cudaFree(buffers);
    return out;
}

} // namespace

TEST(GpuGraphUpdates, AGraphChangedInPlaceAtEachRunIsMeasuredAndComputesTheSame) {
    ROOFLINE_REQUIRE_GPU();
    constexpr int kRuns = 12;
    int measured = 0;
    const std::vector<float> profiled = runUpdatedGraph(kRuns, true, measured);
    EXPECT_GE(measured, 3) << "the two kernel nodes and the child graph's kernel";
    int none = 0;
    const std::vector<float> plain = runUpdatedGraph(kRuns, false, none);
    EXPECT_EQ(std::memcmp(profiled.data(), plain.data(), plain.size() * sizeof(float)), 0)
        << "x[5] " << profiled[5] << " vs " << plain[5];
}
