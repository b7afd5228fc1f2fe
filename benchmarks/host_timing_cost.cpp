// What host timing adds to a scope: HostTimes' push and pop of one nested scope
// instance, in each mode, and the two clocks it reads (google-benchmark; no GPU needed). The
// target is 100 ns per scope for the timing on the host path.
#include "scopes/host_timing.hpp"

#include <benchmark/benchmark.h>

using roofline::HostTiming;
using roofline::collect::HostFrame;
using roofline::collect::HostTimes;

static void pushPop(benchmark::State& state, HostTiming mode) {
    HostTimes times(mode, false);
    HostFrame outer;
    times.push(outer, nullptr, "step", 1);
    const std::string name = "layer";
    for (auto _ : state) {
        HostFrame f;
        times.push(f, &outer, name, 1);
        times.pop(f, &outer, 1);
        benchmark::DoNotOptimize(f);
    }
}
static void BM_ScopeTimingWall(benchmark::State& state) {
    pushPop(state, HostTiming::Wall);
}
static void BM_ScopeTimingCpu(benchmark::State& state) {
    pushPop(state, HostTiming::Cpu);
}
static void BM_ScopeTimingOff(benchmark::State& state) {
    pushPop(state, HostTiming::Off);
}
static void BM_WallClock(benchmark::State& state) {
    for (auto _ : state)
        benchmark::DoNotOptimize(HostTimes::wallNow());
}
static void BM_ThreadCpuClock(benchmark::State& state) {
    for (auto _ : state)
        benchmark::DoNotOptimize(HostTimes::cpuNow());
}
BENCHMARK(BM_ScopeTimingOff);
BENCHMARK(BM_ScopeTimingWall);
BENCHMARK(BM_ScopeTimingCpu);
BENCHMARK(BM_WallClock);
BENCHMARK(BM_ThreadCpuClock);

BENCHMARK_MAIN();
