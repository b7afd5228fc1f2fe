#pragma once
#include <roofline/kernel_record.hpp>
#include <roofline/options.hpp>

#include <cuda_runtime.h>
#include <gtest/gtest.h>

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
            GTEST_SKIP() << "needs a CUDA GPU: "                                                   \
                         << (e_ != cudaSuccess ? cudaGetErrorString(e_) : "no device visible");    \
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
