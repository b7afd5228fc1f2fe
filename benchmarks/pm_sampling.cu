// PM sampling on calibration kernels (docs/design/0029): the sampling set of the device's family,
// sampled on a period while the FACTS workload runs (an FFMA kernel, a 16 MiB copy and a DFMA
// kernel, counted by hand), kernels placed by their activity records and the samples divided
// among them (core::attributeSamples). Per period and per layout -- the three kernels interleaved,
// or each run `--run` times back to back -- it prints each kind's duration, its sampled counters
// per launch against the counts by hand, its coverage, and the wall time of the workload with the
// sampler on against off. With cuBLAS, then 40 GEMMs of each type back to back (BF16, FP16 and
// TF32 on the tensor pipe at 4096^3, FP64 at 2048^3): their FLOPs by hand (2 M N K) against the
// tensor and FP64 pipes' sampled cycles, the FLOPs per active pipe cycle that the sampled tensor
// estimate needs; and the FFMA kernel's FP32 estimate (FMA-pipe instructions x threads per warp
// instruction x 2) against its FLOPs by hand.
//   roofline-bench-pm-sampling [--periods 20000,100000] [--launches 3000] [--run 300]
#include "core/sample_attribution.hpp"
#include "core/sampling_set.hpp"
#include "core/stopwatch.hpp"
#include "cupti/activity.hpp"
#include "cupti/device.hpp"
#include "cupti/host.hpp"
#include "cupti/pm_sampler.hpp"

#include "bench_helpers.hpp"

#include "floor_workload.cuh"

#include <cuda_runtime.h>
#if ROOFLINE_BENCH_CUBLAS
#include <cublas_v2.h>
#endif

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

namespace core = roofline::core;
namespace cupti = roofline::cupti;
using bench_floor::Workload;

// The kernel of the cycle a timing record is (0 FFMA, 1 copy, 2 DFMA; -1 another).
int kindOf(const std::string& mangled) {
    if (mangled.find("copy") != std::string::npos)
        return 1;
    if (mangled.find("fmaChains") != std::string::npos)
        return mangled.find("Id") != std::string::npos ? 2 : 0; // fmaChains<double>: ...IdEv
    return -1;
}

void launchAll(const Workload& w, int launches, int run) {
    for (int i = 0; i < launches; ++i)
        w.kernel(run <= 1 ? i : (i / run) % Workload::kKernels);
}

double wallMs(const Workload& w, int launches, int run) {
    cudaDeviceSynchronize();
    const auto t0 = core::SteadyClock::now();
    launchAll(w, launches, run);
    cudaDeviceSynchronize();
    return core::msSince(t0);
}

struct Totals {
    std::size_t launches = 0, estimated = 0;
    double ns = 0, covered = 0;
    std::vector<double> values;
};

void printKinds(const core::SamplingSet& set, const std::vector<std::string>& metrics,
                const std::vector<Totals>& kinds, const core::Attribution& a) {
    const auto at = [&](const std::string& m) {
        return static_cast<std::size_t>(std::find(metrics.begin(), metrics.end(), m) -
                                        metrics.begin());
    };
    const double warps = bench_floor::kGrid * bench_floor::kBlock / 32.0;
    const double fmaPerLaunch = warps * 2 * bench_floor::kFma; // warp FFMA or DFMA instructions
    const char* names[] = {"FFMA", "copy", "DFMA"};
    std::printf("  %-5s %7s %8s %9s %14s %14s %14s %14s %12s\n", "kind", "launches", "us", "covered",
                "fma warp-inst", "by hand", "fp64 cycles", "dram bytes", "estimated");
    for (std::size_t k = 0; k < kinds.size(); ++k) {
        const Totals& t = kinds[k];
        if (t.launches == 0)
            continue;
        const double n = static_cast<double>(t.launches);
        std::printf("  %-5s %7zu %8.2f %8.1f%% %14.0f %14.0f %14.0f %14.0f %11.0f%%\n", names[k],
                    t.launches, t.ns / n / 1e3, 100 * t.covered / std::max(1.0, t.ns),
                    t.values[at(set.fmaInstructions)] / n, k == 0 ? fmaPerLaunch : 0.0,
                    t.values[at(set.fp64PipeCycles)] / n,
                    t.values[at(set.bytes[static_cast<std::size_t>(roofline::MemoryLevel::DRAM)])] /
                        n,
                    100.0 * static_cast<double>(t.estimated) / n);
    }
    std::printf("  between kernels: fma warp-inst %.0f, dram bytes %.0f; DFMA warp-inst by hand "
                "%.0f per launch\n",
                a.between[at(set.fmaInstructions)],
                a.between[at(set.bytes[static_cast<std::size_t>(roofline::MemoryLevel::DRAM)])],
                fmaPerLaunch);
    const Totals& ffma = kinds[0];
    if (ffma.launches > 0 && ffma.values[at(set.warpInstructions)] > 0) {
        const double threads =
            ffma.values[at(set.threadInstructions)] / ffma.values[at(set.warpInstructions)];
        const double estimate = set.fp32FlopsPerFmaThread * ffma.values[at(set.fmaInstructions)] *
                                threads / static_cast<double>(ffma.launches);
        std::printf("  FFMA FP32 estimate %.0f FLOPs per launch (threads per warp instruction "
                    "%.2f), by hand %.0f\n",
                    estimate, threads, 2 * 32 * fmaPerLaunch);
    }
}

