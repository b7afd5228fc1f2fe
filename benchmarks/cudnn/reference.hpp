#pragma once
/// \file reference.hpp
/// Independent references for the benchmarks: straightforward GPU kernels (one thread or block per
/// output element, double accumulation, no tiling, no cuDNN) and the comparison of a result with
/// them. Also the random fill of inputs.

#include "workloads/precision.hpp"

#include <cuda_runtime.h>

#include <cstdint>

namespace roofline::bench {

enum class ElementType { F32, F16, BF16 };
/// How a case's tensors are stored (tf32 keeps fp32 storage).
ElementType elementTypeOf(workloads::Precision p);

/// Fills `count` elements with values uniform in [lo, hi), from a counter-based hash of `seed` and
/// the index: fresh inputs per case, reproducible from the seed.
void fillUniform(void* data, long long count, ElementType type, std::uint64_t seed, float lo,
                 float hi, cudaStream_t stream);

/// A convolution's geometry with explicit element strides for x (n, c, d, h, w), w (k, c/g, t, r,
/// s) and y (n, k, o, p, q); spatial arrays are (depth, height, width), depth 1 in 2D.
struct ConvGeometry {
    long long n, c, k, groups;
    long long in[3], filter[3], out[3], stride[3], dilation[3], padPre[3];
    long long xStride[5], wStride[5], yStride[5];
};

/// Reference results in double, laid out with the same strides as the cuDNN tensor they check.
void referenceConvForward(const ConvGeometry& g, ElementType type, const void* x, const void* w,
                          double* y, cudaStream_t stream);
void referenceConvBackwardData(const ConvGeometry& g, ElementType type, const void* dy,
                               const void* w, double* dx, cudaStream_t stream);
void referenceConvBackwardFilter(const ConvGeometry& g, ElementType type, const void* x,
                                 const void* dy, double* dw, cudaStream_t stream);

/// max|result - reference|, max|reference| and the count of non-finite results.
struct Comparison {
    double maxAbsDiff = 0.0;
    double maxAbsReference = 0.0;
    long long nonFinite = 0;
    /// maxAbsDiff / maxAbsReference (maxAbsDiff when the reference is all zero).
    double error() const { return maxAbsReference > 0 ? maxAbsDiff / maxAbsReference : maxAbsDiff; }
};
Comparison compareWithReference(const void* result, ElementType type, const double* reference,
                                long long count, cudaStream_t stream);

/// Element conversions for the RNN reference (double <-> stored type).
void toDouble(const void* src, ElementType type, double* dst, long long count, cudaStream_t stream);

} // namespace roofline::bench
