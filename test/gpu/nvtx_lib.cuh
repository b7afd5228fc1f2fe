#pragma once
// A separately compiled shared library that knows nothing of libroofline: it annotates its work
// with plain NVTX (push/pop, a named domain, nvtx3::scoped_range, start/end) and launches kernels.
#include <cuda_runtime.h>

extern "C" {
/// nvtxRangePushA("lib") > domain "mydomain" push "inner" > fmaKernel; pops both. Returns the
/// FP32 FLOPs the kernel does.
double nvtxLibWork(float* buffer);
/// nvtx3::scoped_range "scoped" around one kernel, inside a start/end range "phase".
double nvtxLibScoped(float* buffer);
/// One nvtxRangePop() with nothing pushed.
void nvtxLibUnbalancedPop();
}
