// One-off calibration probe (kept for reproducibility; see docs/methodology.md).
// Runs countable kernels under CUPTI auto-range + kernel replay and prints raw metric values.
#include <cuda.h>
#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <mma.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_target.h>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>
using namespace nvcuda;
#define CK(x) do { CUptiResult r_ = (x); if (r_ != CUPTI_SUCCESS) { const char* s; cuptiGetResultString(r_, &s); printf("FAIL %s: %s\n", #x, s); exit(1);} } while (0)
#define CC(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("CUDA FAIL %s: %s\n", #x, cudaGetErrorString(e_)); exit(1);} } while (0)
constexpr int N = 1024;
__global__ void ffma(float* out, float b, float c) { float a0 = threadIdx.x, a1 = a0 + 1, a2 = a0 + 2, a3 = a0 + 3;
  for (int i = 0; i < N; ++i) { a0 = fmaf(a0, b, c); a1 = fmaf(a1, b, c); a2 = fmaf(a2, b, c); a3 = fmaf(a3, b, c); }
  out[blockIdx.x * blockDim.x + threadIdx.x] = a0 + a1 + a2 + a3; }
__global__ void dfma(double* out, double b, double c) { double a0 = threadIdx.x, a1 = a0 + 1, a2 = a0 + 2, a3 = a0 + 3;
  for (int i = 0; i < N; ++i) { a0 = fma(a0, b, c); a1 = fma(a1, b, c); a2 = fma(a2, b, c); a3 = fma(a3, b, c); }
  out[blockIdx.x * blockDim.x + threadIdx.x] = a0 + a1 + a2 + a3; }
__global__ void hfma2k(__half2* out, __half2 b, __half2 c) { __half2 a0 = __half2half2(__int2half_rn(threadIdx.x)), a1 = a0, a2 = a0, a3 = a0;
  for (int i = 0; i < N; ++i) { a0 = __hfma2(a0, b, c); a1 = __hfma2(a1, b, c); a2 = __hfma2(a2, b, c); a3 = __hfma2(a3, b, c); }
  out[blockIdx.x * blockDim.x + threadIdx.x] = __hadd2(__hadd2(a0, a1), __hadd2(a2, a3)); }
__global__ void hfma1k(__half* out, __half b, __half c) { __half a0 = __int2half_rn(threadIdx.x), a1 = a0, a2 = a0, a3 = a0;
  for (int i = 0; i < N; ++i) { a0 = __hfma(a0, b, c); a1 = __hfma(a1, b, c); a2 = __hfma(a2, b, c); a3 = __hfma(a3, b, c); }
  out[blockIdx.x * blockDim.x + threadIdx.x] = __hadd(__hadd(a0, a1), __hadd(a2, a3)); }
template <typename T, int M, int NN, int K, typename Acc>
__global__ void mmak(const T* a, const T* b, Acc* c) {
  wmma::fragment<wmma::matrix_a, M, NN, K, T, wmma::row_major> fa; wmma::fragment<wmma::matrix_b, M, NN, K, T, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, M, NN, K, Acc> fc; wmma::fill_fragment(fc, Acc(0));
  wmma::load_matrix_sync(fa, a, K); wmma::load_matrix_sync(fb, b, K);
  for (int i = 0; i < 256; ++i) wmma::mma_sync(fc, fa, fb, fc);
  wmma::store_matrix_sync(c + (blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32) * M * NN, fc, NN, wmma::mem_row_major); }
__global__ void tf32k(const float* a, const float* b, float* c) {
  wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> fa; wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 8, float> fc; wmma::fill_fragment(fc, 0.f);
  wmma::load_matrix_sync(fa, a, 8); wmma::load_matrix_sync(fb, b, 8);
  for (int i = 0; i < 256; ++i) wmma::mma_sync(fc, fa, fb, fc);
  wmma::store_matrix_sync(c + (blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32) * 256, fc, 16, wmma::mem_row_major); }
__global__ void copyk(const float4* in, float4* out, size_t n) { for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) out[i] = in[i]; }

