// One-off probe of the range-profiler behaviours the collector relies on (kept for
// reproducibility; docs/design/0002-collector.md cites its output). Raw CUPTI, no libroofline.
//   A: kernel replay, Stop/Decode/re-initialize/SetConfig/Start from inside a launch callback
//      (image swap when full), and Stop/Start inside callbacks to leave one kernel out.
//   B: auto range + user replay over loop iterations, then the same image re-initialized for a
//      second group.
//   C: user range + user replay, two nesting levels: range names and pass count.
//   D: cost per kernel of each mode on many small kernels, 21-metric roofline set.
// Build and run: nvcc -std=c++17 -O2 -arch=sm_90 replay_probe.cu -o replay_probe -lcupti -lcuda
#include <cuda.h>
#include <cuda_runtime.h>
#include <cupti.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_target.h>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>
#define CK(x) do { CUptiResult r_ = (x); if (r_ != CUPTI_SUCCESS) { const char* s; cuptiGetResultString(r_, &s); printf("FAIL line %d %s: %s\n", __LINE__, #x, s); } } while (0)
__global__ void ffma(float* out, int n) { float a = threadIdx.x, b = a + 1;
  for (int i = 0; i < n; ++i) { a = fmaf(a, 1.0001f, 0.5f); b = fmaf(b, 0.9999f, 0.5f); }
  out[blockIdx.x * blockDim.x + threadIdx.x] = a + b; }
using clk = std::chrono::steady_clock;
static double ms(clk::time_point a) { return std::chrono::duration<double, std::milli>(clk::now() - a).count(); }

