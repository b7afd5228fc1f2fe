#pragma once
// Kernel launches as the driver sees them, via the CUPTI callback API: name, grid, block, stream,
// context, on the launching thread, in launch order. Auto ranges are named "0","1",... by CUPTI;
// these events name them.
//
// Lifecycle: (1) the constructor subscribes (one subscriber per process: a second one fails with
// Error(ProfilerBusy)) and enables the driver launch callbacks; (2) the sink is called on the
// launching thread at API entry, and with Kind::ModuleLoaded (context only) whenever a module is
// loaded into a context; (3) the destructor unsubscribes (noexcept).
#include <roofline/kernel_record.hpp>

#include <cstdint>

struct CUpti_Subscriber_st; // CUPTI's opaque handle, declared here to keep cupti headers out

namespace roofline::cupti {

struct LaunchEvent {
    enum class Kind { Kernel, Graph, ModuleLoaded };
    Kind kind = Kind::Kernel;
    const char* mangledName = nullptr; ///< valid during the sink call only (kernels)
    Dim3 grid, block;
    std::uint32_t sharedMemBytes = 0; ///< dynamic shared memory of the launch
    std::uint64_t stream = 0;
    void* context = nullptr;
    std::uint64_t correlationId = 0; ///< CUPTI's id of the API call (joins activity records)
    bool exit = false; ///< true: the launch call is returning (only kind and context are set)
};

/// Lazily loaded kernels the launch callback loaded before their first launch went on (see
/// launch.cpp), process-wide.
std::uint64_t kernelsLoadedBeforeLaunch() noexcept;

/// Called on the launching thread; must not throw.
using LaunchSink = void (*)(const LaunchEvent& event, void* user) noexcept;

class LaunchTracker {
public:
    LaunchTracker(LaunchSink sink, void* user);
    ~LaunchTracker();
    LaunchTracker(const LaunchTracker&) = delete;
    LaunchTracker& operator=(const LaunchTracker&) = delete;

private:
    ::CUpti_Subscriber_st* subscriber_ = nullptr;
    LaunchSink sink_;
    void* user_;
    static void callback(void* self, int domain, unsigned cbid, const void* info) noexcept;
    friend struct LaunchTrackerAccess;
};

} // namespace roofline::cupti
