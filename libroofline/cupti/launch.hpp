#pragma once
// Kernel launches as the driver sees them, via the CUPTI callback API: name, grid, block, stream,
// context, on the launching thread, in launch order. Auto ranges are named "0","1",... by CUPTI;
// these events name them.
//
// Lifecycle: (1) the constructor subscribes (one subscriber per process: a second one fails with
// Error(ProfilerBusy)) and enables the driver launch callbacks -- or, when the injection made the
// process-wide subscription (subscribeProcess), takes its turn on it; (2) the sink is called on
// the launching thread at API entry, and with Kind::ModuleLoaded (context only) whenever a module
// is loaded into a context; (3) the destructor unsubscribes, or gives the turn back (noexcept).
//
// CUDA graphs: the kernel nodes of each instantiated graph are read when it is instantiated (and
// again after cuGraphExecUpdate). While graph launches are replaced (cupti/graph_replay.hpp), a
// cuGraphLaunch launches its nodes, which come here as launches of their own; otherwise it is one
// Kind::Graph event that lists them in dependency order.
#include "core/launch.hpp"

#include <roofline/kernel_record.hpp>
#include <roofline/options.hpp>

#include <cstdint>
#include <string>
#include <vector>

struct CUpti_Subscriber_st; // CUPTI's opaque handle, declared here to keep cupti headers out

namespace roofline::cupti {

/// A kernel node of an instantiated CUDA graph.
struct GraphKernel {
    std::string mangledName;
    Dim3 grid, block;
    std::uint32_t sharedMemBytes = 0;
    int registers = -1; ///< per thread; -1: unknown
    std::uint32_t staticSharedBytes = 0;
    std::uint64_t node = 0; ///< its node's graphNodeId() (cupti/graph_replay.hpp); 0: unknown
};

struct LaunchEvent {
    /// GraphAhead: a graph launch about to be issued while its launch is not replaced by its
    /// nodes (graph_replay.hpp), so that a sink starting a session on the process's first launch
    /// can turn replacement on for this very launch; a Graph event follows. Other sinks ignore it.
    /// Captured: a kernel launch into a stream being captured added graph node
    /// `launch.graphNode` (its kernel `launch.mangledName`); the kernel runs when the graph does.
    /// MemoryOperation: a driver call that allocates, frees, copies or sets memory, or destroys a
    /// stream, context or module, is about to run (only while followMemoryOperations(true)).
    enum class Kind { Kernel, Graph, ModuleLoaded, GraphAhead, Captured, MemoryOperation };
    Kind kind = Kind::Kernel;
    /// Kind::Kernel: the launch as the callback read it (its name valid during the sink call;
    /// nullptr when unknown); Kind::Graph: its stream and API call. The session places it.
    core::Launch launch{};
    void* context = nullptr;
    bool exit = false; ///< true: the launch call is returning (only kind and context are set)
    /// Kind::MemoryOperation: the call allocates or registers host-visible memory (pinned,
    /// mapped, managed: cupti/relaunch.hpp, allocatesHostVisible).
    bool hostVisible = false;
    /// When the callback began (LaunchTracker::timeCallbacks; -1: not read), so that the
    /// session can take libroofline's whole work on the launch out of the host times.
    std::int64_t calledWallNs = -1, calledCpuNs = -1;
    /// Kind::Graph: the graph's kernel nodes in dependency order (null when the graph was
    /// instantiated before the subscription, or could not be read); valid during the sink call.
    const std::vector<GraphKernel>* graphKernels = nullptr;
};

/// Lazily loaded kernels the launch callback loaded before their first launch went on (see
/// launch.cpp), process-wide.
std::uint64_t kernelsLoadedBeforeLaunch() noexcept;

/// Called on the launching thread; must not throw.
using LaunchSink = void (*)(const LaunchEvent& event, void* user) noexcept;

class LaunchTracker {
public:
    LaunchTracker(LaunchSink sink, void* user);
    /// Which clocks the launch callbacks read on entry, process-wide (LaunchEvent::calledWallNs,
    /// calledCpuNs): none (Off), the steady clock (Wall), or both (Cpu).
    static void timeCallbacks(HostTiming clocks) noexcept;
    /// Whether a launch's kernel is read before it runs (registers and static shared memory, a
    /// query that also loads lazily loaded code before a range profiler measures it),
    /// process-wide; on by default. A sampled run has no range profiler and takes the kernels'
    /// names from their activity records: it saves the program those driver calls per launch.
    static void readKernelResources(bool on) noexcept;
    ~LaunchTracker();
    LaunchTracker(const LaunchTracker&) = delete;
    LaunchTracker& operator=(const LaunchTracker&) = delete;

    /// The injection's subscription (session/injection.cpp), made before any Session exists and
    /// kept for the life of the process: launches go to `sink` until a LaunchTracker is
    /// constructed, and go back to it when that one is destroyed. Throws Error(ProfilerBusy) when
    /// a subscription exists already.
    static LaunchTracker* subscribeProcess(LaunchSink sink, void* user);
    /// `event` to the current tracker's sink (the injection hands a launch on to the Session it
    /// just created).
    static void dispatch(const LaunchEvent& event) noexcept;
    /// The tracker launches go to now (null: none).
    static LaunchTracker* active() noexcept;
    /// Detaches CUPTI from the process at the next driver call's exit, on whichever thread
    /// makes it (cuptiFinalize, where NVIDIA's documentation places it): every subscription and
    /// callback goes, and the driver runs the program as if no tool were attached. Until then
    /// the callbacks return at once. For a profile that is complete; a later subscription (a new
    /// session) attaches CUPTI again. Never throws.
    static void detachAtNextCall() noexcept;
    /// Whether driver calls that change memory (cupti/relaunch.hpp, changesMemory) reach the
    /// sink as Kind::MemoryOperation events, process-wide: window replay closes its window
    /// before each. Off by default (no callback on such calls). Never throws.
    static void followMemoryOperations(bool on) noexcept;
    /// CUPTI was detached (detachAtNextCall()): the subscriptions made before are gone.
    static bool detached() noexcept;
    /// Attaches CUPTI again after a detach, before a new session initializes the profiler:
    /// cuptiProfilerInitialize alone answers CUPTI_ERROR_NOT_INITIALIZED once cuptiFinalize ran,
    /// where a subscription brings CUPTI back. Nothing to do while attached. Never throws (a
    /// failure is logged; the profiler's own error then says what is missing).
    static void attachAgain() noexcept;
    /// How many times CUPTI was detached (cuptiFinalize) in this process: what was registered
    /// with CUPTI before the last one is gone.
    static std::uint64_t detachments() noexcept;

private:
    ::CUpti_Subscriber_st* subscriber_ = nullptr; ///< null: a turn on the process subscription
    LaunchTracker* previous_ = nullptr;           ///< the turn before this one
    LaunchSink sink_;
    void* user_;
    static void callback(int domain, unsigned cbid, const void* info) noexcept;
    friend struct LaunchTrackerAccess;
};

} // namespace roofline::cupti
