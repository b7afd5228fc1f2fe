#pragma once
// What a CUDA graph launch is replaced by (cupti/graph_replay.hpp): a clone of the application's
// graph, taken at instantiation, and per top-level node of it a segment of steps to issue from
// the host -- a kernel, memset, copy, host function or event node one step, a child graph its
// nodes, expanded, in an order that respects its edges. Node setters on the executable graph are
// followed: a kernel node's new parameters go into the clone's node, a child graph's new graph is
// cloned and listed in place of the old one's steps (XLA updates its command buffers, child
// graphs of captured library calls included, at each run).
#include <cuda.h>

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace roofline::cupti {

struct DriverApi;

/// One node to issue, with what the clone holds of it (argument arrays stay valid while it lives).
struct GraphStep {
    CUgraphNodeType type = CU_GRAPH_NODE_TYPE_EMPTY;
    CUDA_KERNEL_NODE_PARAMS kernel{};
    CUlaunchAttribute attributes[3]{};
    unsigned attributeCount = 0;
    CUDA_MEMSET_NODE_PARAMS memset{};
    CUDA_MEMCPY3D copy{};
    CUDA_HOST_NODE_PARAMS host{};
    CUevent event = nullptr;
    std::uint64_t origin = 0;   ///< graphNodeId() of the application's node (0: unknown)
    CUgraphNode node = nullptr; ///< the clone's node (kernel nodes)
};

class GraphPlan {
public:
    GraphPlan() = default;
    GraphPlan(const GraphPlan&) = delete;
    GraphPlan& operator=(const GraphPlan&) = delete;
    ~GraphPlan();

    /// Clones `graph` and lists its nodes; unsupported() then says why the host cannot issue
    /// them, if it cannot. `nodeId` names the application's nodes (CUPTI's graphNodeId).
    void build(const DriverApi& d, CUgraph graph, std::uint64_t (*nodeId)(CUgraphNode) = nullptr);
    /// A plan that is never issued: `why` says what changed its graph.
    void markStale(std::string why) { unsupported_ = std::move(why); }
    /// Empty when every node can be issued; else "a conditional node", ...
    const std::string& unsupported() const noexcept { return unsupported_; }

    /// Kernel node `node` of the application's graph (top level) now has `params`: false when it
    /// is not one of the plan's, or the clone refused them.
    bool followKernel(const DriverApi& d, CUgraphNode node, const CUDA_KERNEL_NODE_PARAMS& params);
    /// Child graph node `node` of the application's graph now holds `child`'s nodes: false when it
    /// is not one of the plan's, or `child` cannot be issued.
    bool followChildGraph(const DriverApi& d, CUgraphNode node, CUgraph child);

    /// Issues every step on `stream` in order; `replayed` is each kernel step's origin while it
    /// is launched. Stops at the first step the driver refuses and returns its error.
    CUresult issue(const DriverApi& d, CUstream stream, std::uint64_t& replayed) const;

    std::size_t steps() const noexcept;
    std::size_t childGraphs() const noexcept { return childGraphs_; }

private:
    struct Segment {
        CUgraphNodeType type = CU_GRAPH_NODE_TYPE_EMPTY; // the top-level node's
        std::vector<GraphStep> steps;
        CUgraph clone = nullptr; // a child graph cloned when it was changed in place: owned
    };
    // The nodes of `graph` in order, child graphs expanded, appended to `out`; `why` set (and
    // the listing stopped) at a node the host cannot issue.
    void listNodes(const DriverApi& d, CUgraph graph, std::vector<GraphStep>& out, int depth,
                   std::string& why);
    // One node of the clone, appended to `out` (a child graph: its nodes).
    void listNode(const DriverApi& d, CUgraphNode node, std::vector<GraphStep>& out, int depth,
                  std::string& why);

    CUgraph clone_ = nullptr;
    std::vector<Segment> segments_;
    // The application's top-level nodes -> their segment.
    std::unordered_map<CUgraphNode, std::size_t> segmentOf_;
    std::size_t childGraphs_ = 0;
    std::string unsupported_;
};

} // namespace roofline::cupti
