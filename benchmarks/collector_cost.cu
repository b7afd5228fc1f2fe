// What in-process collection costs, per mode, on a loop of real kernels (FFMA, 16 MiB copy, DFMA
// per iteration -- the FACTS.md workload). Prints, per mode: ms per profiled kernel, the ratio to
// the unprofiled loop, the raw CUPTI cost of the same mode (cupti::RangeProfiler alone: no
// callbacks, no collector) and libroofline's overhead above it, and -- when `ncu` is on PATH -- the
// same workload under Nsight Compute with the same metrics.
//   roofline-bench-collector [--iterations N] [--metrics full|core|memory|time]
//                            [--mode iteration|scope|kernel]      (defaults: 64, full, all)
//   roofline-bench-collector --workload N          (the bare loop; what ncu runs)
#include "core/metric_catalog.hpp"
#include "core/stopwatch.hpp"
#include "cupti/device.hpp"
#include "cupti/host.hpp"
#include "cupti/target.hpp"

#include <roofline/roofline.hpp>

#include "floor_workload.cuh"

#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

using Clock = roofline::core::SteadyClock;
using roofline::core::msSince;

using bench_floor::Workload;

struct Result {
    std::string mode;
    double totalMs = 0;
    std::size_t kernels = 0; // profiled kernel launches the records cover
    std::size_t records = 0;
    double perKernel() const { return kernels ? totalMs / kernels : 0; }
};

roofline::MetricSet gMetrics = roofline::MetricSet::Full;
constexpr std::size_t kRanges = 192;                              // ranges per counter-data image
constexpr int kItersPerPass = kRanges / (2 * Workload::kKernels); // what iteration replay picks
constexpr int kScopeItersPerPass = kRanges / 2;                   // what scope replay picks

Result library(const Workload& w, roofline::CollectionMode mode, int groups) {
    Result r;
    r.mode = toString(mode);
    const auto t0 = Clock::now();
    roofline::Options options;
    options.mode = mode;
    options.cacheFlush = roofline::CacheFlush::Off; // as raw CUPTI does
    options.rangesPerImage = kRanges;
    options.metrics = gMetrics;
    roofline::Session session{options};
    const int passes = static_cast<int>(session.passes());
    if (mode == roofline::CollectionMode::KernelReplay) {
        roofline::ProfileScope scope{"bench"};
        for (int i = 0; i < groups; ++i)
            w.iteration();
    } else {
        // A pass spans as many iterations as fill half an image: kItersPerPass (3 ranges each)
        // in iteration replay, kScopeItersPerPass (1 range each) in scope replay.
        const int perPass =
            mode == roofline::CollectionMode::IterationReplay ? kItersPerPass : kScopeItersPerPass;
        for (int i = 0; i < groups * passes * perPass; ++i) {
            roofline::ProfileScope scope{"step"};
            w.iteration();
        }
    }
    const auto& records = session.stop();
    cudaDeviceSynchronize();
    r.totalMs = msSince(t0);
    r.records = records.size();
    for (const auto& rec : records)
        r.kernels += rec.measured ? rec.kernels : 0;
    return r;
}

// The same mode with nothing but the range profiler (same metrics, same image size, same passes
// per group): the floor libroofline adds to.
Result raw(const Workload& w, roofline::cupti::RangeMode mode, int groups, int itersPerPass,
           const char* name) {
    using namespace roofline;
    namespace cupti = roofline::cupti;
    Result r;
    r.mode = name;
    const auto t0 = Clock::now();
    void* context = nullptr;
    cupti::openDevice(0, &context);
    cupti::initializeProfiler();
    {
        const std::string chip = cupti::chipName(0);
        const auto metrics = core::requiredMetrics(core::profileForChip(chip), gMetrics);
        const cupti::Host host(chip);
        const cupti::ConfigImage image = host.configImage(metrics);
        cupti::RangeProfiler profiler(context, {{metrics, image.bytes}}, kRanges, mode);
        std::size_t ranges = 0;
        auto evaluate = [&] {
            profiler.decode();
            const std::size_t n = host.rangeCount(profiler.counterData());
            for (std::size_t i = 0; i < n; ++i)
                host.evaluateValues(profiler.counterData(), i, metrics);
            ranges += n;
            profiler.configure();
        };
        if (mode == cupti::RangeMode::AutoKernelReplay) {
            profiler.start();
            for (int i = 0; i < groups; ++i)
                w.iteration();
            profiler.stop();
            evaluate();
            r.kernels = ranges;
        } else {
            for (int g = 0; g < groups; ++g) {
                bool all = false;
                int passes = 0;
                while (!all) {
                    ++passes;
                    profiler.start();
                    for (int i = 0; i < itersPerPass; ++i) {
                        const std::string name = "step#" + std::to_string(i);
                        if (mode == cupti::RangeMode::UserUserReplay)
                            profiler.pushRange(name.c_str());
                        w.iteration();
                        if (mode == cupti::RangeMode::UserUserReplay)
                            profiler.popRange();
                    }
                    all = profiler.stop();
                }
                const auto t1 = Clock::now();
                evaluate();
                std::printf("  [%s] group %d: %d passes, evaluation %.1f ms\n", name, g, passes,
                            msSince(t1));
            }
            r.kernels = static_cast<std::size_t>(groups) * itersPerPass * Workload::kKernels;
        }
        r.records = ranges;
        profiler.disable();
    }
    cupti::deinitializeProfiler();
    cupti::releasePrimaryContext(0);
    cudaDeviceSynchronize();
    r.totalMs = msSince(t0);
    return r;
}

} // namespace