struct Prof {
  std::vector<const char*> metrics; std::vector<uint8_t> config, cdi; CUpti_Profiler_Host_Object* host = nullptr;
  CUpti_RangeProfiler_Object* obj = nullptr; size_t ranges = 0;
  void init(CUcontext ctx, const char* chip, std::vector<const char*> m, size_t maxRanges) {
    metrics = m; ranges = maxRanges;
    CUpti_Profiler_Host_Initialize_Params hi{CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE}; hi.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER; hi.pChipName = chip; CK(cuptiProfilerHostInitialize(&hi)); host = hi.pHostObject;
    CUpti_Profiler_Host_ConfigAddMetrics_Params am{CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE}; am.pHostObject = host; am.ppMetricNames = metrics.data(); am.numMetrics = metrics.size(); CK(cuptiProfilerHostConfigAddMetrics(&am));
    CUpti_Profiler_Host_GetConfigImageSize_Params cs{CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE}; cs.pHostObject = host; CK(cuptiProfilerHostGetConfigImageSize(&cs)); config.resize(cs.configImageSize);
    CUpti_Profiler_Host_GetConfigImage_Params gc{CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE}; gc.pHostObject = host; gc.configImageSize = config.size(); gc.pConfigImage = config.data(); CK(cuptiProfilerHostGetConfigImage(&gc));
    CUpti_Profiler_Host_GetNumOfPasses_Params np{CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE}; np.configImageSize = config.size(); np.pConfigImage = config.data(); CK(cuptiProfilerHostGetNumOfPasses(&np));
    printf("  %zu metrics, %zu passes\n", metrics.size(), np.numOfPasses);
    CUpti_RangeProfiler_Enable_Params en{CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE}; en.ctx = ctx; CK(cuptiRangeProfilerEnable(&en)); obj = en.pRangeProfilerObject;
    CUpti_RangeProfiler_GetCounterDataSize_Params ds{CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE}; ds.pRangeProfilerObject = obj; ds.pMetricNames = metrics.data(); ds.numMetrics = metrics.size(); ds.maxNumOfRanges = ranges; ds.maxNumRangeTreeNodes = ranges * 2; CK(cuptiRangeProfilerGetCounterDataSize(&ds));
    cdi.resize(ds.counterDataSize);
  }
  void configure(CUpti_ProfilerRange range, CUpti_ProfilerReplayMode replay, uint16_t levels) {
    CUpti_RangeProfiler_CounterDataImage_Initialize_Params ci{CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE}; ci.pRangeProfilerObject = obj; ci.counterDataSize = cdi.size(); ci.pCounterData = cdi.data(); CK(cuptiRangeProfilerCounterDataImageInitialize(&ci));
    CUpti_RangeProfiler_SetConfig_Params sc{CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE}; sc.pRangeProfilerObject = obj; sc.configSize = config.size(); sc.pConfig = config.data(); sc.counterDataImageSize = cdi.size(); sc.pCounterDataImage = cdi.data(); sc.range = range; sc.replayMode = replay; sc.maxRangesPerPass = ranges; sc.numNestingLevels = levels; sc.minNestingLevel = 1; sc.passIndex = 0; sc.targetNestingLevel = 1; CK(cuptiRangeProfilerSetConfig(&sc));
  }
  void start() { CUpti_RangeProfiler_Start_Params p{CUpti_RangeProfiler_Start_Params_STRUCT_SIZE}; p.pRangeProfilerObject = obj; CK(cuptiRangeProfilerStart(&p)); }
  bool stop() { CUpti_RangeProfiler_Stop_Params p{CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE}; p.pRangeProfilerObject = obj; CK(cuptiRangeProfilerStop(&p)); return p.isAllPassSubmitted; }
  void push(const char* n) { CUpti_RangeProfiler_PushRange_Params p{CUpti_RangeProfiler_PushRange_Params_STRUCT_SIZE}; p.pRangeProfilerObject = obj; p.pRangeName = n; CK(cuptiRangeProfilerPushRange(&p)); }
  void pop() { CUpti_RangeProfiler_PopRange_Params p{CUpti_RangeProfiler_PopRange_Params_STRUCT_SIZE}; p.pRangeProfilerObject = obj; CK(cuptiRangeProfilerPopRange(&p)); }
  size_t decode() { CUpti_RangeProfiler_DecodeData_Params d{CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE}; d.pRangeProfilerObject = obj; CK(cuptiRangeProfilerDecodeData(&d)); return d.numOfRangeDropped; }
  size_t count() { CUpti_RangeProfiler_GetCounterDataInfo_Params inf{CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE}; inf.pCounterDataImage = cdi.data(); inf.counterDataImageSize = cdi.size(); CK(cuptiRangeProfilerGetCounterDataInfo(&inf)); return inf.numTotalRanges; }
  void print(const char* what, bool values = true) {
    size_t n = count(); printf("  %s: %zu ranges\n", what, n);
    for (size_t r = 0; r < n && values; ++r) {
      CUpti_RangeProfiler_CounterData_GetRangeInfo_Params ri{CUpti_RangeProfiler_CounterData_GetRangeInfo_Params_STRUCT_SIZE}; ri.pCounterDataImage = cdi.data(); ri.counterDataImageSize = cdi.size(); ri.rangeIndex = r; ri.rangeDelimiter = "/"; CK(cuptiRangeProfilerCounterDataGetRangeInfo(&ri));
      std::vector<double> v(metrics.size());
      CUpti_Profiler_Host_EvaluateToGpuValues_Params ev{CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE}; ev.pHostObject = host; ev.pCounterDataImage = cdi.data(); ev.counterDataImageSize = cdi.size(); ev.rangeIndex = r; ev.ppMetricNames = metrics.data(); ev.numMetrics = metrics.size(); ev.pMetricValues = v.data(); CK(cuptiProfilerHostEvaluateToGpuValues(&ev));
      printf("    range %zu '%s' ffma=%.0f cycles=%.0f\n", r, ri.rangeName, v[1], v[0]);
    }
  }
  void disable() { CUpti_RangeProfiler_Disable_Params di{CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE}; di.pRangeProfilerObject = obj; CK(cuptiRangeProfilerDisable(&di));
    CUpti_Profiler_Host_Deinitialize_Params hd{CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE}; hd.pHostObject = host; CK(cuptiProfilerHostDeinitialize(&hd)); }
};

