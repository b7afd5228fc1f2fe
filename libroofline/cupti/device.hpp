#pragma once
// The device side before profiling starts: driver initialization, the device's primary context
// (the one the CUDA runtime uses), its description, and CUPTI profiler initialization.
#include "core/device_info.hpp"

#include <string>
#include <utility>

namespace roofline::cupti {

/// cuInit, the device's primary context (retained until releasePrimaryContext) and its facts
/// (all but the chip name).
/// Throws Error(NoDevice) with the cause when there is no such device.
core::DeviceInfo openDevice(int ordinal, void** primaryContext);
void releasePrimaryContext(int ordinal) noexcept;

/// CUPTI's chip name ("GH100"); needs initializeProfiler() first.
std::string chipName(int ordinal);

/// cuptiProfilerInitialize, after attaching CUPTI again where a finished profile detached it
/// (LaunchTracker::attachAgain); paired with deinitializeProfiler().
void initializeProfiler();
void deinitializeProfiler() noexcept;

/// A device's primary context, retained while this lives (openDevice), released once.
class PrimaryContext {
public:
    PrimaryContext() = default;
    /// openDevice(ordinal): throws as it does; `info` receives the device's facts.
    PrimaryContext(int ordinal, core::DeviceInfo& info);
    ~PrimaryContext() { reset(); }
    PrimaryContext(PrimaryContext&& other) noexcept { *this = std::move(other); }
    PrimaryContext& operator=(PrimaryContext&& other) noexcept;
    PrimaryContext(const PrimaryContext&) = delete;
    PrimaryContext& operator=(const PrimaryContext&) = delete;
    void* get() const noexcept { return context_; }
    void reset() noexcept;

private:
    int ordinal_ = -1;
    void* context_ = nullptr;
};

/// CUPTI's profiler initialized while this lives (initializeProfiler / deinitializeProfiler).
class ProfilerInitialization {
public:
    ProfilerInitialization() { initializeProfiler(); }
    ~ProfilerInitialization() { deinitializeProfiler(); }
    ProfilerInitialization(const ProfilerInitialization&) = delete;
    ProfilerInitialization& operator=(const ProfilerInitialization&) = delete;
};

/// The device ordinal of a context (CUPTI's device id); -1 when it cannot be told.
int deviceOfContext(void* context) noexcept;

/// Number of CUDA devices, 0 when there is no driver or no GPU (never throws).
int deviceCount() noexcept;

} // namespace roofline::cupti