// The samples of a run and its kernels' spans, the samples divided among them.
struct SampledRun {
    std::vector<core::KernelSpan> spans;
    core::Attribution attribution;
    std::size_t samples = 0;
};

SampledRun attributeRun(const cupti::PmDecode& d, const std::vector<cupti::KernelTiming>& timings,
                        std::size_t counters, std::uint64_t period) {
    SampledRun run;
    std::vector<core::CounterSample> samples;
    for (const auto& s : d.samples)
        samples.push_back({s.startNs, s.endNs, s.values});
    for (const auto& t : timings)
        run.spans.push_back({t.startNs, t.startNs + static_cast<std::uint64_t>(t.seconds * 1e9)});
    run.attribution = core::attributeSamples(samples, run.spans, counters, period);
    run.samples = samples.size();
    return run;
}

void sampleOnce(cupti::PmSampler& sampler, cupti::KernelTimer& timer, const core::SamplingSet& set,
                const Workload& w, std::uint64_t period, int launches, int run) {
    const std::vector<std::string> metrics = set.metrics();
    const double plain = wallMs(w, launches, run);
    timer.take(); // the plain run's kernels
    sampler.start();
    const double sampled = wallMs(w, launches, run);
    sampler.stop();
    const cupti::PmDecode d = sampler.decode();
    const std::vector<cupti::KernelTiming> timings = timer.take();
    const SampledRun r = attributeRun(d, timings, metrics.size(), period);
    const std::vector<core::KernelSpan>& spans = r.spans;
    const core::Attribution& a = r.attribution;
    std::vector<int> kinds;
    for (const auto& t : timings)
        kinds.push_back(kindOf(t.mangledName));
    std::printf("period %llu ns, %s: %zu samples (overflow %s), %zu kernels; wall %.2f ms plain, "
                "%.2f ms sampled\n",
                static_cast<unsigned long long>(period), run <= 1 ? "interleaved" : "in runs",
                r.samples, d.overflow ? "yes" : "no", spans.size(), plain, sampled);
    if (!d.samples.empty() && !spans.empty())
        std::printf("  samples %llu..%llu ns, kernels %llu..%llu ns (activity clock)\n",
                    static_cast<unsigned long long>(d.samples.front().startNs),
                    static_cast<unsigned long long>(d.samples.back().endNs),
                    static_cast<unsigned long long>(spans.front().startNs),
                    static_cast<unsigned long long>(spans.back().endNs));
    std::vector<Totals> totals(3);
    for (auto& t : totals)
        t.values.assign(metrics.size(), 0.0);
    for (std::size_t i = 0; i < spans.size(); ++i) {
        if (kinds[i] < 0)
            continue;
        Totals& t = totals[static_cast<std::size_t>(kinds[i])];
        ++t.launches;
        t.ns += static_cast<double>(spans[i].endNs - spans[i].startNs);
        t.covered += static_cast<double>(a.kernels[i].coveredNs);
        t.estimated += a.kernels[i].estimated ? 1 : 0;
        for (std::size_t m = 0; m < metrics.size(); ++m)
            t.values[m] += a.kernels[i].values[m];
    }
    printKinds(set, metrics, totals, a);
}

#if ROOFLINE_BENCH_CUBLAS
// One GEMM type, 40 launches back to back under the sampler: the sampled pipe cycles of every
// kernel they ran against their FLOPs by hand.
struct Gemm {
    const char* name;
    cudaDataType type;
    cublasComputeType_t compute;
    int n;
};

