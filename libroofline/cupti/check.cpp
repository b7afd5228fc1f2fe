#include "cupti/check.hpp"

#include "core/log.hpp"
#include "cupti/driver.hpp"

#include <roofline/error.hpp>

#include <cuda.h>
#include <cupti.h>

#include <string>

namespace roofline::cupti {
namespace {

std::string where(const char* call, const char* file, int line) {
    std::string f = file;
    const auto slash = f.find_last_of('/');
    if (slash != std::string::npos)
        f = f.substr(slash + 1);
    return std::string(call) + " (" + f + ":" + std::to_string(line) + ")";
}

std::string cuptiText(CUptiResult status) {
    const char* text = nullptr;
    if (cuptiGetResultString(status, &text) != CUPTI_SUCCESS || !text)
        return "CUPTI error";
    return text;
}

} // namespace

void throwCupti(CUptiResult status, const char* call, const char* file, int line) {
    const std::string what = where(call, file, line) + " failed: " + cuptiText(status) +
                             " (CUptiResult " + std::to_string(static_cast<int>(status)) + ")";
    const int raw = static_cast<int>(status);
    switch (status) {
    case CUPTI_ERROR_INSUFFICIENT_PRIVILEGES:
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES:
        throw Error(ErrorCode::InsufficientPrivileges,
                    what + ". GPU performance counters are restricted to administrators on this "
                           "machine. Fix: run as root, or set the NVIDIA driver option "
                           "NVreg_RestrictProfilingToAdminUsers=0 (docs/troubleshooting.md).",
                    raw);
    case CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED:
        throw Error(ErrorCode::ProfilerBusy,
                    what + ". Another CUPTI client (Nsight Systems/Compute, another profiler, or "
                           "a second libroofline Session) is attached to this process; run "
                           "without it.",
                    raw);
    case CUPTI_ERROR_HARDWARE_BUSY:
        throw Error(ErrorCode::ProfilerBusy,
                    what + ". The GPU's counters are in use by another process (e.g. ncu or "
                           "DCGM profiling); retry when it has finished.",
                    raw);
    case CUPTI_ERROR_INVALID_METRIC_NAME:
        throw Error(ErrorCode::UnknownMetric, what, raw);
    case CUPTI_ERROR_INVALID_CHIP_NAME:
    case CUPTI_ERROR_NOT_COMPATIBLE:
    case CUPTI_ERROR_LEGACY_PROFILER_NOT_SUPPORTED:
    case CUPTI_ERROR_MIG_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_CMP_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_WSL_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_CONFIDENTIAL_COMPUTING_NOT_SUPPORTED:
        throw Error(ErrorCode::UnsupportedChip,
                    what + ". This GPU or configuration cannot be profiled by the CUPTI range "
                           "profiler (Turing or newer, no MIG, no vGPU without profiling rights).",
                    raw);
    default:
        throw Error(ErrorCode::Cupti, what, raw);
    }
}

CUptiResult logCupti(CUptiResult status, const char* call, const char* file, int line) noexcept {
    if (status != CUPTI_SUCCESS) {
        try {
            core::log().warn("{} failed: {} ({})", where(call, file, line), cuptiText(status),
                             static_cast<int>(status));
        } catch (...) {
        }
    }
    return status;
}

void throwCuda(int status, const char* call, const char* file, int line) {
    const char* name = nullptr;
    const char* text = nullptr;
    if (const DriverApi* d = driver()) {
        d->getErrorName(static_cast<CUresult>(status), &name);
        d->getErrorString(static_cast<CUresult>(status), &text);
    }
    const std::string what = where(call, file, line) + " failed: " + (name ? name : "CUDA error") +
                             ": " + (text ? text : "");
    if (status == CUDA_ERROR_NO_DEVICE || status == CUDA_ERROR_INVALID_DEVICE)
        throw Error(ErrorCode::NoDevice,
                    what + ". No usable CUDA device: check nvidia-smi and CUDA_VISIBLE_DEVICES.",
                    status);
    if (status == CUDA_ERROR_SYSTEM_DRIVER_MISMATCH || status == CUDA_ERROR_NOT_INITIALIZED)
        throw Error(ErrorCode::NoDevice, what + ". The NVIDIA driver is missing or too old.",
                    status);
    throw Error(ErrorCode::Cuda, what, status);
}

} // namespace roofline::cupti
