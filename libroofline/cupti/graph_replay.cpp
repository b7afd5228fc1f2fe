#include "cupti/graph_replay.hpp"

#include "cupti/driver.hpp"

#include <cupti.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

namespace roofline::cupti {
namespace {

// One node to issue, with what the clone holds of it (argument arrays stay valid while it lives).
struct Step {
    CUgraphNodeType type = CU_GRAPH_NODE_TYPE_EMPTY;
    CUDA_KERNEL_NODE_PARAMS kernel{};
    CUlaunchAttribute attributes[3]{};
    unsigned attributeCount = 0;
    CUDA_MEMSET_NODE_PARAMS memset{};
    CUDA_MEMCPY3D copy{};
    CUDA_HOST_NODE_PARAMS host{};
    CUevent event = nullptr;
    std::uint64_t origin = 0; // graphNodeId() of the application's node it stands for (0: unknown)
};

struct Plan {
    CUgraph clone = nullptr;
    CUgraphExec empty = nullptr; // launched in the graph's place (same context)
    std::vector<Step> steps;
    std::string unsupported; // a node the host cannot issue; empty: replayable
    ~Plan() {
        const DriverApi* d = driver();
        if (d && d->graphClone && clone)
            d->graphDestroy(clone);
    }
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

const char* typeName(CUgraphNodeType type) {
    switch (type) {
    case CU_GRAPH_NODE_TYPE_MEM_ALLOC:
        return "memory allocation";
    case CU_GRAPH_NODE_TYPE_MEM_FREE:
        return "memory free";
    case CU_GRAPH_NODE_TYPE_CONDITIONAL:
        return "conditional";
    case CU_GRAPH_NODE_TYPE_EXT_SEMAS_SIGNAL:
    case CU_GRAPH_NODE_TYPE_EXT_SEMAS_WAIT:
        return "external semaphore";
    case CU_GRAPH_NODE_TYPE_BATCH_MEM_OP:
        return "batch memory operation";
    default:
        return "unknown";
    }
}

// The kernel node's launch attributes that change how it runs: cluster dimensions (sm90 GEMMs),
// cooperative launch, priority.
void readAttributes(const DriverApi* d, CUgraphNode node, Step& s) {
    CUlaunchAttributeValue v{};
    if (d->graphKernelNodeGetAttribute(node, CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION, &v) ==
            CUDA_SUCCESS &&
        v.clusterDim.x > 0) {
        s.attributes[s.attributeCount].id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
        s.attributes[s.attributeCount++].value = v;
    }
    v = {};
    if (d->graphKernelNodeGetAttribute(node, CU_LAUNCH_ATTRIBUTE_COOPERATIVE, &v) == CUDA_SUCCESS &&
        v.cooperative) {
        s.attributes[s.attributeCount].id = CU_LAUNCH_ATTRIBUTE_COOPERATIVE;
        s.attributes[s.attributeCount++].value = v;
    }
    v = {};
    if (d->graphKernelNodeGetAttribute(node, CU_LAUNCH_ATTRIBUTE_PRIORITY, &v) == CUDA_SUCCESS &&
        v.priority != 0) {
        s.attributes[s.attributeCount].id = CU_LAUNCH_ATTRIBUTE_PRIORITY;
        s.attributes[s.attributeCount++].value = v;
    }
}

// The nodes of `graph` in an order that respects its edges, child graphs expanded; `origins`
// (top level only) gives the application's node each of the clone's stands for.
void listNodes(const DriverApi* d, CUgraph graph, Plan& plan, int depth,
               const std::unordered_map<CUgraphNode, CUgraphNode>* origins = nullptr) {
    if (depth > 16) {
        plan.unsupported = "child graphs nested more than 16 deep";
        return;
    }
    std::vector<CUgraphNode> nodes;
    switch (nodesInOrder(*d, graph, nodes)) {
    case GraphRead::Ok:
        break;
    case GraphRead::NodesUnreadable:
        plan.unsupported = "a graph whose nodes could not be read";
        return;
    case GraphRead::EdgesUnreadable:
        plan.unsupported = "a graph whose edges could not be read";
        return;
    case GraphRead::Cycle:
        plan.unsupported = "a graph with a cycle";
        return;
    }
    for (std::size_t i = 0; i < nodes.size() && plan.unsupported.empty(); ++i) {
        Step s;
        if (d->graphNodeGetType(nodes[i], &s.type) != CUDA_SUCCESS) {
            plan.unsupported = "a node whose type could not be read";
            return;
        }
        CUresult r = CUDA_SUCCESS;
        switch (s.type) {
        case CU_GRAPH_NODE_TYPE_EMPTY:
            continue;
        case CU_GRAPH_NODE_TYPE_GRAPH: {
            CUgraph child = nullptr;
            r = d->graphChildGraphNodeGetGraph(nodes[i], &child);
            if (r == CUDA_SUCCESS)
                listNodes(d, child, plan, depth + 1);
            break;
        }
        case CU_GRAPH_NODE_TYPE_KERNEL:
            r = d->graphKernelNodeGetParams(nodes[i], &s.kernel);
            if (r == CUDA_SUCCESS)
                readAttributes(d, nodes[i], s);
            if (origins)
                if (const auto it = origins->find(nodes[i]); it != origins->end())
                    s.origin = graphNodeId(it->second);
            break;
        case CU_GRAPH_NODE_TYPE_MEMSET:
            r = d->graphMemsetNodeGetParams(nodes[i], &s.memset);
            break;
        case CU_GRAPH_NODE_TYPE_MEMCPY:
            r = d->graphMemcpyNodeGetParams(nodes[i], &s.copy);
            break;
        case CU_GRAPH_NODE_TYPE_HOST:
            r = d->graphHostNodeGetParams(nodes[i], &s.host);
            break;
        case CU_GRAPH_NODE_TYPE_EVENT_RECORD:
            r = d->graphEventRecordNodeGetEvent(nodes[i], &s.event);
            break;
        case CU_GRAPH_NODE_TYPE_WAIT_EVENT:
            r = d->graphEventWaitNodeGetEvent(nodes[i], &s.event);
            break;
        default:
            plan.unsupported = std::string("a ") + typeName(s.type) + " node";
            return;
        }
        if (r != CUDA_SUCCESS) {
            plan.unsupported = "a node whose parameters could not be read";
            return;
        }
        if (s.type != CU_GRAPH_NODE_TYPE_GRAPH)
            plan.steps.push_back(s);
    }
}

CUresult issue(const DriverApi* d, const Step& s, CUstream stream) {
    switch (s.type) {
    case CU_GRAPH_NODE_TYPE_KERNEL: {
        const CUDA_KERNEL_NODE_PARAMS& p = s.kernel;
        CUlaunchConfig config{};
        config.gridDimX = p.gridDimX;
        config.gridDimY = p.gridDimY;
        config.gridDimZ = p.gridDimZ;
        config.blockDimX = p.blockDimX;
        config.blockDimY = p.blockDimY;
        config.blockDimZ = p.blockDimZ;
        config.sharedMemBytes = p.sharedMemBytes;
        config.hStream = stream;
        config.attrs = const_cast<CUlaunchAttribute*>(s.attributes);
        config.numAttrs = s.attributeCount;
        // A library kernel (CUkernel) launches as a function in the current context.
        CUfunction f = p.func ? p.func : reinterpret_cast<CUfunction>(p.kern);
        return d->launchKernelEx(&config, f, p.kernelParams, p.extra);
    }
    case CU_GRAPH_NODE_TYPE_MEMSET: {
        const CUDA_MEMSET_NODE_PARAMS& p = s.memset;
        const std::size_t rowBytes = p.width * p.elementSize;
        const std::size_t pitch = p.height <= 1 && p.pitch < rowBytes ? rowBytes : p.pitch;
        const std::size_t height = p.height ? p.height : 1;
        if (p.elementSize == 1)
            return d->memsetD2D8Async(p.dst, pitch, static_cast<unsigned char>(p.value), p.width,
                                      height, stream);
        if (p.elementSize == 2)
            return d->memsetD2D16Async(p.dst, pitch, static_cast<unsigned short>(p.value), p.width,
                                       height, stream);
        return d->memsetD2D32Async(p.dst, pitch, p.value, p.width, height, stream);
    }
    case CU_GRAPH_NODE_TYPE_MEMCPY:
        return d->memcpy3DAsync(&s.copy, stream);
    case CU_GRAPH_NODE_TYPE_HOST:
        return d->launchHostFunc(stream, s.host.fn, s.host.userData);
    case CU_GRAPH_NODE_TYPE_EVENT_RECORD:
        return d->eventRecord(s.event, stream);
    case CU_GRAPH_NODE_TYPE_WAIT_EVENT:
        return d->streamWaitEvent(stream, s.event, 0);
    default:
        return CUDA_SUCCESS;
    }
}

// The clone's nodes -> the nodes of `graph` they were cloned from (null when the driver cannot
// say): a replayed kernel is named by what was current where its node was captured.
std::unique_ptr<std::unordered_map<CUgraphNode, CUgraphNode>>
originsOf(const DriverApi* d, CUgraph graph, CUgraph clone) {
    std::size_t count = 0;
    if (!d->graphNodeFindInClone || d->graphGetNodes(graph, nullptr, &count) != CUDA_SUCCESS)
        return nullptr;
    std::vector<CUgraphNode> nodes(count);
    if (count && d->graphGetNodes(graph, nodes.data(), &count) != CUDA_SUCCESS)
        return nullptr;
    auto origins = std::make_unique<std::unordered_map<CUgraphNode, CUgraphNode>>();
    for (std::size_t i = 0; i < count && i < nodes.size(); ++i) {
        CUgraphNode cloned = nullptr;
        if (d->graphNodeFindInClone(&cloned, nodes[i], clone) == CUDA_SUCCESS && cloned)
            (*origins)[cloned] = nodes[i];
    }
    return origins;
}

} // namespace

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
    if (d.graphGetEdges &&
        d.graphGetEdges(graph, nullptr, nullptr, nullptr, &edges) == CUDA_SUCCESS && edges) {
        from.resize(edges);
        to.resize(edges);
        if (d.graphGetEdges(graph, from.data(), to.data(), nullptr, &edges) != CUDA_SUCCESS) {
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
        if (d->graphClone(&plan->clone, graph) != CUDA_SUCCESS) {
            plan->clone = nullptr;
            plan->unsupported = "a graph that could not be cloned";
        } else {
            listNodes(d, plan->clone, *plan, 0, originsOf(d, graph, plan->clone).get());
            CUgraph empty = nullptr;
            if (plan->unsupported.empty() && d->graphCreate(&empty, 0) == CUDA_SUCCESS) {
                if (d->graphInstantiate(&plan->empty, empty, 0) != CUDA_SUCCESS)
                    plan->empty = nullptr;
                d->graphDestroy(empty);
            }
            if (plan->unsupported.empty() && !plan->empty)
                plan->unsupported = "no empty graph to launch in its place";
        }
        std::lock_guard<std::mutex> lock(plans().mutex);
        plans().byExec[exec] = std::move(plan);
    } catch (...) { // out of memory: that graph runs as it is
        forgetGraph(exec);
    }
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
    if (!plan->unsupported.empty()) {
        why = "the graph has " + plan->unsupported;
        return false;
    }
    for (const Step& s : plan->steps) {
        tReplayed = s.origin;
        const CUresult issued = issue(d, s, stream);
        tReplayed = 0;
        if (issued != CUDA_SUCCESS) {
            // Nodes before this one ran: the rest must run too, as the graph would have them.
            why = "a node could not be issued: the graph ran as it is after the nodes before it";
            return false;
        }
    }
    *exec = plan->empty;
    return true;
}

} // namespace roofline::cupti
