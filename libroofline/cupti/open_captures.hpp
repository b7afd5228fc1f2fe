#pragma once
// Stream captures under way in the process, followed from the driver calls that begin and end
// them, so that a launch asks the driver whether its stream is capturing (cuStreamIsCapturing,
// ~0.5 us a launch on the H200) only while some capture may be open.
//
// A capture is open from its begin call's entry (before its stream captures) until a begin or end
// call on that stream returns with the stream no longer capturing: a failed begin, an end, an
// end that finds the capture invalidated. Streams joined into a capture through events capture
// only while its origin stream does (its end fails until they rejoin), so the origins are enough.
// The count is complete only when it started before any capture could begin -- a subscription
// made inside cuInit -- and only while that subscription lasts: otherwise every launch asks.
#include <atomic>
#include <cstdint>
#include <mutex>
#include <vector>

namespace roofline::cupti {

class OpenCaptures {
public:
    enum class Call { Other, Begins, Ends, Untracked };
    /// What driver callback `cbid` does to captures: begins one, ends one, makes a stream that
    /// may capture in a way not followed here (Untracked), or nothing.
    static Call kindOf(unsigned cbid) noexcept;
    /// The stream a begin or end call `cbid` names as `named` (a CUstream's value): 0 in a
    /// _ptsz call is the per-thread default stream (CU_STREAM_PER_THREAD).
    static std::uintptr_t streamOf(std::uintptr_t named, unsigned cbid) noexcept;
    /// The driver callbacks kindOf() names, to enable.
    static const std::vector<unsigned>& callbacks();

    /// A begin call's entry, for the stream it names (`key`: see keyOf()).
    void beginning(std::uintptr_t key) noexcept;
    /// A begin or end call returned; `capturing`: whether its stream captures now.
    void returned(std::uintptr_t key, bool capturing) noexcept;
    /// A call whose captures are not followed: every launch asks from now on.
    void lost() noexcept;
    /// The count holds every capture from now on (called where none can be open yet).
    void complete() noexcept;

    /// False only when no stream can be capturing.
    bool mayCapture() const noexcept {
        return !complete_.load(std::memory_order_acquire) ||
               open_.load(std::memory_order_acquire) > 0;
    }
    int open() const noexcept { return open_.load(std::memory_order_acquire); }

    /// The key of `stream` (streamOf()'s) on thread `thread`: the per-thread default stream
    /// (CU_STREAM_PER_THREAD) is another stream on each thread.
    static std::uintptr_t keyOf(std::uintptr_t stream, std::uintptr_t thread) noexcept;

private:
    std::mutex mutex_;
    std::vector<std::uintptr_t> streams_; // origins of the open captures
    std::atomic<int> open_{0};
    std::atomic<bool> complete_{false};
};

/// The process's captures, as the launch callbacks follow them.
OpenCaptures& openCaptures() noexcept;

/// A driver callback (`callbackData`: its CUpti_CallbackData) that begins or ends a stream
/// capture, followed in openCaptures(); false for any other call.
bool followCaptureCall(unsigned cbid, const void* callbackData) noexcept;

} // namespace roofline::cupti
