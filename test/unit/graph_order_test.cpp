// The order a graph's nodes are issued or listed in (cupti::nodesInOrder, shared by the graph
// launch replacement and the kernel list read at instantiation), on a fake driver: edges first,
// then the graph's own node order; what an unreadable graph gives.
#include "cupti/driver.hpp"
#include "cupti/graph_replay.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <utility>
#include <vector>

using namespace roofline::cupti;

namespace {

// The fake graph: nodes 1..n in the graph's own order, and edges between them.
std::vector<CUgraphNode> gNodes;
std::vector<std::pair<CUgraphNode, CUgraphNode>> gEdges;
bool gEdgesFail = false;
bool gProgrammatic = false; // the edges carry data, as PDL edges do: a query without it fails

CUgraphNode node(std::uintptr_t n) {
    return reinterpret_cast<CUgraphNode>(n);
}

CUresult getNodes(CUgraph, CUgraphNode* nodes, std::size_t* count) {
    if (nodes)
        for (std::size_t i = 0; i < *count && i < gNodes.size(); ++i)
            nodes[i] = gNodes[i];
    *count = gNodes.size();
    return CUDA_SUCCESS;
}

CUresult getEdges(CUgraph, CUgraphNode* from, CUgraphNode* to, CUgraphEdgeData* data,
                  std::size_t* count) {
    if (from && gEdgesFail)
        return CUDA_ERROR_INVALID_VALUE;
    if (from && gProgrammatic && !data)
        return CUDA_ERROR_LOSSY_QUERY;
    if (from)
        for (std::size_t i = 0; i < *count && i < gEdges.size(); ++i) {
            from[i] = gEdges[i].first;
            to[i] = gEdges[i].second;
            if (data) {
                data[i] = CUgraphEdgeData{};
                data[i].type = gProgrammatic ? CU_GRAPH_DEPENDENCY_TYPE_PROGRAMMATIC
                                             : CU_GRAPH_DEPENDENCY_TYPE_DEFAULT;
            }
        }
    *count = gEdges.size();
    return CUDA_SUCCESS;
}

std::vector<CUgraphNode> ordered(GraphRead expected) {
    DriverApi d{};
    d.graphGetNodes = &getNodes;
    d.graphGetEdges = &getEdges;
    std::vector<CUgraphNode> out;
    EXPECT_EQ(nodesInOrder(d, nullptr, out), expected);
    return out;
}

} // namespace

// Captured from two streams: the copy (1) waits for the second stream's kernel (4), which waits
// for the memset (3); 2 waits for nothing. Ready nodes go in the graph's own order.
TEST(GraphOrder, EdgesFirstThenTheGraphsOwnOrder) {
    gNodes = {node(1), node(2), node(3), node(4)};
    gEdges = {{node(4), node(1)}, {node(3), node(4)}};
    gEdgesFail = false;
    EXPECT_EQ(ordered(GraphRead::Ok),
              (std::vector<CUgraphNode>{node(2), node(3), node(4), node(1)}));
    gEdges.clear();
    EXPECT_EQ(ordered(GraphRead::Ok), gNodes);
    gNodes.clear();
    EXPECT_TRUE(ordered(GraphRead::Ok).empty());
}

// Edges that cannot be read leave the graph's own order (the kernel list uses it; the launch
// replacement refuses the graph); a cycle gives the nodes listed before it.
TEST(GraphOrder, UnreadableEdgesAndACycleSaySo) {
    gNodes = {node(1), node(2), node(3)};
    gEdges = {{node(2), node(1)}};
    gEdgesFail = true;
    EXPECT_EQ(ordered(GraphRead::EdgesUnreadable), gNodes);
    gEdgesFail = false;
    gEdges = {{node(2), node(3)}, {node(3), node(2)}};
    EXPECT_EQ(ordered(GraphRead::Cycle), (std::vector<CUgraphNode>{node(1)}));
    DriverApi none{};
    std::vector<CUgraphNode> out{node(9)};
    EXPECT_EQ(nodesInOrder(none, nullptr, out), GraphRead::NodesUnreadable);
    EXPECT_TRUE(out.empty());
}

// XLA's graphs carry programmatic edges (their kernels may start before the previous one ends):
// the edges are read with their data and taken as full dependencies.
TEST(GraphOrder, ProgrammaticEdgesAreRead) {
    gNodes = {node(1), node(2), node(3)};
    gEdges = {{node(3), node(1)}, {node(1), node(2)}};
    gEdgesFail = false;
    gProgrammatic = true;
    EXPECT_EQ(ordered(GraphRead::Ok), (std::vector<CUgraphNode>{node(3), node(1), node(2)}));
    gProgrammatic = false;
}
