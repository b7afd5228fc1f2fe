#pragma once
// The FACTS.md cost workload shared by roofline-bench-collector and roofline-bench-cupti-floor:
// an FFMA kernel, a 16 MiB copy and a DFMA kernel (each a few microseconds on an H100).
#include <cuda_runtime.h>

#include <cstddef>

namespace bench_floor {

constexpr int kGrid = 528, kBlock = 256, kFma = 512;
constexpr std::size_t kCopyBytes = 16u << 20;

// Two dependent FMA chains per thread, in float (FFMA) or double (DFMA).
template <typename T> __global__ void fmaChains(T* out) {
    T a = threadIdx.x, b = a + 1;
    for (int i = 0; i < kFma; ++i) {
        a = fma(a, T(1.0001), T(0.5));
        b = fma(b, T(0.9999), T(0.5));
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = a + b;
}
__global__ void copy(const float4* in, float4* out, std::size_t n) {
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
         i += std::size_t(gridDim.x) * blockDim.x)
        out[i] = in[i];
}

struct Workload {
    float* f = nullptr;
    double* d = nullptr;
    float4 *in = nullptr, *out = nullptr;
    Workload() {
        cudaMalloc(&f, kGrid * kBlock * sizeof(float));
        cudaMalloc(&d, kGrid * kBlock * sizeof(double));
        cudaMalloc(&in, kCopyBytes);
        cudaMalloc(&out, kCopyBytes);
        cudaMemset(in, 0, kCopyBytes);
    }
    ~Workload() {
        cudaFree(f);
        cudaFree(d);
        cudaFree(in);
        cudaFree(out);
    }
    Workload(const Workload&) = delete;
    Workload& operator=(const Workload&) = delete;
    static constexpr int kKernels = 3;
    /// Kernel i % 3 of the cycle FFMA, copy, DFMA.
    void kernel(int i) const {
        switch (i % kKernels) {
        case 0:
            fmaChains<float><<<kGrid, kBlock>>>(f);
            break;
        case 1:
            copy<<<kGrid, kBlock>>>(in, out, kCopyBytes / sizeof(float4));
            break;
        default:
            fmaChains<double><<<kGrid, kBlock>>>(d);
            break;
        }
    }
    void iteration() const {
        for (int i = 0; i < kKernels; ++i)
            kernel(i);
    }
};

} // namespace bench_floor
