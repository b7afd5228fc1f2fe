#pragma once
/// \file cuda_util.hpp
/// CUDA and cuDNN status checks that throw, device buffers, and CUDA-event timing for the
/// benchmark executables.

#include <cuda_runtime.h>
#include <cudnn.h>

#include "workloads/precision.hpp"

#include <cstddef>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

namespace roofline::bench {

/// A CUDA call failed. `sticky` errors (illegal address, launch failure, ...) leave the context
/// unusable: the sweep marks the case crashed and skips the rest.
class CudaError : public std::runtime_error {
public:
    CudaError(const std::string& what, cudaError_t status);
    cudaError_t status() const noexcept { return status_; }
    bool sticky() const noexcept;

private:
    cudaError_t status_;
};

/// A cuDNN call failed; NOT_SUPPORTED-like statuses are outcomes (Unsupported), not failures.
class CudnnError : public std::runtime_error {
public:
    CudnnError(const std::string& what, cudnnStatus_t status);
    cudnnStatus_t status() const noexcept { return status_; }
    bool notSupported() const noexcept;

private:
    cudnnStatus_t status_;
};

/// Errors after which the CUDA context is unusable (illegal address, launch failure, ...).
bool isStickyCudaError(cudaError_t status) noexcept;

/// cuDNN's data type for a case's tensors (tf32 stores fp32).
cudnnDataType_t cudnnDataTypeOf(workloads::Precision p);

void checkCuda(cudaError_t status, const char* call, const char* file, int line);
void checkCudnn(cudnnStatus_t status, const char* call, const char* file, int line);

#define BENCH_CUDA(call) ::roofline::bench::checkCuda((call), #call, __FILE__, __LINE__)
#define BENCH_CUDNN(call) ::roofline::bench::checkCudnn((call), #call, __FILE__, __LINE__)

/// Device memory owned by value. Allocation failure throws OutOfMemory (a per-case status).
class OutOfMemory : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

class DeviceBuffer {
public:
    DeviceBuffer() = default;
    DeviceBuffer(std::size_t bytes, const char* what);
    ~DeviceBuffer();
    DeviceBuffer(DeviceBuffer&& other) noexcept;
    DeviceBuffer& operator=(DeviceBuffer&& other) noexcept;
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;

    void* get() const noexcept { return ptr_; }
    template <class T> T* as() const noexcept { return static_cast<T*>(ptr_); }
    std::size_t bytes() const noexcept { return bytes_; }

private:
    void* ptr_ = nullptr;
    std::size_t bytes_ = 0;
};

/// Free device memory now, in bytes.
std::size_t freeDeviceMemory();

/// Runs `work` `warmup` times, then `repeats` times each bracketed by CUDA events on `stream`;
/// returns the per-run seconds, sorted.
std::vector<double> timeRuns(const std::function<void()>& work, cudaStream_t stream, int warmup,
                             int repeats);
double median(const std::vector<double>& sorted);

} // namespace roofline::bench
