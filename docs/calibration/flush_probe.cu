// Probe: can iteration replay give each kernel the cold L2 that Nsight Compute's
// `--cache-control all` gives it, by launching a flush kernel before each measured kernel inside
// an auto range + user replay pass (the flush kernels get ranges of their own, left out)? And are
// memsets and copies left out of the auto ranges? Raw CUDA and CUPTI, no libroofline.
//
// One iteration: write X (16 MiB), read X, copy A -> B (64 MiB), read X, memset C (4 MiB).
// The flush kernel reads a clean buffer twice the L2's size, so that the L2 ends up holding only
// clean lines of that buffer: the next kernel reads its data from DRAM and evicts nothing dirty.
//
//   flush_probe plain     the iteration 3 times, no CUPTI (run it under ncu: see below)
//   flush_probe noflush   auto range + user replay, one pass per iteration, per-range DRAM bytes
//   flush_probe flush     the same with the flush kernel before each kernel
//
// Build and run:
//   nvcc -std=c++17 -O2 -arch=sm_90 flush_probe.cu -o flush_probe -lcupti -lcuda
//   ./flush_probe noflush; ./flush_probe flush
//   ncu --cache-control all --metrics dram__bytes_read.sum,dram__bytes_write.sum ./flush_probe plain
#include <cuda.h>
#include <cuda_runtime.h>
#include <cupti.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_target.h>

#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#define CK(x)                                                                                      \
    do {                                                                                           \
        CUptiResult r_ = (x);                                                                      \
        if (r_ != CUPTI_SUCCESS) {                                                                 \
            const char* s = "";                                                                    \
            cuptiGetResultString(r_, &s);                                                          \
            std::printf("FAIL line %d %s: %s\n", __LINE__, #x, s);                                 \
            ok = false;                                                                            \
        }                                                                                          \
    } while (0)

__global__ void writeX(float4* x, int n) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        x[i] = make_float4(i, i + 1, i + 2, i + 3);
}
__global__ void readX(const float4* x, int n, float* out) {
    float s = 0;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        const float4 v = x[i];
        s += v.x + v.y + v.z + v.w;
    }
    if (s == -1.0f) // never: keeps the loads
        *out = s;
}
__global__ void copy(const float4* a, float4* b, int n) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        b[i] = a[i];
}
// Reads the flush buffer: the L2 is left holding its clean lines.
__global__ void flushL2(const float4* buffer, int n, float* out) {
    float s = 0;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        const float4 v = __ldcg(buffer + i);
        s += v.x;
    }
    if (s == -1.0f)
        *out = s;
}

