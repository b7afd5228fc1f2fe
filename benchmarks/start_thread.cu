// Can a profiler object's first Start (~200-260 ms of CPU on the H100) run on a thread of its own
// while the program goes on launching? For one pass of auto ranges (user replay) it compares:
//   here     Start on the launching thread, then N kernels, Stop;
//   helper   Start on a helper thread (the context made current there) while the launching
//            thread keeps launching kernels; once Start returned, N kernels more, Stop on the
//            launching thread.
// It prints how long Start took, how long the program's launch calls blocked while it ran (the
// longest and the median against unprofiled launches), how many ranges the decoded image holds
// against the launches made after Start returned, and whether each step succeeded.
//   roofline-bench-start-thread [--kernels N]
#include "core/metric_catalog.hpp"
#include "core/stopwatch.hpp"
#include "cupti/device.hpp"
#include "cupti/host.hpp"
#include "cupti/target.hpp"

#include "bench_helpers.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace {

namespace cupti = roofline::cupti;
namespace core = roofline::core;
using bench_helpers::median;
using Clock = core::SteadyClock;
using core::msSince;

// A short kernel: every thread spins `loops` iterations on a value and stores it.
__global__ void spin(float* x, int loops) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = static_cast<float>(i);
    for (int k = 0; k < loops; ++k)
        v = v * 0.999f + 1.0f;
    x[i] = v;
}

struct Launcher {
    float* data = nullptr;
    Launcher() { cudaMalloc(&data, sizeof(float) * 128 * 128); }
    ~Launcher() { cudaFree(data); }
    Launcher(const Launcher&) = delete;
    Launcher& operator=(const Launcher&) = delete;
    // One launch; its call's duration, ms.
    double launch() const {
        const auto t0 = Clock::now();
        spin<<<128, 128>>>(data, 2000);
        return msSince(t0);
    }
};

struct Case {
    double startMs = 0;              // Start's wall time
    std::vector<double> duringStart; // launch calls made while Start ran (helper case)
    std::size_t launchedAfter = 0;   // launches after Start returned
    std::size_t ranges = 0;          // ranges in the decoded image
    std::string error;
};

// Once Start returned: `n` launches, Stop, the image decoded and its ranges counted.
void finishPass(cupti::RangeProfiler& p, const cupti::Host& host, const Launcher& k, int n,
                Case& c) {
    for (int i = 0; i < n; ++i)
        k.launch();
    c.launchedAfter = static_cast<std::size_t>(n);
    p.stop();
    cudaDeviceSynchronize();
    p.decode();
    c.ranges = host.rangeCount(p.counterData());
}

Case here(cupti::RangeProfiler& p, const cupti::Host& host, const Launcher& k, int n) {
    Case c;
    try {
        p.reenable();
        p.configure();
        const auto t0 = Clock::now();
        p.start();
        c.startMs = msSince(t0);
        finishPass(p, host, k, n, c);
    } catch (const std::exception& e) {
        c.error = e.what();
    }
    return c;
}

Case helper(cupti::RangeProfiler& p, const cupti::Host& host, const Launcher& k, int n) {
    Case c;
    try {
        p.reenable();
        p.configure();
        std::atomic<bool> done{false};
        std::string threadError;
        std::thread t([&] {
            try {
                cudaSetDevice(0); // the primary context, the profiler's, current here
                const auto t0 = Clock::now();
                p.start();
                c.startMs = msSince(t0);
            } catch (const std::exception& e) {
                threadError = e.what();
            }
            done = true;
        });
        while (!done.load()) { // a launch a millisecond, as a program's step launches
            c.duringStart.push_back(k.launch());
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        }
        t.join();
        if (!threadError.empty())
            throw std::runtime_error("Start on the helper thread: " + threadError);
        finishPass(p, host, k, n, c);
    } catch (const std::exception& e) {
        c.error = e.what();
    }
    return c;
}

void print(const char* name, const Case& c, double plainMs) {
    if (!c.error.empty()) {
        std::printf("%-7s failed: %s\n", name, c.error.c_str());
        return;
    }
    std::printf("%-7s Start %.1f ms; %zu ranges decoded for %zu launches after it", name, c.startMs,
                c.ranges, c.launchedAfter);
    if (!c.duringStart.empty()) {
        std::vector<double> during = c.duringStart;
        std::printf("; %zu launches while it ran: call median %.4f ms (unprofiled %.4f), "
                    "longest %.2f ms",
                    during.size(), median(during), plainMs,
                    *std::max_element(during.begin(), during.end()));
    }
    std::printf("\n");
}

int run(int argc, char** argv) {
    int n = 32;
    for (int i = 1; i + 1 < argc; i += 2)
        if (!std::strcmp(argv[i], "--kernels"))
            n = std::max(1, std::atoi(argv[i + 1]));
    cudaSetDevice(0);
    cudaFree(nullptr);
    void* context = nullptr;
    cupti::openDevice(0, &context);
    cupti::initializeProfiler();
    const std::string chip = cupti::chipName(0);
    const cupti::Host host(chip);
    const std::vector<std::string> metrics =
        core::requiredMetrics(core::profileForChip(chip), roofline::MetricSet::Memory);
    const cupti::ConfigImage image = host.configImage(metrics);
    const Launcher k;
    std::vector<double> plain;
    for (int i = 0; i < 200; ++i)
        plain.push_back(k.launch());
    cudaDeviceSynchronize();
    const double plainMs = median(plain);
    std::printf("chip %s; memory set (%zu metrics, %zu pass); %d kernels after Start\n",
                chip.c_str(), metrics.size(), image.passes, n);
    {
        // Ranges for every launch the pass may see: those made while Start runs included (one a
        // millisecond: ~250 for a first Start).
        cupti::RangeProfiler p(context, {{metrics, image.bytes}}, 1024,
                               cupti::RangeMode::AutoUserReplay);
        for (int round = 0; round < 2; ++round) { // each round on fresh objects
            std::printf("round %d\n", round);
            print("here", here(p, host, k, n), plainMs);
            print("helper", helper(p, host, k, n), plainMs);
        }
    }
    cupti::deinitializeProfiler();
    cupti::releasePrimaryContext(0);
    return 0;
}

} // namespace

int main(int argc, char** argv) {
    return bench_helpers::guardedMain("roofline-bench-start-thread", run, argc, argv);
}
