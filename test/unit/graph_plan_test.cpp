// What a CUDA graph launch is replaced by (cupti::GraphPlan), on a fake driver whose graphs are
// in memory: the nodes issued in order with a child graph's expanded, a kernel node and a child
// graph changed in place followed into the plan, and what the plan refuses.
#include "cupti/driver.hpp"
#include "cupti/graph_plan.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

using namespace roofline::cupti;

namespace {

// A fake graph: its nodes in order (no edges); a node is a kernel (its function and one integer
// argument, copied as the driver copies arguments), a child graph, or a conditional node.
struct FakeNode {
    CUgraphNodeType type = CU_GRAPH_NODE_TYPE_KERNEL;
    std::uintptr_t function = 0;
    int argument = 0;
    void* args[1]{};
    struct FakeGraph* child = nullptr;
    FakeNode* origin = nullptr; // the node it was cloned from
};
struct FakeGraph {
    std::vector<FakeNode*> nodes;
};
std::deque<FakeNode> gNodes;   // every node made, stable addresses
std::deque<FakeGraph> gGraphs; // every graph made
int gDestroyed = 0;
std::vector<std::pair<std::uintptr_t, int>> gLaunched; // function, argument

FakeGraph* graphOf(CUgraph g) {
    return reinterpret_cast<FakeGraph*>(g);
}
FakeNode* nodeOf(CUgraphNode n) {
    return reinterpret_cast<FakeNode*>(n);
}
CUgraphNode handle(FakeNode* n) {
    return reinterpret_cast<CUgraphNode>(n);
}
CUgraph handle(FakeGraph* g) {
    return reinterpret_cast<CUgraph>(g);
}

FakeNode* kernel(std::uintptr_t function, int argument) {
    FakeNode& n = gNodes.emplace_back();
    n.function = function;
    n.argument = argument;
    n.args[0] = &n.argument;
    return &n;
}
FakeGraph* graph(std::vector<FakeNode*> nodes) {
    gGraphs.push_back({std::move(nodes)});
    return &gGraphs.back();
}
FakeNode* childNode(FakeGraph* child) {
    FakeNode& n = gNodes.emplace_back();
    n.type = CU_GRAPH_NODE_TYPE_GRAPH;
    n.child = child;
    return &n;
}

FakeGraph* cloneOf(const FakeGraph* g) {
    std::vector<FakeNode*> nodes;
    for (FakeNode* n : g->nodes) {
        FakeNode& c = gNodes.emplace_back(*n);
        c.args[0] = &c.argument;
        c.origin = n;
        if (n->child)
            c.child = cloneOf(n->child);
        nodes.push_back(&c);
    }
    return graph(std::move(nodes));
}

CUresult clone(CUgraph* out, CUgraph g) {
    *out = handle(cloneOf(graphOf(g)));
    return CUDA_SUCCESS;
}
CUresult destroy(CUgraph) {
    ++gDestroyed;
    return CUDA_SUCCESS;
}
CUresult getNodes(CUgraph g, CUgraphNode* nodes, std::size_t* count) {
    const FakeGraph* f = graphOf(g);
    if (nodes)
        for (std::size_t i = 0; i < *count && i < f->nodes.size(); ++i)
            nodes[i] = handle(f->nodes[i]);
    *count = f->nodes.size();
    return CUDA_SUCCESS;
}
CUresult getEdges(CUgraph, CUgraphNode*, CUgraphNode*, CUgraphEdgeData*, std::size_t* count) {
    *count = 0;
    return CUDA_SUCCESS;
}
CUresult nodeType(CUgraphNode n, CUgraphNodeType* type) {
    *type = nodeOf(n)->type;
    return CUDA_SUCCESS;
}
CUresult kernelParams(CUgraphNode n, CUDA_KERNEL_NODE_PARAMS* p) {
    FakeNode* f = nodeOf(n);
    *p = {};
    p->func = reinterpret_cast<CUfunction>(f->function);
    p->gridDimX = p->gridDimY = p->gridDimZ = 1;
    p->blockDimX = p->blockDimY = p->blockDimZ = 1;
    p->kernelParams = f->args;
    return CUDA_SUCCESS;
}
CUresult setKernelParams(CUgraphNode n, const CUDA_KERNEL_NODE_PARAMS* p) {
    FakeNode* f = nodeOf(n);
    f->function = reinterpret_cast<std::uintptr_t>(p->func);
    f->argument = *static_cast<int*>(p->kernelParams[0]); // copied, as the driver does
    return CUDA_SUCCESS;
}
CUresult kernelAttribute(CUgraphNode, CUlaunchAttributeID, CUlaunchAttributeValue*) {
    return CUDA_SUCCESS; // none set
}
CUresult childGraph(CUgraphNode n, CUgraph* g) {
    *g = handle(nodeOf(n)->child);
    return CUDA_SUCCESS;
}
CUresult findInClone(CUgraphNode* out, CUgraphNode original, CUgraph clone) {
    for (FakeNode* n : graphOf(clone)->nodes)
        if (n->origin == nodeOf(original)) {
            *out = handle(n);
            return CUDA_SUCCESS;
        }
    return CUDA_ERROR_INVALID_VALUE;
}
CUresult launch(const CUlaunchConfig*, CUfunction f, void** args, void**) {
    gLaunched.emplace_back(reinterpret_cast<std::uintptr_t>(f), *static_cast<int*>(args[0]));
    return CUDA_SUCCESS;
}
std::uint64_t nodeId(CUgraphNode n) {
    return reinterpret_cast<std::uintptr_t>(n);
}

DriverApi fakeDriver() {
    DriverApi d{};
    d.graphClone = &clone;
    d.graphDestroy = &destroy;
    d.graphGetNodes = &getNodes;
    d.graphGetEdges = &getEdges;
    d.graphNodeGetType = &nodeType;
    d.graphKernelNodeGetParams = &kernelParams;
    d.graphKernelNodeSetParams = &setKernelParams;
    d.graphKernelNodeGetAttribute = &kernelAttribute;
    d.graphChildGraphNodeGetGraph = &childGraph;
    d.graphNodeFindInClone = &findInClone;
    d.launchKernelEx = &launch;
    return d;
}

std::vector<std::pair<std::uintptr_t, int>> issued(const DriverApi& d, const GraphPlan& plan) {
    gLaunched.clear();
    std::uint64_t replayed = 0;
    EXPECT_EQ(plan.issue(d, nullptr, replayed), CUDA_SUCCESS);
    EXPECT_EQ(replayed, 0u) << "only while a kernel step is launched";
    return gLaunched;
}

using Launches = std::vector<std::pair<std::uintptr_t, int>>;

} // namespace

