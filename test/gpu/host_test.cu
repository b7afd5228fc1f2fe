// Host time per scope on the GPU (issue 16): a launch-bound scope (many tiny kernels, the host
// busy launching them) and a GPU-bound one (one long kernel waited for inside the scope) are told
// apart, each with the GPU time of its own kernels.
#include "gpu/gpu_test_support.hpp"

#include <roofline/host_scope.hpp>

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

} // namespace

TEST(GpuHostTiming, ALaunchBoundScopeAndAGpuBoundScopeAreToldApart) {
    ROOFLINE_REQUIRE_GPU();
    float* buffer = nullptr;
    ASSERT_EQ(cudaMalloc(&buffer, 1024 * sizeof(float)), cudaSuccess);
    int clockKhz = 0;
    ASSERT_EQ(cudaDeviceGetAttribute(&clockKhz, cudaDevAttrClockRate, 0), cudaSuccess);
    roofline::Options options;
    options.metrics = roofline::MetricSet::Time;
    options.flushOnExit = false;
    options.hostTiming = roofline::HostTiming::Cpu;
    roofline::Session session{options};
    ASSERT_TRUE(session.countersAvailable()) << session.status();
    constexpr int kSteps = 12, kTiny = 200;
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
    const auto& scopes = session.hostScopes();
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
    EXPECT_EQ(step->calls, static_cast<unsigned>(kSteps));
    EXPECT_EQ(launchBound->calls, static_cast<unsigned>(kSteps));
    EXPECT_GT(session.sessionSeconds(), step->wallSeconds * 0.99);
    // Every launch counted on the host; records sample them (one iteration's worth).
    EXPECT_EQ(launchBound->launches, static_cast<unsigned>(kSteps * kTiny));
    EXPECT_EQ(gpuBound->launches, static_cast<unsigned>(kSteps));
    ASSERT_GT(launchBound->kernels, 0u);
    ASSERT_GT(gpuBound->kernels, 0u);
    // The spin kernel's GPU time per call: its 20 ms at the clock it ran at (boost or lower).
    EXPECT_GE(gpuBound->gpuPerCall(), 0.019);
    EXPECT_EQ(roofline::hostBound(*launchBound), "launch");
    EXPECT_EQ(roofline::hostBound(*gpuBound), "gpu");
    EXPECT_GT(launchBound->gpuIdleShare(), 0.5);
    EXPECT_LT(gpuBound->gpuIdleShare(), 0.2);
    EXPECT_GE(launchBound->cpuSeconds, 0.5 * launchBound->wallSeconds);
    EXPECT_NEAR(step->wallSeconds,
                step->selfWallSeconds + launchBound->wallSeconds + gpuBound->wallSeconds,
                1e-3 * step->wallSeconds);
    cudaFree(buffer);
}
