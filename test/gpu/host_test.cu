// Host time per scope on the GPU: a launch-bound scope (many tiny kernels, the host
// busy launching them) and a GPU-bound one (one long kernel waited for inside the scope) are told
// apart, each with the GPU time of its own kernels.
#include "gpu/gpu_test_support.hpp"

#include <roofline/host_scope.hpp>

#include <chrono>
#include <cstdio>
#include <string>

namespace {

__global__ void tinyStep(float* out) {
    out[threadIdx.x] += 1.0f;
}

// Spins for `cycles` SM clock cycles.
__global__ void spin(long long cycles, float* out) {
    const long long start = clock64();
    while (clock64() - start < cycles) {
    }
    out[threadIdx.x] = 1.0f;
}

const roofline::HostScope* find(const std::vector<roofline::HostScope>& scopes,
                                const std::string& path) {
    for (const auto& s : scopes)
        if (s.scopePath == path)
            return &s;
    return nullptr;
}

constexpr int kSteps = 12, kTiny = 200;

// One run of the loop: kSteps steps, each a launch-bound scope (kTiny tiny kernels) and a
// GPU-bound one (one long kernel), first without libroofline, then in a session.
struct LoopRun {
    double unprofiled = 0; ///< seconds per launch-bound loop without libroofline
    std::vector<roofline::HostScope> scopes;
    double profilerSeconds = 0, hostRunSeconds = 0, sessionSeconds = 0;
};

void runLoops(float* buffer, int clockKhz, LoopRun& run) {
    // The launch-bound loop without libroofline: the host time it takes the application.
    for (int step = 0; step < kSteps; ++step) {
        const auto start = std::chrono::steady_clock::now();
        for (int i = 0; i < kTiny; ++i)
            tinyStep<<<1, 32>>>(buffer);
        ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
        if (step > 0) // the first one loads the module
            run.unprofiled +=
                std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    }
    run.unprofiled /= kSteps - 1;
    roofline::Options options;
    options.metrics = roofline::MetricSet::Time;
    options.flushOnExit = false;
    options.hostTiming = roofline::HostTiming::Cpu;
    options.idleWhenComplete = false; // the cost while attached, in every step
    roofline::Session session{options};
    ASSERT_TRUE(session.countersAvailable()) << session.status();
    for (int step = 0; step < kSteps; ++step) {
        roofline::ProfileScope s{("step " + std::to_string(step)).c_str()};
        {
            roofline::ProfileScope launches{"launch-bound"};
            for (int i = 0; i < kTiny; ++i)
                tinyStep<<<1, 32>>>(buffer);
            ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
        }
        {
            roofline::ProfileScope waits{"gpu-bound"};
            spin<<<1, 32>>>(20LL * clockKhz, buffer); // 20 ms at the base clock, less at boost
            ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
        }
    }
    session.stop();
    run.scopes = session.hostScopes();
    run.profilerSeconds = session.profilerSeconds();
    run.hostRunSeconds = session.hostRunSeconds();
    run.sessionSeconds = session.sessionSeconds();
}

} // namespace

