// Probe: can launches that no step repeats be measured by relaunching a recorded window of them
// under a device-memory checkpoint (cupti_checkpoint.h), rather than by CUPTI's kernel replay,
// which saves and restores memory for every kernel and every pass? It answers, on the GPU at hand:
//  - what cuptiCheckpointSave and cuptiCheckpointRestore cost against the context's footprint;
//  - whether kernels recorded from the driver's launch callbacks -- each argument copied at the
//    offset and size cuFuncGetParamInfo gives, a cuLaunchKernelEx's attributes (Hopper's cluster
//    launches of cuBLAS) with them -- relaunch to the same results from the saved state: a kernel
//    that adds in place, one that counts with atomics, cuBLAS SGEMM and HGEMM;
//  - whether restoring the checkpoint taken after the window gives back, bit for bit, the state the
//    program computed itself.
//
//   nvcc -O2 -arch=sm_90 window_replay_probe.cu -I$CUPTI/include -L$CUPTI/lib64 -lcupti -lcheckpoint
//        -lcublas -lcuda -o window_replay_probe && ./window_replay_probe [FOOTPRINT_MB...]
#include <cublas_v2.h>
#include <cuda.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <cupti.h>
#include <cupti_checkpoint.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

using NV::Cupti::Checkpoint::CUpti_Checkpoint;
using NV::Cupti::Checkpoint::cuptiCheckpointFree;
using NV::Cupti::Checkpoint::cuptiCheckpointRestore;
using NV::Cupti::Checkpoint::cuptiCheckpointSave;

