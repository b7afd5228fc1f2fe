#pragma once
#include <cuda_runtime.h>

namespace calibration {
/// Device buffers for all calibration kernels (allocated once, freed in the destructor).
struct Buffers {
    Buffers();
    ~Buffers();
    Buffers(const Buffers&) = delete;
    Buffers& operator=(const Buffers&) = delete;
    void* chainsIn = nullptr; // 4 values per thread, up to 8 bytes each
    void* chainsOut = nullptr;
    void* mmaA = nullptr;
    void* mmaB = nullptr;
    void* mmaC = nullptr;
    void* copyIn = nullptr;
    void* copyOut = nullptr;
};
// Each launches one kernel on the default stream and returns the launch's error.
cudaError_t launchFfma(const Buffers& b);
cudaError_t launchDfma(const Buffers& b);
// The same on `stream` (for stream capture into a CUDA graph).
cudaError_t launchFfmaOn(const Buffers& b, cudaStream_t stream);
cudaError_t launchDfmaOn(const Buffers& b, cudaStream_t stream);
cudaError_t launchHfma2(const Buffers& b);
cudaError_t launchMmaFp16(const Buffers& b);
// WMMA on the other input types (expected.hpp: kMma*Flops): BF16 and TF32 (HMMA), FP64 (DMMA),
// INT8 (IMMA, integer operations).
cudaError_t launchMmaBf16(const Buffers& b);
cudaError_t launchMmaTf32(const Buffers& b);
cudaError_t launchMmaFp64(const Buffers& b);
cudaError_t launchMmaInt8(const Buffers& b);
cudaError_t launchCopy(const Buffers& b);

/// All five kernels in order, each in ProfileScope "calibration/<ffma|dfma|hfma2|mma_fp16|copy>".
/// Returns the first launch error.
cudaError_t runSuite(const Buffers& b);
} // namespace calibration
