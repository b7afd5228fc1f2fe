// What window replay asks of CUPTI and the driver on a machine without a GPU: which driver calls
// close a window (read from CUPTI's callback names, no device needed), and what recording a launch
// says when the driver or CUPTI's checkpoint library is not there (cupti/relaunch).
#include "cupti/relaunch.hpp"

#include <cuda.h>
#include <cupti.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

using namespace roofline;

// Calls that allocate, free, copy, set or destroy close a window; launches, synchronisations and
// queries do not (a launch is the window's own; a graph launch is handled as one).
TEST(Relaunch, TheCallsThatChangeMemoryAreFoundByName) {
    const std::vector<unsigned>& ids = cupti::memoryCallbacks();
    EXPECT_GT(ids.size(), 40u) << "every cuMemcpy*, cuMemset*, cuMemAlloc*, cuMemFree* variant";
    EXPECT_TRUE(std::is_sorted(ids.begin(), ids.end()));
    for (const unsigned cbid :
         {CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoD_v2, CUPTI_DRIVER_TRACE_CBID_cuMemcpyAsync,
          CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoDAsync_v2, CUPTI_DRIVER_TRACE_CBID_cuMemsetD32_v2,
          CUPTI_DRIVER_TRACE_CBID_cuMemsetD8Async, CUPTI_DRIVER_TRACE_CBID_cuMemAlloc_v2,
          CUPTI_DRIVER_TRACE_CBID_cuMemAllocAsync, CUPTI_DRIVER_TRACE_CBID_cuMemFree_v2,
          CUPTI_DRIVER_TRACE_CBID_cuMemFreeAsync, CUPTI_DRIVER_TRACE_CBID_cuMemHostAlloc,
          CUPTI_DRIVER_TRACE_CBID_cuStreamDestroy_v2, CUPTI_DRIVER_TRACE_CBID_cuModuleUnload,
          CUPTI_DRIVER_TRACE_CBID_cuCtxDestroy_v2})
        EXPECT_TRUE(cupti::changesMemory(cbid)) << cbid;
    for (const unsigned cbid :
         {CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx,
          CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch, CUPTI_DRIVER_TRACE_CBID_cuCtxSynchronize,
          CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize, CUPTI_DRIVER_TRACE_CBID_cuMemGetInfo_v2,
          CUPTI_DRIVER_TRACE_CBID_cuEventRecord, CUPTI_DRIVER_TRACE_CBID_cuFuncGetAttribute})
        EXPECT_FALSE(cupti::changesMemory(cbid)) << cbid;
}

// Calls that allocate or register memory the host reaches stop iteration replay's windows (their
// restore would restore it too); each is one the launch tracker follows. Device allocations do
// not; cuMemCreate does where its location is the host.
TEST(Relaunch, HostVisibleAllocationsAreFoundByNameAndLocation) {
    for (const unsigned cbid :
         {CUPTI_DRIVER_TRACE_CBID_cuMemHostAlloc, CUPTI_DRIVER_TRACE_CBID_cuMemAllocHost_v2,
          CUPTI_DRIVER_TRACE_CBID_cuMemHostRegister_v2, CUPTI_DRIVER_TRACE_CBID_cuMemAllocManaged}) {
        EXPECT_TRUE(cupti::allocatesHostVisible(cbid, nullptr)) << cbid;
        EXPECT_TRUE(cupti::changesMemory(cbid)) << cbid << ": followed with the memory calls";
    }
    for (const unsigned cbid :
         {CUPTI_DRIVER_TRACE_CBID_cuMemAlloc_v2, CUPTI_DRIVER_TRACE_CBID_cuMemAllocAsync,
          CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoD_v2, CUPTI_DRIVER_TRACE_CBID_cuMemFreeHost,
          CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel})
        EXPECT_FALSE(cupti::allocatesHostVisible(cbid, nullptr)) << cbid;
    CUmemAllocationProp prop{};
    cuMemCreate_params params{};
    params.prop = &prop;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    EXPECT_FALSE(cupti::allocatesHostVisible(CUPTI_DRIVER_TRACE_CBID_cuMemCreate, &params));
    prop.location.type = CU_MEM_LOCATION_TYPE_HOST_NUMA;
    EXPECT_TRUE(cupti::allocatesHostVisible(CUPTI_DRIVER_TRACE_CBID_cuMemCreate, &params));
    EXPECT_TRUE(cupti::allocatesHostVisible(CUPTI_DRIVER_TRACE_CBID_cuMemCreate, nullptr))
        << "unknown: taken as host memory";
}

// Where there is no driver (this machine, CI), a launch is not recorded, and why is said -- the
// record's note then tells the user, and the launch runs as it is.
TEST(Relaunch, WithoutTheDriverALaunchIsNotRecordedAndSaysWhy) {
    std::string why;
    if (cupti::windowReplayAvailable(&why))
        GTEST_SKIP() << "a driver and CUPTI's checkpoint library are here: nothing to check";
    EXPECT_FALSE(why.empty());
    cupti::RecordedLaunch r;
    std::string recorded;
    EXPECT_FALSE(r.record(CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, nullptr, recorded));
    EXPECT_EQ(recorded, why);
}