#define CHECK(x)                                                                                   \
    do {                                                                                           \
        if (!(x)) {                                                                                \
            std::fprintf(stderr, "FAIL %s at line %d\n", #x, __LINE__);                            \
            std::exit(1);                                                                          \
        }                                                                                          \
    } while (0)

namespace {

struct Recorded {
    CUfunction f = nullptr;
    unsigned grid[3] = {}, block[3] = {};
    unsigned shared = 0;
    CUstream stream = nullptr;
    std::vector<std::vector<char>> args; // each argument's bytes
    std::vector<CUlaunchAttribute> attrs;
    bool ex = false;
};

std::vector<Recorded> gRecorded;
bool gCapturing = false;
int gClusterLaunches = 0;
int gUncopied = 0;

int gKernelHandles = 0; // launches whose handle is a CUkernel (the runtime's library kernels)

// A launch's handle may be a CUfunction or, from the runtime's context-independent loading, a
// CUkernel passed as one: cuKernelGetParamInfo answers for the latter.
CUresult paramInfo(CUfunction f, bool kernel, size_t i, size_t* offset, size_t* size) {
    return kernel ? cuKernelGetParamInfo(reinterpret_cast<CUkernel>(f), i, offset, size)
                  : cuFuncGetParamInfo(f, i, offset, size);
}

void copyArgs(Recorded& r, void** params, void** extra) {
    if (params != nullptr) {
        size_t offset = 0, size = 0;
        bool kernel = false;
        if (cuFuncGetParamInfo(r.f, 0, &offset, &size) != CUDA_SUCCESS &&
            cuKernelGetParamInfo(reinterpret_cast<CUkernel>(r.f), 0, &offset, &size) ==
                CUDA_SUCCESS) {
            kernel = true;
            ++gKernelHandles;
        }
        for (size_t i = 0;; ++i) {
            if (paramInfo(r.f, kernel, i, &offset, &size) != CUDA_SUCCESS)
                break;
            const char* p = static_cast<const char*>(params[i]);
            r.args.emplace_back(p, p + size);
        }
        return;
    }
    ++gUncopied; // `extra` (CU_LAUNCH_PARAM_BUFFER_POINTER): not seen in this probe's kernels
    (void)extra;
}

void CUPTIAPI onLaunch(void*, CUpti_CallbackDomain, CUpti_CallbackId cbid, const void* data) {
    const auto* info = static_cast<const CUpti_CallbackData*>(data);
    if (!gCapturing || info->callbackSite != CUPTI_API_ENTER)
        return;
    Recorded r;
    if (cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel ||
        cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz) {
        const auto* p = static_cast<const cuLaunchKernel_params*>(info->functionParams);
        r.f = p->f;
        r.grid[0] = p->gridDimX, r.grid[1] = p->gridDimY, r.grid[2] = p->gridDimZ;
        r.block[0] = p->blockDimX, r.block[1] = p->blockDimY, r.block[2] = p->blockDimZ;
        r.shared = p->sharedMemBytes;
        r.stream = p->hStream;
        copyArgs(r, p->kernelParams, p->extra);
    } else {
        const auto* p = static_cast<const cuLaunchKernelEx_params*>(info->functionParams);
        const CUlaunchConfig* c = p->config;
        r.f = p->f;
        r.ex = true;
        r.grid[0] = c->gridDimX, r.grid[1] = c->gridDimY, r.grid[2] = c->gridDimZ;
        r.block[0] = c->blockDimX, r.block[1] = c->blockDimY, r.block[2] = c->blockDimZ;
        r.shared = c->sharedMemBytes;
        r.stream = c->hStream;
        r.attrs.assign(c->attrs, c->attrs + c->numAttrs);
        for (const CUlaunchAttribute& a : r.attrs)
            if (a.id == CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION)
                ++gClusterLaunches;
        copyArgs(r, p->kernelParams, p->extra);
    }
    gRecorded.push_back(std::move(r));
}

void relaunch(const Recorded& r) {
    std::vector<void*> ptrs;
    for (const auto& a : r.args)
        ptrs.push_back(const_cast<char*>(a.data()));
    if (!r.ex) {
        const CUresult e = cuLaunchKernel(r.f, r.grid[0], r.grid[1], r.grid[2], r.block[0],
                                          r.block[1], r.block[2], r.shared, r.stream, ptrs.data(),
                                          nullptr);
        if (e != CUDA_SUCCESS) {
            std::fprintf(stderr, "FAIL relaunch: error %d, %zu arguments\n", int(e), r.args.size());
            std::exit(1);
        }
        return;
    }
    CUlaunchConfig c{};
    c.gridDimX = r.grid[0], c.gridDimY = r.grid[1], c.gridDimZ = r.grid[2];
    c.blockDimX = r.block[0], c.blockDimY = r.block[1], c.blockDimZ = r.block[2];
    c.sharedMemBytes = r.shared;
    c.hStream = r.stream;
    std::vector<CUlaunchAttribute> attrs = r.attrs;
    c.attrs = attrs.data();
    c.numAttrs = static_cast<unsigned>(attrs.size());
    const CUresult e = cuLaunchKernelEx(&c, r.f, ptrs.data(), nullptr);
    if (e != CUDA_SUCCESS) {
        std::fprintf(stderr, "FAIL relaunch (Ex): error %d, %zu arguments\n", int(e), r.args.size());
        std::exit(1);
    }
}

__global__ void addInPlace(float* x, int n, float v) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        x[i] = x[i] * 1.0001f + v;
}

__global__ void countPositive(const float* x, int n, unsigned long long* count) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && x[i] > 0.0f)
        atomicAdd(count, 1ull);
}

__global__ void fill(float* x, size_t n, float v) {
    for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        x[i] = v + static_cast<float>(i % 1000) * 1e-3f - 0.5f;
}

// Bytes of the state the window changes, for comparison: C, H, x and the count.
std::vector<char> state(const void* c, size_t cBytes, const void* h, size_t hBytes, const void* x,
                        size_t xBytes, const void* count) {
    std::vector<char> s(cBytes + hBytes + xBytes + 8);
    CHECK(cudaMemcpy(s.data(), c, cBytes, cudaMemcpyDeviceToHost) == cudaSuccess);
    CHECK(cudaMemcpy(s.data() + cBytes, h, hBytes, cudaMemcpyDeviceToHost) == cudaSuccess);
    CHECK(cudaMemcpy(s.data() + cBytes + hBytes, x, xBytes, cudaMemcpyDeviceToHost) == cudaSuccess);
    CHECK(cudaMemcpy(s.data() + cBytes + hBytes + xBytes, count, 8, cudaMemcpyDeviceToHost) ==
          cudaSuccess);
    return s;
}

