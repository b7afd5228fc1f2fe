// What a replay group cut short gives: after K of a configuration's P passes (auto ranges, user
// replay, as iteration replay runs them), does cuptiRangeProfilerDecodeData succeed, and which
// metrics then evaluate to the values a complete group gives? A job that stops before its first
// group completes (a 3-step run) keeps its launches' counters only as far as this allows.
//   roofline-bench-partial-passes [--metrics full|core|memory|time] [--kernels N]
// For each K in 1..P-1 it re-creates the profiler (CUPTI's replay back at pass 0), runs K passes
// over the same kernels, decodes and evaluates, and prints per metric the complete group's value
// of the first range, the cut group's, and whether they agree (within 1%). Then the same with a
// pass stopped halfway after the K (a job that ends inside a pass): the first range ran in that
// pass, the last did not; both are compared.
#include "core/metric_catalog.hpp"
#include "cupti/device.hpp"
#include "cupti/host.hpp"
#include "cupti/target.hpp"

#include "bench_helpers.hpp"
#include "fma_work.cuh"

#include <cuda.h>
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

namespace cupti = roofline::cupti;
namespace core = roofline::core;

using bench_work::work;

struct Kernels {
    float* data = nullptr;
    int n = 0;
    static constexpr int kBlocks = 264, kThreads = 256;
    explicit Kernels(int count) : n(count) {
        cudaMalloc(&data, sizeof(float) * kBlocks * kThreads);
        cudaMemset(data, 0, sizeof(float) * kBlocks * kThreads);
    }
    ~Kernels() { cudaFree(data); }
    Kernels(const Kernels&) = delete;
    Kernels& operator=(const Kernels&) = delete;
    void run(int upTo = -1) const {
        for (int i = 0; i < (upTo < 0 ? n : upTo); ++i)
            work<<<kBlocks, kThreads>>>(data, 64 + 16 * i);
        cudaDeviceSynchronize();
    }
};

// The first and last ranges' values after `passes` passes (0: every pass of the group), or why
// none.
struct Outcome {
    std::vector<double> values, last;
    std::string error;
    std::size_t ranges = 0;
};

Outcome measure(cupti::RangeProfiler& p, const cupti::Host& host,
                const std::vector<std::string>& metrics, const Kernels& k, std::size_t passes,
                bool halfPassAfter = false) {
    Outcome o;
    p.reenable(); // a fresh object: CUPTI's user replay at pass 0
    p.configure();
    bool all = false;
    for (std::size_t done = 0; !all && (passes == 0 || done < passes) && done < 64; ++done) {
        p.start();
        k.run();
        all = p.stop();
    }
    if (halfPassAfter && !all) {
        p.start();
        k.run(k.n / 2);
        p.stop();
    }
    try {
        p.decode();
        o.ranges = host.rangeCount(p.counterData());
        if (o.ranges > 0) {
            o.values = host.evaluateValues(p.counterData(), 0, metrics);
            o.last = host.evaluateValues(p.counterData(), o.ranges - 1, metrics);
        }
    } catch (const std::exception& e) {
        o.error = e.what();
    }
    return o;
}

// How many of `metrics` agree (within 1%) between `full` and `cut`; each metric's line when
// `lines`.
std::size_t agreeing(const std::vector<std::string>& metrics, const std::vector<double>& full,
                     const std::vector<double>& cut, bool lines) {
    std::size_t agree = 0;
    for (std::size_t m = 0; m < metrics.size() && m < cut.size() && m < full.size(); ++m) {
        const double a = full[m], b = cut[m];
        const bool same = std::fabs(a - b) <= 0.01 * std::fabs(a);
        agree += same ? 1 : 0;
        if (lines)
            std::printf("  %-60s complete %-14.6g cut %-14.6g %s\n", metrics[m].c_str(), a, b,
                        std::isnan(b) ? "missing"
                        : same        ? "agrees"
                                      : "DIFFERS");
    }
    return agree;
}

void report(const std::vector<std::string>& metrics, const Outcome& full, const Outcome& o) {
    if (!o.error.empty()) {
        std::printf("decode or evaluation failed: %s\n", o.error.c_str());
        return;
    }
    std::printf("%zu ranges decoded, %zu of %zu metrics agree with the complete group (first "
                "range), %zu (last range)\n",
                o.ranges, agreeing(metrics, full.values, o.values, false), metrics.size(),
                agreeing(metrics, full.last, o.last, false));
    std::printf(" first range:\n");
    agreeing(metrics, full.values, o.values, true);
    std::printf(" last range:\n");
    agreeing(metrics, full.last, o.last, true);
}

roofline::MetricSet setNamed(const char* name) {
    if (!std::strcmp(name, "core"))
        return roofline::MetricSet::Core;
    if (!std::strcmp(name, "memory"))
        return roofline::MetricSet::Memory;
    if (!std::strcmp(name, "time"))
        return roofline::MetricSet::Time;
    return roofline::MetricSet::Full;
}

int run(int argc, char** argv) {
    roofline::MetricSet set = roofline::MetricSet::Full;
    int n = 8;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!std::strcmp(argv[i], "--metrics"))
            set = setNamed(argv[i + 1]);
        else if (!std::strcmp(argv[i], "--kernels"))
            n = std::max(1, std::atoi(argv[i + 1]));
    }
    cudaSetDevice(0);
    cudaFree(nullptr);
    void* context = nullptr;
    cupti::openDevice(0, &context);
    cupti::initializeProfiler();
    const std::string chip = cupti::chipName(0);
    const cupti::Host host(chip);
    const std::vector<std::string> metrics = core::requiredMetrics(core::profileForChip(chip), set);
    const cupti::ConfigImage image = host.configImage(metrics);
    Kernels k(n);
    k.run(); // the module loaded before any profiler exists (design 0005)
    {
        cupti::RangeProfiler p(context, {{metrics, image.bytes}}, static_cast<std::size_t>(n),
                               cupti::RangeMode::AutoUserReplay);
        const Outcome full = measure(p, host, metrics, k, 0);
        std::printf("chip %s; %zu metrics in %zu passes; %d kernels a pass\n", chip.c_str(),
                    metrics.size(), image.passes, n);
        if (!full.error.empty() || full.values.size() != metrics.size()) {
            std::printf("complete group failed: %s\n", full.error.c_str());
            return 1;
        }
        for (std::size_t cut = 1; cut < image.passes; ++cut)
            for (const bool half : {false, true}) {
                const Outcome o = measure(p, host, metrics, k, cut, half);
                std::printf("\nafter %zu of %zu passes%s: ", cut, image.passes,
                            half ? " and half of the next" : "");
                report(metrics, full, o);
            }
    }
    cupti::deinitializeProfiler();
    cupti::releasePrimaryContext(0);
    return 0;
}

} // namespace

int main(int argc, char** argv) {
    return bench_helpers::guardedMain("roofline-bench-partial-passes", run, argc, argv);
}