int main(int argc, char** argv) {
    const std::string mode = argc > 1 ? argv[1] : "flush";
    bool ok = true;
    const int nX = (16 << 20) / 16, nA = (64 << 20) / 16;
    int l2 = 0;
    cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0);
    const int nFlush = 2 * l2 / 16;
    float4 *x, *a, *b, *flush;
    float *out, *c;
    cudaMalloc(&x, nX * 16);
    cudaMalloc(&a, nA * 16);
    cudaMalloc(&b, nA * 16);
    cudaMalloc(&c, 4 << 20);
    cudaMalloc(&flush, static_cast<size_t>(nFlush) * 16);
    cudaMalloc(&out, 4);
    cudaMemset(a, 1, nA * 16);
    cudaMemset(flush, 0, static_cast<size_t>(nFlush) * 16);
    cudaDeviceSynchronize();
    const bool flushing = mode == "flush";
    const auto f = [&] {
        if (flushing)
            flushL2<<<264, 1024>>>(flush, nFlush, out);
    };
    const auto iteration = [&] {
        f();
        writeX<<<264, 512>>>(x, nX);
        f();
        readX<<<264, 512>>>(x, nX, out);
        f();
        copy<<<264, 512>>>(a, b, nA);
        f();
        readX<<<264, 512>>>(x, nX, out);
        cudaMemsetAsync(c, 0, 4 << 20);
    };
    if (mode == "plain") {
        for (int i = 0; i < 3; ++i)
            iteration();
        cudaDeviceSynchronize();
        std::printf("plain: %s\n", cudaGetErrorString(cudaGetLastError()));
        return 0;
    }
    std::printf("L2 %d bytes, flush buffer %d MiB, mode %s\n", l2, nFlush * 16 >> 20,
                mode.c_str());
    CUcontext ctx;
    cuCtxGetCurrent(&ctx);
    CUpti_Profiler_Initialize_Params pi{CUpti_Profiler_Initialize_Params_STRUCT_SIZE};
    CK(cuptiProfilerInitialize(&pi));
    CUpti_Device_GetChipName_Params cn{CUpti_Device_GetChipName_Params_STRUCT_SIZE};
    cn.deviceIndex = 0;
    CK(cuptiDeviceGetChipName(&cn));
    std::vector<const char*> metrics = {"dram__bytes_read.sum", "dram__bytes_write.sum",
                                        "lts__t_bytes.sum", "gpu__time_duration.sum"};
    CUpti_Profiler_Host_Initialize_Params hi{CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE};
    hi.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
    hi.pChipName = cn.pChipName;
    CK(cuptiProfilerHostInitialize(&hi));
    CUpti_Profiler_Host_ConfigAddMetrics_Params am{
        CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE};
    am.pHostObject = hi.pHostObject;
    am.ppMetricNames = metrics.data();
    am.numMetrics = metrics.size();
    CK(cuptiProfilerHostConfigAddMetrics(&am));
    CUpti_Profiler_Host_GetConfigImageSize_Params cs{
        CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE};
    cs.pHostObject = hi.pHostObject;
    CK(cuptiProfilerHostGetConfigImageSize(&cs));
    std::vector<uint8_t> config(cs.configImageSize);
    CUpti_Profiler_Host_GetConfigImage_Params gc{
        CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE};
    gc.pHostObject = hi.pHostObject;
    gc.configImageSize = config.size();
    gc.pConfigImage = config.data();
    CK(cuptiProfilerHostGetConfigImage(&gc));
    CUpti_RangeProfiler_Enable_Params en{CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE};
    en.ctx = ctx;
    CK(cuptiRangeProfilerEnable(&en));
    const size_t ranges = 16;
    CUpti_RangeProfiler_GetCounterDataSize_Params ds{
        CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE};
    ds.pRangeProfilerObject = en.pRangeProfilerObject;
    ds.pMetricNames = metrics.data();
    ds.numMetrics = metrics.size();
    ds.maxNumOfRanges = ranges;
    ds.maxNumRangeTreeNodes = ranges * 2;
    CK(cuptiRangeProfilerGetCounterDataSize(&ds));
    std::vector<uint8_t> image(ds.counterDataSize);
    CUpti_RangeProfiler_CounterDataImage_Initialize_Params ci{
        CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE};
    ci.pRangeProfilerObject = en.pRangeProfilerObject;
    ci.counterDataSize = image.size();
    ci.pCounterData = image.data();
    CK(cuptiRangeProfilerCounterDataImageInitialize(&ci));
    CUpti_RangeProfiler_SetConfig_Params sc{CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE};
    sc.pRangeProfilerObject = en.pRangeProfilerObject;
    sc.configSize = config.size();
    sc.pConfig = config.data();
    sc.counterDataImageSize = image.size();
    sc.pCounterDataImage = image.data();
    sc.range = CUPTI_AutoRange;
    sc.replayMode = CUPTI_UserReplay;
    sc.maxRangesPerPass = ranges;
    sc.numNestingLevels = 1;
    sc.minNestingLevel = 1;
    sc.targetNestingLevel = 1;
    CK(cuptiRangeProfilerSetConfig(&sc));
    iteration(); // a warm-up iteration, unprofiled
    cudaDeviceSynchronize();
    int passes = 0;
    bool all = false;
    do {
        CUpti_RangeProfiler_Start_Params st{CUpti_RangeProfiler_Start_Params_STRUCT_SIZE};
        st.pRangeProfilerObject = en.pRangeProfilerObject;
        CK(cuptiRangeProfilerStart(&st));
        iteration();
        CUpti_RangeProfiler_Stop_Params sp{CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE};
        sp.pRangeProfilerObject = en.pRangeProfilerObject;
        CK(cuptiRangeProfilerStop(&sp));
        all = sp.isAllPassSubmitted;
        ++passes;
    } while (!all && passes < 20 && ok);
    CUpti_RangeProfiler_DecodeData_Params dd{CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE};
    dd.pRangeProfilerObject = en.pRangeProfilerObject;
    CK(cuptiRangeProfilerDecodeData(&dd));
    CUpti_RangeProfiler_GetCounterDataInfo_Params inf{
        CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE};
    inf.pCounterDataImage = image.data();
    inf.counterDataImageSize = image.size();
    CK(cuptiRangeProfilerGetCounterDataInfo(&inf));
    std::printf("%d passes, %zu ranges (kernels launched per iteration: %d), %zu dropped\n",
                passes, inf.numTotalRanges, flushing ? 8 : 4, dd.numOfRangeDropped);
    const char* names[] = {"writeX", "readX", "copy", "readX"};
    for (size_t r = 0; r < inf.numTotalRanges; ++r) {
        std::vector<double> v(metrics.size());
        CUpti_Profiler_Host_EvaluateToGpuValues_Params ev{
            CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE};
        ev.pHostObject = hi.pHostObject;
        ev.pCounterDataImage = image.data();
        ev.counterDataImageSize = image.size();
        ev.rangeIndex = r;
        ev.ppMetricNames = metrics.data();
        ev.numMetrics = metrics.size();
        ev.pMetricValues = v.data();
        CK(cuptiProfilerHostEvaluateToGpuValues(&ev));
        const bool hidden = flushing && r % 2 == 0;
        const size_t k = flushing ? r / 2 : r;
        std::printf("  range %zu %-8s dram read %12.0f write %12.0f  lts %12.0f  time %8.0f ns\n",
                    r, hidden ? "(flush)" : (k < 4 ? names[k] : "?"), v[0], v[1], v[2], v[3]);
    }
    CUpti_RangeProfiler_Disable_Params di{CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE};
    di.pRangeProfilerObject = en.pRangeProfilerObject;
    CK(cuptiRangeProfilerDisable(&di));
    std::printf("verdict: %s\n", ok && all ? "passes clean" : "FAILED");
    return ok ? 0 : 2;
}
