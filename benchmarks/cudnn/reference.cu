#include "cudnn/reference.hpp"

#include "cudnn/cuda_util.hpp"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

namespace roofline::bench {

namespace {

constexpr int kThreads = 256;

__device__ inline double load(const float* p, long long i) {
    return static_cast<double>(p[i]);
}
__device__ inline double load(const __half* p, long long i) {
    return static_cast<double>(__half2float(p[i]));
}
__device__ inline double load(const __nv_bfloat16* p, long long i) {
    return static_cast<double>(__bfloat162float(p[i]));
}
__device__ inline void store(float* p, long long i, float v) {
    p[i] = v;
}
__device__ inline void store(__half* p, long long i, float v) {
    p[i] = __float2half(v);
}
__device__ inline void store(__nv_bfloat16* p, long long i, float v) {
    p[i] = __float2bfloat16(v);
}

__device__ inline std::uint64_t splitmix(std::uint64_t x) {
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

template <class T>
__global__ void fillKernel(T* data, long long count, std::uint64_t seed, float lo, float hi) {
    for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < count;
         i += static_cast<long long>(gridDim.x) * blockDim.x) {
        const double u =
            static_cast<double>(splitmix(seed ^ splitmix(static_cast<std::uint64_t>(i))) >> 11) *
            (1.0 / 9007199254740992.0);
        store(data, i, lo + static_cast<float>(u) * (hi - lo));
    }
}

unsigned gridFor(long long count) {
    const long long blocks = (count + kThreads - 1) / kThreads;
    return static_cast<unsigned>(blocks < 65535LL * 16 ? (blocks > 0 ? blocks : 1) : 65535LL * 16);
}

// Decomposes a linear index over (a, b, d0, d1, d2) extents.
struct Index5 {
    long long v[5];
};
__device__ inline Index5 unflatten(long long i, long long e0, long long e1, long long e2,
                                   long long e3, long long e4) {
    Index5 r;
    r.v[4] = i % e4;
    i /= e4;
    r.v[3] = i % e3;
    i /= e3;
    r.v[2] = i % e2;
    i /= e2;
    r.v[1] = i % e1;
    r.v[0] = i / e1;
    (void)e0;
    return r;
}
__device__ inline long long offset(const long long* stride, const Index5& idx) {
    return idx.v[0] * stride[0] + idx.v[1] * stride[1] + idx.v[2] * stride[2] +
           idx.v[3] * stride[3] + idx.v[4] * stride[4];
}

// y[n,k,o,p,q] = sum_{c in group, t, r, s} x[n, g*Cg + c, o*st - pad + t*dil, ...] w[k, c, t, r, s]
template <class T>
__global__ void convForwardKernel(ConvGeometry g, const T* x, const T* w, double* y) {
    const long long total = g.n * g.k * g.out[0] * g.out[1] * g.out[2];
    const long long cg = g.c / g.groups, kg = g.k / g.groups;
    for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < total;
         i += static_cast<long long>(gridDim.x) * blockDim.x) {
        const Index5 o = unflatten(i, g.n, g.k, g.out[0], g.out[1], g.out[2]);
        const long long group = o.v[1] / kg;
        double sum = 0.0;
        for (long long c = 0; c < cg; ++c)
            for (long long t = 0; t < g.filter[0]; ++t) {
                const long long d = o.v[2] * g.stride[0] - g.padPre[0] + t * g.dilation[0];
                if (d < 0 || d >= g.in[0])
                    continue;
                for (long long r = 0; r < g.filter[1]; ++r) {
                    const long long h = o.v[3] * g.stride[1] - g.padPre[1] + r * g.dilation[1];
                    if (h < 0 || h >= g.in[1])
                        continue;
                    for (long long s = 0; s < g.filter[2]; ++s) {
                        const long long ww = o.v[4] * g.stride[2] - g.padPre[2] + s * g.dilation[2];
                        if (ww < 0 || ww >= g.in[2])
                            continue;
                        const Index5 xi{{o.v[0], group * cg + c, d, h, ww}};
                        const Index5 wi{{o.v[1], c, t, r, s}};
                        sum += load(x, offset(g.xStride, xi)) * load(w, offset(g.wStride, wi));
                    }
                }
            }
        y[offset(g.yStride, o)] = sum;
    }
}

// dx[n,c,d,h,w] = sum over k in the group and (t,r,s) whose output position is integral.
template <class T>
__global__ void convBackwardDataKernel(ConvGeometry g, const T* dy, const T* w, double* dx) {
    const long long total = g.n * g.c * g.in[0] * g.in[1] * g.in[2];
    const long long cg = g.c / g.groups, kg = g.k / g.groups;
    for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < total;
         i += static_cast<long long>(gridDim.x) * blockDim.x) {
        const Index5 xi = unflatten(i, g.n, g.c, g.in[0], g.in[1], g.in[2]);
        const long long group = xi.v[1] / cg, c = xi.v[1] % cg;
        double sum = 0.0;
        for (long long kk = 0; kk < kg; ++kk) {
            const long long k = group * kg + kk;
            for (long long t = 0; t < g.filter[0]; ++t) {
                const long long od = xi.v[2] + g.padPre[0] - t * g.dilation[0];
                if (od < 0 || od % g.stride[0] != 0 || od / g.stride[0] >= g.out[0])
                    continue;
                for (long long r = 0; r < g.filter[1]; ++r) {
                    const long long oh = xi.v[3] + g.padPre[1] - r * g.dilation[1];
                    if (oh < 0 || oh % g.stride[1] != 0 || oh / g.stride[1] >= g.out[1])
                        continue;
                    for (long long s = 0; s < g.filter[2]; ++s) {
                        const long long ow = xi.v[4] + g.padPre[2] - s * g.dilation[2];
                        if (ow < 0 || ow % g.stride[2] != 0 || ow / g.stride[2] >= g.out[2])
                            continue;
                        const Index5 yi{
                            {xi.v[0], k, od / g.stride[0], oh / g.stride[1], ow / g.stride[2]}};
                        const Index5 wi{{k, c, t, r, s}};
                        sum += load(dy, offset(g.yStride, yi)) * load(w, offset(g.wStride, wi));
                    }
                }
            }
        }
        dx[offset(g.xStride, xi)] = sum;
    }
}

