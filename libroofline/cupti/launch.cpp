#include "cupti/launch.hpp"

#include "cupti/check.hpp"
#include "cupti/driver.hpp"

#include <cuda.h>
#include <cupti.h>

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
    e.stream = reinterpret_cast<std::uint64_t>(p->hStream);
}

const char* functionName(CUfunction f) noexcept {
    const char* name = nullptr;
    const DriverApi* d = driver();
    return f && d && d->funcGetName(&name, f) == CUDA_SUCCESS ? name : nullptr;
}

} // namespace

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
        // Code loaded (or JIT-compiled) into a context: a lazily loaded kernel's first launch
        // gets here from inside that launch.
        const auto* resource = static_cast<const CUpti_ResourceData*>(raw);
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
    e.mangledName = info->symbolName ? info->symbolName : functionName(f);
    if (!e.mangledName)
        e.mangledName = "<unknown kernel>";
    auto* tracker = static_cast<LaunchTracker*>(self);
    tracker->sink_(e, tracker->user_);
}

} // namespace roofline::cupti