TEST(GpuHostTiming, ALaunchBoundScopeAndAGpuBoundScopeAreToldApart) {
    ROOFLINE_REQUIRE_GPU();
    float* buffer = nullptr;
    ASSERT_EQ(cudaMalloc(&buffer, 1024 * sizeof(float)), cudaSuccess);
    int clockKhz = 0;
    ASSERT_EQ(cudaDeviceGetAttribute(&clockKhz, cudaDevAttrClockRate, 0), cudaSuccess);
    // The launch-bound loop's host time is the application's, but for what CUPTI's callbacks
    // cost every launch while libroofline is subscribed: about 2 us per launch on the H100
    // (2026-11-23, 150 runs: median 1.8 us, -2.6 to 4.7 us in single runs), against 17.7 us
    // before libroofline took its own work and its passes out. The H100 80GB HBM3 machine used here is a VM that
    // stalls at times: on one instance about 1 run in 12 had two clean steps of 12 and 17 ms
    // instead of 2.3, with the ProfileScope constructor 7 times and cudaDeviceSynchronize 2.4
    // times slower in the same steps, and the scope's CPU time 28 of its 30 ms (the vCPU busy
    // or stolen, not waiting); the code before this one failed alike, and another instance
    // passed 76 runs of 76. A stall only adds time, so the loop runs up to three times and the
    // smallest residual is libroofline's.
    LoopRun run;
    double residualPerLaunch = 0;
    for (int attempt = 1; attempt <= 3; ++attempt) {
        run = LoopRun{};
        ASSERT_NO_FATAL_FAILURE(runLoops(buffer, clockKhz, run));
        const auto* loop = find(run.scopes, "step #/launch-bound");
        ASSERT_TRUE(loop);
        residualPerLaunch = (loop->wallPerCall() - run.unprofiled) / kTiny;
        std::printf("run %d: residual per launch: %.2f us\n", attempt, residualPerLaunch * 1e6);
        if (residualPerLaunch < 5e-6)
            break;
    }
    EXPECT_LT(residualPerLaunch, 5e-6);
    const auto& scopes = run.scopes;
    for (const auto& s : scopes)
        std::printf("%-24s calls %3llu wall/call %8.3f ms cpu %8.3f ms gpu/call %8.3f ms (%llu "
                    "records of %llu launches) bound %s\n",
                    s.scopePath.c_str(), static_cast<unsigned long long>(s.calls),
                    s.wallPerCall() * 1e3, s.cpuSeconds * 1e3, s.gpuPerCall() * 1e3,
                    static_cast<unsigned long long>(s.kernels),
                    static_cast<unsigned long long>(s.launches), roofline::hostBound(s).c_str());
    const auto* step = find(scopes, "step #");
    const auto* launchBound = find(scopes, "step #/launch-bound");
    const auto* gpuBound = find(scopes, "step #/gpu-bound");
    ASSERT_TRUE(step && launchBound && gpuBound);
    std::printf("launch-bound loop: %.3f ms per call without libroofline, %.3f ms with it "
                "(its own work taken out); libroofline's measured work %.3f ms in the session, "
                "%.3f ms inside the steps\n",
                run.unprofiled * 1e3, launchBound->wallPerCall() * 1e3, run.profilerSeconds * 1e3,
                step->profilerSeconds * 1e3);
    // The steps in which counters were collected (passes) are left out of the times; the
    // others remain, with the application's time.
    EXPECT_FALSE(step->profiledTimes);
    EXPECT_FALSE(launchBound->profiledTimes);
    EXPECT_EQ(step->calls + step->profiledCalls, static_cast<unsigned>(kSteps));
    EXPECT_EQ(launchBound->calls + launchBound->profiledCalls, static_cast<unsigned>(kSteps));
    EXPECT_GT(launchBound->profiledCalls, 0u);
    EXPECT_GT(run.hostRunSeconds, step->wallSeconds * 0.99);
    EXPECT_LT(run.hostRunSeconds, run.sessionSeconds);
    EXPECT_GT(run.profilerSeconds, 0.0);
    // Every launch of the timed calls counted on the host; records sample them (one
    // iteration's worth).
    EXPECT_EQ(launchBound->launches, launchBound->calls * kTiny);
    EXPECT_EQ(gpuBound->launches, gpuBound->calls);
    ASSERT_GT(launchBound->kernels, 0u);
    ASSERT_GT(gpuBound->kernels, 0u);
    // The spin kernel's GPU time per call: its 20 ms at the clock it ran at (boost or lower).
    EXPECT_GE(gpuBound->gpuPerCall(), 0.019);
    EXPECT_EQ(roofline::hostBound(*launchBound), "launch");
    EXPECT_EQ(roofline::hostBound(*gpuBound), "gpu");
    EXPECT_GT(launchBound->gpuIdleShare(), 0.5);
    EXPECT_LT(gpuBound->gpuIdleShare(), 0.2);
    EXPECT_GE(launchBound->cpuSeconds, 0.5 * launchBound->wallSeconds);
    // A step's time is its own and its two scopes' (per call: the profiled instances left out
    // differ between a step and its scopes, since a scope can run without the profiler in a
    // step that did not).
    EXPECT_NEAR(step->wallPerCall(),
                step->selfWallSeconds / static_cast<double>(step->calls) +
                    launchBound->wallPerCall() + gpuBound->wallPerCall(),
                0.05 * step->wallPerCall());
    cudaFree(buffer);
}
