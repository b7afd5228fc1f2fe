#include "calibration/expected.hpp"
#include "calibration/fma_chains.cuh"
#include "calibration/kernels.cuh"

#include <roofline/profile_scope.hpp>

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <mma.h>

#include <cstdio>
#include <cstdlib>

namespace calibration {
namespace {

void check(cudaError_t e, const char* what) {
    if (e != cudaSuccess) {
        std::fprintf(stderr, "calibration: %s failed: %s\n", what, cudaGetErrorString(e));
        std::abort(); // test fixture code, never part of the library
    }
}

__global__ void hfma2Chains(const __half2* in, __half2* out, __half2 b, __half2 c) {
    const std::size_t t = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x;
    __half2 a0 = in[4 * t], a1 = in[4 * t + 1], a2 = in[4 * t + 2], a3 = in[4 * t + 3];
    for (int i = 0; i < static_cast<int>(kIterations); ++i) {
        a0 = __hfma2(a0, b, c);
        a1 = __hfma2(a1, b, c);
        a2 = __hfma2(a2, b, c);
        a3 = __hfma2(a3, b, c);
    }
    out[4 * t] = a0, out[4 * t + 1] = a1, out[4 * t + 2] = a2, out[4 * t + 3] = a3;
}

__global__ void mmaFp16(const __half* a, const __half* b, float* c) {
    using namespace nvcuda;
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc;
    wmma::fill_fragment(fc, 0.0f);
    wmma::load_matrix_sync(fa, a, 16);
    wmma::load_matrix_sync(fb, b, 16);
    for (int i = 0; i < static_cast<int>(kMmaIterations); ++i)
        wmma::mma_sync(fc, fa, fb, fc);
    const unsigned warp = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
    wmma::store_matrix_sync(c + warp * 256, fc, 16, wmma::mem_row_major);
}

// One WMMA shape per input type: each warp issues kMmaIterations mma_sync on fragments loaded once
// (the input bytes are constant; values never matter for the counts).
template <typename In, typename Store, typename Acc, int M, int N, int K>
__global__ void mmaTyped(const Store* a, const Store* b, Acc* c) {
    using namespace nvcuda;
    wmma::fragment<wmma::matrix_a, M, N, K, In, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, M, N, K, In, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, M, N, K, Acc> fc;
    wmma::fill_fragment(fc, Acc(0));
    wmma::load_matrix_sync(fa, a, K);
    wmma::load_matrix_sync(fb, b, K);
    for (int i = 0; i < static_cast<int>(kMmaIterations); ++i)
        wmma::mma_sync(fc, fa, fb, fc);
    const unsigned warp = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
    wmma::store_matrix_sync(c + warp * M * N, fc, N, wmma::mem_row_major);
}
using Bf16 = __nv_bfloat16;
using Tf32 = nvcuda::wmma::precision::tf32;
constexpr auto mmaBf16 = mmaTyped<Bf16, Bf16, float, 16, 16, 16>;
constexpr auto mmaTf32 = mmaTyped<Tf32, float, float, 16, 16, 8>; // TF32 loads from floats
constexpr auto mmaFp64 = mmaTyped<double, double, double, 8, 8, 4>;
constexpr auto mmaInt8 = mmaTyped<signed char, signed char, int, 16, 16, 16>;

__global__ void copy(const float4* in, float4* out, std::size_t n) {
    for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n;
         i += std::size_t{gridDim.x} * blockDim.x)
        out[i] = in[i];
}

} // namespace

