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
    // CUDA graphs (cupti/launch.cpp reads the kernel nodes of instantiated graphs); optional: null
    // when the driver lacks them, and graph kernels then go without names.
    decltype(&::cuGraphGetNodes) graphGetNodes;
    decltype(&::cuGraphGetEdges) graphGetEdges; // cuda.h maps it to _v2 (with edge data)
    decltype(&::cuGraphNodeGetType) graphNodeGetType;
    decltype(&::cuGraphKernelNodeGetParams) graphKernelNodeGetParams; // _v2
    decltype(&::cuGraphChildGraphNodeGetGraph) graphChildGraphNodeGetGraph;
    decltype(&::cuKernelGetName) kernelGetName;
    /// A library kernel's function in the current context (loads it); optional.
    decltype(&::cuKernelGetFunction) kernelGetFunction;
    /// Launches into a capturing stream only record graph nodes: they run at cuGraphLaunch.
    decltype(&::cuStreamIsCapturing) streamIsCapturing;
    /// The node a launch into a capturing stream just added (the capture's one dependency);
    /// optional: graph kernels are then named by what is current when they run.
    decltype(&::cuStreamGetCaptureInfo) streamGetCaptureInfo; // _v3 (with edge data)
    /// A clone's node for a node of its graph (graph_replay.cpp); optional, as above.
    decltype(&::cuGraphNodeFindInClone) graphNodeFindInClone;
    // Graph launches replaced by their nodes (cupti/graph_replay.cpp); optional: null when the
    // driver lacks one of them, and graph launches then run as they are.
    decltype(&::cuGraphClone) graphClone;
    decltype(&::cuGraphDestroy) graphDestroy;
    decltype(&::cuGraphCreate) graphCreate;
    decltype(&::cuGraphInstantiateWithFlags) graphInstantiate;
    decltype(&::cuGraphMemsetNodeGetParams) graphMemsetNodeGetParams;
    decltype(&::cuGraphMemcpyNodeGetParams) graphMemcpyNodeGetParams;
    decltype(&::cuGraphHostNodeGetParams) graphHostNodeGetParams;
    decltype(&::cuGraphEventRecordNodeGetEvent) graphEventRecordNodeGetEvent;
    decltype(&::cuGraphEventWaitNodeGetEvent) graphEventWaitNodeGetEvent;
    decltype(&::cuGraphKernelNodeGetAttribute) graphKernelNodeGetAttribute;
    /// Optional: an executable graph's kernel node changed in place is changed in its clone too;
    /// without it such a graph is launched as it is.
    decltype(&::cuGraphKernelNodeSetParams) graphKernelNodeSetParams; // _v2
    decltype(&::cuLaunchKernelEx) launchKernelEx;
    decltype(&::cuMemsetD2D8Async) memsetD2D8Async;
    decltype(&::cuMemsetD2D16Async) memsetD2D16Async;
    decltype(&::cuMemsetD2D32Async) memsetD2D32Async;
    decltype(&::cuMemcpy3DAsync) memcpy3DAsync;
    decltype(&::cuLaunchHostFunc) launchHostFunc;
    decltype(&::cuEventRecord) eventRecord;
    decltype(&::cuStreamWaitEvent) streamWaitEvent;
    // The L2 flush kernel (cupti/l2_flush.cpp); optional: null when the driver lacks one of them,
    // and caches are then not flushed before each kernel.
    decltype(&::cuModuleLoadData) moduleLoadData;
    decltype(&::cuModuleUnload) moduleUnload;
    decltype(&::cuModuleGetFunction) moduleGetFunction;
    decltype(&::cuLaunchKernel) launchKernel;
    // A launch recorded to be launched again (cupti/relaunch.cpp); optional: null when the driver
    // lacks one of them, and window replay is then unavailable.
    decltype(&::cuFuncGetParamInfo) funcGetParamInfo;
    decltype(&::cuKernelGetParamInfo) kernelGetParamInfo;
    // Whether two checkpoints of the device's memory fit in it (window replay); optional.
    decltype(&::cuMemGetInfo) memGetInfo;
    // Which argument words are addresses (window replay's classes); optional.
    decltype(&::cuPointerGetAttributes) pointerGetAttributes;
};

/// The driver's functions, or null when libcuda.so.1 (or one of them) cannot be loaded.
const DriverApi* driver() noexcept;
/// Why driver() is null, for error messages.
const char* driverLoadError() noexcept;

} // namespace roofline::cupti
