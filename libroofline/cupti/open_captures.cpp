#include "cupti/open_captures.hpp"

#include "cupti/driver.hpp"

#include <cuda.h>
#include <cupti.h>

#include <algorithm>
#include <pthread.h>

namespace roofline::cupti {

OpenCaptures::Call OpenCaptures::kindOf(unsigned cbid) noexcept {
    switch (cbid) {
    case CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture:
    case CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_ptsz:
    case CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_v2:
    case CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_v2_ptsz:
    case CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCaptureToGraph:
    case CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCaptureToGraph_ptsz:
        return Call::Begins;
    case CUPTI_DRIVER_TRACE_CBID_cuStreamEndCapture:
    case CUPTI_DRIVER_TRACE_CBID_cuStreamEndCapture_ptsz:
        return Call::Ends;
    case CUPTI_DRIVER_TRACE_CBID_cuStreamCreateForCaptureToCig:
        return Call::Untracked;
    default:
        return Call::Other;
    }
}

std::uintptr_t OpenCaptures::streamOf(std::uintptr_t named, unsigned cbid) noexcept {
    const bool perThreadCall = cbid == CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_ptsz ||
                               cbid == CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_v2_ptsz ||
                               cbid == CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCaptureToGraph_ptsz ||
                               cbid == CUPTI_DRIVER_TRACE_CBID_cuStreamEndCapture_ptsz;
    return named == 0 && perThreadCall ? reinterpret_cast<std::uintptr_t>(CU_STREAM_PER_THREAD)
                                       : named;
}

const std::vector<unsigned>& OpenCaptures::callbacks() {
    static const std::vector<unsigned> ids = {
        CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture,
        CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_ptsz,
        CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_v2,
        CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_v2_ptsz,
        CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCaptureToGraph,
        CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCaptureToGraph_ptsz,
        CUPTI_DRIVER_TRACE_CBID_cuStreamEndCapture,
        CUPTI_DRIVER_TRACE_CBID_cuStreamEndCapture_ptsz,
        CUPTI_DRIVER_TRACE_CBID_cuStreamCreateForCaptureToCig,
    };
    return ids;
}

std::uintptr_t OpenCaptures::keyOf(std::uintptr_t stream, std::uintptr_t thread) noexcept {
    const auto perThread = reinterpret_cast<std::uintptr_t>(CU_STREAM_PER_THREAD);
    return stream == perThread ? perThread ^ (thread << 4) // not a stream's address: aligned
                               : stream;
}

void OpenCaptures::beginning(std::uintptr_t key) noexcept {
    std::lock_guard<std::mutex> lock(mutex_);
    try {
        streams_.push_back(key);
    } catch (...) { // out of memory: no longer complete, so every launch asks
        complete_.store(false, std::memory_order_release);
    }
    open_.store(static_cast<int>(streams_.size()), std::memory_order_release);
}

void OpenCaptures::returned(std::uintptr_t key, bool capturing) noexcept {
    if (capturing)
        return;
    std::lock_guard<std::mutex> lock(mutex_);
    streams_.erase(std::remove(streams_.begin(), streams_.end(), key), streams_.end());
    open_.store(static_cast<int>(streams_.size()), std::memory_order_release);
}

void OpenCaptures::lost() noexcept {
    complete_.store(false, std::memory_order_release);
}

void OpenCaptures::complete() noexcept {
    std::lock_guard<std::mutex> lock(mutex_);
    streams_.clear();
    open_.store(0, std::memory_order_release);
    complete_.store(true, std::memory_order_release);
}

OpenCaptures& openCaptures() noexcept {
    static OpenCaptures* captures = new OpenCaptures(); // never destroyed: callbacks at exit
    return *captures;
}

bool followCaptureCall(unsigned cbid, const void* raw) noexcept {
    const OpenCaptures::Call kind = OpenCaptures::kindOf(cbid);
    if (kind == OpenCaptures::Call::Other)
        return false;
    if (kind == OpenCaptures::Call::Untracked) {
        openCaptures().lost();
        return true;
    }
    const auto* info = static_cast<const CUpti_CallbackData*>(raw);
    // Every begin and end call's parameters start with the stream it names.
    const std::uintptr_t named =
        reinterpret_cast<std::uintptr_t>(*static_cast<const CUstream*>(info->functionParams));
    const std::uintptr_t value = OpenCaptures::streamOf(named, cbid);
    const std::uintptr_t key =
        OpenCaptures::keyOf(value, static_cast<std::uintptr_t>(pthread_self()));
    const CUstream stream = reinterpret_cast<CUstream>(value);
    if (info->callbackSite == CUPTI_API_ENTER) {
        if (kind == OpenCaptures::Call::Begins)
            openCaptures().beginning(key);
        return true;
    }
    const DriverApi* d = driver();
    CUstreamCaptureStatus status = CU_STREAM_CAPTURE_STATUS_NONE;
    if (!d || !d->streamIsCapturing || d->streamIsCapturing(stream, &status) != CUDA_SUCCESS)
        return true; // cannot say: the capture stays open, and launches keep asking
    openCaptures().returned(key, status != CU_STREAM_CAPTURE_STATUS_NONE);
    return true;
}

} // namespace roofline::cupti
