#include "gpu/nvtx_lib.cuh"

#include <nvtx3/nvToolsExt.h>
#include <nvtx3/nvtx3.hpp>

namespace {
constexpr int kGrid = 132, kBlock = 128, kIterations = 1000;

__global__ void fmaKernel(float* out) {
    float a = threadIdx.x, b = a + 1.0f;
    for (int i = 0; i < kIterations; ++i) {
        a = fmaf(a, 1.0001f, 0.5f);
        b = fmaf(b, 0.9999f, 0.25f);
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = a + b;
}

// Two FFMA chains of kIterations (2 FLOPs each) plus two FADDs (b = a + 1, a + b) per thread.
constexpr double kFlops = (2.0 * 2 * kIterations + 2) * double(kGrid) * kBlock;
} // namespace

extern "C" double nvtxLibWork(float* buffer) {
    static nvtxDomainHandle_t domain = nvtxDomainCreateA("mydomain");
    nvtxRangePushA("lib");
    nvtxEventAttributes_t a{};
    a.version = NVTX_VERSION;
    a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
    a.messageType = NVTX_MESSAGE_TYPE_ASCII;
    a.message.ascii = "inner";
    nvtxDomainRangePushEx(domain, &a);
    fmaKernel<<<kGrid, kBlock>>>(buffer);
    nvtxDomainRangePop(domain);
    nvtxRangePop();
    return kFlops;
}

extern "C" double nvtxLibScoped(float* buffer) {
    const nvtxRangeId_t phase = nvtxRangeStartA("phase");
    {
        nvtx3::scoped_range r{"scoped"};
        fmaKernel<<<kGrid, kBlock>>>(buffer);
    }
    nvtxRangeEnd(phase);
    return kFlops;
}

extern "C" void nvtxLibUnbalancedPop() {
    nvtxRangePop();
}
