#pragma once
#include <roofline/kernel_record.hpp>

#include <cuda_runtime.h>
#include <gtest/gtest.h>

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

inline const roofline::KernelRecord* findByScope(const std::vector<roofline::KernelRecord>& records,
                                                 const std::string& scope) {
    for (const auto& r : records)
        if (r.scopePath == scope)
            return &r;
    return nullptr;
}