int main(int argc, char** argv) {
  std::vector<const char*> metrics = {"sm__cycles_elapsed.avg", "sm__cycles_elapsed.avg.per_second", "gpu__time_duration.sum",
    "sm__sass_thread_inst_executed_op_dadd_pred_on.sum", "sm__sass_thread_inst_executed_op_dmul_pred_on.sum", "sm__sass_thread_inst_executed_op_dfma_pred_on.sum",
    "sm__sass_thread_inst_executed_op_fadd_pred_on.sum", "sm__sass_thread_inst_executed_op_fmul_pred_on.sum", "sm__sass_thread_inst_executed_op_ffma_pred_on.sum",
    "sm__sass_thread_inst_executed_op_hadd_pred_on.sum", "sm__sass_thread_inst_executed_op_hmul_pred_on.sum", "sm__sass_thread_inst_executed_op_hfma_pred_on.sum",
    "l1tex__t_bytes.sum", "lts__t_bytes.sum", "dram__bytes.sum", "sm__inst_executed_pipe_tensor.sum",
    "sm__ops_path_tensor_src_fp16.sum", "sm__ops_path_tensor_src_bf16_dst_fp32.sum", "sm__ops_path_tensor_src_tf32_dst_fp32.sum",
    "sm__ops_path_tensor_src_fp64.sum", "sm__ops_path_tensor_src_fp8.sum", "sm__ops_path_tensor_src_int8.sum"};
  CC(cudaSetDevice(0)); CC(cudaFree(0)); CUcontext ctx; cuCtxGetCurrent(&ctx);
  CUpti_Profiler_Initialize_Params pi{CUpti_Profiler_Initialize_Params_STRUCT_SIZE}; CK(cuptiProfilerInitialize(&pi));
  CUpti_Device_GetChipName_Params cn{CUpti_Device_GetChipName_Params_STRUCT_SIZE}; cn.deviceIndex = 0; CK(cuptiDeviceGetChipName(&cn));
  printf("chip %s\n", cn.pChipName);
  CUpti_Profiler_Host_Initialize_Params hi{CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE}; hi.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER; hi.pChipName = cn.pChipName;
  CK(cuptiProfilerHostInitialize(&hi));
  CUpti_Profiler_Host_ConfigAddMetrics_Params am{CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE}; am.pHostObject = hi.pHostObject; am.ppMetricNames = metrics.data(); am.numMetrics = metrics.size(); CK(cuptiProfilerHostConfigAddMetrics(&am));
  CUpti_Profiler_Host_GetConfigImageSize_Params cs{CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE}; cs.pHostObject = hi.pHostObject; CK(cuptiProfilerHostGetConfigImageSize(&cs));
  std::vector<uint8_t> config(cs.configImageSize);
  CUpti_Profiler_Host_GetConfigImage_Params gc{CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE}; gc.pHostObject = hi.pHostObject; gc.configImageSize = config.size(); gc.pConfigImage = config.data(); CK(cuptiProfilerHostGetConfigImage(&gc));
  CUpti_Profiler_Host_GetNumOfPasses_Params np{CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE}; np.configImageSize = config.size(); np.pConfigImage = config.data(); CK(cuptiProfilerHostGetNumOfPasses(&np));
  printf("passes %zu for %zu metrics\n", np.numOfPasses, metrics.size());
  CUpti_RangeProfiler_Enable_Params en{CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE}; en.ctx = ctx; CK(cuptiRangeProfilerEnable(&en));
  const size_t kRanges = 16;
  CUpti_RangeProfiler_GetCounterDataSize_Params ds{CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE}; ds.pRangeProfilerObject = en.pRangeProfilerObject; ds.pMetricNames = metrics.data(); ds.numMetrics = metrics.size(); ds.maxNumOfRanges = kRanges; ds.maxNumRangeTreeNodes = kRanges; CK(cuptiRangeProfilerGetCounterDataSize(&ds));
  std::vector<uint8_t> cdi(ds.counterDataSize); printf("counter data %zu bytes for %zu ranges\n", cdi.size(), kRanges);
  CUpti_RangeProfiler_CounterDataImage_Initialize_Params ci{CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE}; ci.pRangeProfilerObject = en.pRangeProfilerObject; ci.counterDataSize = cdi.size(); ci.pCounterData = cdi.data(); CK(cuptiRangeProfilerCounterDataImageInitialize(&ci));
  CUpti_RangeProfiler_SetConfig_Params sc{CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE}; sc.pRangeProfilerObject = en.pRangeProfilerObject; sc.configSize = config.size(); sc.pConfig = config.data(); sc.counterDataImageSize = cdi.size(); sc.pCounterDataImage = cdi.data(); sc.range = CUPTI_AutoRange; sc.replayMode = CUPTI_KernelReplay; sc.maxRangesPerPass = kRanges; sc.numNestingLevels = 1; sc.minNestingLevel = 1; CK(cuptiRangeProfilerSetConfig(&sc));
  // buffers
  const int G = 528, B = 256; float* fo; double* dout; __half2* h2; __half* h1; CC(cudaMalloc(&fo, G * B * 4)); CC(cudaMalloc(&dout, G * B * 8)); CC(cudaMalloc(&h2, G * B * 4)); CC(cudaMalloc(&h1, G * B * 2));
  void *ma, *mb, *mc; CC(cudaMalloc(&ma, 1 << 20)); CC(cudaMalloc(&mb, 1 << 20)); CC(cudaMalloc(&mc, 64 << 20)); CC(cudaMemset(ma, 0, 1 << 20)); CC(cudaMemset(mb, 0, 1 << 20));
  size_t cn4 = (256u << 20) / 16; float4 *ci4, *co4; CC(cudaMalloc(&ci4, cn4 * 16)); CC(cudaMalloc(&co4, cn4 * 16)); CC(cudaMemset(ci4, 1, cn4 * 16));
  CC(cudaDeviceSynchronize());
  auto t0 = std::chrono::steady_clock::now();
  CUpti_RangeProfiler_Start_Params st{CUpti_RangeProfiler_Start_Params_STRUCT_SIZE}; st.pRangeProfilerObject = en.pRangeProfilerObject; CK(cuptiRangeProfilerStart(&st));
  const int MG = 132, MB = 128; // 4 warps per block
  ffma<<<G, B>>>(fo, 1.0001f, 0.5f);                                           // 0
  dfma<<<G, B>>>(dout, 1.0001, 0.5);                                           // 1
  hfma2k<<<G, B>>>(h2, __float2half2_rn(1.f), __float2half2_rn(0.f));         // 2
  hfma1k<<<G, B>>>(h1, __float2half(1.f), __float2half(0.f));                  // 3
  mmak<__half, 16, 16, 16, float><<<MG, MB>>>((__half*)ma, (__half*)mb, (float*)mc);          // 4 fp16->fp32
  mmak<__half, 16, 16, 16, __half><<<MG, MB>>>((__half*)ma, (__half*)mb, (__half*)mc);        // 5 fp16->fp16
  mmak<__nv_bfloat16, 16, 16, 16, float><<<MG, MB>>>((__nv_bfloat16*)ma, (__nv_bfloat16*)mb, (float*)mc); // 6 bf16
  tf32k<<<MG, MB>>>((float*)ma, (float*)mb, (float*)mc);                                     // 7 tf32
  mmak<double, 8, 8, 4, double><<<MG, MB>>>((double*)ma, (double*)mb, (double*)mc);          // 8 fp64
  copyk<<<G * 4, 256>>>(ci4, co4, cn4);                                                      // 9 copy 256 MiB
  CC(cudaGetLastError());
  CUpti_RangeProfiler_Stop_Params sp{CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE}; sp.pRangeProfilerObject = en.pRangeProfilerObject; CK(cuptiRangeProfilerStop(&sp));
  printf("allPassSubmitted %d\n", sp.isAllPassSubmitted);
  CUpti_RangeProfiler_DecodeData_Params dd{CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE}; dd.pRangeProfilerObject = en.pRangeProfilerObject; CK(cuptiRangeProfilerDecodeData(&dd));
  auto t1 = std::chrono::steady_clock::now(); printf("profiled region %.1f ms, dropped %zu\n", std::chrono::duration<double, std::milli>(t1 - t0).count(), dd.numOfRangeDropped);
  CUpti_RangeProfiler_GetCounterDataInfo_Params inf{CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE}; inf.pCounterDataImage = cdi.data(); inf.counterDataImageSize = cdi.size(); CK(cuptiRangeProfilerGetCounterDataInfo(&inf));
  printf("ranges %zu\n", inf.numTotalRanges);
  const char* names[] = {"ffma", "dfma", "hfma2", "hfma1", "wmma_f16f32", "wmma_f16f16", "wmma_bf16", "wmma_tf32", "wmma_f64", "copy256MiB"};
  for (size_t r = 0; r < inf.numTotalRanges; ++r) {
    CUpti_RangeProfiler_CounterData_GetRangeInfo_Params ri{CUpti_RangeProfiler_CounterData_GetRangeInfo_Params_STRUCT_SIZE}; ri.pCounterDataImage = cdi.data(); ri.counterDataImageSize = cdi.size(); ri.rangeIndex = r; ri.rangeDelimiter = "/"; CK(cuptiRangeProfilerCounterDataGetRangeInfo(&ri));
    std::vector<double> v(metrics.size());
    CUpti_Profiler_Host_EvaluateToGpuValues_Params ev{CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE}; ev.pHostObject = hi.pHostObject; ev.pCounterDataImage = cdi.data(); ev.counterDataImageSize = cdi.size(); ev.rangeIndex = r; ev.ppMetricNames = metrics.data(); ev.numMetrics = metrics.size(); ev.pMetricValues = v.data(); CK(cuptiProfilerHostEvaluateToGpuValues(&ev));
    printf("range %zu name '%s' (%s)\n", r, ri.rangeName, r < 10 ? names[r] : "?");
    for (size_t m = 0; m < metrics.size(); ++m) if (v[m] != 0) printf("   %-52s %.6g\n", metrics[m], v[m]);
  }
  printf("expected: ffma/dfma/hfma thread-inst %d each; wmma per kernel mma_sync calls %d (warps) x 256\n", G * B * N * 4, MG * 4);
  // save images for inspection
  if (argc > 1) { std::string d = argv[1]; FILE* f = fopen((d + "/config.bin").c_str(), "wb"); fwrite(config.data(), 1, config.size(), f); fclose(f);
    f = fopen((d + "/counterdata.bin").c_str(), "wb"); fwrite(cdi.data(), 1, cdi.size(), f); fclose(f); }
  CUpti_RangeProfiler_Disable_Params di{CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE}; di.pRangeProfilerObject = en.pRangeProfilerObject; CK(cuptiRangeProfilerDisable(&di));
  return 0;
}
