// roofline-bench-window-replay: the replay chosen for launches no step covers
// (docs/design/0026-launches-no-step-covers.md), through libroofline's own CUPTI layer, before a
// strategy uses it. A window of kernels of known work runs once as the program runs it -- pass 0
// of a range profiler in auto ranges and user replay, its launches recorded from CUPTI's driver
// callbacks -- between two device-memory checkpoints; each further pass restores the first
// checkpoint and relaunches the recorded kernels; then the second checkpoint gives the program
// its state back. Printed per footprint (MB of other device memory the program holds):
//  - whether every range's FP32 FLOPs equal the kernels' hand count (exact) and the DRAM bytes
//    those of the same kernels under CUPTI's kernel replay, measured in the same run;
//  - whether the state after the window is bit for bit the program's own;
//  - what it cost: the saves, each pass's restore and relaunch, per kernel, against kernel replay
//    per kernel (the profiler objects' first Starts apart: paid once per run).
//   roofline-bench-window-replay [--kernels N] [--footprint-mb A,B,...]
#include "core/metric_catalog.hpp"
#include "cupti/device.hpp"
#include "cupti/host.hpp"
#include "cupti/target.hpp"

#include "bench_helpers.hpp"
#include "fma_work.cuh"

#include <cuda.h>
#include <cuda_runtime.h>
#include <cupti.h>
#include <cupti_checkpoint.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

namespace cupti = roofline::cupti;
namespace core = roofline::core;
using NV::Cupti::Checkpoint::CUpti_Checkpoint;

constexpr int kBlocks = 264, kThreads = 256;

using bench_work::work;

// Streams `n` floats (DRAM traffic of a known size): y = x + y.
__global__ void stream(const float* x, float* y, int n) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        y[i] += x[i];
}

int fmasOf(int i) {
    return 64 + 16 * i;
}

// A launch as the driver callback saw it, to be launched again.
struct Recorded {
    CUfunction f = nullptr;
    unsigned grid[3] = {}, block[3] = {}, shared = 0;
    CUstream stream = nullptr;
    std::vector<std::vector<char>> args;
};
std::vector<Recorded> gRecorded;
bool gCapturing = false;

void CUPTIAPI onLaunch(void*, CUpti_CallbackDomain, CUpti_CallbackId, const void* data) {
    const auto* info = static_cast<const CUpti_CallbackData*>(data);
    if (!gCapturing || info->callbackSite != CUPTI_API_ENTER)
        return;
    const auto* p = static_cast<const cuLaunchKernel_params*>(info->functionParams);
    Recorded r;
    r.f = p->f;
    r.grid[0] = p->gridDimX, r.grid[1] = p->gridDimY, r.grid[2] = p->gridDimZ;
    r.block[0] = p->blockDimX, r.block[1] = p->blockDimY, r.block[2] = p->blockDimZ;
    r.shared = p->sharedMemBytes;
    r.stream = p->hStream;
    size_t offset = 0, size = 0;
    const bool kernel = cuFuncGetParamInfo(r.f, 0, &offset, &size) != CUDA_SUCCESS;
    for (size_t i = 0;; ++i) {
        const CUresult e =
            kernel ? cuKernelGetParamInfo(reinterpret_cast<CUkernel>(r.f), i, &offset, &size)
                   : cuFuncGetParamInfo(r.f, i, &offset, &size);
        if (e != CUDA_SUCCESS)
            break;
        const char* a = static_cast<const char*>(p->kernelParams[i]);
        r.args.emplace_back(a, a + size);
    }
    gRecorded.push_back(std::move(r));
}

void relaunch() {
    for (const Recorded& r : gRecorded) {
        std::vector<void*> ptrs;
        for (const auto& a : r.args)
            ptrs.push_back(const_cast<char*>(a.data()));
        if (cuLaunchKernel(r.f, r.grid[0], r.grid[1], r.grid[2], r.block[0], r.block[1], r.block[2],
                           r.shared, r.stream, ptrs.data(), nullptr) != CUDA_SUCCESS)
            throw std::runtime_error("a recorded launch does not launch again");
    }
}

struct Window {
    float *x = nullptr, *a = nullptr, *b = nullptr;
    int kernels = 0;
    static constexpr int kStream = 1 << 24; // 64 MiB a buffer
    explicit Window(int n) : kernels(n) {
        cudaMalloc(&x, sizeof(float) * kBlocks * kThreads);
        cudaMalloc(&a, sizeof(float) * kStream);
        cudaMalloc(&b, sizeof(float) * kStream);
        cudaMemset(x, 0, sizeof(float) * kBlocks * kThreads);
        cudaMemset(a, 0, sizeof(float) * kStream);
        cudaMemset(b, 0, sizeof(float) * kStream);
    }
    ~Window() {
        cudaFree(x);
        cudaFree(a);
        cudaFree(b);
    }
    Window(const Window&) = delete;
    Window& operator=(const Window&) = delete;
    // Even launches stream, odd ones compute: `kernels` launches.
    void run() const {
        for (int i = 0; i < kernels; ++i) {
            if (i % 2 == 0)
                stream<<<1056, 256>>>(a, b, kStream);
            else
                work<<<kBlocks, kThreads>>>(x, fmasOf(i));
        }
        cudaDeviceSynchronize();
    }
    std::vector<char> state() const {
        std::vector<char> s(sizeof(float) * (kBlocks * kThreads + kStream));
        cudaMemcpy(s.data(), x, sizeof(float) * kBlocks * kThreads, cudaMemcpyDeviceToHost);
        cudaMemcpy(s.data() + sizeof(float) * kBlocks * kThreads, b, sizeof(float) * kStream,
                   cudaMemcpyDeviceToHost);
        return s;
    }
};

