#pragma once
// Work of a known size, shared by roofline-bench-partial-passes and roofline-bench-window-replay:
// every thread reads one float, runs `fmas` FMAs on it and writes it back, in place, so each
// launch reads what the one before it wrote (FP32 FLOPs: 2 x fmas per thread).
#include <cuda_runtime.h>

namespace bench_work {

__global__ void work(float* x, int fmas) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = x[i];
    for (int k = 0; k < fmas; ++k)
        v = fmaf(v, 1.0001f, 0.5f);
    x[i] = v;
}

} // namespace bench_work
