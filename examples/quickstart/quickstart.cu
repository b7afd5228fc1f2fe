// libroofline quickstart: two kernels, each in a ProfileScope, profiled in-process.
//   quickstart [RECORDING.rfl]    (saves the recording for `roofline report` when given a path)
#include <roofline/roofline.hpp>

#include <cuda_runtime.h>

#include <cstdio>
#include <iostream>

__global__ void saxpy(int n, float a, const float* x, float* y) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = a * x[i] + y[i];
}

// Arithmetic-heavy: 256 dependent FMAs per element, so it sits far right on the roofline.
__global__ void polynomial(int n, const float* x, float* y) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float v = x[i], acc = 0.0f;
    for (int k = 0; k < 256; ++k)
        acc = fmaf(acc, v, 1.0f / (k + 1));
    y[i] = acc;
}

#define CHECK_CUDA(call)                                                                           \
    do {                                                                                           \
        const cudaError_t e = (call);                                                              \
        if (e != cudaSuccess) {                                                                    \
            std::fprintf(stderr, "%s: %s\n", #call, cudaGetErrorString(e));                        \
            return 1;                                                                              \
        }                                                                                          \
    } while (0)

int main(int argc, char** argv) {
    int devices = 0;
    if (const cudaError_t e = cudaGetDeviceCount(&devices); e != cudaSuccess || devices == 0) {
        std::fprintf(stderr,
                     "quickstart: no CUDA device to profile (%s). Without a GPU, evaluate "
                     "a recording instead: roofline report FILE.rfl\n",
                     e != cudaSuccess ? cudaGetErrorString(e) : "none visible");
        return 1;
    }
    const int n = 1 << 24;
    float *x = nullptr, *y = nullptr;
    CHECK_CUDA(cudaMalloc(&x, n * sizeof(float)));
    CHECK_CUDA(cudaMalloc(&y, n * sizeof(float)));
    CHECK_CUDA(cudaMemset(x, 0, n * sizeof(float)));
    CHECK_CUDA(cudaMemset(y, 0, n * sizeof(float)));
    try {
        roofline::Session session; // options from ROOFLINE_* environment variables
        // The default mode replays the region once per counter pass (iteration replay); the
        // helper runs it as often as needed. In a training loop the loop itself does this.
        while (session.needsPass()) {
            roofline::ProfileScope scope{"quickstart"};
            {
                roofline::ProfileScope s{"saxpy"};
                saxpy<<<(n + 255) / 256, 256>>>(n, 2.0f, x, y);
            }
            {
                roofline::ProfileScope s{"polynomial"};
                polynomial<<<(n + 255) / 256, 256>>>(n, x, y);
            }
        }
        CHECK_CUDA(cudaDeviceSynchronize());
        const auto& records = session.stop();
        std::cout << "profiled live on " << session.deviceName() << " (" << session.chip() << "), "
                  << session.passes() << " passes per kernel (" << toString(session.mode())
                  << ")\n";
        roofline::printTable(records, std::cout);
        if (argc > 1) {
            session.save(argv[1]);
            std::cout << "recording saved: roofline report " << argv[1] << '\n';
        }
    } catch (const roofline::Error& e) {
        std::cerr << "quickstart: " << e.what() << '\n';
        return 1;
    }
    cudaFree(x);
    cudaFree(y);
    return 0;
}