double msSince(std::chrono::steady_clock::time_point t) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
}

void check(CUptiResult r, const char* what) {
    if (r != CUPTI_SUCCESS)
        throw std::runtime_error(std::string(what) + " failed: CUPTI error " +
                                 std::to_string(static_cast<int>(r)));
}

struct Measured {
    std::vector<std::vector<double>> ranges; // per range, the metrics' values
    double ms = 0;                           // the passes, the first Start apart
    double firstStartMs = 0;
    std::size_t passes = 0;
};

std::vector<std::vector<double>> evaluate(cupti::RangeProfiler& p, const cupti::Host& host,
                                          const std::vector<std::string>& metrics) {
    p.decode();
    std::vector<std::vector<double>> out;
    for (std::size_t r = 0; r < host.rangeCount(p.counterData()); ++r)
        out.push_back(host.evaluateValues(p.counterData(), r, metrics));
    return out;
}

// Kernel replay of the window's kernels (CUPTI saves and restores memory per kernel and pass).
Measured kernelReplay(void* context, const cupti::Host& host,
                      const std::vector<std::string>& metrics, const cupti::ConfigImage& image,
                      const Window& w) {
    Measured m;
    cupti::RangeProfiler p(context, {{metrics, image.bytes}}, static_cast<std::size_t>(w.kernels),
                           cupti::RangeMode::AutoKernelReplay);
    p.configure();
    auto t = std::chrono::steady_clock::now();
    p.start();
    m.firstStartMs = msSince(t);
    t = std::chrono::steady_clock::now();
    w.run();
    p.stop();
    m.ms = msSince(t);
    m.passes = image.passes;
    m.ranges = evaluate(p, host, metrics);
    return m;
}

// The window as design 0026 replays it.
Measured windowReplay(void* context, const cupti::Host& host,
                      const std::vector<std::string>& metrics, const cupti::ConfigImage& image,
                      const Window& w, bool& sameState, bool& samePasses, double& saveMs,
                      double& restoreMs, double& relaunchMs) {
    Measured m;
    cupti::RangeProfiler p(context, {{metrics, image.bytes}}, static_cast<std::size_t>(w.kernels),
                           cupti::RangeMode::AutoUserReplay);
    p.configure();
    CUcontext ctx = nullptr;
    cuCtxGetCurrent(&ctx);
    CUpti_Checkpoint before{CUpti_Checkpoint_STRUCT_SIZE};
    before.ctx = ctx;
    CUpti_Checkpoint after{CUpti_Checkpoint_STRUCT_SIZE};
    after.ctx = ctx;
    const auto began = std::chrono::steady_clock::now();
    auto t = began;
    check(NV::Cupti::Checkpoint::cuptiCheckpointSave(&before), "saving the state before");
    saveMs = msSince(t);
    gRecorded.clear();
    gCapturing = true;
    t = std::chrono::steady_clock::now();
    p.start(); // the object's first Start: paid once per run, timed apart
    m.firstStartMs = msSince(t);
    w.run(); // the program's own run: pass 0
    bool all = p.stop();
    gCapturing = false;
    m.passes = 1;
    const std::vector<char> own = w.state();
    t = std::chrono::steady_clock::now();
    check(NV::Cupti::Checkpoint::cuptiCheckpointSave(&after), "saving the state after");
    saveMs += msSince(t);
    samePasses = true;
    restoreMs = relaunchMs = 0;
    while (!all && m.passes < 64) {
        t = std::chrono::steady_clock::now();
        check(NV::Cupti::Checkpoint::cuptiCheckpointRestore(&before), "restoring");
        cudaDeviceSynchronize();
        restoreMs += msSince(t);
        t = std::chrono::steady_clock::now();
        p.start();
        relaunch();
        cudaDeviceSynchronize();
        all = p.stop();
        relaunchMs += msSince(t);
        ++m.passes;
        samePasses = samePasses && w.state() == own;
    }
    t = std::chrono::steady_clock::now();
    check(NV::Cupti::Checkpoint::cuptiCheckpointRestore(&after), "restoring the state after");
    cudaDeviceSynchronize();
    restoreMs += msSince(t);
    m.ms = msSince(began) - m.firstStartMs;
    sameState = w.state() == own;
    NV::Cupti::Checkpoint::cuptiCheckpointFree(&before);
    NV::Cupti::Checkpoint::cuptiCheckpointFree(&after);
    m.ranges = evaluate(p, host, metrics);
    return m;
}

