#pragma once
#include <roofline/kernel_record.hpp>
#include <roofline/options.hpp>
#include <roofline/roofline.hpp>

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

// GPU tests skip, saying why, when no device is usable; CTest reports them as skipped (not passed).
#define ROOFLINE_REQUIRE_GPU()                                                                     \
    do {                                                                                           \
        int count_ = 0;                                                                            \
        const cudaError_t e_ = cudaGetDeviceCount(&count_);                                        \
        if (e_ != cudaSuccess || count_ == 0)                                                      \
            GTEST_SKIP() << "needs a CUDA GPU, and none is usable here (CUDA: "                    \
                         << (e_ != cudaSuccess ? cudaGetErrorString(e_) : "no device visible")     \
                         << ")";                                                                   \
    } while (0)

/// Iteration replay measuring every launch, one iteration per pass, with `counters`: the tensor
/// detection tests' session.
inline roofline::Options everyLaunchOptions(roofline::TensorCounters counters) {
    roofline::Options options;
    options.tensorCounters = counters;
    options.reuseSamples = 0;
    options.flushOnExit = false;
    options.iterationsPerPass = 1;
    return options;
}

/// The tensor detection tests' loop: a session of everyLaunchOptions(counters) runs `step` inside
/// a "step" scope while it needs passes (60 at most; a fatal failure in `step` ends it), then
/// stops; prints the pass counts at the start and the end. Empty on a fatal failure.
template <typename Step>
std::vector<roofline::KernelRecord> measureEveryLaunch(roofline::TensorCounters counters,
                                                       Step&& step) {
    roofline::Session session{everyLaunchOptions(counters)};
    EXPECT_TRUE(session.countersAvailable()) << session.status();
    if (!session.countersAvailable())
        return {};
    const std::size_t initialPasses = session.passes();
    int steps = 0;
    while (session.needsPass() && steps < 60) {
        roofline::ProfileScope scope{"step"};
        step();
        if (::testing::Test::HasFatalFailure())
            return {};
        ++steps;
    }
    std::vector<roofline::KernelRecord> records = session.stop();
    std::printf("tensor counters %s: %zu passes at the start, %zu at the end, %d iterations\n",
                roofline::toString(counters), initialPasses, session.passes(), steps);
    return records;
}

inline const roofline::KernelRecord* findByScope(const std::vector<roofline::KernelRecord>& records,
                                                 const std::string& scope) {
    for (const auto& r : records)
        if (r.scopePath == scope)
            return &r;
    return nullptr;
}

// A fresh, empty JIT cache for this process, set before its first CUDA call: kernels shipped as PTX
// (cuDNN has many) are compiled and stored anew, as on a machine that never ran them -- the
// condition under which CUPTI crashed (docs/design/0005-code-loaded-while-profiling.md). CTest
// runs each GPU test in its own process, so each gets its own cache; it is removed at exit.
inline void useFreshJitCache() {
    struct Cache {
        std::string dir;
        Cache() {
            char name[] = "/tmp/roofline-jit-XXXXXX";
            if (const char* d = mkdtemp(name)) {
                dir = d;
                setenv("CUDA_CACHE_PATH", d, 1);
            }
        }
        ~Cache() {
            std::error_code ignored;
            if (!dir.empty())
                std::filesystem::remove_all(dir, ignored);
        }
    };
    static Cache cache;
}
