#include "cupti/launch.hpp"
#include "cupti/l2_flush.hpp"

#include "core/log.hpp"
#include "core/stopwatch.hpp"
#include "cupti/check.hpp"
#include "cupti/driver.hpp"
#include "cupti/graph_replay.hpp"
#include "cupti/open_captures.hpp"
#include "cupti/relaunch.hpp"
#include "cupti/trace.hpp"

#include <cuda.h>
#include <cupti.h>

#include <roofline/error.hpp>

#include <algorithm>
#include <atomic>
#include <memory>
#include <mutex>
#include <unordered_map>

namespace roofline::cupti {

struct LaunchTrackerAccess {
    static void CUPTIAPI onCallback(void*, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                                    const void* info) {
        LaunchTracker::callback(static_cast<int>(domain), cbid, info);
    }
    /// `e` to the tracker's sink.
    static void emit(LaunchTracker* t, const LaunchEvent& e) noexcept { t->sink_(e, t->user_); }
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

// Instantiation (the graph's kernel nodes are read at its exit), update and destruction.
constexpr CUpti_CallbackId kGraphCallbacks[] = {
    CUPTI_DRIVER_TRACE_CBID_cuGraphInstantiate,
    CUPTI_DRIVER_TRACE_CBID_cuGraphInstantiate_v2,
    CUPTI_DRIVER_TRACE_CBID_cuGraphInstantiateWithFlags,
    CUPTI_DRIVER_TRACE_CBID_cuGraphInstantiateWithParams,
    CUPTI_DRIVER_TRACE_CBID_cuGraphInstantiateWithParams_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuGraphExecUpdate_v2,
    CUPTI_DRIVER_TRACE_CBID_cuGraphExecDestroy,
    // Per-node changes of an executable graph: its node list (graph_replay.cpp) no longer holds.
    CUPTI_DRIVER_TRACE_CBID_cuGraphExecKernelNodeSetParams,
    CUPTI_DRIVER_TRACE_CBID_cuGraphExecKernelNodeSetParams_v2,
    CUPTI_DRIVER_TRACE_CBID_cuGraphExecMemcpyNodeSetParams,
    CUPTI_DRIVER_TRACE_CBID_cuGraphExecMemsetNodeSetParams,
    CUPTI_DRIVER_TRACE_CBID_cuGraphExecHostNodeSetParams,
    CUPTI_DRIVER_TRACE_CBID_cuGraphExecChildGraphNodeSetParams,
    CUPTI_DRIVER_TRACE_CBID_cuGraphExecEventRecordNodeSetEvent,
    CUPTI_DRIVER_TRACE_CBID_cuGraphExecEventWaitNodeSetEvent,
    CUPTI_DRIVER_TRACE_CBID_cuGraphExecNodeSetParams,
    CUPTI_DRIVER_TRACE_CBID_cuGraphNodeSetEnabled,
};

// A kernel's registers per thread and static shared memory (for occupancy), false when the
// driver cannot say for `f`.
bool readAttributes(const DriverApi* d, CUfunction f, int& registers,
                    std::uint32_t& staticSharedBytes, CUresult& error) noexcept {
    int value = 0;
    if ((error = d->funcGetAttribute(&value, CU_FUNC_ATTRIBUTE_NUM_REGS, f)) != CUDA_SUCCESS)
        return false;
    registers = value;
    if (d->funcGetAttribute(&value, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, f) == CUDA_SUCCESS &&
        value > 0)
        staticSharedBytes = static_cast<std::uint32_t>(value);
    return true;
}

// The same for a launched handle, each value left as it was when the driver cannot say. The CUDA
// runtime launches library kernels (CUkernel, CUDA 12+), which cuLaunchKernel takes in place of
// a CUfunction and cuFuncGetAttribute refuses; their function in the current context answers
// (cuKernelGetFunction loads it there, as the launch would).
void readResources(CUfunction f, int& registers, std::uint32_t& staticSharedBytes) noexcept {
    const DriverApi* d = driver();
    CUresult error = CUDA_SUCCESS;
    if (readAttributes(d, f, registers, staticSharedBytes, error))
        return;
    CUfunction loaded = nullptr;
    CUresult kernelError = CUDA_ERROR_NOT_SUPPORTED;
    if (d->kernelGetFunction &&
        (kernelError = d->kernelGetFunction(&loaded, reinterpret_cast<CUkernel>(f))) ==
            CUDA_SUCCESS &&
        loaded && readAttributes(d, loaded, registers, staticSharedBytes, kernelError))
        return;
    traceCodeLoad("resources of kernel %p unknown: cuFuncGetAttribute %d, as a library kernel %d",
                  static_cast<void*>(f), static_cast<int>(error), static_cast<int>(kernelError));
}

// The kernel nodes of `graph` (child graphs included) in dependency order: nodes whose
// predecessors were all listed, in the graph's own node order among those ready (for a graph
// captured from one stream, the capture order). Empty when the driver cannot say.
void appendKernels(CUgraph graph, std::vector<GraphKernel>& out, int depth = 0) {
    const DriverApi* d = driver();
    if (!d || depth > 8)
        return;
    // Unreadable edges: the graph's own node order; a cycle (impossible): the nodes before it.
    std::vector<CUgraphNode> nodes;
    if (nodesInOrder(*d, graph, nodes) == GraphRead::NodesUnreadable)
        return;
    for (CUgraphNode node : nodes) {
        CUgraphNodeType type{};
        if (d->graphNodeGetType(node, &type) != CUDA_SUCCESS)
            continue;
        if (type == CU_GRAPH_NODE_TYPE_GRAPH) {
            CUgraph child = nullptr;
            if (d->graphChildGraphNodeGetGraph(node, &child) == CUDA_SUCCESS)
                appendKernels(child, out, depth + 1);
            continue;
        }
        if (type != CU_GRAPH_NODE_TYPE_KERNEL)
            continue;
        CUDA_KERNEL_NODE_PARAMS p{};
        if (d->graphKernelNodeGetParams(node, &p) != CUDA_SUCCESS)
            continue;
        GraphKernel k;
        const char* name = nullptr;
        if (p.func)
            d->funcGetName(&name, p.func);
        else if (p.kern && d->kernelGetName)
            d->kernelGetName(&name, p.kern);
        k.mangledName = name ? name : "<unknown kernel>";
        k.node = graphNodeId(node);
        k.grid = {p.gridDimX, p.gridDimY, p.gridDimZ};
        k.block = {p.blockDimX, p.blockDimY, p.blockDimZ};
        k.sharedMemBytes = p.sharedMemBytes;
        if (p.func || p.kern)
            readResources(p.func ? p.func : reinterpret_cast<CUfunction>(p.kern), k.registers,
                          k.staticSharedBytes);
        out.push_back(std::move(k));
    }
}

// Instantiated graphs: their kernel nodes, read at instantiation (an executable graph is a
// snapshot of its graph: later edits of the graph do not change it).
struct Graphs {
    std::mutex mutex;
    std::unordered_map<CUgraphExec, std::shared_ptr<const std::vector<GraphKernel>>> byExec;
};
Graphs& graphs() {
    static Graphs* g = new Graphs(); // never destroyed: callbacks may come during exit
    return *g;
}

void onGraphCall(unsigned cbid, const CUpti_CallbackData* info) {
    if (info->callbackSite != CUPTI_API_EXIT || rememberingGraph())
        return; // the empty graph graph_replay.cpp instantiates is not the application's
    if (cbid == CUPTI_DRIVER_TRACE_CBID_cuGraphExecDestroy) {
        const auto* p = static_cast<const cuGraphExecDestroy_params*>(info->functionParams);
        forgetGraph(p->hGraphExec);
        std::lock_guard<std::mutex> lock(graphs().mutex);
        graphs().byExec.erase(p->hGraphExec);
        return;
    }
    if (cbid != CUPTI_DRIVER_TRACE_CBID_cuGraphExecUpdate_v2 &&
        cbid != CUPTI_DRIVER_TRACE_CBID_cuGraphInstantiate &&
        cbid != CUPTI_DRIVER_TRACE_CBID_cuGraphInstantiate_v2 &&
        cbid != CUPTI_DRIVER_TRACE_CBID_cuGraphInstantiateWithFlags &&
        cbid != CUPTI_DRIVER_TRACE_CBID_cuGraphInstantiateWithParams &&
        cbid != CUPTI_DRIVER_TRACE_CBID_cuGraphInstantiateWithParams_ptsz) {
        nodeSetterReturned(cbid, info->functionParams, info->functionReturnValue);
        return;
    }
    const CUresult* result = static_cast<const CUresult*>(info->functionReturnValue);
    if (result && *result != CUDA_SUCCESS)
        return;
    CUgraphExec exec = nullptr;
    CUgraph graph = nullptr;
    if (cbid == CUPTI_DRIVER_TRACE_CBID_cuGraphExecUpdate_v2) {
        const auto* p = static_cast<const cuGraphExecUpdate_v2_params*>(info->functionParams);
        exec = p->hGraphExec;
        graph = p->hGraph;
    } else {
        // Every instantiate variant starts with (CUgraphExec* phGraphExec, CUgraph hGraph).
        const auto* p =
            static_cast<const cuGraphInstantiateWithFlags_params*>(info->functionParams);
        exec = p->phGraphExec ? *p->phGraphExec : nullptr;
        graph = p->hGraph;
    }
    if (!exec || !graph)
        return;
    rememberGraph(exec, graph);
    auto kernels = std::make_shared<std::vector<GraphKernel>>();
    appendKernels(graph, *kernels);
    std::lock_guard<std::mutex> lock(graphs().mutex);
    graphs().byExec[exec] = std::move(kernels);
}

// The stream a launch names, the per-thread default stream for 0 in a _ptsz call.
CUstream streamOf(std::uint64_t stream, unsigned cbid) noexcept {
    CUstream s = reinterpret_cast<CUstream>(stream);
    const bool perThread = cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz ||
                           cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz ||
                           cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz;
    return !s && perThread ? CU_STREAM_PER_THREAD : s;
}

// Whether a launch goes into a stream being captured: it then adds a node to a graph and runs
// nothing now (its kernel runs, and is recorded, when the graph is launched).
bool capturing(std::uint64_t stream, unsigned cbid) noexcept {
    if (!openCaptures().mayCapture())
        return false;
    const DriverApi* d = driver();
    if (!d || !d->streamIsCapturing)
        return false;
    CUstreamCaptureStatus status = CU_STREAM_CAPTURE_STATUS_NONE;
    return d->streamIsCapturing(streamOf(stream, cbid), &status) == CUDA_SUCCESS &&
           status == CU_STREAM_CAPTURE_STATUS_ACTIVE;
}

// A launch into a capturing stream, between its entry and exit callbacks: the kernel it adds.
struct Capture {
    bool open = false;
    CUstream stream = nullptr;
    std::string name;
};
thread_local Capture tCapture;

// The node the capture's last launch added (its graphNodeId()): after a kernel launch the
// stream's capture depends on that node alone. 0 when the driver or CUPTI cannot say.
std::uint64_t capturedNode(CUstream stream) noexcept {
    const DriverApi* d = driver();
    if (!d || !d->streamGetCaptureInfo)
        return 0;
    CUstreamCaptureStatus status = CU_STREAM_CAPTURE_STATUS_NONE;
    cuuint64_t id = 0;
    CUgraph graph = nullptr;
    const CUgraphNode* dependencies = nullptr;
    const CUgraphEdgeData* edges = nullptr;
    std::size_t count = 0;
    if (d->streamGetCaptureInfo(stream, &status, &id, &graph, &dependencies, &edges, &count) !=
            CUDA_SUCCESS ||
        status != CU_STREAM_CAPTURE_STATUS_ACTIVE || count != 1 || !dependencies)
        return 0;
    return graphNodeId(dependencies[0]);
}

template <typename P> void fromClassic(const P* p, LaunchEvent& e) {
    e.launch.grid = {p->gridDimX, p->gridDimY, p->gridDimZ};
    e.launch.block = {p->blockDimX, p->blockDimY, p->blockDimZ};
    e.launch.dynamicSharedBytes = p->sharedMemBytes;
    e.launch.stream = reinterpret_cast<std::uint64_t>(p->hStream);
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
// This thread's cuGraphLaunch was replaced by its nodes: its exit is not a graph's.
thread_local bool tGraphReplaced = false;

// Reading the kernel's resources (registers and static shared memory, for occupancy) is the
// attribute query that loads it.
void loadBeforeLaunch(CUfunction f, LaunchEvent& e) noexcept {
    if (!f || !driver())
        return;
    tLoadedInside = false;
    readResources(f, e.launch.registers, e.launch.staticSharedBytes);
    if (tLoadedInside)
        gLoadedBeforeLaunch.fetch_add(1, std::memory_order_relaxed);
}

} // namespace

std::uint64_t kernelsLoadedBeforeLaunch() noexcept {
    return gLoadedBeforeLaunch.load(std::memory_order_relaxed);
}

namespace {

// The tracker the callbacks go to. CUPTI allows one subscriber per process; while a process-wide
// subscription exists (the injection's, made before any Session), trackers take turns on it.
std::atomic<LaunchTracker*> gTarget{nullptr};
std::atomic<HostTiming> gCallbackClocks{HostTiming::Off};
std::atomic<bool> gReadResources{true};
CUpti_SubscriberHandle gProcessSubscriber = nullptr;
std::atomic<bool> gFollowMemory{false};

// detachAtNextCall(): attached, a detach waiting for a driver call's exit, detached. The detach
// and a tracker's own unsubscription (a session stopping meanwhile) never overlap.
enum : int { kAttached, kDetachPending, kDetached };
std::atomic<int> gDetach{kAttached};
std::mutex gDetachMutex;
std::atomic<std::uint64_t> gDetachments{0};

CUpti_SubscriberHandle subscribe() {
    gDetach.store(kAttached, std::memory_order_release); // a new subscription attaches CUPTI
    CUpti_SubscriberHandle handle = nullptr;
    ROOFLINE_CUPTI_CHECK(cuptiSubscribe(
        &handle, reinterpret_cast<CUpti_CallbackFunc>(&LaunchTrackerAccess::onCallback), nullptr));
    try {
        for (CUpti_CallbackId cbid : kLaunchCallbacks)
            ROOFLINE_CUPTI_CHECK(cuptiEnableCallback(1, handle, CUPTI_CB_DOMAIN_DRIVER_API, cbid));
        for (CUpti_CallbackId cbid : kGraphCallbacks)
            ROOFLINE_CUPTI_CHECK(cuptiEnableCallback(1, handle, CUPTI_CB_DOMAIN_DRIVER_API, cbid));
        for (const unsigned cbid : OpenCaptures::callbacks())
            ROOFLINE_CUPTI_CHECK(cuptiEnableCallback(1, handle, CUPTI_CB_DOMAIN_DRIVER_API,
                                                     static_cast<CUpti_CallbackId>(cbid)));
        ROOFLINE_CUPTI_CHECK(cuptiEnableCallback(1, handle, CUPTI_CB_DOMAIN_RESOURCE,
                                                 CUPTI_CBID_RESOURCE_MODULE_LOADED));
    } catch (...) {
        ROOFLINE_CUPTI_LOG(cuptiUnsubscribe(handle));
        throw;
    }
    return handle;
}

} // namespace

LaunchTracker::LaunchTracker(LaunchSink sink, void* user) : sink_(sink), user_(user) {
    if (gProcessSubscriber) {
        previous_ = gTarget.exchange(this, std::memory_order_acq_rel);
        return;
    }
    subscriber_ = subscribe();
    gTarget.store(this, std::memory_order_release);
}

LaunchTracker::~LaunchTracker() {
    if (!subscriber_) { // a turn on the process-wide subscription: the one before gets it back
        LaunchTracker* self = this;
        gTarget.compare_exchange_strong(self, previous_, std::memory_order_acq_rel);
        return;
    }
    gTarget.store(nullptr, std::memory_order_release);
    std::lock_guard<std::mutex> lock(gDetachMutex);
    if (detached()) // cuptiFinalize took every subscription with it
        return;
    int pending = kDetachPending; // this subscription goes now: nothing is left to detach
    gDetach.compare_exchange_strong(pending, kAttached, std::memory_order_acq_rel);
    ROOFLINE_CUPTI_LOG(cuptiUnsubscribe(subscriber_));
}

void LaunchTracker::detachAtNextCall() noexcept {
    int expected = kAttached;
    gDetach.compare_exchange_strong(expected, kDetachPending, std::memory_order_acq_rel);
}

bool LaunchTracker::detached() noexcept {
    return gDetach.load(std::memory_order_acquire) == kDetached;
}

std::uint64_t LaunchTracker::detachments() noexcept {
    return gDetachments.load(std::memory_order_acquire);
}

void LaunchTracker::attachAgain() noexcept {
    std::lock_guard<std::mutex> lock(gDetachMutex);
    if (gDetach.load(std::memory_order_acquire) != kDetached)
        return;
    // A subscription with no callback enabled, gone at once: its attach is what stays.
    CUpti_SubscriberHandle handle = nullptr;
    const auto ignore = [](void*, CUpti_CallbackDomain, CUpti_CallbackId, const void*) {};
    if (ROOFLINE_CUPTI_LOG(cuptiSubscribe(&handle, ignore, nullptr)) == CUPTI_SUCCESS)
        ROOFLINE_CUPTI_LOG(cuptiUnsubscribe(handle));
    gDetach.store(kAttached, std::memory_order_release);
    core::log().debug("libroofline: CUPTI attached again after the last session detached it");
}

LaunchTracker* LaunchTracker::subscribeProcess(LaunchSink sink, void* user) {
    if (gProcessSubscriber)
        throw Error(ErrorCode::ProfilerBusy, "the process-wide launch subscription exists");
    if (gTarget.load())
        throw Error(ErrorCode::ProfilerBusy, "a launch tracker is already subscribed");
    gProcessSubscriber = subscribe();
    openCaptures().complete(); // inside cuInit: no stream exists yet, so no capture is open
    return new LaunchTracker(sink, user); // takes the first turn; lives as long as the process
}

void LaunchTracker::timeCallbacks(HostTiming clocks) noexcept {
    gCallbackClocks.store(clocks, std::memory_order_relaxed);
}

void LaunchTracker::readKernelResources(bool on) noexcept {
    gReadResources.store(on, std::memory_order_relaxed);
}

void LaunchTracker::followMemoryOperations(bool on) noexcept {
    LaunchTracker* t = gTarget.load(std::memory_order_acquire);
    CUpti_SubscriberHandle handle = gProcessSubscriber; // else the tracker's own
    if (!handle && t)
        handle = t->subscriber_;
    if (!handle || gFollowMemory.load() == on)
        return;
    for (const unsigned cbid : memoryCallbacks())
        ROOFLINE_CUPTI_LOG(cuptiEnableCallback(on ? 1 : 0, handle, CUPTI_CB_DOMAIN_DRIVER_API,
                                               static_cast<CUpti_CallbackId>(cbid)));
    gFollowMemory.store(on, std::memory_order_release);
}

LaunchTracker* LaunchTracker::active() noexcept {
    return gTarget.load(std::memory_order_acquire);
}

void LaunchTracker::dispatch(const LaunchEvent& event) noexcept {
    if (LaunchTracker* t = gTarget.load(std::memory_order_acquire))
        t->sink_(event, t->user_);
}

namespace {

using Sink = LaunchTrackerAccess;

// A detach is due: at a driver call's exit (no CUPTI call of this thread in flight), once, on
// whichever thread gets here first. False while attached.
bool detachIfDue(int domain, const void* raw) noexcept {
    const int state = gDetach.load(std::memory_order_acquire);
    if (state == kAttached)
        return false;
    if (state == kDetachPending && domain == CUPTI_CB_DOMAIN_DRIVER_API &&
        static_cast<const CUpti_CallbackData*>(raw)->callbackSite == CUPTI_API_EXIT) {
        std::lock_guard<std::mutex> lock(gDetachMutex);
        int expected = kDetachPending;
        if (gDetach.compare_exchange_strong(expected, kDetached, std::memory_order_acq_rel)) {
            ROOFLINE_CUPTI_LOG(cuptiFinalize());
            openCaptures().lost(); // captures begun from here on go unseen
            gDetachments.fetch_add(1, std::memory_order_acq_rel);
            gProcessSubscriber = nullptr;
        }
    }
    return true;
}

// Code loaded (or JIT-compiled) into a context: from any driver call that needs it, including
// loadBeforeLaunch() for a lazily loaded kernel's first launch.
void codeLoaded(LaunchTracker* self, const void* raw) noexcept {
    const auto* resource = static_cast<const CUpti_ResourceData*>(raw);
    traceCodeLoad("module loaded into context %p", static_cast<void*>(resource->context));
    tLoadedInside = true;
    LaunchEvent e;
    e.kind = LaunchEvent::Kind::ModuleLoaded;
    e.context = resource->context;
    Sink::emit(self, e);
}

bool isGraphLaunch(unsigned cbid) noexcept {
    return cbid == CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch ||
           cbid == CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz;
}

// A launch's driver call returns: a kernel captured into a graph becomes its node, and the
// launch (or graph launch) ends -- unless the graph launch ran as its nodes.
void launchReturned(LaunchTracker* self, unsigned cbid, const CUpti_CallbackData* info) noexcept {
    const bool graphLaunch = isGraphLaunch(cbid);
    if (graphLaunch && tGraphReplaced) { // its nodes were launches of their own
        tGraphReplaced = false;
        return;
    }
    if (tCapture.open && !graphLaunch) { // its node is in the graph now
        tCapture.open = false;
        const CUresult* result = static_cast<const CUresult*>(info->functionReturnValue);
        if (!result || *result == CUDA_SUCCESS) {
            LaunchEvent c;
            c.kind = LaunchEvent::Kind::Captured;
            c.context = info->context;
            c.launch.mangledName = tCapture.name.c_str();
            c.launch.graphNode = capturedNode(tCapture.stream);
            if (c.launch.graphNode != 0)
                Sink::emit(self, c);
        }
    }
    LaunchEvent e;
    e.context = info->context;
    if (graphLaunch)
        e.kind = LaunchEvent::Kind::Graph;
    e.exit = true;
    Sink::emit(self, e);
}

// A graph launch: run as its nodes while counters are collected (graph_replay.hpp), else as it
// is, with the kernels the graph holds.
void graphLaunched(LaunchTracker* self, unsigned cbid, const CUpti_CallbackData* info,
                   LaunchEvent& e) noexcept {
    auto* p = static_cast<cuGraphLaunch_params*>(const_cast<void*>(info->functionParams));
    if (!graphLaunchesReplaced()) { // a session starting on this launch may turn it on
        LaunchEvent ahead;
        ahead.kind = LaunchEvent::Kind::GraphAhead;
        ahead.context = info->context;
        Sink::emit(self, ahead);
        if (LaunchTracker* now = gTarget.load(std::memory_order_acquire))
            self = now; // the session it started, if it did, takes this launch
    }
    if (graphLaunchesReplaced() && !capturing(reinterpret_cast<std::uint64_t>(p->hStream), 0)) {
        // Its nodes are launched here, one by one, and an empty graph runs in its place
        // (graph_replay.hpp): each kernel node reaches this callback as a launch.
        CUstream stream = p->hStream;
        if (!stream && cbid == CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz)
            stream = CU_STREAM_PER_THREAD;
        std::string why;
        if (launchGraphNodes(&p->hGraph, stream, why)) {
            tGraphReplaced = true;
            return;
        }
        static std::atomic<bool> warned{false};
        if (!warned.exchange(true)) {
            noteGraphRanAsItIs(why);
            core::log().warn("libroofline: a CUDA graph launch ran as it is, its kernels "
                             "without counters: {}",
                             why);
        }
    }
    e.kind = LaunchEvent::Kind::Graph;
    e.launch.stream = reinterpret_cast<std::uint64_t>(p->hStream);
    std::shared_ptr<const std::vector<GraphKernel>> kernels;
    {
        std::lock_guard<std::mutex> lock(graphs().mutex);
        auto it = graphs().byExec.find(p->hGraph);
        if (it != graphs().byExec.end())
            kernels = it->second; // kept alive through the sink call
    }
    e.graphKernels = kernels.get();
    Sink::emit(self, e);
}

// A kernel launch's function (`f`), grid, block, shared memory and stream, read from its driver
// call's parameters; false for a call that launches no kernel.
bool kernelLaunched(unsigned cbid, const void* params, LaunchEvent& e, CUfunction& f) noexcept {
    switch (cbid) {
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz: {
        const auto* p = static_cast<const cuLaunchKernel_params*>(params);
        fromClassic(p, e);
        f = p->f;
        return true;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz: {
        const auto* p = static_cast<const cuLaunchCooperativeKernel_params*>(params);
        fromClassic(p, e);
        f = p->f;
        return true;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz: {
        const auto* p = static_cast<const cuLaunchKernelEx_params*>(params);
        if (p->config) {
            e.launch.grid = {p->config->gridDimX, p->config->gridDimY, p->config->gridDimZ};
            e.launch.block = {p->config->blockDimX, p->config->blockDimY, p->config->blockDimZ};
            e.launch.dynamicSharedBytes = p->config->sharedMemBytes;
            e.launch.stream = reinterpret_cast<std::uint64_t>(p->config->hStream);
        }
        f = p->f;
        return true;
    }
    default:
        return false;
    }
}

// A kernel launch about to run: captured into a graph (its node named at the call's return), or
// its kernel loaded and the launch sent to the session.
void kernelAboutToRun(LaunchTracker* self, unsigned cbid, const CUpti_CallbackData* info,
                      CUfunction f, LaunchEvent& e) noexcept {
    if (capturing(e.launch.stream, cbid)) {
        tCapture.open = true;
        tCapture.stream = streamOf(e.launch.stream, cbid);
        const char* name = info->symbolName ? info->symbolName : functionName(f);
        try {
            tCapture.name = name ? name : "<unknown kernel>";
        } catch (...) { // out of memory: the node goes unnamed
            tCapture.open = false;
        }
        return;
    }
    if (gReadResources.load(std::memory_order_relaxed))
        loadBeforeLaunch(f, e);
    e.launch.mangledName = info->symbolName ? info->symbolName : functionName(f);
    if (!e.launch.mangledName)
        e.launch.mangledName = "<unknown kernel>";
    e.launch.graphNode = replayedNode(); // a node of a replaced graph launch, or 0
    traceCodeLoad("launch %s", e.launch.mangledName);
    Sink::emit(self, e);
}

} // namespace

void LaunchTracker::callback(int domain, unsigned cbid, const void* raw) noexcept {
    if (detachIfDue(domain, raw))
        return;
    if (domain == CUPTI_CB_DOMAIN_DRIVER_API && followCaptureCall(cbid, raw))
        return; // before the tracker's turn: no capture goes uncounted
    LaunchTracker* self = gTarget.load(std::memory_order_acquire);
    if (!self || OwnLaunches::active())
        return; // libroofline's own kernels (the L2 flush) are not the program's
    if (domain == CUPTI_CB_DOMAIN_RESOURCE && cbid == CUPTI_CBID_RESOURCE_MODULE_LOADED) {
        codeLoaded(self, raw);
        return;
    }
    if (domain != CUPTI_CB_DOMAIN_DRIVER_API)
        return;
    const auto* info = static_cast<const CUpti_CallbackData*>(raw);
    if (std::find(std::begin(kGraphCallbacks), std::end(kGraphCallbacks), cbid) !=
        std::end(kGraphCallbacks)) {
        try {
            onGraphCall(cbid, info);
        } catch (...) { // out of memory: that graph's launches get no kernel list
        }
        return;
    }
    if (gFollowMemory.load(std::memory_order_relaxed) && changesMemory(cbid)) {
        if (info->callbackSite == CUPTI_API_ENTER) {
            LaunchEvent m;
            m.kind = LaunchEvent::Kind::MemoryOperation;
            m.context = info->context;
            m.hostVisible = allocatesHostVisible(cbid, info->functionParams);
            Sink::emit(self, m);
        }
        return;
    }
    if (info->callbackSite == CUPTI_API_EXIT) {
        launchReturned(self, cbid, info);
        return;
    }
    LaunchEvent e;
    e.context = info->context;
    if (const HostTiming clocks = gCallbackClocks.load(std::memory_order_relaxed);
        clocks != HostTiming::Off) {
        e.calledCpuNs = clocks == HostTiming::Cpu ? core::threadCpuNowNs() : -1;
        e.calledWallNs = core::steadyNowNs();
    }
    e.launch.correlationId = info->correlationId;
    e.launch.driverCall = cbid;
    e.launch.driverParams = info->functionParams;
    if (isGraphLaunch(cbid)) {
        graphLaunched(self, cbid, info, e);
        return;
    }
    CUfunction f = nullptr;
    if (kernelLaunched(cbid, info->functionParams, e, f))
        kernelAboutToRun(self, cbid, info, f, e);
}

} // namespace roofline::cupti
