// What the sampling mode's series of steps costs (sampling/step_series), CPU only, on two jobs fed
// as the session feeds them -- the host's launches and step ends (the program's threads: what a
// launch waits for), then every 100 ms of GPU time the kernels' records and the samples, and the
// steps turned into values (the reading thread):
//  - GPT-2-sized eager steps: 683 kernels of PyTorch-length names in 50 ms;
//  - a loop of one 3 us kernel, each launch a step (what the step found in the launch stream of a
//    benchmark that repeats one kernel is): short steps are merged into rows of three periods.
// 12 counters sampled every PERIOD us.
//
//   roofline-bench-step-series [STEPS] [PERIOD_US]      (defaults 300, 100)
//
// Prints, per job, the host's time per launch and the reading thread's time per step and per
// sample.
#include "sampling/step_series.hpp"

#include <algorithm>
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

struct Shape {
    const char* name;
    int steps, kernels;
    std::uint64_t stepNs, kernelNs;
};

// Feeds `shape` to a series; returns false when a step went missing.
bool run(const Shape& shape, std::uint64_t periodNs) {
    constexpr int kNames = 35;
    constexpr std::size_t kCounters = 12;
    std::vector<std::string> names;
    for (int n = 0; n < kNames; ++n)
        names.push_back("void at::native::vectorized_elementwise_kernel<4, at::native::"
                        "CUDAFunctor_add<float>, at::detail::Array<char*, 3> >(int, kernel " +
                        std::to_string(n) + ")");
    sampling::StepSeriesConfig config;
    config.counters = kCounters;
    config.periodNs = periodNs;
    std::uint64_t written = 0;
    sampling::StepSeries series(config,
                                [&](const core::SampledBatch& b) { written += b.steps.size(); });
    double hostUs = 0, readerUs = 0;
    std::uint64_t id = 1, samples = 0, clock = 0, sampledTo = 0, readAt = 0;
    std::vector<sampling::KernelActivity> records;
    std::vector<core::CounterSample> batch;
    const std::uint32_t scope = series.scope("step #");
    const int k = shape.kernels;
    for (int step = 0; step < shape.steps; ++step) {
        const auto host = Clock::now();
        for (int i = 0; i < k; ++i)
            series.launched(id++, step, scope, 1);
        series.stepEnded(step);
        hostUs += usSince(host);
        const std::uint64_t begin = clock;
        for (int i = 0; i < k; ++i) {
            const std::uint64_t at = begin + static_cast<std::uint64_t>(i) * (shape.stepNs / k);
            records.push_back({id - k + i, names[i % kNames], at, at + shape.kernelNs});
        }
        clock += shape.stepNs;
        for (; sampledTo + periodNs <= clock; sampledTo += periodNs)
            batch.push_back({sampledTo, sampledTo + periodNs, std::vector<double>(kCounters, 1.0)});
        if (clock - readAt >= 100000000 || step + 1 == shape.steps) { // a read every 100 ms
            readAt = clock;
            const auto reader = Clock::now();
            samples += batch.size();
            series.kernels(std::move(records));
            series.samples(batch);
            series.advance(clock);
            readerUs += usSince(reader);
            records.clear();
            batch.clear();
        }
    }
    const auto reader = Clock::now();
    series.finish(clock);
    readerUs += usSince(reader);
    const sampling::StepSeriesTally t = series.tally();
    const double launches = static_cast<double>(shape.steps) * k;
    std::printf("%s: %d steps of %d kernels, %llu samples (period %llu us): host %.3f us per "
                "launch; reader %.2f ms per step, %.1f us per sample, %.1f %% of the steps' "
                "time; %llu rows written for %llu steps\n",
                shape.name, shape.steps, k, static_cast<unsigned long long>(samples),
                static_cast<unsigned long long>(periodNs / 1000), hostUs / launches,
                readerUs / 1000.0 / shape.steps,
                samples > 0 ? readerUs / static_cast<double>(samples) : 0.0,
                100.0 * readerUs * 1000.0 / static_cast<double>(clock),
                static_cast<unsigned long long>(written),
                static_cast<unsigned long long>(t.steps));
    return t.steps == static_cast<std::uint64_t>(shape.steps);
}

} // namespace

int main(int argc, char** argv) {
    const int steps = argc > 1 ? std::max(3, std::atoi(argv[1])) : 300;
    const std::uint64_t periodNs = (argc > 2 ? std::max(1, std::atoi(argv[2])) : 100) * 1000ull;
    const bool eager = run({"eager GPT-2 steps", steps, 683, 50000000, 40000}, periodNs);
    const bool loop = run({"one 3 us kernel a step", steps * 1000, 1, 4000, 3000}, periodNs);
    return eager && loop ? 0 : 1;
}
