#include "cupti/device.hpp"

#include "cupti/check.hpp"
#include "cupti/driver.hpp"
#include "cupti/launch.hpp"

#include <roofline/error.hpp>

#include <cuda.h>
#include <cupti_activity.h>
#include <cupti_profiler_target.h>
#include <cupti_target.h>

#include <cstdint>

namespace roofline::cupti {

int deviceCount() noexcept {
    const DriverApi* d = driver();
    if (!d || d->init(0) != CUDA_SUCCESS)
        return 0;
    int n = 0;
    return d->deviceGetCount(&n) == CUDA_SUCCESS ? n : 0;
}

int deviceOfContext(void* context) noexcept {
    std::uint32_t id = 0;
    return context && cuptiGetDeviceId(static_cast<CUcontext>(context), &id) == CUPTI_SUCCESS
               ? static_cast<int>(id)
               : -1;
}

core::DeviceInfo openDevice(int ordinal, void** primaryContext) {
    const DriverApi* d = driver();
    if (!d)
        throw Error(ErrorCode::NoDevice,
                    std::string("no CUDA device to profile: ") + driverLoadError() +
                        ". Recordings can still be evaluated with `roofline report`.");
    ROOFLINE_CU_CHECK(d->init(0));
    int count = 0;
    ROOFLINE_CU_CHECK(d->deviceGetCount(&count));
    if (ordinal < 0 || ordinal >= count)
        throw Error(ErrorCode::NoDevice,
                    "CUDA device " + std::to_string(ordinal) + " does not exist (" +
                        std::to_string(count) +
                        " visible; check CUDA_VISIBLE_DEVICES and ROOFLINE_DEVICE)");
    CUdevice dev{};
    ROOFLINE_CU_CHECK(d->deviceGet(&dev, ordinal));
    core::DeviceInfo info;
    info.ordinal = ordinal;
    char name[256] = {};
    ROOFLINE_CU_CHECK(d->deviceGetName(name, sizeof name, dev));
    info.name = name;
    auto attribute = [d, dev](CUdevice_attribute a) {
        int v = 0;
        ROOFLINE_CU_CHECK(d->deviceGetAttribute(&v, a, dev));
        return v;
    };
    info.computeMajor = attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
    info.computeMinor = attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
    info.smCount = attribute(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
    info.smClockHz = attribute(CU_DEVICE_ATTRIBUTE_CLOCK_RATE) * 1e3;
    info.memoryClockHz = attribute(CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE) * 1e3;
    info.memoryBusWidthBits = attribute(CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH);
    info.l2Bytes = static_cast<std::uint64_t>(attribute(CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE));
    // Occupancy limits per SM (resident blocks and waves of each launch). Optional: a
    // driver that cannot say leaves them 0 (unknown), never the session without a device.
    auto optional = [d, dev](CUdevice_attribute a) {
        int v = 0;
        return d->deviceGetAttribute(&v, a, dev) == CUDA_SUCCESS ? v : 0;
    };
    info.occupancy.maxThreadsPerSm = optional(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR);
    info.occupancy.maxBlocksPerSm = optional(CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR);
    info.occupancy.registersPerSm = optional(CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR);
    info.occupancy.sharedBytesPerSm =
        optional(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR);
    info.occupancy.reservedSharedPerBlock =
        optional(CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK);
    size_t memory = 0;
    ROOFLINE_CU_CHECK(d->deviceTotalMem(&memory, dev));
    info.memoryBytes = memory;
    ROOFLINE_CU_CHECK(d->driverGetVersion(&info.driverVersion));

    CUcontext ctx = nullptr;
    ROOFLINE_CU_CHECK(d->primaryCtxRetain(&ctx, dev));
    *primaryContext = ctx;
    return info;
}

void releasePrimaryContext(int ordinal) noexcept {
    const DriverApi* d = driver();
    CUdevice dev{};
    if (d && d->deviceGet(&dev, ordinal) == CUDA_SUCCESS)
        d->primaryCtxRelease(dev);
}

PrimaryContext::PrimaryContext(int ordinal, core::DeviceInfo& info) {
    info = openDevice(ordinal, &context_);
    ordinal_ = ordinal;
}

PrimaryContext& PrimaryContext::operator=(PrimaryContext&& other) noexcept {
    if (this != &other) {
        reset();
        std::swap(ordinal_, other.ordinal_);
        std::swap(context_, other.context_);
    }
    return *this;
}

void PrimaryContext::reset() noexcept {
    if (context_)
        releasePrimaryContext(ordinal_);
    context_ = nullptr;
    ordinal_ = -1;
}

std::string chipName(int ordinal) {
    CUpti_Device_GetChipName_Params chip{CUpti_Device_GetChipName_Params_STRUCT_SIZE};
    chip.deviceIndex = static_cast<size_t>(ordinal);
    ROOFLINE_CUPTI_CHECK(cuptiDeviceGetChipName(&chip));
    if (!chip.pChipName || !*chip.pChipName)
        throw Error(ErrorCode::UnsupportedChip,
                    "CUPTI returned no chip name for device " + std::to_string(ordinal));
    return chip.pChipName;
}

void initializeProfiler() {
    LaunchTracker::attachAgain(); // a profile before this one detached CUPTI (cuptiFinalize)
    CUpti_Profiler_Initialize_Params p{CUpti_Profiler_Initialize_Params_STRUCT_SIZE};
    ROOFLINE_CUPTI_CHECK(cuptiProfilerInitialize(&p));
}

void deinitializeProfiler() noexcept {
    CUpti_Profiler_DeInitialize_Params p{CUpti_Profiler_DeInitialize_Params_STRUCT_SIZE};
    ROOFLINE_CUPTI_LOG(cuptiProfilerDeInitialize(&p));
}

} // namespace roofline::cupti
