#pragma once
// The device side before profiling starts: driver initialization, the device's primary context
// (the one the CUDA runtime uses), its description, and CUPTI profiler initialization.
#include "core/device_info.hpp"

#include <string>

namespace roofline::cupti {

/// cuInit, the device's primary context (retained until releasePrimaryContext) and its facts
/// (all but the chip name).
/// Throws Error(NoDevice) with the cause when there is no such device.
core::DeviceInfo openDevice(int ordinal, void** primaryContext);
void releasePrimaryContext(int ordinal) noexcept;

/// CUPTI's chip name ("GH100"); needs initializeProfiler() first.
std::string chipName(int ordinal);

/// cuptiProfilerInitialize; paired with deinitializeProfiler().
void initializeProfiler();
void deinitializeProfiler() noexcept;

/// The device ordinal of a context (CUPTI's device id); -1 when it cannot be told.
int deviceOfContext(void* context) noexcept;

/// Number of CUDA devices, 0 when there is no driver or no GPU (never throws).
int deviceCount() noexcept;

} // namespace roofline::cupti
