// A CUDA program with no libroofline in it: the subject of `roofline run` on an H100 80GB HBM3
// (test/run_injection.cmake). NVTX ranges "step <n>", FP32 and FP64 FMA chains whose FLOPs are
// known (calibration/expected.hpp).
//
//   injected_app STEPS [--graph | --graph-steps] [--fork] [--thread] [--every-device]
//                [--repeat K]
// --graph: step 2 also launches a CUDA graph of the same kernels (captured from a stream) inside
// an NVTX range "graph", as an evaluation step might;
// --graph-steps: every step is one launch of a CUDA graph captured from a stream, as a graphed
// training step is: FP32 chains, a memset, FP64 chains on a second stream forked from the first
// and joined back, a device-to-device copy, then the FP32 chains again (no kernel of its own
// outside the graph);
//   injected_app --query   (initializes CUDA and launches nothing)
// --fork: after step 0 a child is forked that never touches CUDA and exits normally;
// --thread: the steps run on a second thread;
// --repeat K: each step launches its kernels K times over (a graph step captures them K times),
// so that a step lasts many sampling periods;
// --every-device: each step launches the FP32 and FP64 chains on every visible device in turn
// (cudaSetDevice), one process driving them all.
#include "calibration/expected.hpp"
#include "calibration/fma_chains.cuh"

#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <sys/wait.h>
#include <thread>
#include <vector>
#include <unistd.h>

namespace {

using namespace calibration;

void check(cudaError_t e, const char* what) {
    if (e != cudaSuccess) {
        std::fprintf(stderr, "injected_app: %s: %s\n", what, cudaGetErrorString(e));
        std::exit(1);
    }
}

void launch(cudaStream_t s, double* in, double* out) {
    fmaChains<float><<<kGrid, kBlock, 0, s>>>(reinterpret_cast<const float*>(in),
                                              reinterpret_cast<float*>(out), 0.999f, 0.001f);
    fmaChains<double><<<kGrid, kBlock, 0, s>>>(in, out, 0.999, 0.001);
}

// One step as the graph of --graph-steps captures it: kernels, a memset, a fork onto `side` and
// the join back, a copy.
void graphStep(cudaStream_t s, cudaStream_t side, cudaEvent_t fork, cudaEvent_t join, double* in,
               double* out, double* scratch) {
    constexpr std::size_t bytes = kThreads * 4 * sizeof(double);
    fmaChains<float><<<kGrid, kBlock, 0, s>>>(reinterpret_cast<const float*>(in),
                                              reinterpret_cast<float*>(out), 0.999f, 0.001f);
    check(cudaMemsetAsync(scratch, 0, bytes, s), "cudaMemsetAsync");
    check(cudaEventRecord(fork, s), "cudaEventRecord");
    check(cudaStreamWaitEvent(side, fork, 0), "cudaStreamWaitEvent");
    fmaChains<double><<<kGrid, kBlock, 0, side>>>(in, scratch, 0.999, 0.001);
    check(cudaEventRecord(join, side), "cudaEventRecord");
    check(cudaStreamWaitEvent(s, join, 0), "cudaStreamWaitEvent");
    check(cudaMemcpyAsync(out, scratch, bytes, cudaMemcpyDeviceToDevice, s), "cudaMemcpyAsync");
    fmaChains<float><<<kGrid, kBlock, 0, s>>>(reinterpret_cast<const float*>(in),
                                              reinterpret_cast<float*>(out), 0.999f, 0.001f);
}

} // namespace

