// A one-shot CUDA program as people write one to run under Nsight Compute: no NVTX range, no
// loop, its inputs copied in, a chain of kernels each reading what the last one wrote (FP32 and
// FP64 FMA chains of known work, calibration/expected.hpp, and an in-place accumulation), a copy
// between two of them, its result copied out and printed as a checksum (hex) -- so that two runs
// can be compared bit for bit (test/gpu/one_shot.sh).
//   one_shot [ROUNDS]
#include "calibration/expected.hpp"
#include "calibration/fma_chains.cuh"

#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

using namespace calibration;

void check(cudaError_t e, const char* what) {
    if (e != cudaSuccess) {
        std::fprintf(stderr, "one_shot: %s: %s\n", what, cudaGetErrorString(e));
        std::exit(1);
    }
}

// y += x, in place: run twice, it would add twice.
__global__ void accumulate(const float* x, float* y, std::size_t n) {
    for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n;
         i += std::size_t{gridDim.x} * blockDim.x)
        y[i] += x[i];
}

} // namespace

int main(int argc, char** argv) {
    const int rounds = argc > 1 ? std::atoi(argv[1]) : 4;
    const std::size_t n = kThreads * 4;
    std::vector<double> host(n);
    for (std::size_t i = 0; i < n; ++i)
        host[i] = 0.5 + static_cast<double>(i % 1000) * 1e-3;
    double *din = nullptr, *dout = nullptr;
    float *fin = nullptr, *fout = nullptr, *sum = nullptr;
    check(cudaMalloc(&din, n * sizeof(double)), "cudaMalloc");
    check(cudaMalloc(&dout, n * sizeof(double)), "cudaMalloc");
    check(cudaMalloc(&fin, n * sizeof(float)), "cudaMalloc");
    check(cudaMalloc(&fout, n * sizeof(float)), "cudaMalloc");
    check(cudaMalloc(&sum, n * sizeof(float)), "cudaMalloc");
    check(cudaMemcpy(din, host.data(), n * sizeof(double), cudaMemcpyHostToDevice), "copy in");
    std::vector<float> hostF(host.begin(), host.end());
    check(cudaMemcpy(fin, hostF.data(), n * sizeof(float), cudaMemcpyHostToDevice), "copy in");
    check(cudaMemset(sum, 0, n * sizeof(float)), "cudaMemset");
    for (int r = 0; r < rounds; ++r) {
        fmaChains<float><<<kGrid, kBlock>>>(fin, fout, 0.999f, 0.001f);
        accumulate<<<264, 256>>>(fout, sum, n);
        fmaChains<double><<<kGrid, kBlock>>>(din, dout, 0.999, 0.001);
        fmaChains<float><<<kGrid, kBlock>>>(fout, fin, 0.998f, 0.002f);
        fmaChains<double><<<kGrid, kBlock>>>(dout, din, 0.998, 0.002);
        if (r == rounds / 2) // a copy in the middle: what the kernels after it read
            check(cudaMemcpy(fout, sum, n * sizeof(float), cudaMemcpyDeviceToDevice), "copy");
    }
    check(cudaGetLastError(), "launch");
    std::vector<float> a(n), s(n);
    std::vector<double> d(n);
    check(cudaMemcpy(a.data(), fin, n * sizeof(float), cudaMemcpyDeviceToHost), "copy out");
    check(cudaMemcpy(s.data(), sum, n * sizeof(float), cudaMemcpyDeviceToHost), "copy out");
    check(cudaMemcpy(d.data(), din, n * sizeof(double), cudaMemcpyDeviceToHost), "copy out");
    double checksum = 0;
    for (std::size_t i = 0; i < n; ++i)
        checksum += static_cast<double>(a[i]) * 3 + static_cast<double>(s[i]) * 5 + d[i] * 7;
    std::printf("one_shot: %d rounds, %d launches; result: %a\n", rounds, rounds * 5, checksum);
    return 0;
}