std::size_t indexOf(const std::vector<std::string>& metrics, const char* name) {
    for (std::size_t i = 0; i < metrics.size(); ++i)
        if (metrics[i] == name)
            return i;
    throw std::runtime_error(std::string("metric not in the set: ") + name);
}

int run(int argc, char** argv) {
    int n = 48;
    std::vector<std::size_t> footprints = {64, 4096, 16384};
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!std::strcmp(argv[i], "--kernels"))
            n = std::max(2, std::atoi(argv[i + 1]));
        else if (!std::strcmp(argv[i], "--footprint-mb")) {
            footprints.clear();
            for (const std::string& s : bench_helpers::commaList(argv[i + 1]))
                footprints.push_back(std::strtoull(s.c_str(), nullptr, 10));
        }
    }
    cudaSetDevice(0);
    cudaFree(nullptr);
    void* context = nullptr;
    cupti::openDevice(0, &context);
    CUpti_SubscriberHandle sub = nullptr;
    check(cuptiSubscribe(&sub, reinterpret_cast<CUpti_CallbackFunc>(onLaunch), nullptr),
          "subscribing");
    for (CUpti_CallbackId id :
         {CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz})
        check(cuptiEnableCallback(1, sub, CUPTI_CB_DOMAIN_DRIVER_API, id), "enabling callbacks");
    cupti::initializeProfiler();
    const std::string chip = cupti::chipName(0);
    const cupti::Host host(chip);
    const std::vector<std::string> metrics =
        core::requiredMetrics(core::profileForChip(chip), roofline::MetricSet::Full);
    const cupti::ConfigImage image = host.configImage(metrics);
    const std::size_t ffma = indexOf(metrics, "sm__sass_thread_inst_executed_op_ffma_pred_on.sum");
    const std::size_t dram = indexOf(metrics, "dram__bytes.sum");
    std::printf("roofline-bench-window-replay: chip %s, %zu metrics in %zu passes, %d kernels a "
                "window (half of them FMA chains of known work, half streaming 2 x 64 MiB)\n",
                chip.c_str(), metrics.size(), image.passes, n);
    Window w(n);
    w.run(); // the module loaded before any profiler exists (design 0005)
    int failures = 0;
    for (const std::size_t mb : footprints) {
        void* ballast = nullptr;
        if (cudaMalloc(&ballast, mb << 20) != cudaSuccess) {
            std::printf("footprint %zu MB: not allocated, skipped\n", mb);
            continue;
        }
        cudaMemset(ballast, 1, mb << 20);
        bool sameState = false, samePasses = false;
        double saveMs = 0, restoreMs = 0, relaunchMs = 0;
        const Measured win = windowReplay(context, host, metrics, image, w, sameState, samePasses,
                                          saveMs, restoreMs, relaunchMs);
        const Measured ker = kernelReplay(context, host, metrics, image, w);
        std::size_t exact = 0, dramClose = 0;
        for (int i = 0; i < n && i < static_cast<int>(win.ranges.size()); ++i) {
            const double expected = i % 2 ? double(fmasOf(i)) * kBlocks * kThreads : 0.0;
            exact += win.ranges[i][ffma] == expected;
            const double k = i < static_cast<int>(ker.ranges.size()) ? ker.ranges[i][dram] : 0;
            dramClose += std::fabs(win.ranges[i][dram] - k) <= 0.05 * std::max(1.0, k);
        }
        const bool ok = win.ranges.size() == static_cast<std::size_t>(n) &&
                        exact == static_cast<std::size_t>(n) && sameState && samePasses;
        failures += ok ? 0 : 1;
        std::printf("footprint %zu MB: %zu ranges, FP32 FMAs exact on %zu of %d, DRAM bytes "
                    "within 5%% of kernel replay's on %zu; relaunched passes %s, state after %s; "
                    "%zu passes in %.1f ms = %.3f ms a kernel (saves %.1f ms, restores %.1f ms, "
                    "relaunched passes %.1f ms); kernel replay %.1f ms = %.3f ms a kernel; first "
                    "Starts %.0f / %.0f ms%s\n",
                    mb, win.ranges.size(), exact, n, dramClose,
                    samePasses ? "bitwise the program's" : "DIFFER",
                    sameState ? "bitwise the program's own" : "DIFFERS", win.passes, win.ms,
                    win.ms / n, saveMs, restoreMs, relaunchMs, ker.ms, ker.ms / n, win.firstStartMs,
                    ker.firstStartMs, ok ? "" : "  FAIL");
        cudaFree(ballast);
    }
    cuptiUnsubscribe(sub);
    cupti::deinitializeProfiler();
    cupti::releasePrimaryContext(0);
    return failures == 0 ? 0 : 1;
}

} // namespace

int main(int argc, char** argv) {
    return bench_helpers::guardedMain("roofline-bench-window-replay", run, argc, argv);
}