Buffers::Buffers() {
    const std::size_t chains = kThreads * 4 * sizeof(double);
    check(cudaMalloc(&chainsIn, chains), "cudaMalloc");
    check(cudaMalloc(&chainsOut, chains), "cudaMalloc");
    check(cudaMemset(chainsIn, 0x3c, chains), "cudaMemset"); // finite values for every type
    // Room for every WMMA type: 16x16 inputs of up to 4 bytes, 16x16 outputs of up to 8 bytes.
    check(cudaMalloc(&mmaA, 16 * 16 * sizeof(float)), "cudaMalloc");
    check(cudaMalloc(&mmaB, 16 * 16 * sizeof(float)), "cudaMalloc");
    check(cudaMalloc(&mmaC, (kMmaGrid * kMmaBlock / 32) * 256 * sizeof(double)), "cudaMalloc");
    check(cudaMemset(mmaA, 0x11, 16 * 16 * sizeof(float)), "cudaMemset");
    check(cudaMemset(mmaB, 0x11, 16 * 16 * sizeof(float)), "cudaMemset");
    check(cudaMalloc(&copyIn, kCopyBytes), "cudaMalloc");
    check(cudaMalloc(&copyOut, kCopyBytes), "cudaMalloc");
    check(cudaMemset(copyIn, 1, kCopyBytes), "cudaMemset");
    // Load every kernel's code now (lazy loading would load it inside its first launch): a load
    // while a session collects counters makes it re-create its profiler and restart a replay
    // group (docs/design/0005-code-loaded-while-profiling.md), which tests that count iterations
    // exactly must not see. Buffers made before a Session stand for a warmed-up program.
    cudaFuncAttributes attributes{};
    check(cudaFuncGetAttributes(&attributes, fmaChains<float>), "cudaFuncGetAttributes");
    check(cudaFuncGetAttributes(&attributes, fmaChains<double>), "cudaFuncGetAttributes");
    check(cudaFuncGetAttributes(&attributes, hfma2Chains), "cudaFuncGetAttributes");
    check(cudaFuncGetAttributes(&attributes, mmaFp16), "cudaFuncGetAttributes");
    check(cudaFuncGetAttributes(&attributes, mmaBf16), "cudaFuncGetAttributes");
    check(cudaFuncGetAttributes(&attributes, mmaTf32), "cudaFuncGetAttributes");
    check(cudaFuncGetAttributes(&attributes, mmaFp64), "cudaFuncGetAttributes");
    check(cudaFuncGetAttributes(&attributes, mmaInt8), "cudaFuncGetAttributes");
    check(cudaFuncGetAttributes(&attributes, copy), "cudaFuncGetAttributes");
    check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
}

Buffers::~Buffers() {
    for (void* p : {chainsIn, chainsOut, mmaA, mmaB, mmaC, copyIn, copyOut})
        cudaFree(p);
}

cudaError_t launchFfma(const Buffers& b) {
    return launchFfmaOn(b, nullptr);
}
cudaError_t launchDfma(const Buffers& b) {
    return launchDfmaOn(b, nullptr);
}
cudaError_t launchFfmaOn(const Buffers& b, cudaStream_t stream) {
    fmaChains<float><<<kGrid, kBlock, 0, stream>>>(
        static_cast<const float*>(b.chainsIn), static_cast<float*>(b.chainsOut), 0.999f, 0.001f);
    return cudaGetLastError();
}
cudaError_t launchDfmaOn(const Buffers& b, cudaStream_t stream) {
    fmaChains<double><<<kGrid, kBlock, 0, stream>>>(
        static_cast<const double*>(b.chainsIn), static_cast<double*>(b.chainsOut), 0.999, 0.001);
    return cudaGetLastError();
}
cudaError_t launchHfma2(const Buffers& b) {
    hfma2Chains<<<kGrid, kBlock>>>(static_cast<const __half2*>(b.chainsIn),
                                   static_cast<__half2*>(b.chainsOut), __float2half2_rn(0.999f),
                                   __float2half2_rn(0.001f));
    return cudaGetLastError();
}
namespace {
// Every WMMA kernel takes (A, B, C) from the same buffers, typed as its element types.
template <typename Store, typename Acc>
cudaError_t launchMma(void (*kernel)(const Store*, const Store*, Acc*), const Buffers& b) {
    kernel<<<kMmaGrid, kMmaBlock>>>(static_cast<const Store*>(b.mmaA),
                                    static_cast<const Store*>(b.mmaB), static_cast<Acc*>(b.mmaC));
    return cudaGetLastError();
}
} // namespace
cudaError_t launchMmaFp16(const Buffers& b) {
    return launchMma(mmaFp16, b);
}
cudaError_t launchMmaBf16(const Buffers& b) {
    return launchMma(mmaBf16, b);
}
cudaError_t launchMmaTf32(const Buffers& b) {
    return launchMma(mmaTf32, b);
}
cudaError_t launchMmaFp64(const Buffers& b) {
    return launchMma(mmaFp64, b);
}
cudaError_t launchMmaInt8(const Buffers& b) {
    return launchMma(mmaInt8, b);
}
cudaError_t launchCopy(const Buffers& b) {
    copy<<<kGrid * 4, kBlock>>>(static_cast<const float4*>(b.copyIn),
                                static_cast<float4*>(b.copyOut), kCopyBytes / sizeof(float4));
    return cudaGetLastError();
}

cudaError_t runSuite(const Buffers& b) {
    roofline::ProfileScope outer{"calibration"};
    const struct {
        const char* scope;
        cudaError_t (*launch)(const Buffers&);
    } suite[] = {{"ffma", launchFfma},
                 {"dfma", launchDfma},
                 {"hfma2", launchHfma2},
                 {"mma_fp16", launchMmaFp16},
                 {"copy", launchCopy}};
    for (const auto& k : suite) {
        roofline::ProfileScope scope{k.scope};
        if (const cudaError_t e = k.launch(b); e != cudaSuccess)
            return e;
    }
    return cudaDeviceSynchronize();
}

} // namespace calibration
