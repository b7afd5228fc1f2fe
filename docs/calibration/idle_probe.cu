// Probe: what each piece of CUPTI state left attached to a process costs per kernel launch, so
// that a profile that is complete can detach what costs. Raw CUDA and CUPTI, no libroofline.
//
// A launch-bound loop (empty kernels on one stream, the host waits at the end) is timed in each
// state, in this order and then back in reverse:
//   plain            nothing of CUPTI
//   subscribed       a callback subscriber with the launch callbacks on (what collecting does)
//   launches off     the same subscriber, launch callbacks off, module-load and graph callbacks on
//                    (what libroofline keeps once a profile is complete)
//   profiler init    + cuptiProfilerInitialize
//   profiler object  + a range profiler object on the context (not started)
//   object disabled  the object disabled again (cuptiRangeProfilerDisable)
//   deinitialized    cuptiProfilerDeInitialize
//   unsubscribed     cuptiUnsubscribe
//   finalized        cuptiFinalize
// Each state: 3 warm-up rounds, then 9 timed rounds of 20000 launches; the median per launch.
//
// Build and run: nvcc -std=c++17 -O2 -arch=sm_90 idle_probe.cu -o idle_probe -lcupti -lcuda
#include <cuda.h>
#include <cuda_runtime.h>
#include <cupti.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_target.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

#define CK(x)                                                                                      \
    do {                                                                                           \
        CUptiResult r_ = (x);                                                                      \
        if (r_ != CUPTI_SUCCESS) {                                                                 \
            const char* s = "";                                                                    \
            cuptiGetResultString(r_, &s);                                                          \
            std::printf("FAIL line %d %s: %s\n", __LINE__, #x, s);                                 \
        }                                                                                          \
    } while (0)

__global__ void empty(int* p) {
    if (p && threadIdx.x == 1024) // never: the kernel does nothing
        *p = 1;
}

namespace {

using Clock = std::chrono::steady_clock;
long gCallbacks = 0;

void CUPTIAPI onCallback(void*, CUpti_CallbackDomain, CUpti_CallbackId, const void*) {
    ++gCallbacks;
}

constexpr CUpti_CallbackId kLaunch[] = {
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel,         CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx,       CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch,          CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz,
};
constexpr CUpti_CallbackId kGraph[] = {
    CUPTI_DRIVER_TRACE_CBID_cuGraphInstantiate,
    CUPTI_DRIVER_TRACE_CBID_cuGraphInstantiateWithFlags,
    CUPTI_DRIVER_TRACE_CBID_cuGraphExecDestroy,
};

// Median microseconds per launch over 9 rounds of `n` launches (after 3 warm-up rounds).
double perLaunch(cudaStream_t s, int n) {
    std::vector<double> us;
    for (int round = 0; round < 12; ++round) {
        cudaStreamSynchronize(s);
        const auto t0 = Clock::now();
        for (int i = 0; i < n; ++i)
            empty<<<1, 32, 0, s>>>(nullptr);
        cudaStreamSynchronize(s);
        const double t = std::chrono::duration<double, std::micro>(Clock::now() - t0).count();
        if (round >= 3)
            us.push_back(t / n);
    }
    std::sort(us.begin(), us.end());
    return us[us.size() / 2];
}

} // namespace

int main() {
    cudaStream_t s;
    cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    cudaFree(nullptr);
    CUcontext ctx = nullptr;
    cuCtxGetCurrent(&ctx);
    const int n = 20000;
    struct Row {
        const char* state;
        double us;
    };
    std::vector<Row> rows;
    const auto measure = [&](const char* state) {
        rows.push_back({state, perLaunch(s, n)});
        std::printf("%-18s %.3f us per launch\n", state, rows.back().us);
        std::fflush(stdout);
    };
    for (int cycle = 0; cycle < 2; ++cycle) {
        measure("plain");
        CUpti_SubscriberHandle sub = nullptr;
        CK(cuptiSubscribe(&sub, onCallback, nullptr));
        for (CUpti_CallbackId id : kLaunch)
            CK(cuptiEnableCallback(1, sub, CUPTI_CB_DOMAIN_DRIVER_API, id));
        for (CUpti_CallbackId id : kGraph)
            CK(cuptiEnableCallback(1, sub, CUPTI_CB_DOMAIN_DRIVER_API, id));
        CK(cuptiEnableCallback(1, sub, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_MODULE_LOADED));
        measure("subscribed");
        for (CUpti_CallbackId id : kLaunch)
            CK(cuptiEnableCallback(0, sub, CUPTI_CB_DOMAIN_DRIVER_API, id));
        measure("launches off");
        CUpti_Profiler_Initialize_Params pi{CUpti_Profiler_Initialize_Params_STRUCT_SIZE};
        CK(cuptiProfilerInitialize(&pi));
        measure("profiler init");
        CUpti_RangeProfiler_Enable_Params en{CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE};
        en.ctx = ctx;
        CK(cuptiRangeProfilerEnable(&en));
        measure("profiler object");
        CUpti_RangeProfiler_Disable_Params di{CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE};
        di.pRangeProfilerObject = en.pRangeProfilerObject;
        CK(cuptiRangeProfilerDisable(&di));
        measure("object disabled");
        CUpti_Profiler_DeInitialize_Params pd{CUpti_Profiler_DeInitialize_Params_STRUCT_SIZE};
        CK(cuptiProfilerDeInitialize(&pd));
        measure("deinitialized");
        CK(cuptiUnsubscribe(sub));
        measure("unsubscribed");
        CK(cuptiFinalize());
        measure("finalized");
    }
    std::printf("callbacks seen: %ld\n", gCallbacks);
    std::printf("\nstate               median us per launch (cycle 1, cycle 2)\n");
    const std::size_t k = rows.size() / 2;
    for (std::size_t i = 0; i < k; ++i)
        std::printf("%-18s %.3f %.3f\n", rows[i].state, rows[i].us, rows[i + k].us);
    return 0;
}
