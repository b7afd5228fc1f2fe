// roofline-bench-ceilings: what a large copy and cuBLAS reach on this GPU, beside the measured
// ceilings (`roofline ceilings`) of the same roofs. The bar: each ceiling within 10% of
// (or above) what these library routines reach. Prints figures; asserts nothing.
//
//   roofline-bench-ceilings [CEILINGS.json]   (default: the cache file of this device)
#include "core/ceilings_file.hpp"

#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <cstring>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

#define CHECK_CUDA(x)                                                                              \
    do {                                                                                           \
        const cudaError_t s_ = (x);                                                                \
        if (s_ != cudaSuccess) {                                                                   \
            std::fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(s_));                          \
            std::exit(1);                                                                          \
        }                                                                                          \
    } while (0)
#define CHECK_CUBLAS(x)                                                                            \
    do {                                                                                           \
        const cublasStatus_t s_ = (x);                                                             \
        if (s_ != CUBLAS_STATUS_SUCCESS) {                                                         \
            std::fprintf(stderr, "%s: cuBLAS status %d\n", #x, static_cast<int>(s_));              \
            std::exit(1);                                                                          \
        }                                                                                          \
    } while (0)

// Uniform values in [-1, 1) (int8: [-64, 64)) from a hash of the index: cuBLAS then draws the
// power it draws on real data (constant inputs let the clock stay higher).
__global__ void fillRandom(void* data, std::size_t n, cudaDataType type, unsigned seed) {
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
         i += std::size_t(gridDim.x) * blockDim.x) {
        unsigned x = static_cast<unsigned>(i) * 2654435761u ^ seed;
        x ^= x >> 15;
        x *= 0x2C1B3C6Du;
        x ^= x >> 12;
        const float v = (x >> 8) * (2.0f / 16777216.0f) - 1.0f;
        switch (type) {
        case CUDA_R_16BF:
            static_cast<__nv_bfloat16*>(data)[i] = __float2bfloat16(v);
            break;
        case CUDA_R_16F:
            static_cast<__half*>(data)[i] = __float2half(v);
            break;
        case CUDA_R_32F:
            static_cast<float*>(data)[i] = v;
            break;
        case CUDA_R_64F:
            static_cast<double*>(data)[i] = v;
            break;
        case CUDA_R_8I:
            static_cast<signed char*>(data)[i] = static_cast<signed char>(v * 64.0f);
            break;
        default:
            break;
        }
    }
}

template <class F> double bestSeconds(F&& run, int reps) {
    cudaEvent_t a, b;
    CHECK_CUDA(cudaEventCreate(&a));
    CHECK_CUDA(cudaEventCreate(&b));
    run(); // warm-up (and cuBLAS heuristics)
    double best = 1e30;
    for (int i = 0; i < reps; ++i) {
        CHECK_CUDA(cudaEventRecord(a));
        run();
        CHECK_CUDA(cudaEventRecord(b));
        CHECK_CUDA(cudaEventSynchronize(b));
        float ms = 0;
        CHECK_CUDA(cudaEventElapsedTime(&ms, a, b));
        best = std::min(best, ms * 1e-3);
    }
    cudaEventDestroy(a);
    cudaEventDestroy(b);
    return best;
}

struct Row {
    std::string what, roof;
    double rate;
};

} // namespace

namespace {

// A large device-to-device copy: bytes read + written.
Row deviceCopy() {
    const std::size_t bytes = std::size_t(2) << 30;
    void *src = nullptr, *dst = nullptr;
    CHECK_CUDA(cudaMalloc(&src, bytes));
    CHECK_CUDA(cudaMalloc(&dst, bytes));
    CHECK_CUDA(cudaMemset(src, 1, bytes));
    const double s = bestSeconds(
        [&] { CHECK_CUDA(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice)); }, 10);
    cudaFree(src);
    cudaFree(dst);
    return {"cudaMemcpy D2D 2 GiB (read + write)", "DRAM", 2.0 * bytes / s};
}

struct Gemm {
    const char* what;
    const char* roof;
    cudaDataType ab, c;
    cublasComputeType_t compute;
    std::size_t elemAB, elemC;
};

const Gemm kGemms[] = {
    {"cublasGemmEx bf16 -> fp32 acc", "tensor_bf16", CUDA_R_16BF, CUDA_R_16BF, CUBLAS_COMPUTE_32F,
     2, 2},
    {"cublasGemmEx fp16 -> fp32 acc", "tensor_fp16", CUDA_R_16F, CUDA_R_16F, CUBLAS_COMPUTE_32F, 2,
     2},
    {"cublasGemmEx fp32, TF32 tensor cores", "tensor_tf32", CUDA_R_32F, CUDA_R_32F,
     CUBLAS_COMPUTE_32F_FAST_TF32, 4, 4},
    {"cublasGemmEx int8 -> int32", "tensor_int8", CUDA_R_8I, CUDA_R_32I, CUBLAS_COMPUTE_32I, 1, 4},
    {"cublasGemmEx fp64 (DMMA)", "tensor_fp64", CUDA_R_64F, CUDA_R_64F, CUBLAS_COMPUTE_64F, 8, 8},
    {"cublasGemmEx fp32, pedantic (FFMA)", "fp32", CUDA_R_32F, CUDA_R_32F,
     CUBLAS_COMPUTE_32F_PEDANTIC, 4, 4},
};