namespace {

struct Pair {
    Result lib, floor;
};

// The modes asked for (`only`: one of them, or every one), each beside raw CUPTI's floor.
std::vector<Pair> measureModes(Workload& w, int iterations, const std::string& only) {
    const int groups = iterations / kItersPerPass > 0 ? iterations / kItersPerPass : 1;
    const int scopeGroups = 1;
    const int kernelReplayIterations = iterations / 5 > 0 ? iterations / 5 : 1;
    std::vector<Pair> rows;
    if (only.empty() || only == "iteration")
        rows.push_back({library(w, roofline::CollectionMode::IterationReplay, groups),
                        raw(w, roofline::cupti::RangeMode::AutoUserReplay, groups, kItersPerPass,
                            "raw auto+user")});
    if (only.empty() || only == "scope")
        rows.push_back({library(w, roofline::CollectionMode::ScopeReplay, scopeGroups),
                        raw(w, roofline::cupti::RangeMode::UserUserReplay, scopeGroups,
                            kScopeItersPerPass, "raw user+user")});
    if (only.empty() || only == "kernel")
        rows.push_back({library(w, roofline::CollectionMode::KernelReplay, kernelReplayIterations),
                        raw(w, roofline::cupti::RangeMode::AutoKernelReplay, kernelReplayIterations,
                            1, "raw auto+kernel")});
    return rows;
}

void printModes(const std::vector<Pair>& rows, double plainPerKernel) {
    std::printf("%-18s %9s %9s %12s %10s %12s %10s\n", "mode", "kernels", "records", "ms/kernel",
                "x plain", "raw ms/kern", "overhead");
    for (const auto& p : rows) {
        const double overhead =
            p.floor.perKernel() > 0 ? 100.0 * (p.lib.perKernel() / p.floor.perKernel() - 1.0) : 0.0;
        std::printf("%-18s %9zu %9zu %12.3f %10.0f %12.3f %9.1f%%\n", p.lib.mode.c_str(),
                    p.lib.kernels, p.lib.records, p.lib.perKernel(),
                    p.lib.perKernel() / plainPerKernel, p.floor.perKernel(), overhead);
    }
    std::printf("(times include session set-up, evaluation of every record and tear-down)\n");
}

// Nsight Compute with the same metrics on the same workload, whole process: each mode's cost
// against it.
void compareWithNcu(const char* self, int iterations, const std::vector<Pair>& rows) {
    std::string metrics;
    for (const auto& m : roofline::core::requiredMetrics(
             roofline::core::profileForChip(roofline::cupti::chipName(0)), gMetrics))
        metrics += (metrics.empty() ? "" : ",") + m;
    const std::string command = "ncu --clock-control none --metrics " + metrics + " " + self +
                                " --workload " + std::to_string(iterations) + " > /dev/null 2>&1";
    const auto t0 = Clock::now();
    const int rc = std::system(command.c_str());
    const double ncuMs = msSince(t0);
    // Whole process, as users run it: start-up included, iterations x 3 kernels profiled.
    const double ncuPerKernel = ncuMs / (iterations * Workload::kKernels);
    std::printf("\nncu (same metrics, --clock-control none, whole process): %.1f ms/kernel "
                "(exit %d)\n",
                ncuPerKernel, rc);
    for (const auto& p : rows)
        std::printf("  %-18s %6.1fx cheaper than ncu\n", p.lib.mode.c_str(),
                    ncuPerKernel / p.lib.perKernel());
}

} // namespace

int main(int argc, char** argv) {
    int iterations = 64;
    std::string only; // --mode iteration|scope|kernel: that mode only
    for (int i = 1; i + 1 < argc; ++i) {
        if (std::string(argv[i]) == "--workload") {
            Workload w;
            for (int k = 0, n = std::atoi(argv[i + 1]); k < n; ++k)
                w.iteration();
            return cudaDeviceSynchronize() == cudaSuccess ? 0 : 1;
        }
        if (std::string(argv[i]) == "--mode")
            only = argv[i + 1];
        if (std::string(argv[i]) == "--iterations")
            iterations = std::atoi(argv[i + 1]);
        if (std::string(argv[i]) == "--metrics") {
            const std::string m = argv[i + 1];
            gMetrics = m == "core"     ? roofline::MetricSet::Core
                       : m == "memory" ? roofline::MetricSet::Memory
                       : m == "time"   ? roofline::MetricSet::Time
                                       : roofline::MetricSet::Full;
        }
    }
    int devices = 0;
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
        std::printf("roofline-bench-collector: no CUDA device, nothing to measure\n");
        return 0;
    }
    Workload w;
    w.iteration(); // warm-up: module load, first-launch costs
    cudaDeviceSynchronize();
    const auto t0 = Clock::now();
    for (int i = 0; i < iterations; ++i)
        w.iteration();
    cudaDeviceSynchronize();
    const double plainMs = msSince(t0);
    const double plainPerKernel = plainMs / (iterations * Workload::kKernels);
    std::printf("workload: %d iterations x %d kernels (FFMA, 16 MiB copy, DFMA), unprofiled "
                "%.3f ms/kernel; metric set %s\n\n",
                iterations, Workload::kKernels, plainPerKernel, toString(gMetrics));
    // One-time CUPTI costs (first profiler use in the process) are paid here, not by a mode.
    raw(w, roofline::cupti::RangeMode::AutoUserReplay, 1, 1, "warm-up");
    const std::vector<Pair> rows = measureModes(w, iterations, only);
    printModes(rows, plainPerKernel);
    if (only.empty() && std::system("command -v ncu > /dev/null 2>&1") == 0)
        compareWithNcu(argv[0], iterations, rows);
    else
        std::printf("\nncu not on PATH: no comparison with Nsight Compute\n");
    return 0;
}