static Prof* gProf = nullptr; static int gLaunch = 0;
static void CUPTIAPI onLaunch(void*, CUpti_CallbackDomain d, CUpti_CallbackId id, const void* raw) {
  auto* info = static_cast<const CUpti_CallbackData*>(raw);
  if (d != CUPTI_CB_DOMAIN_DRIVER_API || info->callbackSite != CUPTI_API_ENTER || !gProf) return;
  if (id != CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel && id != CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz) return;
  int k = gLaunch++;
  if (k == 2) { // swap images inside the callback
    gProf->stop(); size_t dropped = gProf->decode(); printf("  [callback] swap before launch 2: dropped %zu\n", dropped);
    gProf->print("image 1 (expect launches 0,1: ffma 2*G*B*n for n=1000,2000)");
    gProf->configure(CUPTI_AutoRange, CUPTI_KernelReplay, 1); gProf->start();
  }
  if (k == 4) { gProf->stop(); printf("  [callback] stop before launch 4 (left out)\n"); }
  if (k == 5) { gProf->start(); printf("  [callback] start before launch 5\n"); }
}

int main() {
  cudaSetDevice(0); cudaFree(0); CUcontext ctx; cuCtxGetCurrent(&ctx);
  CUpti_Profiler_Initialize_Params pi{CUpti_Profiler_Initialize_Params_STRUCT_SIZE}; CK(cuptiProfilerInitialize(&pi));
  CUpti_Device_GetChipName_Params cn{CUpti_Device_GetChipName_Params_STRUCT_SIZE}; cn.deviceIndex = 0; CK(cuptiDeviceGetChipName(&cn));
  std::string chip = cn.pChipName; printf("chip %s\n", chip.c_str());
  const int G = 132, B = 128; float* out; cudaMalloc(&out, G * B * 4 * 8);
  printf("expected ffma per launch = %d * n\n", 2 * G * B);
  std::vector<const char*> small = {"sm__cycles_elapsed.avg", "sm__sass_thread_inst_executed_op_ffma_pred_on.sum", "dram__bytes.sum"};
  std::vector<const char*> full = {"sm__cycles_elapsed.avg", "sm__sass_thread_inst_executed_op_ffma_pred_on.sum", "sm__cycles_elapsed.avg.per_second", "gpu__time_duration.sum",
    "sm__sass_thread_inst_executed_op_dadd_pred_on.sum", "sm__sass_thread_inst_executed_op_dmul_pred_on.sum", "sm__sass_thread_inst_executed_op_dfma_pred_on.sum",
    "sm__sass_thread_inst_executed_op_fadd_pred_on.sum", "sm__sass_thread_inst_executed_op_fmul_pred_on.sum",
    "sm__sass_thread_inst_executed_op_hadd_pred_on.sum", "sm__sass_thread_inst_executed_op_hmul_pred_on.sum", "sm__sass_thread_inst_executed_op_hfma_pred_on.sum",
    "l1tex__t_bytes.sum", "lts__t_bytes.sum", "dram__bytes.sum",
    "sm__ops_path_tensor_src_fp16.sum", "sm__ops_path_tensor_src_bf16_dst_fp32.sum", "sm__ops_path_tensor_src_tf32_dst_fp32.sum",
    "sm__ops_path_tensor_src_fp64.sum", "sm__ops_path_tensor_src_fp8.sum", "sm__ops_path_tensor_src_int8.sum"};

  printf("A: kernel replay, swap/stop/start inside launch callbacks\n");
  { Prof p; p.init(ctx, chip.c_str(), small, 8); p.configure(CUPTI_AutoRange, CUPTI_KernelReplay, 1);
    CUpti_SubscriberHandle sub; CK(cuptiSubscribe(&sub, (CUpti_CallbackFunc)onLaunch, nullptr)); CK(cuptiEnableDomain(1, sub, CUPTI_CB_DOMAIN_DRIVER_API));
    gProf = &p; p.start();
    for (int k = 0; k < 7; ++k) ffma<<<G, B>>>(out, 1000 * (k + 1));
    p.stop(); gProf = nullptr; printf("  dropped %zu\n", p.decode());
    p.print("image 2 (expect launches 2,3,5,6: n=3000,4000,6000,7000)");
    cudaError_t e = cudaDeviceSynchronize(); printf("  cuda status %s\n", cudaGetErrorString(e));
    CK(cuptiUnsubscribe(sub)); p.disable(); }

  printf("B: auto range + user replay, two groups on one image\n");
  { Prof p; p.init(ctx, chip.c_str(), small, 8);
    for (int g = 0; g < 2; ++g) { p.configure(CUPTI_AutoRange, CUPTI_UserReplay, 1); int it = 0; bool all = false;
      do { p.start(); for (int k = 0; k < 3; ++k) ffma<<<G, B>>>(out, 1000 * (k + 1 + 3 * g)); all = p.stop(); ++it; } while (!all && it < 50);
      printf("  group %d: %d iterations, dropped %zu\n", g, it, p.decode()); p.print(g ? "group 1 (n=4000,5000,6000)" : "group 0 (n=1000,2000,3000)"); }
    p.disable(); }

  printf("C: user range + user replay, 2 nesting levels\n");
  { Prof p; p.init(ctx, chip.c_str(), small, 8); p.configure(CUPTI_UserRange, CUPTI_UserReplay, 2); int it = 0; bool all = false;
    do { p.start(); p.push("step"); p.push("a"); ffma<<<G, B>>>(out, 1000); p.pop(); p.push("b"); ffma<<<G, B>>>(out, 2000); ffma<<<G, B>>>(out, 3000); p.pop(); p.pop(); all = p.stop(); ++it; } while (!all && it < 50);
    printf("  %d iterations, dropped %zu\n", it, p.decode()); p.print("step=6000 a=1000 b=5000 (x2*G*B)"); p.disable(); }

  printf("D: cost per kernel, 21 metrics, 256 small kernels per iteration\n");
  const int K = 256;
  auto region = [&]() { for (int k = 0; k < K; ++k) ffma<<<G, B>>>(out, 64); };
  { auto t = clk::now(); for (int r = 0; r < 10; ++r) region(); cudaDeviceSynchronize(); printf("  unprofiled: %.4f ms/kernel\n", ms(t) / (10 * K)); }
  { Prof p; p.init(ctx, chip.c_str(), full, K); p.configure(CUPTI_AutoRange, CUPTI_KernelReplay, 1);
    auto t = clk::now(); p.start(); for (int k = 0; k < 64; ++k) ffma<<<G, B>>>(out, 64); p.stop(); p.decode(); cudaDeviceSynchronize(); printf("  kernel replay: %.3f ms/kernel (64 kernels incl. first use)\n", ms(t) / 64);
    t = clk::now(); p.configure(CUPTI_AutoRange, CUPTI_KernelReplay, 1); p.start(); for (int k = 0; k < 64; ++k) ffma<<<G, B>>>(out, 64); p.stop(); p.decode(); printf("  kernel replay again: %.3f ms/kernel\n", ms(t) / 64); p.disable(); }
  { Prof p; p.init(ctx, chip.c_str(), full, K);
    for (int rep = 0; rep < 2; ++rep) { auto t = clk::now(); p.configure(CUPTI_AutoRange, CUPTI_UserReplay, 1); int it = 0; bool all = false;
      do { p.start(); region(); all = p.stop(); ++it; } while (!all && it < 50);
      double run = ms(t); auto t2 = clk::now(); size_t dr = p.decode(); double dec = ms(t2); t2 = clk::now(); p.print("auto/user", false);
      std::vector<double> v(p.metrics.size()); for (size_t r = 0; r < (size_t)K; ++r) { CUpti_Profiler_Host_EvaluateToGpuValues_Params ev{CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE}; ev.pHostObject = p.host; ev.pCounterDataImage = p.cdi.data(); ev.counterDataImageSize = p.cdi.size(); ev.rangeIndex = r; ev.ppMetricNames = p.metrics.data(); ev.numMetrics = p.metrics.size(); ev.pMetricValues = v.data(); CK(cuptiProfilerHostEvaluateToGpuValues(&ev)); }
      printf("  auto range + user replay: %d iterations, %.3f ms/kernel run, decode %.1f ms, evaluate %.3f ms/range, dropped %zu, image %zu MB\n", it, run / K, dec, ms(t2) / K, dr, p.cdi.size() >> 20); }
    p.disable(); }
  { Prof p; p.init(ctx, chip.c_str(), full, 4);
    auto t = clk::now(); p.configure(CUPTI_UserRange, CUPTI_UserReplay, 1); int it = 0; bool all = false;
    do { p.start(); p.push("step"); region(); p.pop(); all = p.stop(); ++it; } while (!all && it < 50);
    double run = ms(t); p.decode(); p.print("user/user", false); printf("  user range + user replay: %d iterations, %.3f ms/kernel amortized\n", it, run / K); p.disable(); }
  return 0;
}
