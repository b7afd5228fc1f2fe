// What the sampling mode's series of steps costs (sampling/step_series), CPU only: a job of
// GPT-2-sized eager steps -- 683 kernels of PyTorch-length names in ~50 ms, 12 counters sampled
// every PERIOD us -- fed as the session feeds it: the host's launches and step ends (the
// program's threads: what a launch waits for), then every 100 ms of GPU time the kernels'
// records and the samples, and the steps turned into values (the reading thread).
//
//   roofline-bench-step-series [STEPS] [PERIOD_US]      (defaults 300, 100)
//
// Prints the host's time per launch and the reading thread's time per step and per sample.
#include "sampling/step_series.hpp"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

using namespace roofline;

namespace {

using Clock = std::chrono::steady_clock;

double usSince(Clock::time_point t) {
    return std::chrono::duration<double, std::micro>(Clock::now() - t).count();
}

} // namespace

int main(int argc, char** argv) {
    const int steps = argc > 1 ? std::max(3, std::atoi(argv[1])) : 300;
    const std::uint64_t periodNs = (argc > 2 ? std::max(1, std::atoi(argv[2])) : 100) * 1000ull;
    constexpr int kKernels = 683, kNames = 35;
    constexpr std::size_t kCounters = 12;
    constexpr std::uint64_t kStepNs = 50000000, kKernelNs = 40000;
    std::vector<std::string> names;
    for (int n = 0; n < kNames; ++n)
        names.push_back("void at::native::vectorized_elementwise_kernel<4, at::native::"
                        "CUDAFunctor_add<float>, at::detail::Array<char*, 3> >(int, kernel " +
                        std::to_string(n) + ")");
    sampling::StepSeriesConfig config;
    config.counters = kCounters;
    config.periodNs = periodNs;
    std::uint64_t written = 0;
    sampling::StepSeries series(config, [&](const core::SampledBatch& b) { written += b.steps.size(); });
    double hostUs = 0, readerUs = 0;
    std::uint64_t id = 1, samples = 0, clock = 0, sampledTo = 0;
    std::vector<sampling::KernelActivity> records;
    std::vector<core::CounterSample> batch;
    const std::uint32_t scope = series.scope("step #");
    for (int step = 0; step < steps; ++step) {
        const auto host = Clock::now();
        for (int k = 0; k < kKernels; ++k)
            series.launched(id++, step, scope, 1);
        series.stepEnded(step);
        hostUs += usSince(host);
        const std::uint64_t begin = clock;
        for (int k = 0; k < kKernels; ++k) {
            const std::uint64_t at = begin + static_cast<std::uint64_t>(k) * (kStepNs / kKernels);
            records.push_back({id - kKernels + k, names[k % kNames], at, at + kKernelNs});
        }
        clock += kStepNs;
        for (; sampledTo + periodNs <= clock; sampledTo += periodNs)
            batch.push_back({sampledTo, sampledTo + periodNs, std::vector<double>(kCounters, 1.0)});
        if (step % 2 == 1 || step + 1 == steps) { // a read every 100 ms of steps
            const auto reader = Clock::now();
            samples += batch.size();
            series.kernels(records);
            series.samples(batch);
            series.advance(static_cast<std::uint64_t>(step) * kStepNs);
            readerUs += usSince(reader);
            records.clear();
            batch.clear();
        }
    }
    const auto reader = Clock::now();
    series.finish(static_cast<std::uint64_t>(steps) * kStepNs);
    readerUs += usSince(reader);
    const sampling::StepSeriesTally t = series.tally();
    std::printf("step series: %d steps of %d kernels, %llu samples (period %llu us): host %.3f us "
                "per launch; reader %.2f ms per step, %.1f us per sample, %.1f %% of the steps' "
                "time; %llu steps written\n",
                steps, kKernels, static_cast<unsigned long long>(samples),
                static_cast<unsigned long long>(periodNs / 1000),
                hostUs / (static_cast<double>(steps) * kKernels), readerUs / 1000.0 / steps,
                readerUs / static_cast<double>(samples),
                100.0 * readerUs * 1000.0 / (static_cast<double>(steps) * kStepNs),
                static_cast<unsigned long long>(written));
    return t.steps == static_cast<std::uint64_t>(steps) ? 0 : 1;
}