int main(int argc, char** argv) {
    int steps = 10;
    bool graph = false, graphSteps = false, forkChild = false, thread = false,
         everyDevice = false;
    int repeat = 1;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--repeat" && i + 1 < argc) {
            repeat = std::max(1, std::atoi(argv[++i]));
            continue;
        }
        if (a == "--query") {
            int n = 0;
            check(cudaGetDeviceCount(&n), "cudaGetDeviceCount");
            std::printf("injected_app: %d device(s), nothing launched\n", n);
            return 0;
        }
        graph = graph || a == "--graph";
        graphSteps = graphSteps || a == "--graph-steps";
        everyDevice = everyDevice || a == "--every-device";
        forkChild = forkChild || a == "--fork";
        thread = thread || a == "--thread";
        if (std::isdigit(static_cast<unsigned char>(a[0])))
            steps = std::atoi(a.c_str());
    }
    auto body = [&] {
        double *in = nullptr, *out = nullptr, *scratch = nullptr;
        check(cudaMalloc(&in, kThreads * 4 * sizeof(double)), "cudaMalloc");
        check(cudaMalloc(&out, kThreads * 4 * sizeof(double)), "cudaMalloc");
        check(cudaMalloc(&scratch, kThreads * 4 * sizeof(double)), "cudaMalloc");
        check(cudaMemset(in, 0, kThreads * 4 * sizeof(double)), "cudaMemset");
        cudaStream_t stream = nullptr;
        check(cudaStreamCreate(&stream), "cudaStreamCreate");
        cudaGraphExec_t exec = nullptr;
        if (graph) {
            cudaGraph_t g = nullptr;
            check(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal), "capture");
            launch(stream, in, out);
            check(cudaStreamEndCapture(stream, &g), "cudaStreamEndCapture");
            check(cudaGraphInstantiate(&exec, g, 0), "cudaGraphInstantiate");
            cudaGraphDestroy(g);
        }
        cudaStream_t side = nullptr;
        cudaEvent_t fork = nullptr, join = nullptr;
        cudaGraphExec_t stepExec = nullptr;
        if (graphSteps) {
            check(cudaStreamCreate(&side), "cudaStreamCreate");
            check(cudaEventCreateWithFlags(&fork, cudaEventDisableTiming), "cudaEventCreate");
            check(cudaEventCreateWithFlags(&join, cudaEventDisableTiming), "cudaEventCreate");
            cudaGraph_t g = nullptr;
            check(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal), "capture");
            for (int r = 0; r < repeat; ++r)
                graphStep(stream, side, fork, join, in, out, scratch);
            check(cudaStreamEndCapture(stream, &g), "cudaStreamEndCapture");
            check(cudaGraphInstantiate(&stepExec, g, 0), "cudaGraphInstantiate");
            cudaGraphDestroy(g);
        }
        for (int step = 0; step < steps; ++step) {
            nvtxRangePushA(("step " + std::to_string(step)).c_str());
            if (stepExec)
                check(cudaGraphLaunch(stepExec, stream), "cudaGraphLaunch");
            else
                for (int r = 0; r < repeat; ++r)
                    launch(stream, in, out);
            if (graph && step == 2) {
                nvtxRangePushA("graph");
                check(cudaGraphLaunch(exec, stream), "cudaGraphLaunch");
                nvtxRangePop();
            }
            check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
            nvtxRangePop();
            if (forkChild && step == 0) {
                std::fflush(stdout);
                const pid_t pid = ::fork();
                if (pid == 0) { // never touches CUDA; exits through exit(), atexit handlers run
                    std::printf("injected_app: child %ld exits\n", static_cast<long>(::getpid()));
                    std::exit(0);
                }
                int status = 0;
                ::waitpid(pid, &status, 0);
            }
        }
        check(cudaGetLastError(), "launch");
        if (exec)
            cudaGraphExecDestroy(exec);
        if (stepExec) {
            cudaGraphExecDestroy(stepExec);
            cudaEventDestroy(fork);
            cudaEventDestroy(join);
            cudaStreamDestroy(side);
        }
        cudaFree(scratch);
        cudaStreamDestroy(stream);
        cudaFree(in);
        cudaFree(out);
    };
    if (everyDevice) { // one process, each step on every device
        int n = 0;
        check(cudaGetDeviceCount(&n), "cudaGetDeviceCount");
        std::vector<double*> in(n), out(n);
        std::vector<cudaStream_t> streams(n);
        for (int d = 0; d < n; ++d) {
            check(cudaSetDevice(d), "cudaSetDevice");
            check(cudaMalloc(&in[d], kThreads * 4 * sizeof(double)), "cudaMalloc");
            check(cudaMalloc(&out[d], kThreads * 4 * sizeof(double)), "cudaMalloc");
            check(cudaMemset(in[d], 0, kThreads * 4 * sizeof(double)), "cudaMemset");
            check(cudaStreamCreate(&streams[d]), "cudaStreamCreate");
        }
        for (int step = 0; step < steps; ++step) {
            nvtxRangePushA(("step " + std::to_string(step)).c_str());
            for (int d = 0; d < n; ++d) {
                check(cudaSetDevice(d), "cudaSetDevice");
                launch(streams[d], in[d], out[d]);
            }
            for (int d = 0; d < n; ++d) {
                check(cudaSetDevice(d), "cudaSetDevice");
                check(cudaStreamSynchronize(streams[d]), "cudaStreamSynchronize");
            }
            nvtxRangePop();
        }
        for (int d = 0; d < n; ++d) {
            check(cudaSetDevice(d), "cudaSetDevice");
            cudaStreamDestroy(streams[d]);
            cudaFree(in[d]);
            cudaFree(out[d]);
        }
        std::printf("injected_app: %d steps on each of %d device(s)\n", steps, n);
        return 0;
    }
    if (thread)
        std::thread(body).join();
    else
        body();
    std::printf("injected_app: %d steps%s\n", steps,
                graphSteps ? ", each a CUDA graph" : graph ? " with a CUDA graph" : "");
    return 0;
}
