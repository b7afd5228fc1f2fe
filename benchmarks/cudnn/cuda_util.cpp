#include "cudnn/cuda_util.hpp"

#include <algorithm>

namespace roofline::bench {

CudaError::CudaError(const std::string& what, cudaError_t status)
    : std::runtime_error(what), status_(status) {}

bool CudaError::sticky() const noexcept {
    return isStickyCudaError(status_);
}

bool isStickyCudaError(cudaError_t status) noexcept {
    switch (status) {
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchFailure:
    case cudaErrorMisalignedAddress:
    case cudaErrorIllegalInstruction:
    case cudaErrorHardwareStackError:
    case cudaErrorInvalidPc:
    case cudaErrorAssert:
    case cudaErrorLaunchTimeout:
    case cudaErrorECCUncorrectable:
        return true;
    default:
        return false;
    }
}

cudnnDataType_t cudnnDataTypeOf(workloads::Precision p) {
    switch (p) {
    case workloads::Precision::FP16:
        return CUDNN_DATA_HALF;
    case workloads::Precision::BF16:
        return CUDNN_DATA_BFLOAT16;
    default:
        return CUDNN_DATA_FLOAT;
    }
}

CudnnError::CudnnError(const std::string& what, cudnnStatus_t status)
    : std::runtime_error(what), status_(status) {}

bool CudnnError::notSupported() const noexcept {
    // cuDNN 9 refines NOT_SUPPORTED into sub-codes (3000..3999); BAD_PARAM_* also means "this
    // combination is refused" for a graph that is otherwise well formed.
    const int code = static_cast<int>(status_);
    return (code >= 3000 && code < 4000) || (code >= 2000 && code < 3000);
}

void checkCuda(cudaError_t status, const char* call, const char* file, int line) {
    if (status == cudaSuccess)
        return;
    if (status == cudaErrorMemoryAllocation) {
        (void)cudaGetLastError();
        throw OutOfMemory(std::string("out of device memory in ") + call);
    }
    throw CudaError(std::string(cudaGetErrorName(status)) + " (" + cudaGetErrorString(status) +
                        ") in " + call + " at " + file + ":" + std::to_string(line),
                    status);
}

void checkCudnn(cudnnStatus_t status, const char* call, const char* file, int line) {
    if (status == CUDNN_STATUS_SUCCESS)
        return;
    char message[512] = "";
    cudnnGetLastErrorString(message, sizeof message);
    std::string what = std::string(cudnnGetErrorString(status)) + " in " + call;
    if (message[0] != '\0')
        what += ": " + std::string(message);
    (void)file;
    (void)line;
    if (status == CUDNN_STATUS_INTERNAL_ERROR_DEVICE_ALLOCATION_FAILED ||
        status == CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED)
        throw OutOfMemory(what);
    throw CudnnError(what, status);
}

DeviceBuffer::DeviceBuffer(std::size_t bytes, const char* what) : bytes_(bytes) {
    if (bytes == 0)
        return;
    const cudaError_t status = cudaMalloc(&ptr_, bytes);
    if (status == cudaErrorMemoryAllocation) {
        (void)cudaGetLastError();
        ptr_ = nullptr;
        throw OutOfMemory(std::string(what) + " needs " + std::to_string(bytes >> 20) + " MiB; " +
                          std::to_string(freeDeviceMemory() >> 20) + " MiB are free");
    }
    checkCuda(status, "cudaMalloc", __FILE__, __LINE__);
}

DeviceBuffer::~DeviceBuffer() {
    if (ptr_)
        (void)cudaFree(ptr_);
}

DeviceBuffer::DeviceBuffer(DeviceBuffer&& other) noexcept : ptr_(other.ptr_), bytes_(other.bytes_) {
    other.ptr_ = nullptr;
    other.bytes_ = 0;
}

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& other) noexcept {
    if (this != &other) {
        if (ptr_)
            (void)cudaFree(ptr_);
        ptr_ = other.ptr_;
        bytes_ = other.bytes_;
        other.ptr_ = nullptr;
        other.bytes_ = 0;
    }
    return *this;
}

std::size_t freeDeviceMemory() {
    std::size_t freeBytes = 0, total = 0;
    if (cudaMemGetInfo(&freeBytes, &total) != cudaSuccess)
        return 0;
    return freeBytes;
}

std::vector<double> timeRuns(const std::function<void()>& work, cudaStream_t stream, int warmup,
                             int repeats) {
    for (int i = 0; i < warmup; ++i)
        work();
    cudaEvent_t start = nullptr, stop = nullptr;
    BENCH_CUDA(cudaEventCreate(&start));
    BENCH_CUDA(cudaEventCreate(&stop));
    std::vector<double> seconds;
    try {
        for (int i = 0; i < repeats; ++i) {
            BENCH_CUDA(cudaEventRecord(start, stream));
            work();
            BENCH_CUDA(cudaEventRecord(stop, stream));
            BENCH_CUDA(cudaEventSynchronize(stop));
            float ms = 0.0f;
            BENCH_CUDA(cudaEventElapsedTime(&ms, start, stop));
            seconds.push_back(static_cast<double>(ms) * 1e-3);
        }
    } catch (...) {
        (void)cudaEventDestroy(start);
        (void)cudaEventDestroy(stop);
        throw;
    }
    (void)cudaEventDestroy(start);
    (void)cudaEventDestroy(stop);
    std::sort(seconds.begin(), seconds.end());
    return seconds;
}

double median(const std::vector<double>& sorted) {
    if (sorted.empty())
        return 0.0;
    const std::size_t m = sorted.size() / 2;
    return sorted.size() % 2 ? sorted[m] : 0.5 * (sorted[m - 1] + sorted[m]);
}

} // namespace roofline::bench