// A cuBLAS GEMM, 8192^3 on random inputs, best of 10.
Row gemm(cublasHandle_t handle, const Gemm& g) {
    const int n = 8192;
    void *a = nullptr, *b = nullptr, *c = nullptr;
    CHECK_CUDA(cudaMalloc(&a, std::size_t(n) * n * g.elemAB));
    CHECK_CUDA(cudaMalloc(&b, std::size_t(n) * n * g.elemAB));
    CHECK_CUDA(cudaMalloc(&c, std::size_t(n) * n * g.elemC));
    fillRandom<<<1024, 256>>>(a, std::size_t(n) * n, g.ab, 1);
    fillRandom<<<1024, 256>>>(b, std::size_t(n) * n, g.ab, 2);
    CHECK_CUDA(cudaGetLastError());
    const double alphaD = 1, betaD = 0;
    const float alphaF = 1, betaF = 0;
    const int alphaI = 1, betaI = 0;
    const void* alpha = g.compute == CUBLAS_COMPUTE_64F   ? static_cast<const void*>(&alphaD)
                        : g.compute == CUBLAS_COMPUTE_32I ? static_cast<const void*>(&alphaI)
                                                          : static_cast<const void*>(&alphaF);
    const void* beta = g.compute == CUBLAS_COMPUTE_64F   ? static_cast<const void*>(&betaD)
                       : g.compute == CUBLAS_COMPUTE_32I ? static_cast<const void*>(&betaI)
                                                         : static_cast<const void*>(&betaF);
    // int8 GEMMs need op(A) = T (row-major A) in cuBLAS
    const cublasOperation_t opA = g.ab == CUDA_R_8I ? CUBLAS_OP_T : CUBLAS_OP_N;
    const double s = bestSeconds(
        [&] {
            CHECK_CUBLAS(cublasGemmEx(handle, opA, CUBLAS_OP_N, n, n, n, alpha, a, g.ab, n, b, g.ab,
                                      n, beta, c, g.c, n, g.compute, CUBLAS_GEMM_DEFAULT));
        },
        10);
    cudaFree(a);
    cudaFree(b);
    cudaFree(c);
    return {std::string(g.what) + " 8192^3", g.roof, 2.0 * n * n * double(n) / s};
}

// Each routine's rate beside the measured ceiling of its roof.
void printRows(const cudaDeviceProp& prop, const std::string& path, const std::vector<Row>& rows) {
    roofline::core::MeasuredCeilings measured;
    bool have = false;
    try {
        measured = roofline::core::loadCeilings(path);
        have = true;
    } catch (const std::exception& e) {
        std::printf("(no measured ceilings: %s)\n", e.what());
    }
    std::printf("%s: library routines vs measured ceilings (%s)\n\n", prop.name,
                have ? path.c_str() : "none");
    std::printf("%-46s %-12s %14s %14s %9s\n", "routine", "roof", "routine", "ceiling",
                "ceil/rout");
    for (const Row& r : rows) {
        const auto* m = have ? measured.find(r.roof) : nullptr;
        const char* unit = roofline::core::roofUnit(r.roof);
        char ceiling[32] = "-", ratio[16] = "-";
        if (m && m->perSecond > 0) {
            std::snprintf(ceiling, sizeof ceiling, "%.1f %s", m->perSecond / 1e12, unit);
            std::snprintf(ratio, sizeof ratio, "%.2f", m->perSecond / r.rate);
        }
        char routine[32];
        std::snprintf(routine, sizeof routine, "%.1f %s", r.rate / 1e12, unit);
        std::printf("%-46s %-12s %14s %14s %9s\n", r.what.c_str(), r.roof.c_str(), routine, ceiling,
                    ratio);
    }
}

} // namespace

int main(int argc, char** argv) {
    if (argc > 1 && (!std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h"))) {
        std::printf("roofline-bench-ceilings [CEILINGS.json]: what a large copy and cuBLAS GEMMs "
                    "reach on device 0, beside the measured ceilings of the same roofs (default "
                    "file: this device's ceilings cache, written by `roofline ceilings`)\n");
        return 0;
    }
    cudaDeviceProp prop{};
    if (cudaGetDeviceProperties(&prop, 0) != cudaSuccess) {
        std::fprintf(stderr, "roofline-bench-ceilings: needs a GPU\n");
        return 2;
    }
    std::vector<Row> rows;
    rows.push_back(deviceCopy());
    cublasHandle_t handle;
    CHECK_CUBLAS(cublasCreate(&handle));
    for (const Gemm& g : kGemms)
        rows.push_back(gemm(handle, g));
    cublasDestroy(handle);
    printRows(prop, argc > 1 ? argv[1] : roofline::core::ceilingsCachePath(prop.name), rows);
    return 0;
}
