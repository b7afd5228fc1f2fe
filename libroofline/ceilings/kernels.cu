// Microbenchmark kernels for `roofline ceilings` (see kernels.hpp). Work per launch is counted
// from the code by hand; the sweep in measure.cpp keeps the best rate over launch shapes.
#include "ceilings/kernels.hpp"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>

// wgmma exists only in the sm_90a (architecture-specific) target.
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define ROOFLINE_HAS_WGMMA 1
#endif

namespace roofline::ceilings {
namespace {

// Results that depend on every value computed land here only when an impossible condition holds:
// it keeps the compiler from removing the work without adding memory traffic.
__device__ unsigned int g_sink;

__device__ __forceinline__ long long globalTimer() {
    long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

__device__ __forceinline__ void probeStart(ClockProbe* probe) {
    if (probe && blockIdx.x == 0 && threadIdx.x == 0) {
        probe->ns0 = globalTimer();
        probe->cycles0 = clock64();
    }
}

__device__ __forceinline__ void probeEnd(ClockProbe* probe) {
    if (probe && blockIdx.x == 0 && threadIdx.x == 0) {
        probe->cycles1 = clock64();
        probe->ns1 = globalTimer();
    }
}

__device__ __forceinline__ void keep(unsigned int v) {
    if (v == 0x9E3779B9u)
        g_sink = v;
}

__device__ __forceinline__ std::uint32_t hashWord(std::uint32_t x) {
    x ^= x >> 16;
    x *= 0x7FEB352Du;
    x ^= x >> 15;
    x *= 0x846CA68Bu;
    x ^= x >> 16;
    return x;
}

// ---- FMA ---------------------------------------------------------------------------------------

template <typename T> struct FmaOps;
template <> struct FmaOps<double> {
    __device__ static double init(int i) { return 1.0 + i * 1e-6; }
    __device__ static double fma(double x, double a, double b) { return ::fma(x, a, b); }
    __device__ static double add(double x, double y) { return x + y; }
    __device__ static unsigned bits(double x) { return static_cast<unsigned>(__double2hiint(x)); }
};
template <> struct FmaOps<float> {
    __device__ static float init(int i) { return 1.0f + i * 1e-6f; }
    __device__ static float fma(float x, float a, float b) { return fmaf(x, a, b); }
    __device__ static float add(float x, float y) { return x + y; }
    __device__ static unsigned bits(float x) { return __float_as_uint(x); }
};
template <> struct FmaOps<__half2> {
    __device__ static __half2 init(int i) { return __floats2half2_rn(1.0f + i * 1e-3f, 1.0f); }
    __device__ static __half2 fma(__half2 x, __half2 a, __half2 b) { return __hfma2(x, a, b); }
    __device__ static __half2 add(__half2 x, __half2 y) { return __hadd2(x, y); }
    __device__ static unsigned bits(__half2 x) { return *reinterpret_cast<unsigned*>(&x); }
};

template <typename T, int C> __global__ void fmaKernel(int iters, T a, T b, ClockProbe* probe) {
    probeStart(probe);
    T x[C];
#pragma unroll
    for (int c = 0; c < C; ++c)
        x[c] = FmaOps<T>::init(threadIdx.x + c);
    for (int i = 0; i < iters; ++i) {
#pragma unroll
        for (int k = 0; k < kFmaUnroll; ++k)
#pragma unroll
            for (int c = 0; c < C; ++c)
                x[c] = FmaOps<T>::fma(x[c], a, b);
    }
    T s = x[0];
#pragma unroll
    for (int c = 1; c < C; ++c)
        s = FmaOps<T>::add(s, x[c]);
    keep(FmaOps<T>::bits(s));
    probeEnd(probe);
}

template <typename T> int launchFmaT(int chains, Shape s, int iters, T a, T b, ClockProbe* probe) {
    switch (chains) {
    case 4:
        fmaKernel<T, 4><<<s.blocks, s.threads>>>(iters, a, b, probe);
        break;
    case 8:
        fmaKernel<T, 8><<<s.blocks, s.threads>>>(iters, a, b, probe);
        break;
    case 16:
        fmaKernel<T, 16><<<s.blocks, s.threads>>>(iters, a, b, probe);
        break;
    default:
        return cudaErrorInvalidValue;
    }
    return cudaGetLastError();
}

// ---- Tensor cores ------------------------------------------------------------------------------

#define ROOFLINE_F4(c, d, i) c(d[i]), c(d[i + 1]), c(d[i + 2]), c(d[i + 3])
#define ROOFLINE_F16(c, d, i)                                                                      \
    ROOFLINE_F4(c, d, i), ROOFLINE_F4(c, d, i + 4), ROOFLINE_F4(c, d, i + 8),                      \
        ROOFLINE_F4(c, d, i + 12)
#define ROOFLINE_F64(c, d, i)                                                                      \
    ROOFLINE_F16(c, d, i), ROOFLINE_F16(c, d, i + 16), ROOFLINE_F16(c, d, i + 32),                 \
        ROOFLINE_F16(c, d, i + 48)
#define ROOFLINE_F128(c, d) ROOFLINE_F64(c, d, 0), ROOFLINE_F64(c, d, 64)
#define ROOFLINE_PLUS_F(x) "+f"(x)
#define ROOFLINE_PLUS_R(x) "+r"(x)
#define ROOFLINE_ACC128                                                                            \
    "{"                                                                                            \
    "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "                       \
    "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "             \
    "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "             \
    "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, "             \
    "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, "             \
    "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, "             \
    "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, " \
    "%112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, "   \
    "%127"                                                                                         \
    "}"

// One wgmma m64n256 per call: A and B from shared memory (descriptors), accumulate into d.
template <Mma K> struct Wgmma;
#define ROOFLINE_WGMMA_F32(kind, shape, tail)                                                      \
    template <> struct Wgmma<Mma::kind> {                                                          \
        using Acc = float;                                                                         \
        __device__ static void run(float (&d)[128], std::uint64_t a, std::uint64_t b) {            \
            asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\n"                             \
                         "wgmma.mma_async.sync.aligned." shape " " ROOFLINE_ACC128                 \
                         ", %128, %129, p" tail ";\n}\n"                                           \
                         : ROOFLINE_F128(ROOFLINE_PLUS_F, d)                                       \
                         : "l"(a), "l"(b), "r"(1));                                                \
        }                                                                                          \
    }
ROOFLINE_WGMMA_F32(FP16, "m64n256k16.f32.f16.f16", ", 1, 1, 0, 0");
ROOFLINE_WGMMA_F32(BF16, "m64n256k16.f32.bf16.bf16", ", 1, 1, 0, 0");
ROOFLINE_WGMMA_F32(TF32, "m64n256k8.f32.tf32.tf32", ", 1, 1");
ROOFLINE_WGMMA_F32(FP8, "m64n256k32.f32.e4m3.e4m3", ", 1, 1");
template <> struct Wgmma<Mma::INT8> {
    using Acc = int;
    __device__ static void run(int (&d)[128], std::uint64_t a, std::uint64_t b) {
        asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\n"
                     "wgmma.mma_async.sync.aligned.m64n256k32.s32.s8.s8 " ROOFLINE_ACC128
                     ", %128, %129, p;\n}\n"
                     : ROOFLINE_F128(ROOFLINE_PLUS_R, d)
                     : "l"(a), "l"(b), "r"(1));
    }
};

// Shared-memory operand words: finite values near ±1 in the instruction's input type, so the
// tensor cores switch as they would on real data (all-zero inputs draw less power).
template <Mma K> __device__ std::uint32_t operandWord(std::uint32_t h) {
    if constexpr (K == Mma::FP16) // two halves in ±[1,2)
        return (h & 0x83FF83FFu) | 0x3C003C00u;
    else if constexpr (K == Mma::BF16)
        return (h & 0x807F807Fu) | 0x3F803F80u;
    else if constexpr (K == Mma::TF32)
        return (h & 0x807FE000u) | 0x3F800000u;
    else if constexpr (K == Mma::FP8) // four e4m3 in ±[1,2)
        return (h & 0x87878787u) | 0x38383838u;
    else
        return h;
}

// Matrix descriptor, no swizzle: start address, leading (K) and stride (M/N) byte offsets of the
// 8-row x 16-byte core matrices.
__device__ __forceinline__ std::uint64_t descriptor(std::uint32_t sharedAddress) {
    constexpr std::uint64_t leading = 128, stride = 256;
    return ((sharedAddress & 0x3FFFFu) >> 4) | ((leading >> 4) << 16) | ((stride >> 4) << 32);
}

constexpr std::size_t kWgmmaShared = 16 * 1024; // A: 64 x 32 B, B: 256 x 32 B

template <Mma K> __global__ void __launch_bounds__(256) wgmmaKernel(int iters, ClockProbe* probe) {
#if defined(ROOFLINE_HAS_WGMMA)
    extern __shared__ __align__(1024) std::uint32_t operands[];
    probeStart(probe);
    for (unsigned i = threadIdx.x; i < kWgmmaShared / 4; i += blockDim.x)
        operands[i] = operandWord<K>(hashWord(i * 2654435761u + blockIdx.x));
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    __syncthreads();
    const auto base = static_cast<std::uint32_t>(__cvta_generic_to_shared(operands));
    const std::uint64_t a = descriptor(base), b = descriptor(base + 2048);
    typename Wgmma<K>::Acc d[128];
#pragma unroll
    for (int r = 0; r < 128; ++r)
        d[r] = 0;
    for (int i = 0; i < iters; ++i) {
        asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
#pragma unroll
        for (int u = 0; u < kMmaUnroll; ++u)
            Wgmma<K>::run(d, a, b);
        asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
        asm volatile("wgmma.wait_group.sync.aligned 1;" ::: "memory");
    }
    asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
    unsigned s = 0;
#pragma unroll
    for (int r = 0; r < 128; ++r)
        s ^= static_cast<unsigned>(d[r]);
    keep(s);
    probeEnd(probe);
#else
    (void)iters;
    (void)probe;
#endif
}

// DMMA: warp-wide mma.sync on FP64, `C` independent accumulators per thread.
template <int C> __global__ void dmma884Kernel(int iters, ClockProbe* probe) {
    probeStart(probe);
    const double a = 1.0 + threadIdx.x * 1e-6, b = 0.5;
    double d[C][2];
#pragma unroll
    for (int c = 0; c < C; ++c)
        d[c][0] = d[c][1] = 0.0;
    for (int i = 0; i < iters; ++i)
#pragma unroll
        for (int u = 0; u < kMmaUnroll; ++u)
#pragma unroll
            for (int c = 0; c < C; ++c)
                asm volatile(
                    "mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%2}, {%3}, "
                    "{%0, %1};"
                    : "+d"(d[c][0]), "+d"(d[c][1])
                    : "d"(a), "d"(b));
    double s = 0;
#pragma unroll
    for (int c = 0; c < C; ++c)
        s += d[c][0] + d[c][1];
    keep(static_cast<unsigned>(__double2hiint(s)));
    probeEnd(probe);
}

template <int C> __global__ void dmma16816Kernel(int iters, ClockProbe* probe) {
    probeStart(probe);
    const double a = 1.0 + threadIdx.x * 1e-6, b = 0.5;
    double d[C][4];
#pragma unroll
    for (int c = 0; c < C; ++c)
        d[c][0] = d[c][1] = d[c][2] = d[c][3] = 0.0;
    for (int i = 0; i < iters; ++i)
#pragma unroll
        for (int u = 0; u < kMmaUnroll; ++u)
#pragma unroll
            for (int c = 0; c < C; ++c)
                asm volatile("mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64 "
                             "{%0, %1, %2, %3}, {%4, %4, %4, %4, %4, %4, %4, %4}, "
                             "{%5, %5, %5, %5}, {%0, %1, %2, %3};"
                             : "+d"(d[c][0]), "+d"(d[c][1]), "+d"(d[c][2]), "+d"(d[c][3])
                             : "d"(a), "d"(b));
    double s = 0;
#pragma unroll
    for (int c = 0; c < C; ++c)
        s += d[c][0] + d[c][1] + d[c][2] + d[c][3];
    keep(static_cast<unsigned>(__double2hiint(s)));
    probeEnd(probe);
}

int launchDmma(bool big, int chains, Shape s, int iters, ClockProbe* probe) {
    void (*kernel)(int, ClockProbe*) = nullptr;
    switch (chains) {
    case 2:
        kernel = big ? dmma16816Kernel<2> : dmma884Kernel<2>;
        break;
    case 4:
        kernel = big ? dmma16816Kernel<4> : dmma884Kernel<4>;
        break;
    case 8:
        kernel = big ? dmma16816Kernel<8> : dmma884Kernel<8>;
        break;
    default:
        return cudaErrorInvalidValue;
    }
    kernel<<<s.blocks, s.threads>>>(iters, probe);
    return cudaGetLastError();
}

template <Mma K> int launchWgmma(Shape s, int iters, ClockProbe* probe) {
    static const cudaError_t attribute = cudaFuncSetAttribute(
        wgmmaKernel<K>, cudaFuncAttributeMaxDynamicSharedMemorySize, int(kWgmmaShared));
    if (attribute != cudaSuccess)
        return attribute;
    wgmmaKernel<K><<<s.blocks, s.threads, kWgmmaShared>>>(iters, probe);
    return cudaGetLastError();
}

// ---- Bandwidth ---------------------------------------------------------------------------------

__device__ __forceinline__ uint4 loadCg(const uint4* p) {
    uint4 v;
    asm volatile("ld.global.cg.v4.u32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                 : "l"(p));
    return v;
}
__device__ __forceinline__ uint4 loadCa(const void* p) {
    uint4 v;
    asm volatile("ld.global.ca.v4.u32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                 : "l"(p));
    return v;
}
__device__ __forceinline__ uint4 loadShared(std::uint32_t address) {
    uint4 v;
    asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                 : "r"(address));
    return v;
}
__device__ __forceinline__ unsigned fold(unsigned acc, uint4 v) {
    return acc ^ v.x ^ v.y ^ v.z ^ v.w;
}

template <int U, Stream S>
__global__ void streamKernel(const uint4* __restrict__ in, uint4* __restrict__ out,
                             std::uint64_t count, int reps) {
    const std::uint64_t stride = std::uint64_t(gridDim.x) * blockDim.x;
    const std::uint64_t start = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
    unsigned acc = 0;
    for (int r = 0; r < reps; ++r) {
        std::uint64_t i = start;
        for (; i + (U - 1) * stride < count; i += U * stride) {
            uint4 v[U];
#pragma unroll
            for (int u = 0; u < U; ++u)
                v[u] = S == Stream::ReadL2 ? loadCg(in + i + u * stride) : in[i + u * stride];
#pragma unroll
            for (int u = 0; u < U; ++u) {
                if constexpr (S == Stream::Copy)
                    out[i + u * stride] = v[u];
                else
                    acc = fold(acc, v[u]);
            }
        }
        for (; i < count; i += stride) {
            const uint4 v = S == Stream::ReadL2 ? loadCg(in + i) : in[i];
            if constexpr (S == Stream::Copy)
                out[i] = v;
            else
                acc = fold(acc, v);
        }
    }
    keep(acc);
}

template <Stream S>
int launchStreamT(int unroll, Shape s, const void* in, void* out, std::uint64_t count, int reps) {
    const auto* src = static_cast<const uint4*>(in);
    auto* dst = static_cast<uint4*>(out);
    switch (unroll) {
    case 1:
        streamKernel<1, S><<<s.blocks, s.threads>>>(src, dst, count, reps);
        break;
    case 2:
        streamKernel<2, S><<<s.blocks, s.threads>>>(src, dst, count, reps);
        break;
    case 4:
        streamKernel<4, S><<<s.blocks, s.threads>>>(src, dst, count, reps);
        break;
    case 8:
        streamKernel<8, S><<<s.blocks, s.threads>>>(src, dst, count, reps);
        break;
    default:
        return cudaErrorInvalidValue;
    }
    return cudaGetLastError();
}

constexpr int kLocalLoads = 8; // 16-byte loads per thread and repetition

// Each repetition reads kLocalLoads warp-contiguous 512-byte pieces of the window at offsets that
// move from one repetition to the next: the same addresses twice in a row would let ptxas keep
// the values in registers instead of loading them again.
template <Local L>
__global__ void localKernel(const unsigned char* __restrict__ in, std::uint32_t window, int reps) {
    extern __shared__ __align__(16) uint4 tile[];
    if constexpr (L == Local::Shared) {
        for (unsigned i = threadIdx.x; i < window / 16; i += blockDim.x)
            tile[i] = make_uint4(i, hashWord(i), i ^ 0x55u, ~i);
        __syncthreads();
    }
    const auto tileBase = static_cast<std::uint32_t>(__cvta_generic_to_shared(tile));
    const std::uint32_t mask = window - 1;
    const std::uint32_t lane = threadIdx.x * 16u;
    const std::uint32_t step = window / kLocalLoads; // between the loads of one repetition
    unsigned acc = 0;
    for (int r = 0; r < reps; ++r) {
        const std::uint32_t base = lane + static_cast<std::uint32_t>(r) * 1536u;
#pragma unroll
        for (int u = 0; u < kLocalLoads; ++u) {
            const std::uint32_t offset = (base + u * step) & mask;
            acc = fold(acc, L == Local::L1 ? loadCa(in + offset) : loadShared(tileBase + offset));
        }
    }
    keep(acc);
}

} // namespace

int launchFma(Fma kind, int chains, Shape shape, int iters, ClockProbe* probe) {
    switch (kind) {
    case Fma::FP64:
        return launchFmaT<double>(chains, shape, iters, 0.999999, 1e-6, probe);
    case Fma::FP32:
        return launchFmaT<float>(chains, shape, iters, 0.9999f, 1e-4f, probe);
    case Fma::FP16x2:
        return launchFmaT<__half2>(chains, shape, iters, __floats2half2_rn(0.999f, 0.999f),
                                   __floats2half2_rn(1e-3f, 1e-3f), probe);
    }
    return cudaErrorInvalidValue;
}

double fmaWork(Fma kind, int chains, Shape shape, int iters) {
    const double fmas = double(shape.blocks) * shape.threads * iters * kFmaUnroll * chains;
    return fmas * (kind == Fma::FP16x2 ? 4.0 : 2.0);
}

bool mmaBuilt(Mma kind) {
    if (kind == Mma::FP64_m8n8k4 || kind == Mma::FP64_m16n8k16)
        return true;
    cudaFuncAttributes attributes{};
    if (cudaFuncGetAttributes(&attributes, wgmmaKernel<Mma::BF16>) != cudaSuccess)
        return false;
    return attributes.ptxVersion >= 90 && attributes.binaryVersion >= 90;
}

int launchMma(Mma kind, int chains, Shape shape, int iters, ClockProbe* probe) {
    switch (kind) {
    case Mma::FP16:
        return launchWgmma<Mma::FP16>(shape, iters, probe);
    case Mma::BF16:
        return launchWgmma<Mma::BF16>(shape, iters, probe);
    case Mma::TF32:
        return launchWgmma<Mma::TF32>(shape, iters, probe);
    case Mma::FP8:
        return launchWgmma<Mma::FP8>(shape, iters, probe);
    case Mma::INT8:
        return launchWgmma<Mma::INT8>(shape, iters, probe);
    case Mma::FP64_m8n8k4:
        return launchDmma(false, chains, shape, iters, probe);
    case Mma::FP64_m16n8k16:
        return launchDmma(true, chains, shape, iters, probe);
    }
    return cudaErrorInvalidValue;
}

double mmaWork(Mma kind, int chains, Shape shape, int iters) {
    const double warps = double(shape.blocks) * (shape.threads / 32);
    switch (kind) {
    case Mma::FP64_m8n8k4:
        return warps * iters * kMmaUnroll * chains * 2.0 * 8 * 8 * 4;
    case Mma::FP64_m16n8k16:
        return warps * iters * kMmaUnroll * chains * 2.0 * 16 * 8 * 16;
    default: {
        const double k = kind == Mma::TF32 ? 8 : (kind == Mma::FP8 || kind == Mma::INT8) ? 32 : 16;
        return (warps / 4) * iters * kMmaUnroll * 2.0 * 64 * 256 * k;
    }
    }
}

std::size_t mmaSharedBytes(Mma kind) {
    return kind == Mma::FP64_m8n8k4 || kind == Mma::FP64_m16n8k16 ? 0 : kWgmmaShared;
}

int launchStream(Stream kind, int unroll, Shape shape, const void* in, void* out,
                 std::uint64_t count, int reps) {
    switch (kind) {
    case Stream::Read:
        return launchStreamT<Stream::Read>(unroll, shape, in, out, count, reps);
    case Stream::ReadL2:
        return launchStreamT<Stream::ReadL2>(unroll, shape, in, out, count, reps);
    case Stream::Copy:
        return launchStreamT<Stream::Copy>(unroll, shape, in, out, count, reps);
    }
    return cudaErrorInvalidValue;
}

double streamWork(Stream kind, std::uint64_t count, int reps) {
    return double(count) * 16.0 * reps * (kind == Stream::Copy ? 2.0 : 1.0);
}

int launchLocal(Local kind, Shape shape, const void* in, std::uint32_t windowBytes, int reps) {
    const auto* bytes = static_cast<const unsigned char*>(in);
    if (kind == Local::L1) {
        localKernel<Local::L1><<<shape.blocks, shape.threads>>>(bytes, windowBytes, reps);
    } else {
        static const cudaError_t attribute = cudaFuncSetAttribute(
            localKernel<Local::Shared>, cudaFuncAttributeMaxDynamicSharedMemorySize, 64 * 1024);
        if (attribute != cudaSuccess)
            return attribute;
        localKernel<Local::Shared>
            <<<shape.blocks, shape.threads, windowBytes>>>(bytes, windowBytes, reps);
    }
    return cudaGetLastError();
}

double localWork(Local, Shape shape, int reps) {
    return double(shape.blocks) * shape.threads * reps * kLocalLoads * 16.0;
}

const char* toString(Fma kind) {
    switch (kind) {
    case Fma::FP64:
        return "DFMA";
    case Fma::FP32:
        return "FFMA";
    case Fma::FP16x2:
        return "HFMA2";
    }
    return "?";
}

const char* toString(Mma kind) {
    switch (kind) {
    case Mma::FP16:
        return "wgmma m64n256k16 f16";
    case Mma::BF16:
        return "wgmma m64n256k16 bf16";
    case Mma::TF32:
        return "wgmma m64n256k8 tf32";
    case Mma::FP8:
        return "wgmma m64n256k32 e4m3";
    case Mma::INT8:
        return "wgmma m64n256k32 s8";
    case Mma::FP64_m8n8k4:
        return "mma.sync m8n8k4 f64";
    case Mma::FP64_m16n8k16:
        return "mma.sync m16n8k16 f64";
    }
    return "?";
}

const char* toString(Stream kind) {
    switch (kind) {
    case Stream::Read:
        return "read";
    case Stream::ReadL2:
        return "read ld.global.cg";
    case Stream::Copy:
        return "copy";
    }
    return "?";
}

const char* toString(Local kind) {
    return kind == Local::L1 ? "ld.global.ca window" : "ld.shared window";
}

} // namespace roofline::ceilings
