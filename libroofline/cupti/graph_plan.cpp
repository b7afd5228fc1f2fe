#include "cupti/graph_plan.hpp"

#include "cupti/driver.hpp"
#include "cupti/graph_replay.hpp"

#include <memory>

namespace roofline::cupti {
namespace {

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
void readAttributes(const DriverApi& d, CUgraphNode node, GraphStep& s) {
    CUlaunchAttributeValue v{};
    if (d.graphKernelNodeGetAttribute(node, CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION, &v) ==
            CUDA_SUCCESS &&
        v.clusterDim.x > 0) {
        s.attributes[s.attributeCount].id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
        s.attributes[s.attributeCount++].value = v;
    }
    v = {};
    if (d.graphKernelNodeGetAttribute(node, CU_LAUNCH_ATTRIBUTE_COOPERATIVE, &v) == CUDA_SUCCESS &&
        v.cooperative) {
        s.attributes[s.attributeCount].id = CU_LAUNCH_ATTRIBUTE_COOPERATIVE;
        s.attributes[s.attributeCount++].value = v;
    }
    v = {};
    if (d.graphKernelNodeGetAttribute(node, CU_LAUNCH_ATTRIBUTE_PRIORITY, &v) == CUDA_SUCCESS &&
        v.priority != 0) {
        s.attributes[s.attributeCount].id = CU_LAUNCH_ATTRIBUTE_PRIORITY;
        s.attributes[s.attributeCount++].value = v;
    }
}

CUresult issueStep(const DriverApi& d, const GraphStep& s, CUstream stream) {
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
        return d.launchKernelEx(&config, f, p.kernelParams, p.extra);
    }
    case CU_GRAPH_NODE_TYPE_MEMSET: {
        const CUDA_MEMSET_NODE_PARAMS& p = s.memset;
        const std::size_t rowBytes = p.width * p.elementSize;
        const std::size_t pitch = p.height <= 1 && p.pitch < rowBytes ? rowBytes : p.pitch;
        const std::size_t height = p.height ? p.height : 1;
        if (p.elementSize == 1)
            return d.memsetD2D8Async(p.dst, pitch, static_cast<unsigned char>(p.value), p.width,
                                     height, stream);
        if (p.elementSize == 2)
            return d.memsetD2D16Async(p.dst, pitch, static_cast<unsigned short>(p.value), p.width,
                                      height, stream);
        return d.memsetD2D32Async(p.dst, pitch, p.value, p.width, height, stream);
    }
    case CU_GRAPH_NODE_TYPE_MEMCPY:
        return d.memcpy3DAsync(&s.copy, stream);
    case CU_GRAPH_NODE_TYPE_HOST:
        return d.launchHostFunc(stream, s.host.fn, s.host.userData);
    case CU_GRAPH_NODE_TYPE_EVENT_RECORD:
        return d.eventRecord(s.event, stream);
    case CU_GRAPH_NODE_TYPE_WAIT_EVENT:
        return d.streamWaitEvent(stream, s.event, 0);
    default:
        return CUDA_SUCCESS;
    }
}

// The nodes of `graph` in order into `nodes`: null, or why they cannot be issued in order.
const char* readInOrder(const DriverApi& d, CUgraph graph, std::vector<CUgraphNode>& nodes) {
    switch (nodesInOrder(d, graph, nodes)) {
    case GraphRead::Ok:
        return nullptr;
    case GraphRead::NodesUnreadable:
        return "a graph whose nodes could not be read";
    case GraphRead::EdgesUnreadable:
        return "a graph whose edges could not be read";
    case GraphRead::Cycle:
        return "a graph with a cycle";
    }
    return "a graph whose nodes could not be read";
}

// The nodes of `graph` -> the clone's (empty when the driver cannot say): a replayed kernel is
// named by what was current where its node was captured, and a node changed in place is found.
std::unordered_map<CUgraphNode, CUgraphNode> clonesOf(const DriverApi& d, CUgraph graph,
                                                      CUgraph clone) {
    std::unordered_map<CUgraphNode, CUgraphNode> clones;
    std::size_t count = 0;
    if (!d.graphNodeFindInClone || d.graphGetNodes(graph, nullptr, &count) != CUDA_SUCCESS)
        return clones;
    std::vector<CUgraphNode> nodes(count);
    if (count && d.graphGetNodes(graph, nodes.data(), &count) != CUDA_SUCCESS)
        return clones;
    for (std::size_t i = 0; i < count && i < nodes.size(); ++i) {
        CUgraphNode cloned = nullptr;
        if (d.graphNodeFindInClone(&cloned, nodes[i], clone) == CUDA_SUCCESS && cloned)
            clones[nodes[i]] = cloned;
    }
    return clones;
}

} // namespace

GraphPlan::~GraphPlan() {
    const DriverApi* d = driver();
    if (!d || !d->graphClone)
        return;
    for (const Segment& s : segments_)
        if (s.clone)
            d->graphDestroy(s.clone);
    if (clone_)
        d->graphDestroy(clone_);
}

void GraphPlan::build(const DriverApi& d, CUgraph graph, std::uint64_t (*nodeId)(CUgraphNode)) {
    if (!nodeId)
        nodeId = &graphNodeId;
    if (d.graphClone(&clone_, graph) != CUDA_SUCCESS) {
        clone_ = nullptr;
        unsupported_ = "a graph that could not be cloned";
        return;
    }
    std::vector<CUgraphNode> nodes;
    if (const char* why = readInOrder(d, clone_, nodes)) {
        unsupported_ = why;
        return;
    }
    std::unordered_map<CUgraphNode, std::size_t> segmentOfClone;
    for (const CUgraphNode n : nodes) {
        segmentOfClone[n] = segments_.size();
        Segment& segment = segments_.emplace_back();
        if (d.graphNodeGetType(n, &segment.type) != CUDA_SUCCESS)
            segment.type = CU_GRAPH_NODE_TYPE_EMPTY;
        listNode(d, n, segment.steps, 0, unsupported_);
        if (!unsupported_.empty())
            return;
    }
    for (const auto& [original, cloned] : clonesOf(d, graph, clone_)) {
        const auto it = segmentOfClone.find(cloned);
        if (it == segmentOfClone.end())
            continue;
        segmentOf_[original] = it->second;
        Segment& segment = segments_[it->second];
        if (segment.type == CU_GRAPH_NODE_TYPE_KERNEL && segment.steps.size() == 1)
            segment.steps.front().origin = nodeId(original);
    }
}

