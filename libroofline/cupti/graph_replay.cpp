#include "cupti/graph_replay.hpp"

#include "core/log.hpp"
#include "cupti/driver.hpp"
#include "cupti/graph_plan.hpp"

#include <cupti.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

namespace roofline::cupti {
namespace {

// A graph launch's replacement: its plan, and the empty executable graph launched in its place.
struct Plan {
    std::mutex mutex; // the plan: issued on the launching thread, changed by node setters
    GraphPlan graph;
    CUgraphExec empty = nullptr; // same context as the application's graph
};

struct Plans {
    std::mutex mutex;
    std::unordered_map<CUgraphExec, std::shared_ptr<Plan>> byExec;
};
Plans& plans() {
    static Plans* p = new Plans(); // never destroyed: callbacks may come during exit
    return *p;
}

std::atomic<bool> gReplace{false};
// This thread is inside rememberGraph(): the empty graph it instantiates comes back through the
// instantiation callback, which must not list (and instantiate for) it again.
thread_local bool tRemembering = false;
// The node of the application's graph whose kernel this thread is launching in its place.
thread_local std::uint64_t tReplayed = 0;

struct AsItIs {
    std::mutex mutex;
    std::string why;
};
AsItIs& asItIs() {
    static AsItIs* a = new AsItIs(); // never destroyed: read at exit
    return *a;
}

} // namespace

void noteGraphRanAsItIs(const std::string& why) noexcept {
    AsItIs& a = asItIs();
    std::lock_guard<std::mutex> lock(a.mutex);
    if (a.why.empty()) {
        try {
            a.why = why;
        } catch (...) {
            // out of memory: the exit line goes without the reason
        }
    }
}

std::string graphRanAsItIs() {
    AsItIs& a = asItIs();
    std::lock_guard<std::mutex> lock(a.mutex);
    return a.why;
}

std::uint64_t replayedNode() noexcept {
    return tReplayed;
}

std::uint64_t graphNodeId(CUgraphNode node) noexcept {
    std::uint64_t id = 0;
    return node && cuptiGetGraphNodeId(node, &id) == CUPTI_SUCCESS ? id : 0;
}

GraphRead nodesInOrder(const DriverApi& d, CUgraph graph, std::vector<CUgraphNode>& ordered) {
    ordered.clear();
    std::size_t count = 0, edges = 0;
    if (!d.graphGetNodes || d.graphGetNodes(graph, nullptr, &count) != CUDA_SUCCESS)
        return GraphRead::NodesUnreadable;
    std::vector<CUgraphNode> nodes(count);
    if (count && d.graphGetNodes(graph, nodes.data(), &count) != CUDA_SUCCESS)
        return GraphRead::NodesUnreadable;
    nodes.resize(count);
    std::vector<CUgraphNode> from, to;
    // With edge data: a graph with programmatic (PDL) edges, as XLA builds them, refuses a query
    // without it (CUDA_ERROR_LOSSY_QUERY). Every edge is taken as a full dependency: issued in
    // this order on one stream, a programmatic edge's kernels run one after the other.
    std::vector<CUgraphEdgeData> data;
    if (d.graphGetEdges &&
        d.graphGetEdges(graph, nullptr, nullptr, nullptr, &edges) == CUDA_SUCCESS && edges) {
        from.resize(edges);
        to.resize(edges);
        data.resize(edges);
        if (d.graphGetEdges(graph, from.data(), to.data(), data.data(), &edges) != CUDA_SUCCESS) {
            ordered = std::move(nodes);
            return GraphRead::EdgesUnreadable;
        }
    }
    std::unordered_map<CUgraphNode, std::size_t> indexOf;
    for (std::size_t i = 0; i < nodes.size(); ++i)
        indexOf[nodes[i]] = i;
    std::vector<std::size_t> waiting(nodes.size(), 0);
    std::vector<std::vector<std::size_t>> next(nodes.size());
    for (std::size_t e = 0; e < edges; ++e) {
        const auto f = indexOf.find(from[e]), t = indexOf.find(to[e]);
        if (f == indexOf.end() || t == indexOf.end())
            continue;
        next[f->second].push_back(t->second);
        ++waiting[t->second];
    }
    std::vector<bool> done(nodes.size(), false);
    for (std::size_t listed = 0; listed < nodes.size(); ++listed) {
        std::size_t i = 0;
        while (i < nodes.size() && (done[i] || waiting[i] > 0))
            ++i;
        if (i == nodes.size())
            return GraphRead::Cycle; // not possible in a CUDA graph: stop rather than loop
        done[i] = true;
        for (std::size_t n : next[i])
            --waiting[n];
        ordered.push_back(nodes[i]);
    }
    return GraphRead::Ok;
}

void replaceGraphLaunches(bool on) noexcept {
    gReplace.store(on, std::memory_order_release);
}

bool graphLaunchesReplaced() noexcept {
    return gReplace.load(std::memory_order_acquire);
}

bool rememberingGraph() noexcept {
    return tRemembering;
}

void rememberGraph(CUgraphExec exec, CUgraph graph) noexcept {
    const DriverApi* d = driver();
    if (!d || !d->graphClone || !d->graphGetNodes || !exec || !graph || tRemembering)
        return;
    struct Busy {
        Busy() { tRemembering = true; }
        ~Busy() { tRemembering = false; }
    } busy;
    try {
        auto plan = std::make_shared<Plan>();
        plan->graph.build(*d, graph);
        if (plan->graph.unsupported().empty()) {
            CUgraph empty = nullptr;
            if (d->graphCreate(&empty, 0) == CUDA_SUCCESS) {
                if (d->graphInstantiate(&plan->empty, empty, 0) != CUDA_SUCCESS)
                    plan->empty = nullptr;
                d->graphDestroy(empty);
            }
            if (!plan->empty)
                plan->graph.markStale("no empty graph to launch in its place");
        }
        core::log().debug("libroofline: graph {} remembered: {} steps, {} child graphs{}{}",
                          static_cast<const void*>(exec), plan->graph.steps(),
                          plan->graph.childGraphs(),
                          plan->graph.unsupported().empty() ? "" : "; not replayable: ",
                          plan->graph.unsupported());
        std::lock_guard<std::mutex> lock(plans().mutex);
        plans().byExec[exec] = std::move(plan);
    } catch (...) { // out of memory: that graph runs as it is
        forgetGraph(exec);
    }
}

namespace {

// The plan of `exec` changed in place by `follow` (under its lock); false when there is none.
// A change it could not follow leaves the graph stale, `why` saying so.
template <typename Follow>
void followChange(CUgraphExec exec, const char* why, Follow follow) noexcept {
    const DriverApi* d = driver();
    std::shared_ptr<Plan> plan;
    {
        std::lock_guard<std::mutex> lock(plans().mutex);
        const auto it = plans().byExec.find(exec);
        if (it == plans().byExec.end())
            return;
        plan = it->second;
    }
    if (!plan->graph.unsupported().empty())
        return; // stale already: the first reason stays
    bool followed = false;
    try {
        std::lock_guard<std::mutex> lock(plan->mutex);
        followed = d && follow(*d, plan->graph);
    } catch (...) {
        followed = false; // out of memory
    }
    if (!followed)
        staleGraph(exec, why);
}

} // namespace

void updateGraphKernel(CUgraphExec exec, CUgraphNode node,
                       const CUDA_KERNEL_NODE_PARAMS& params) noexcept {
    followChange(exec, "a kernel node changed in place that its copy could not follow",
                 [&](const DriverApi& d, GraphPlan& g) { return g.followKernel(d, node, params); });
}

void updateChildGraph(CUgraphExec exec, CUgraphNode node, CUgraph child) noexcept {
    followChange(
        exec, "a child graph changed in place that its copy could not follow",
        [&](const DriverApi& d, GraphPlan& g) { return g.followChildGraph(d, node, child); });
}

void staleGraph(CUgraphExec exec, const char* why) noexcept {
    std::shared_ptr<Plan> gone;
    try {
        auto stale = std::make_shared<Plan>();
        stale->graph.markStale(why);
        std::lock_guard<std::mutex> lock(plans().mutex);
        const auto it = plans().byExec.find(exec);
        if (it == plans().byExec.end() || !it->second->graph.unsupported().empty())
            return; // unknown, or stale already: the first reason stays
        gone = std::move(it->second);
        it->second = std::move(stale);
    } catch (...) {
        forgetGraph(exec); // out of memory: unknown from now on, launched as it is too
    }
}

namespace {

// What a node setter other than a kernel node's changed, for the graph's records.
const char* setterChange(unsigned cbid) noexcept {
    switch (cbid) {
    case CUPTI_DRIVER_TRACE_CBID_cuGraphExecMemcpyNodeSetParams:
        return "a copy node changed in place";
    case CUPTI_DRIVER_TRACE_CBID_cuGraphExecMemsetNodeSetParams:
        return "a memset node changed in place";
    case CUPTI_DRIVER_TRACE_CBID_cuGraphExecHostNodeSetParams:
        return "a host node changed in place";
    case CUPTI_DRIVER_TRACE_CBID_cuGraphExecChildGraphNodeSetParams:
        return "a child graph changed in place";
    case CUPTI_DRIVER_TRACE_CBID_cuGraphExecEventRecordNodeSetEvent:
    case CUPTI_DRIVER_TRACE_CBID_cuGraphExecEventWaitNodeSetEvent:
        return "an event node changed in place";
    case CUPTI_DRIVER_TRACE_CBID_cuGraphNodeSetEnabled:
        return "a node enabled or disabled in place";
    case CUPTI_DRIVER_TRACE_CBID_cuGraphExecNodeSetParams:
        return "a node other than a kernel changed in place";
    default:
        return "a kernel node changed in place through an older call";
    }
}

} // namespace

void nodeSetterReturned(unsigned cbid, const void* functionParams,
                        const void* functionReturnValue) noexcept {
    const CUresult* result = static_cast<const CUresult*>(functionReturnValue);
    if (result && *result != CUDA_SUCCESS)
        return; // nothing changed
    if (cbid == CUPTI_DRIVER_TRACE_CBID_cuGraphExecKernelNodeSetParams_v2) {
        const auto* p =
            static_cast<const cuGraphExecKernelNodeSetParams_v2_params*>(functionParams);
        if (p->nodeParams) {
            updateGraphKernel(p->hGraphExec, p->hNode, *p->nodeParams);
            return;
        }
    }
    if (cbid == CUPTI_DRIVER_TRACE_CBID_cuGraphExecChildGraphNodeSetParams) {
        const auto* p =
            static_cast<const cuGraphExecChildGraphNodeSetParams_params*>(functionParams);
        updateChildGraph(p->hGraphExec, p->hNode, p->childGraph);
        return;
    }
    if (cbid == CUPTI_DRIVER_TRACE_CBID_cuGraphExecNodeSetParams) {
        const auto* p = static_cast<const cuGraphExecNodeSetParams_params*>(functionParams);
        if (p->nodeParams && p->nodeParams->type == CU_GRAPH_NODE_TYPE_GRAPH) {
            updateChildGraph(p->hGraphExec, p->hNode, p->nodeParams->graph.graph);
            return;
        }
        if (p->nodeParams && p->nodeParams->type == CU_GRAPH_NODE_TYPE_KERNEL) {
            const CUDA_KERNEL_NODE_PARAMS_v3& k = p->nodeParams->kernel;
            CUDA_KERNEL_NODE_PARAMS params{};
            params.func = k.func;
            params.gridDimX = k.gridDimX;
            params.gridDimY = k.gridDimY;
            params.gridDimZ = k.gridDimZ;
            params.blockDimX = k.blockDimX;
            params.blockDimY = k.blockDimY;
            params.blockDimZ = k.blockDimZ;
            params.sharedMemBytes = k.sharedMemBytes;
            params.kernelParams = k.kernelParams;
            params.extra = k.extra;
            params.kern = k.kern;
            params.ctx = k.ctx;
            updateGraphKernel(p->hGraphExec, p->hNode, params);
            return;
        }
    }
    // Every setter's parameters begin with the executable graph.
    staleGraph(*static_cast<const CUgraphExec*>(functionParams), setterChange(cbid));
}

void forgetGraph(CUgraphExec exec) noexcept {
    std::shared_ptr<Plan> gone;
    {
        std::lock_guard<std::mutex> lock(plans().mutex);
        const auto it = plans().byExec.find(exec);
        if (it == plans().byExec.end())
            return;
        gone = std::move(it->second);
        plans().byExec.erase(it);
    }
    // The empty executable graph stays: a launch of it may still be queued.
}

bool launchGraphNodes(CUgraphExec* exec, CUstream stream, std::string& why) noexcept {
    const DriverApi* d = driver();
    if (!d || !d->graphClone || !exec) {
        why = "the driver lacks the calls that replace a graph launch";
        return false;
    }
    std::shared_ptr<Plan> plan;
    {
        std::lock_guard<std::mutex> lock(plans().mutex);
        const auto it = plans().byExec.find(*exec);
        if (it != plans().byExec.end())
            plan = it->second;
    }
    if (!plan) {
        why = "a graph instantiated before profiling began, or changed node by node since";
        return false;
    }
    if (!plan->graph.unsupported().empty()) {
        why = "the graph has " + plan->graph.unsupported();
        return false;
    }
    std::lock_guard<std::mutex> lock(plan->mutex);
    if (plan->graph.issue(*d, stream, tReplayed) != CUDA_SUCCESS) {
        // Nodes before this one ran: the rest must run too, as the graph would have them.
        why = "a node could not be issued: the graph ran as it is after the nodes before it";
        return false;
    }
    *exec = plan->empty;
    return true;
}

} // namespace roofline::cupti
