#pragma once
// The FMA-chain calibration kernel (FP32 FFMA, FP64 DFMA), shared by the calibration library and
// test/gpu/injected_app.cu (a program with no libroofline in it). Each thread keeps kChains = 4
// independent chains of kIterations FMAs, loaded from and stored to memory, so the compiler can
// neither merge nor drop them and adds no other arithmetic (calibration/expected.hpp).
#include "calibration/expected.hpp"

#include <cstddef>

namespace calibration {

template <typename T> __global__ void fmaChains(const T* in, T* out, T b, T c) {
    const std::size_t t = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x;
    T a0 = in[4 * t], a1 = in[4 * t + 1], a2 = in[4 * t + 2], a3 = in[4 * t + 3];
    for (int i = 0; i < static_cast<int>(kIterations); ++i) {
        a0 = fma(a0, b, c);
        a1 = fma(a1, b, c);
        a2 = fma(a2, b, c);
        a3 = fma(a3, b, c);
    }
    out[4 * t] = a0, out[4 * t + 1] = a1, out[4 * t + 2] = a2, out[4 * t + 3] = a3;
}

} // namespace calibration
