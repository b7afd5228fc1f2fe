// A CUDA program with no libroofline in it: the subject of `roofline run` on the H100 test machine
// (test/run_injection.cmake). NVTX ranges "step <n>", FP32 and FP64 FMA chains whose FLOPs are
// known (calibration/expected.hpp).
//
//   injected_app STEPS [--graph] [--fork] [--thread]
// --graph: step 2 also launches a CUDA graph of the same kernels (captured from a stream) inside
// an NVTX range "graph", as an evaluation step might;
//   injected_app --query   (initializes CUDA and launches nothing)
// --fork: after step 0 a child is forked that never touches CUDA and exits normally;
// --thread: the steps run on a second thread.
#include "calibration/expected.hpp"
#include "calibration/fma_chains.cuh"

#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <sys/wait.h>
#include <thread>
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

} // namespace

int main(int argc, char** argv) {
    int steps = 10;
    bool graph = false, forkChild = false, thread = false;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--query") {
            int n = 0;
            check(cudaGetDeviceCount(&n), "cudaGetDeviceCount");
            std::printf("injected_app: %d device(s), nothing launched\n", n);
            return 0;
        }
        graph = graph || a == "--graph";
        forkChild = forkChild || a == "--fork";
        thread = thread || a == "--thread";
        if (std::isdigit(static_cast<unsigned char>(a[0])))
            steps = std::atoi(a.c_str());
    }
    auto body = [&] {
        double *in = nullptr, *out = nullptr;
        check(cudaMalloc(&in, kThreads * 4 * sizeof(double)), "cudaMalloc");
        check(cudaMalloc(&out, kThreads * 4 * sizeof(double)), "cudaMalloc");
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
        for (int step = 0; step < steps; ++step) {
            nvtxRangePushA(("step " + std::to_string(step)).c_str());
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
        cudaStreamDestroy(stream);
        cudaFree(in);
        cudaFree(out);
    };
    if (thread)
        std::thread(body).join();
    else
        body();
    std::printf("injected_app: %d steps%s\n", steps, graph ? " with a CUDA graph" : "");
    return 0;
}