// dw[k,c,t,r,s] = sum_{n,o,p,q} x[n, g*Cg+c, ...] dy[n,k,o,p,q]: one block per filter element.
template <class T>
__global__ void convBackwardFilterKernel(ConvGeometry g, const T* x, const T* dy, double* dw) {
    __shared__ double partial[kThreads];
    const long long cg = g.c / g.groups, kg = g.k / g.groups;
    const long long filters = g.k * cg * g.filter[0] * g.filter[1] * g.filter[2];
    const long long reduction = g.n * g.out[0] * g.out[1] * g.out[2];
    for (long long f = blockIdx.x; f < filters; f += gridDim.x) {
        const Index5 wi = unflatten(f, g.k, cg, g.filter[0], g.filter[1], g.filter[2]);
        const long long channel = (wi.v[0] / kg) * cg + wi.v[1];
        double sum = 0.0;
        for (long long j = threadIdx.x; j < reduction; j += blockDim.x) {
            const long long q = j % g.out[2], p = (j / g.out[2]) % g.out[1],
                            o = (j / (g.out[2] * g.out[1])) % g.out[0],
                            n = j / (g.out[2] * g.out[1] * g.out[0]);
            const long long d = o * g.stride[0] - g.padPre[0] + wi.v[2] * g.dilation[0];
            const long long h = p * g.stride[1] - g.padPre[1] + wi.v[3] * g.dilation[1];
            const long long w = q * g.stride[2] - g.padPre[2] + wi.v[4] * g.dilation[2];
            if (d < 0 || d >= g.in[0] || h < 0 || h >= g.in[1] || w < 0 || w >= g.in[2])
                continue;
            const Index5 xi{{n, channel, d, h, w}};
            const Index5 di{{n, wi.v[0], o, p, q}};
            sum += load(x, offset(g.xStride, xi)) * load(dy, offset(g.yStride, di));
        }
        partial[threadIdx.x] = sum;
        __syncthreads();
        for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
            if (threadIdx.x < stride)
                partial[threadIdx.x] += partial[threadIdx.x + stride];
            __syncthreads();
        }
        if (threadIdx.x == 0)
            dw[offset(g.wStride, wi)] = partial[0];
        __syncthreads();
    }
}

// Non-negative doubles order like their bit patterns: atomicMax on the 64-bit integer view.
__device__ inline void atomicMaxNonNegative(double* target, double value) {
    atomicMax(reinterpret_cast<unsigned long long*>(target),
              static_cast<unsigned long long>(__double_as_longlong(value)));
}

template <class T>
__global__ void compareKernel(const T* result, const double* reference, long long count,
                              double* maxima, unsigned long long* nonFinite) {
    double diff = 0.0, ref = 0.0;
    unsigned long long bad = 0;
    for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < count;
         i += static_cast<long long>(gridDim.x) * blockDim.x) {
        const double a = load(result, i);
        const double r = reference[i];
        if (!isfinite(a)) {
            ++bad;
            continue;
        }
        diff = fmax(diff, fabs(a - r));
        ref = fmax(ref, fabs(r));
    }
    atomicMaxNonNegative(&maxima[0], diff);
    atomicMaxNonNegative(&maxima[1], ref);
    if (bad)
        atomicAdd(nonFinite, bad);
}

template <class T> __global__ void toDoubleKernel(const T* src, double* dst, long long count) {
    for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < count;
         i += static_cast<long long>(gridDim.x) * blockDim.x)
        dst[i] = load(src, i);
}