void sampleGemm(cupti::PmSampler& sampler, cupti::KernelTimer& timer, const core::SamplingSet& set,
                cublasHandle_t h, const Gemm& g) {
    const std::vector<std::string> metrics = set.metrics();
    const std::size_t bytes = static_cast<std::size_t>(g.n) * g.n * 8;
    void *a = nullptr, *b = nullptr, *c = nullptr;
    cudaMalloc(&a, bytes);
    cudaMalloc(&b, bytes);
    cudaMalloc(&c, bytes);
    cudaMemset(a, 0, bytes);
    cudaMemset(b, 0, bytes);
    const double one = 1, zero = 0;
    const float onef = 1, zerof = 0;
    const bool dbl = g.type == CUDA_R_64F;
    const void* alpha = dbl ? static_cast<const void*>(&one) : &onef;
    const void* beta = dbl ? static_cast<const void*>(&zero) : &zerof;
    const auto gemm = [&] {
        cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, g.n, g.n, g.n, alpha, a, g.type, g.n, b, g.type,
                     g.n, beta, c, g.type, g.n, g.compute, CUBLAS_GEMM_DEFAULT);
    };
    gemm();
    cudaDeviceSynchronize();
    timer.take();
    sampler.start();
    for (int i = 0; i < 40; ++i)
        gemm();
    cudaDeviceSynchronize();
    sampler.stop();
    const cupti::PmDecode d = sampler.decode();
    const std::vector<cupti::KernelTiming> timings = timer.take();
    const SampledRun r = attributeRun(d, timings, metrics.size(), 100000);
    double seconds = 0;
    for (const auto& t : timings)
        seconds += t.seconds;
    std::vector<double> sum(metrics.size(), 0.0);
    for (const auto& k : r.attribution.kernels)
        for (std::size_t m = 0; m < metrics.size(); ++m)
            sum[m] += k.values[m];
    const auto col = [&](const std::string& m) {
        return sum[static_cast<std::size_t>(std::find(metrics.begin(), metrics.end(), m) -
                                            metrics.begin())];
    };
    const double flops = 40 * 2.0 * g.n * g.n * static_cast<double>(g.n);
    const double tensor = col(set.tensorPipeCycles), fp64 = col(set.fp64PipeCycles);
    std::printf("  %-5s %zu kernels, %.2f ms, %.1f TFLOP/s; tensor pipe cycles %.4g (%.1f FLOPs "
                "each), FP64 pipe cycles %.4g (%.1f FLOPs each), FMA warp-inst %.4g; %s\n",
                g.name, r.spans.size(), seconds * 1e3, seconds > 0 ? flops / seconds / 1e12 : 0.0,
                tensor, tensor > 0 ? flops / tensor : 0.0, fp64, fp64 > 0 ? flops / fp64 : 0.0,
                col(set.fmaInstructions),
                timings.empty() ? "" : timings.front().mangledName.substr(0, 60).c_str());
    cudaFree(a);
    cudaFree(b);
    cudaFree(c);
}

void sampleGemms(const cupti::Host& host, const core::SamplingSet& set, cupti::KernelTimer& timer) {
    cublasHandle_t h = nullptr;
    if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS)
        return;
    cupti::PmSamplerSettings settings;
    settings.periodNs = 100000;
    cupti::PmSampler sampler(0, host, set.metrics(), settings);
    std::printf("GEMMs, 40 each, back to back, 100 us period (FLOPs by hand 2 M N K):\n");
    for (const Gemm& g : {Gemm{"BF16", CUDA_R_16BF, CUBLAS_COMPUTE_32F, 4096},
                          Gemm{"FP16", CUDA_R_16F, CUBLAS_COMPUTE_32F, 4096},
                          Gemm{"TF32", CUDA_R_32F, CUBLAS_COMPUTE_32F_FAST_TF32, 4096},
                          Gemm{"FP64", CUDA_R_64F, CUBLAS_COMPUTE_64F, 2048}})
        sampleGemm(sampler, timer, set, h, g);
    cublasDestroy(h);
}
#endif

} // namespace

int main(int argc, char** argv) {
    std::vector<std::uint64_t> periods = {20000, 100000};
    int launches = 3000, run = 300;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!std::strcmp(argv[i], "--periods")) {
            periods.clear();
            for (const std::string& p : bench_helpers::commaList(argv[i + 1]))
                periods.push_back(std::strtoull(p.c_str(), nullptr, 10));
        } else if (!std::strcmp(argv[i], "--launches")) {
            launches = std::max(3, std::atoi(argv[i + 1]));
        } else if (!std::strcmp(argv[i], "--run")) {
            run = std::max(1, std::atoi(argv[i + 1]));
        }
    }
    void* context = nullptr;
    try {
        cupti::openDevice(0, &context);
        cupti::initializeProfiler();
    } catch (const std::exception& e) {
        std::printf("roofline-bench-pm-sampling: nothing to measure: %s\n", e.what());
        return 0;
    }
    try {
        const std::string chip = cupti::chipName(0);
        const core::SamplingSet& set = core::samplingSetForChip(chip);
        const cupti::Host host(chip, cupti::Instrument::PmSampling);
        Workload w;
        launchAll(w, 30, 1); // code loaded, clocks up
        std::printf("chip %s, %zu counters in one pass\n", chip.c_str(), set.metrics().size());
        cupti::KernelTimer timer;
        for (std::uint64_t period : periods) {
            cupti::PmSamplerSettings settings;
            settings.periodNs = period;
            cupti::PmSampler sampler(0, host, set.metrics(), settings);
            for (int layout : {1, run})
                sampleOnce(sampler, timer, set, w, period, launches, layout);
        }
#if ROOFLINE_BENCH_CUBLAS
        sampleGemms(host, set, timer);
#endif
    } catch (const std::exception& e) {
        std::printf("roofline-bench-pm-sampling: %s\n", e.what());
        return 1;
    }
    return 0;
}
