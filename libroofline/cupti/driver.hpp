#pragma once
// The CUDA driver entry points libroofline uses, resolved at run time from libcuda.so.1 so that
// the library (and the CLI) load and run on machines with no NVIDIA driver.
#include <cuda.h>

namespace roofline::cupti {

struct DriverApi {
    decltype(&::cuInit) init;
    decltype(&::cuDriverGetVersion) driverGetVersion;
    decltype(&::cuDeviceGetCount) deviceGetCount;
    decltype(&::cuDeviceGet) deviceGet;
    decltype(&::cuDeviceGetName) deviceGetName;
    decltype(&::cuDeviceGetAttribute) deviceGetAttribute;
    decltype(&::cuDeviceTotalMem) deviceTotalMem;
    decltype(&::cuDevicePrimaryCtxRetain) primaryCtxRetain;
    decltype(&::cuDevicePrimaryCtxRelease) primaryCtxRelease;
    decltype(&::cuGetErrorName) getErrorName;
    decltype(&::cuGetErrorString) getErrorString;
    decltype(&::cuFuncGetName) funcGetName;
    decltype(&::cuMemAlloc) memAlloc;
    decltype(&::cuMemFree) memFree;
    decltype(&::cuMemsetD32) memsetD32;
    decltype(&::cuCtxSynchronize) ctxSynchronize;
    decltype(&::cuCtxPushCurrent) ctxPushCurrent;
    decltype(&::cuCtxPopCurrent) ctxPopCurrent;
    decltype(&::cuFuncGetAttribute) funcGetAttribute;
};

/// The driver's functions, or null when libcuda.so.1 (or one of them) cannot be loaded.
const DriverApi* driver() noexcept;
/// Why driver() is null, for error messages.
const char* driverLoadError() noexcept;

} // namespace roofline::cupti
