#include "cupti/driver.hpp"

#include <dlfcn.h>
#include <string>

namespace roofline::cupti {
namespace {

std::string gLoadError;

template <typename F> bool resolve(void* lib, const char* symbol, F& out) {
    out = reinterpret_cast<F>(dlsym(lib, symbol));
    if (!out)
        gLoadError = std::string("libcuda.so.1 lacks ") + symbol + " (driver too old?)";
    return out != nullptr;
}

const DriverApi* load() noexcept {
    static DriverApi api{};
    void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_GLOBAL);
    if (!lib) {
        const char* e = dlerror();
        gLoadError = std::string("cannot load the NVIDIA driver (libcuda.so.1): ") + (e ? e : "");
        return nullptr;
    }
    // Versioned names: cuda.h maps cuDeviceTotalMem and cuDevicePrimaryCtxRelease to their _v2.
    const bool ok = resolve(lib, "cuInit", api.init) &&
                    resolve(lib, "cuDriverGetVersion", api.driverGetVersion) &&
                    resolve(lib, "cuDeviceGetCount", api.deviceGetCount) &&
                    resolve(lib, "cuDeviceGet", api.deviceGet) &&
                    resolve(lib, "cuDeviceGetName", api.deviceGetName) &&
                    resolve(lib, "cuDeviceGetAttribute", api.deviceGetAttribute) &&
                    resolve(lib, "cuDeviceTotalMem_v2", api.deviceTotalMem) &&
                    resolve(lib, "cuDevicePrimaryCtxRetain", api.primaryCtxRetain) &&
                    resolve(lib, "cuDevicePrimaryCtxRelease_v2", api.primaryCtxRelease) &&
                    resolve(lib, "cuGetErrorName", api.getErrorName) &&
                    resolve(lib, "cuGetErrorString", api.getErrorString) &&
                    resolve(lib, "cuFuncGetName", api.funcGetName) &&
                    resolve(lib, "cuFuncGetAttribute", api.funcGetAttribute) &&
                    resolve(lib, "cuMemAlloc_v2", api.memAlloc) &&
                    resolve(lib, "cuMemFree_v2", api.memFree) &&
                    resolve(lib, "cuMemsetD32_v2", api.memsetD32) &&
                    resolve(lib, "cuCtxSynchronize", api.ctxSynchronize) &&
                    resolve(lib, "cuCtxPushCurrent_v2", api.ctxPushCurrent) &&
                    resolve(lib, "cuCtxPopCurrent_v2", api.ctxPopCurrent);
    if (!ok)
        return nullptr;
    const bool graphs =
        resolve(lib, "cuGraphGetNodes", api.graphGetNodes) &&
        resolve(lib, "cuGraphGetEdges_v2", api.graphGetEdges) &&
        resolve(lib, "cuGraphNodeGetType", api.graphNodeGetType) &&
        resolve(lib, "cuGraphKernelNodeGetParams_v2", api.graphKernelNodeGetParams) &&
        resolve(lib, "cuGraphChildGraphNodeGetGraph", api.graphChildGraphNodeGetGraph);
    if (!graphs)
        api.graphGetNodes = nullptr; // appendKernels() checks this one
    // Optional: null when the driver lacks them (the load error they leave is cleared below).
    resolve(lib, "cuKernelGetName", api.kernelGetName);
    resolve(lib, "cuKernelGetFunction", api.kernelGetFunction);
    resolve(lib, "cuStreamIsCapturing", api.streamIsCapturing);
    resolve(lib, "cuStreamGetCaptureInfo_v3", api.streamGetCaptureInfo);
    resolve(lib, "cuGraphNodeFindInClone", api.graphNodeFindInClone);
    resolve(lib, "cuGraphKernelNodeSetParams_v2", api.graphKernelNodeSetParams);
    const bool replay =
        resolve(lib, "cuGraphClone", api.graphClone) &&
        resolve(lib, "cuGraphDestroy", api.graphDestroy) &&
        resolve(lib, "cuGraphCreate", api.graphCreate) &&
        resolve(lib, "cuGraphInstantiateWithFlags", api.graphInstantiate) &&
        resolve(lib, "cuGraphMemsetNodeGetParams", api.graphMemsetNodeGetParams) &&
        resolve(lib, "cuGraphMemcpyNodeGetParams", api.graphMemcpyNodeGetParams) &&
        resolve(lib, "cuGraphHostNodeGetParams", api.graphHostNodeGetParams) &&
        resolve(lib, "cuGraphEventRecordNodeGetEvent", api.graphEventRecordNodeGetEvent) &&
        resolve(lib, "cuGraphEventWaitNodeGetEvent", api.graphEventWaitNodeGetEvent) &&
        resolve(lib, "cuGraphKernelNodeGetAttribute", api.graphKernelNodeGetAttribute) &&
        resolve(lib, "cuLaunchKernelEx", api.launchKernelEx) &&
        resolve(lib, "cuMemsetD2D8Async", api.memsetD2D8Async) &&
        resolve(lib, "cuMemsetD2D16Async", api.memsetD2D16Async) &&
        resolve(lib, "cuMemsetD2D32Async", api.memsetD2D32Async) &&
        resolve(lib, "cuMemcpy3DAsync_v2", api.memcpy3DAsync) &&
        resolve(lib, "cuLaunchHostFunc", api.launchHostFunc) &&
        resolve(lib, "cuEventRecord", api.eventRecord) &&
        resolve(lib, "cuStreamWaitEvent", api.streamWaitEvent);
    if (!replay)
        api.graphClone = nullptr; // graph_replay.cpp checks this one
    const bool flush = resolve(lib, "cuModuleLoadData", api.moduleLoadData) &&
                       resolve(lib, "cuModuleUnload", api.moduleUnload) &&
                       resolve(lib, "cuModuleGetFunction", api.moduleGetFunction) &&
                       resolve(lib, "cuLaunchKernel", api.launchKernel);
    if (!flush)
        api.launchKernel = nullptr; // l2_flush.cpp checks this one
    if (!resolve(lib, "cuFuncGetParamInfo", api.funcGetParamInfo) ||
        !resolve(lib, "cuKernelGetParamInfo", api.kernelGetParamInfo))
        api.funcGetParamInfo = nullptr; // relaunch.cpp checks this one
    resolve(lib, "cuPointerGetAttributes", api.pointerGetAttributes);
    resolve(lib, "cuMemGetInfo_v2", api.memGetInfo);
    gLoadError.clear();
    return &api;
}

} // namespace

const DriverApi* driver() noexcept {
    static const DriverApi* api = load();
    return api;
}

const char* driverLoadError() noexcept {
    driver();
    return gLoadError.c_str();
}

} // namespace roofline::cupti
