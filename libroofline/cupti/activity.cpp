#include "cupti/activity.hpp"

#include "cupti/check.hpp"
#include "cupti/launch.hpp"

#include "core/reused_buffers.hpp"

#include <cupti.h>

#include <atomic>
#include <cstdlib>
#include <mutex>

namespace roofline::cupti {
namespace {

constexpr std::size_t kBufferBytes = 4 << 20;
constexpr std::size_t kBuffersKept = 8; // 32 MiB at most, free, while nothing is recorded
constexpr std::size_t kBuffersAhead = 3;

// The activity buffers, their pages mapped ahead of CUPTI's requests (core/reused_buffers.hpp).
// Never destroyed: CUPTI's thread may hand a buffer back while the process exits.
core::ReusedBuffers& buffers() {
    static auto* b = new core::ReusedBuffers(kBufferBytes, kBuffersKept);
    return *b;
}

std::mutex gMutex;
std::vector<KernelTiming>* gTimings = nullptr;
std::atomic<std::uint64_t> gDropped{0};

// On the thread that launches: a ready buffer (8-byte aligned, as CUPTI needs), or null when
// memory ran out (CUPTI then drops records, and counts them).
void CUPTIAPI requestBuffer(uint8_t** buffer, size_t* size, size_t* maxRecords) {
    *buffer = buffers().take();
    *size = *buffer ? buffers().bytes() : 0;
    *maxRecords = 0;
}

void CUPTIAPI completeBuffer(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t validSize) {
    try {
        CUpti_Activity* record = nullptr;
        std::lock_guard<std::mutex> lock(gMutex);
        while (cuptiActivityGetNextRecord(buffer, validSize, &record) == CUPTI_SUCCESS) {
            if (record->kind != CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL &&
                record->kind != CUPTI_ACTIVITY_KIND_KERNEL)
                continue;
            const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(record);
            if (!gTimings)
                continue;
            KernelTiming t;
            t.correlationId = k->correlationId;
            t.mangledName = k->name ? k->name : "";
            t.grid = {static_cast<std::uint32_t>(k->gridX), static_cast<std::uint32_t>(k->gridY),
                      static_cast<std::uint32_t>(k->gridZ)};
            t.block = {static_cast<std::uint32_t>(k->blockX), static_cast<std::uint32_t>(k->blockY),
                       static_cast<std::uint32_t>(k->blockZ)};
            t.streamId = k->streamId;
            t.device = static_cast<int>(k->deviceId);
            t.startNs = k->start;
            t.endNs = k->end;
            t.seconds = k->end > k->start ? static_cast<double>(k->end - k->start) * 1e-9 : 0.0;
            gTimings->push_back(std::move(t));
        }
    } catch (...) {
        // out of memory: these timings are lost; counted below
        gDropped.fetch_add(1);
    }
    buffers().give(buffer);
}

// CUPTI takes one registration of the buffer callbacks per attach: a second KernelTimer (a
// session after one that fell back to timing) registers again only where CUPTI was detached
// (cuptiFinalize) since, which took the registration with it.
void registerBuffers() {
    static std::mutex m;
    constexpr std::uint64_t kNever = ~std::uint64_t{0};
    static std::uint64_t registeredAt = kNever; // LaunchTracker::detachments() then
    std::lock_guard<std::mutex> lock(m);
    LaunchTracker::attachAgain(); // a finished profile detached CUPTI: attach it now, here
    const std::uint64_t detachments = LaunchTracker::detachments();
    if (registeredAt == detachments)
        return;
    ROOFLINE_CUPTI_CHECK(cuptiActivityRegisterCallbacks(&requestBuffer, &completeBuffer));
    registeredAt = detachments;
}

} // namespace

KernelTimer::KernelTimer() {
    {
        std::lock_guard<std::mutex> lock(gMutex);
        delete gTimings;
        gTimings = new std::vector<KernelTiming>();
    }
    buffers().prepare(kBuffersAhead);
    registerBuffers();
    ROOFLINE_CUPTI_CHECK(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL));
}

KernelTimer::~KernelTimer() {
    ROOFLINE_CUPTI_LOG(cuptiActivityDisable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL));
    ROOFLINE_CUPTI_LOG(cuptiActivityFlushAll(1));
    std::lock_guard<std::mutex> lock(gMutex);
    delete gTimings;
    gTimings = nullptr;
}

std::vector<KernelTiming> KernelTimer::take(bool forced) noexcept {
    ROOFLINE_CUPTI_LOG(cuptiActivityFlushAll(forced ? CUPTI_ACTIVITY_FLAG_FLUSH_FORCED : 0));
    std::lock_guard<std::mutex> lock(gMutex);
    std::vector<KernelTiming> out;
    if (gTimings)
        out.swap(*gTimings);
    return out;
}

std::uint64_t KernelTimer::dropped() const noexcept {
    return gDropped.load();
}

void KernelTimer::record(bool on) noexcept {
    if (on)
        ROOFLINE_CUPTI_LOG(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL));
    else
        ROOFLINE_CUPTI_LOG(cuptiActivityDisable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL));
}

std::uint64_t timestampNs() noexcept {
    uint64_t t = 0;
    return cuptiGetTimestamp(&t) == CUPTI_SUCCESS ? t : 0;
}

} // namespace roofline::cupti