void GraphPlan::listNodes(const DriverApi& d, CUgraph graph, std::vector<GraphStep>& out, int depth,
                          std::string& why) {
    if (depth > 16) {
        why = "child graphs nested more than 16 deep";
        return;
    }
    std::vector<CUgraphNode> nodes;
    if (const char* unreadable = readInOrder(d, graph, nodes)) {
        why = unreadable;
        return;
    }
    for (std::size_t i = 0; i < nodes.size() && why.empty(); ++i)
        listNode(d, nodes[i], out, depth, why);
}

void GraphPlan::listNode(const DriverApi& d, CUgraphNode node, std::vector<GraphStep>& out,
                         int depth, std::string& why) {
    GraphStep s;
    if (d.graphNodeGetType(node, &s.type) != CUDA_SUCCESS) {
        why = "a node whose type could not be read";
        return;
    }
    CUresult r = CUDA_SUCCESS;
    switch (s.type) {
    case CU_GRAPH_NODE_TYPE_EMPTY:
        return;
    case CU_GRAPH_NODE_TYPE_GRAPH: {
        ++childGraphs_;
        CUgraph child = nullptr;
        r = d.graphChildGraphNodeGetGraph(node, &child);
        if (r == CUDA_SUCCESS)
            listNodes(d, child, out, depth + 1, why);
        break;
    }
    case CU_GRAPH_NODE_TYPE_KERNEL:
        r = d.graphKernelNodeGetParams(node, &s.kernel);
        if (r == CUDA_SUCCESS)
            readAttributes(d, node, s);
        s.node = node;
        break;
    case CU_GRAPH_NODE_TYPE_MEMSET:
        r = d.graphMemsetNodeGetParams(node, &s.memset);
        break;
    case CU_GRAPH_NODE_TYPE_MEMCPY:
        r = d.graphMemcpyNodeGetParams(node, &s.copy);
        break;
    case CU_GRAPH_NODE_TYPE_HOST:
        r = d.graphHostNodeGetParams(node, &s.host);
        break;
    case CU_GRAPH_NODE_TYPE_EVENT_RECORD:
        r = d.graphEventRecordNodeGetEvent(node, &s.event);
        break;
    case CU_GRAPH_NODE_TYPE_WAIT_EVENT:
        r = d.graphEventWaitNodeGetEvent(node, &s.event);
        break;
    default:
        why = std::string("a ") + typeName(s.type) + " node";
        return;
    }
    if (r != CUDA_SUCCESS) {
        why = "a node whose parameters could not be read";
        return;
    }
    if (s.type != CU_GRAPH_NODE_TYPE_GRAPH)
        out.push_back(s);
}

bool GraphPlan::followKernel(const DriverApi& d, CUgraphNode node,
                             const CUDA_KERNEL_NODE_PARAMS& params) {
    const auto it = segmentOf_.find(node);
    if (!d.graphKernelNodeSetParams || it == segmentOf_.end())
        return false;
    Segment& segment = segments_[it->second];
    if (segment.type != CU_GRAPH_NODE_TYPE_KERNEL || segment.steps.size() != 1)
        return false;
    std::vector<GraphStep>& steps = segment.steps;
    // The clone's node takes the new parameters (it copies the arguments), and the step reads
    // them back from it: their storage is the clone's.
    GraphStep& s = steps.front();
    CUDA_KERNEL_NODE_PARAMS now{};
    if (d.graphKernelNodeSetParams(s.node, &params) != CUDA_SUCCESS ||
        d.graphKernelNodeGetParams(s.node, &now) != CUDA_SUCCESS)
        return false;
    s.kernel = now;
    return true;
}

bool GraphPlan::followChildGraph(const DriverApi& d, CUgraphNode node, CUgraph child) {
    const auto it = segmentOf_.find(node);
    if (it == segmentOf_.end() || !child || segments_[it->second].type != CU_GRAPH_NODE_TYPE_GRAPH)
        return false;
    Segment fresh;
    if (d.graphClone(&fresh.clone, child) != CUDA_SUCCESS)
        return false;
    std::string why;
    listNodes(d, fresh.clone, fresh.steps, 1, why);
    if (!why.empty()) {
        d.graphDestroy(fresh.clone);
        return false;
    }
    Segment& old = segments_[it->second];
    if (old.clone)
        d.graphDestroy(old.clone); // its launches copied their arguments when they were issued
    fresh.type = old.type;
    old = std::move(fresh);
    return true;
}

CUresult GraphPlan::issue(const DriverApi& d, CUstream stream, std::uint64_t& replayed) const {
    for (const Segment& segment : segments_)
        for (const GraphStep& s : segment.steps) {
            replayed = s.origin;
            const CUresult r = issueStep(d, s, stream);
            replayed = 0;
            if (r != CUDA_SUCCESS)
                return r;
        }
    return CUDA_SUCCESS;
}

std::size_t GraphPlan::steps() const noexcept {
    std::size_t n = 0;
    for (const Segment& s : segments_)
        n += s.steps.size();
    return n;
}

} // namespace roofline::cupti