template <class F> void dispatch(ElementType type, F&& f) {
    switch (type) {
    case ElementType::F32:
        f(static_cast<float*>(nullptr));
        break;
    case ElementType::F16:
        f(static_cast<__half*>(nullptr));
        break;
    case ElementType::BF16:
        f(static_cast<__nv_bfloat16*>(nullptr));
        break;
    }
}

} // namespace

ElementType elementTypeOf(workloads::Precision p) {
    switch (p) {
    case workloads::Precision::FP16:
        return ElementType::F16;
    case workloads::Precision::BF16:
        return ElementType::BF16;
    default:
        return ElementType::F32;
    }
}

void fillUniform(void* data, long long count, ElementType type, std::uint64_t seed, float lo,
                 float hi, cudaStream_t stream) {
    dispatch(type, [&](auto* tag) {
        using T = std::remove_pointer_t<decltype(tag)>;
        fillKernel<<<gridFor(count), kThreads, 0, stream>>>(static_cast<T*>(data), count, seed, lo,
                                                            hi);
    });
    BENCH_CUDA(cudaGetLastError());
}

void referenceConvForward(const ConvGeometry& g, ElementType type, const void* x, const void* w,
                          double* y, cudaStream_t stream) {
    const long long total = g.n * g.k * g.out[0] * g.out[1] * g.out[2];
    dispatch(type, [&](auto* tag) {
        using T = std::remove_pointer_t<decltype(tag)>;
        convForwardKernel<<<gridFor(total), kThreads, 0, stream>>>(g, static_cast<const T*>(x),
                                                                   static_cast<const T*>(w), y);
    });
    BENCH_CUDA(cudaGetLastError());
}

void referenceConvBackwardData(const ConvGeometry& g, ElementType type, const void* dy,
                               const void* w, double* dx, cudaStream_t stream) {
    const long long total = g.n * g.c * g.in[0] * g.in[1] * g.in[2];
    dispatch(type, [&](auto* tag) {
        using T = std::remove_pointer_t<decltype(tag)>;
        convBackwardDataKernel<<<gridFor(total), kThreads, 0, stream>>>(
            g, static_cast<const T*>(dy), static_cast<const T*>(w), dx);
    });
    BENCH_CUDA(cudaGetLastError());
}

void referenceConvBackwardFilter(const ConvGeometry& g, ElementType type, const void* x,
                                 const void* dy, double* dw, cudaStream_t stream) {
    const long long filters = g.k * (g.c / g.groups) * g.filter[0] * g.filter[1] * g.filter[2];
    const unsigned blocks = static_cast<unsigned>(filters < (1LL << 24) ? filters : (1LL << 24));
    dispatch(type, [&](auto* tag) {
        using T = std::remove_pointer_t<decltype(tag)>;
        convBackwardFilterKernel<<<blocks, kThreads, 0, stream>>>(g, static_cast<const T*>(x),
                                                                  static_cast<const T*>(dy), dw);
    });
    BENCH_CUDA(cudaGetLastError());
}

Comparison compareWithReference(const void* result, ElementType type, const double* reference,
                                long long count, cudaStream_t stream) {
    DeviceBuffer scratch(2 * sizeof(double) + sizeof(unsigned long long), "comparison scratch");
    BENCH_CUDA(cudaMemsetAsync(scratch.get(), 0, scratch.bytes(), stream));
    auto* maxima = scratch.as<double>();
    auto* nonFinite = reinterpret_cast<unsigned long long*>(maxima + 2);
    dispatch(type, [&](auto* tag) {
        using T = std::remove_pointer_t<decltype(tag)>;
        compareKernel<<<gridFor(count), kThreads, 0, stream>>>(static_cast<const T*>(result),
                                                               reference, count, maxima, nonFinite);
    });
    BENCH_CUDA(cudaGetLastError());
    double host[2];
    unsigned long long bad = 0;
    BENCH_CUDA(cudaMemcpyAsync(host, maxima, sizeof host, cudaMemcpyDeviceToHost, stream));
    BENCH_CUDA(cudaMemcpyAsync(&bad, nonFinite, sizeof bad, cudaMemcpyDeviceToHost, stream));
    BENCH_CUDA(cudaStreamSynchronize(stream));
    return {host[0], host[1], static_cast<long long>(bad)};
}

void toDouble(const void* src, ElementType type, double* dst, long long count,
              cudaStream_t stream) {
    dispatch(type, [&](auto* tag) {
        using T = std::remove_pointer_t<decltype(tag)>;
        toDoubleKernel<<<gridFor(count), kThreads, 0, stream>>>(static_cast<const T*>(src), dst,
                                                                count);
    });
    BENCH_CUDA(cudaGetLastError());
}

} // namespace roofline::bench
