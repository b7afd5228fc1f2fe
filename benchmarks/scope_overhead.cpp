// The ProfileScope hot path and the cost libroofline's NVTX listener adds to an application's own
// NVTX calls, with no Session active (google-benchmark). Built twice: as is, and with
// ROOFLINE_DISABLED (the compile-time switch), where ProfileScope must cost nothing.
#include <roofline/profile_scope.hpp>

#include <benchmark/benchmark.h>
#include <nvtx3/nvToolsExt.h>

static void BM_ProfileScopeNoSession(benchmark::State& state) {
    for (auto _ : state) {
        roofline::ProfileScope scope{"step"};
        benchmark::ClobberMemory();
    }
}
BENCHMARK(BM_ProfileScopeNoSession);

#if !defined(ROOFLINE_DISABLED)
static void BM_AppNvtxPushPopNoSession(benchmark::State& state) {
    for (auto _ : state) {
        nvtxRangePushA("step");
        nvtxRangePop();
    }
}
BENCHMARK(BM_AppNvtxPushPopNoSession);
#endif

BENCHMARK_MAIN();