double msSince(std::chrono::steady_clock::time_point t) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
}

void probe(size_t footprintMB) {
    const int n = 2048;
    const size_t nx = 1 << 22;
    float *a, *b, *c, *x, *ballast;
    __half *ha, *hb, *hc;
    unsigned long long* count;
    CHECK(cudaMalloc(&a, n * n * 4) == cudaSuccess);
    CHECK(cudaMalloc(&b, n * n * 4) == cudaSuccess);
    CHECK(cudaMalloc(&c, n * n * 4) == cudaSuccess);
    CHECK(cudaMalloc(&ha, n * n * 2) == cudaSuccess);
    CHECK(cudaMalloc(&hb, n * n * 2) == cudaSuccess);
    CHECK(cudaMalloc(&hc, n * n * 2) == cudaSuccess);
    CHECK(cudaMalloc(&x, nx * 4) == cudaSuccess);
    CHECK(cudaMalloc(&count, 8) == cudaSuccess);
    CHECK(cudaMalloc(&ballast, footprintMB << 20) == cudaSuccess); // the rest of a program's memory
    fill<<<1024, 256>>>(a, size_t(n) * n, 0.1f);
    fill<<<1024, 256>>>(b, size_t(n) * n, 0.2f);
    fill<<<1024, 256>>>(x, nx, 0.3f);
    fill<<<1024, 256>>>(ballast, (footprintMB << 20) / 4, 0.4f);
    std::vector<__half> hh(size_t(n) * n);
    for (size_t i = 0; i < hh.size(); ++i)
        hh[i] = __float2half(static_cast<float>(i % 97) * 0.01f - 0.4f);
    CHECK(cudaMemcpy(ha, hh.data(), hh.size() * 2, cudaMemcpyHostToDevice) == cudaSuccess);
    CHECK(cudaMemcpy(hb, hh.data(), hh.size() * 2, cudaMemcpyHostToDevice) == cudaSuccess);
    CHECK(cudaMemset(count, 0, 8) == cudaSuccess);
    cublasHandle_t blas;
    CHECK(cublasCreate(&blas) == CUBLAS_STATUS_SUCCESS);
    const float one = 1.0f, zero = 0.0f;
    const __half hone = __float2half(1.0f), hzero = __float2half(0.0f);
    const auto window = [&] {
        for (int k = 0; k < 8; ++k) {
            addInPlace<<<(nx + 255) / 256, 256>>>(x, nx, 0.5f);
            countPositive<<<(nx + 255) / 256, 256>>>(x, nx, count);
            CHECK(cublasSgemm(blas, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, a, n, b, n, &zero, c,
                              n) == CUBLAS_STATUS_SUCCESS);
            CHECK(cublasHgemm(blas, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &hone, ha, n, hb, n, &hzero,
                              hc, n) == CUBLAS_STATUS_SUCCESS);
            std::swap(a, c); // the next SGEMM reads this one's result
        }
    };
    window(); // cuBLAS loads its kernels: the probe's window is a later one
    CHECK(cudaDeviceSynchronize() == cudaSuccess);
    CUcontext ctx;
    CHECK(cuCtxGetCurrent(&ctx) == CUDA_SUCCESS);

    CUpti_Checkpoint before{CUpti_Checkpoint_STRUCT_SIZE};
    before.ctx = ctx;
    before.allowOverwrite = 1;
    CUpti_Checkpoint after{CUpti_Checkpoint_STRUCT_SIZE};
    after.ctx = ctx;
    auto t = std::chrono::steady_clock::now();
    CHECK(cuptiCheckpointSave(&before) == CUPTI_SUCCESS);
    const double saveMs = msSince(t);
    gRecorded.clear();
    gCapturing = true;
    t = std::chrono::steady_clock::now();
    window(); // the program's own run of the window
    CHECK(cudaDeviceSynchronize() == cudaSuccess);
    const double windowMs = msSince(t);
    gCapturing = false;
    const std::vector<char> own = state(c, n * n * 4, hc, n * n * 2, x, nx * 4, count);
    t = std::chrono::steady_clock::now();
    CHECK(cuptiCheckpointSave(&after) == CUPTI_SUCCESS);
    const double saveAfterMs = msSince(t);

    double restoreMs = 0, replayMs = 0;
    bool same = true;
    const int passes = 4;
    for (int pass = 0; pass < passes; ++pass) {
        t = std::chrono::steady_clock::now();
        CHECK(cuptiCheckpointRestore(&before) == CUPTI_SUCCESS);
        CHECK(cudaDeviceSynchronize() == cudaSuccess);
        restoreMs += msSince(t);
        t = std::chrono::steady_clock::now();
        for (const Recorded& r : gRecorded)
            relaunch(r);
        CHECK(cudaDeviceSynchronize() == cudaSuccess);
        replayMs += msSince(t);
        same = same && state(c, n * n * 4, hc, n * n * 2, x, nx * 4, count) == own;
    }
    // Disturb the state, then give the program back its own.
    fill<<<1024, 256>>>(x, nx, 9.0f);
    t = std::chrono::steady_clock::now();
    CHECK(cuptiCheckpointRestore(&after) == CUPTI_SUCCESS);
    CHECK(cudaDeviceSynchronize() == cudaSuccess);
    const double restoreAfterMs = msSince(t);
    const bool back = state(c, n * n * 4, hc, n * n * 2, x, nx * 4, count) == own;

    size_t freeB = 0, totalB = 0;
    cudaMemGetInfo(&freeB, &totalB);
    std::printf("footprint %zu MB (+%d MB of the window's buffers; %zu MB used on the device): "
                "%zu launches recorded (%d with a cluster attribute, %d with a CUkernel handle, %d "
                "not copied); window %.2f ms "
                "as the program ran it; save %.1f ms before, %.1f ms after; per pass: restore %.2f "
                "ms, relaunch %.2f ms; relaunched results %s the program's; state after the "
                "restore %s\n",
                footprintMB, (n * n * (4 * 3 + 2 * 3) + int(nx) * 4) >> 20,
                (totalB - freeB) >> 20, gRecorded.size(), gClusterLaunches, gKernelHandles, gUncopied,
                windowMs,
                saveMs, saveAfterMs, restoreMs / passes, replayMs / passes,
                same ? "bitwise equal to" : "DIFFER from", back ? "bitwise the program's own" : "DIFFERS");
    gClusterLaunches = gKernelHandles = 0;
    cuptiCheckpointFree(&before);
    cuptiCheckpointFree(&after);
    cublasDestroy(blas);
    for (void* p : {(void*)a, (void*)b, (void*)c, (void*)ha, (void*)hb, (void*)hc, (void*)x,
                    (void*)count, (void*)ballast})
        cudaFree(p);
}

} // namespace

int main(int argc, char** argv) {
    CHECK(cudaFree(nullptr) == cudaSuccess);
    CUpti_SubscriberHandle sub;
    CHECK(cuptiSubscribe(&sub, reinterpret_cast<CUpti_CallbackFunc>(onLaunch), nullptr) ==
          CUPTI_SUCCESS);
    for (CUpti_CallbackId id :
         {CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz,
          CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz})
        CHECK(cuptiEnableCallback(1, sub, CUPTI_CB_DOMAIN_DRIVER_API, id) == CUPTI_SUCCESS);
    std::vector<size_t> sizes;
    for (int i = 1; i < argc; ++i)
        sizes.push_back(std::strtoull(argv[i], nullptr, 10));
    if (sizes.empty())
        sizes = {64, 1024, 8192};
    for (size_t mb : sizes)
        probe(mb);
    cuptiUnsubscribe(sub);
    return 0;
}