// XLA's command buffer: a kernel, then a child graph (a captured library call) of two kernels.
// The application changes both before each run; the plan issues what the graph would run.
TEST(GraphPlan, KernelNodesAndChildGraphsChangedInPlaceAreFollowed) {
    const DriverApi d = fakeDriver();
    FakeNode* first = kernel(1, 10);
    FakeNode* library = childNode(graph({kernel(2, 20), kernel(3, 30)}));
    FakeGraph* app = graph({first, library});
    GraphPlan plan;
    plan.build(d, handle(app), &nodeId);
    ASSERT_EQ(plan.unsupported(), "");
    EXPECT_EQ(plan.steps(), 3u);
    EXPECT_EQ(plan.childGraphs(), 1u);
    EXPECT_EQ(issued(d, plan), (Launches{{1, 10}, {2, 20}, {3, 30}}));

    // cuGraphExecKernelNodeSetParams on the application's node: a new argument.
    int now = 11;
    void* args[] = {&now};
    CUDA_KERNEL_NODE_PARAMS p{};
    p.func = reinterpret_cast<CUfunction>(std::uintptr_t{1});
    p.kernelParams = args;
    EXPECT_TRUE(plan.followKernel(d, handle(first), p));
    now = 99; // the driver copied it: a later change of the caller's variable is not seen
    EXPECT_EQ(issued(d, plan), (Launches{{1, 11}, {2, 20}, {3, 30}}));

    // cuGraphExecChildGraphNodeSetParams: the child graph's nodes with other arguments.
    const int before = gDestroyed;
    EXPECT_TRUE(
        plan.followChildGraph(d, handle(library), handle(graph({kernel(2, 21), kernel(3, 31)}))));
    EXPECT_EQ(issued(d, plan), (Launches{{1, 11}, {2, 21}, {3, 31}}));
    EXPECT_TRUE(
        plan.followChildGraph(d, handle(library), handle(graph({kernel(2, 22), kernel(3, 32)}))));
    EXPECT_EQ(gDestroyed, before + 1) << "the first replacement's clone is let go";
    EXPECT_EQ(issued(d, plan), (Launches{{1, 11}, {2, 22}, {3, 32}}));
}

// What the plan does not follow: a node that is not one of its own top-level nodes (a child
// graph's kernel), a kernel setter on a child graph node, a new child graph it cannot issue; a
// graph with a conditional node is not issued at all.
TEST(GraphPlan, WhatIsNotFollowedOrNotIssued) {
    const DriverApi d = fakeDriver();
    FakeNode* inner = kernel(2, 20);
    FakeNode* library = childNode(graph({inner}));
    FakeGraph* app = graph({kernel(1, 10), library});
    GraphPlan plan;
    plan.build(d, handle(app), &nodeId);
    ASSERT_EQ(plan.unsupported(), "");
    int v = 5;
    void* args[] = {&v};
    CUDA_KERNEL_NODE_PARAMS p{};
    p.kernelParams = args;
    EXPECT_FALSE(plan.followKernel(d, handle(inner), p)) << "a child graph's node";
    EXPECT_FALSE(plan.followKernel(d, handle(library), p)) << "a child graph of one kernel";
    EXPECT_FALSE(plan.followChildGraph(d, handle(app->nodes[0]), handle(graph({kernel(4, 40)}))))
        << "a kernel node";
    FakeNode& conditional = gNodes.emplace_back();
    conditional.type = CU_GRAPH_NODE_TYPE_CONDITIONAL;
    EXPECT_FALSE(plan.followChildGraph(d, handle(library), handle(graph({&conditional}))));
    EXPECT_EQ(issued(d, plan), (Launches{{1, 10}, {2, 20}})) << "unchanged";

    GraphPlan refused;
    refused.build(d, handle(graph({kernel(1, 10), &conditional})), &nodeId);
    EXPECT_EQ(refused.unsupported(), "a conditional node");
    GraphPlan stale;
    stale.markStale("a memset node changed in place");
    EXPECT_EQ(stale.unsupported(), "a memset node changed in place");
}
