#include "cupti/launch.hpp"

#include "cupti/check.hpp"
#include "cupti/driver.hpp"
#include "cupti/trace.hpp"

#include <cuda.h>
#include <cupti.h>

#include <atomic>

namespace roofline::cupti {

struct LaunchTrackerAccess {
    static void CUPTIAPI onCallback(void* self, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                                    const void* info) {
        LaunchTracker::callback(self, static_cast<int>(domain), cbid, info);
    }
};

namespace {

constexpr CUpti_CallbackId kLaunchCallbacks[] = {
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch,
    CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz,
};

template <typename P> void fromClassic(const P* p, LaunchEvent& e) {
    e.grid = {p->gridDimX, p->gridDimY, p->gridDimZ};
    e.block = {p->blockDimX, p->blockDimY, p->blockDimZ};
    e.sharedMemBytes = p->sharedMemBytes;
    e.stream = reinterpret_cast<std::uint64_t>(p->hStream);
}

const char* functionName(CUfunction f) noexcept {
    const char* name = nullptr;
    const DriverApi* d = driver();
    return f && d && d->funcGetName(&name, f) == CUDA_SUCCESS ? name : nullptr;
}

// With lazy loading (CUDA's default) a kernel's code may be loaded inside its first launch, after
// this callback, right before CUPTI's own launch hook measures it on a profiler that saw the load:
// the condition of the CUPTI crash in docs/design/0005-code-loaded-while-profiling.md. Asking for
// one of the kernel's attributes here loads it now (the driver loads a lazily loaded function to
// answer), so its MODULE_LOADED callback comes before the collector decides how to measure the
// launch and can re-create the profiler first. The load is what the launch would do anyway; a
// failure is left for the launch itself to report. Counted when the load callback fired inside.
std::atomic<std::uint64_t> gLoadedBeforeLaunch{0};
thread_local bool tLoadedInside = false;

void loadBeforeLaunch(CUfunction f) noexcept {
    const DriverApi* d = driver();
    if (!f || !d)
        return;
    tLoadedInside = false;
    int registers = 0;
    d->funcGetAttribute(&registers, CU_FUNC_ATTRIBUTE_NUM_REGS, f);
    if (tLoadedInside)
        gLoadedBeforeLaunch.fetch_add(1, std::memory_order_relaxed);
}

} // namespace

std::uint64_t kernelsLoadedBeforeLaunch() noexcept {
    return gLoadedBeforeLaunch.load(std::memory_order_relaxed);
}

LaunchTracker::LaunchTracker(LaunchSink sink, void* user) : sink_(sink), user_(user) {
    CUpti_SubscriberHandle handle = nullptr;
    ROOFLINE_CUPTI_CHECK(cuptiSubscribe(
        &handle, reinterpret_cast<CUpti_CallbackFunc>(&LaunchTrackerAccess::onCallback), this));
    subscriber_ = handle;
    try {
        for (CUpti_CallbackId cbid : kLaunchCallbacks)
            ROOFLINE_CUPTI_CHECK(cuptiEnableCallback(1, handle, CUPTI_CB_DOMAIN_DRIVER_API, cbid));
        ROOFLINE_CUPTI_CHECK(cuptiEnableCallback(1, handle, CUPTI_CB_DOMAIN_RESOURCE,
                                                 CUPTI_CBID_RESOURCE_MODULE_LOADED));
    } catch (...) {
        ROOFLINE_CUPTI_LOG(cuptiUnsubscribe(handle));
        throw;
    }
}

LaunchTracker::~LaunchTracker() {
    if (subscriber_)
        ROOFLINE_CUPTI_LOG(cuptiUnsubscribe(subscriber_));
}

void LaunchTracker::callback(void* self, int domain, unsigned cbid, const void* raw) noexcept {
    if (domain == CUPTI_CB_DOMAIN_RESOURCE && cbid == CUPTI_CBID_RESOURCE_MODULE_LOADED) {
        // Code loaded (or JIT-compiled) into a context: from any driver call that needs it,
        // including loadBeforeLaunch() below for a lazily loaded kernel's first launch.
        const auto* resource = static_cast<const CUpti_ResourceData*>(raw);
        traceCodeLoad("module loaded into context %p", static_cast<void*>(resource->context));
        tLoadedInside = true;
        LaunchEvent e;
        e.kind = LaunchEvent::Kind::ModuleLoaded;
        e.context = resource->context;
        auto* tracker = static_cast<LaunchTracker*>(self);
        tracker->sink_(e, tracker->user_);
        return;
    }
    if (domain != CUPTI_CB_DOMAIN_DRIVER_API)
        return;
    const auto* info = static_cast<const CUpti_CallbackData*>(raw);
    LaunchEvent e;
    e.context = info->context;
    if (info->callbackSite == CUPTI_API_EXIT) {
        if (cbid == CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch ||
            cbid == CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz)
            return;
        e.exit = true;
        auto* tracker = static_cast<LaunchTracker*>(self);
        tracker->sink_(e, tracker->user_);
        return;
    }
    e.correlationId = info->correlationId;
    CUfunction f = nullptr;
    switch (cbid) {
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz: {
        const auto* p = static_cast<const cuLaunchKernel_params*>(info->functionParams);
        fromClassic(p, e);
        f = p->f;
        break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz: {
        const auto* p = static_cast<const cuLaunchCooperativeKernel_params*>(info->functionParams);
        fromClassic(p, e);
        f = p->f;
        break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz: {
        const auto* p = static_cast<const cuLaunchKernelEx_params*>(info->functionParams);
        if (p->config) {
            e.grid = {p->config->gridDimX, p->config->gridDimY, p->config->gridDimZ};
            e.block = {p->config->blockDimX, p->config->blockDimY, p->config->blockDimZ};
            e.sharedMemBytes = p->config->sharedMemBytes;
            e.stream = reinterpret_cast<std::uint64_t>(p->config->hStream);
        }
        f = p->f;
        break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch:
    case CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz: {
        e.kind = LaunchEvent::Kind::Graph;
        auto* tracker = static_cast<LaunchTracker*>(self);
        tracker->sink_(e, tracker->user_);
        return;
    }
    default:
        return;
    }
    loadBeforeLaunch(f);
    e.mangledName = info->symbolName ? info->symbolName : functionName(f);
    if (!e.mangledName)
        e.mangledName = "<unknown kernel>";
    traceCodeLoad("launch %s", e.mangledName);
    auto* tracker = static_cast<LaunchTracker*>(self);
    tracker->sink_(e, tracker->user_);
}

} // namespace roofline::cupti
