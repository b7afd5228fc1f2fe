#pragma once
// CUDA graph launches replaced by their nodes (docs/design/0016-graph-kernels-measured.md): the
// range profiler cannot measure a graph's kernels, but measures them as ordinary launches. While
// counters are collected, a cuGraphLaunch of a graph whose nodes can all be issued from the host
// (kernels, memsets, copies, host functions, event records and waits, empty and child graphs)
// launches those nodes one by one, in dependency order, on the launch's stream, and runs an empty
// executable graph in its place. Measured on the H100: results bitwise identical to the graph's.
//
// Each instantiated graph is cloned at instantiation (its application may destroy the source
// graph) and its nodes listed then; cuGraphExecUpdate lists them again from the update's graph.
// A kernel node or child graph of an executable graph changed in place
// (cuGraphExecKernelNodeSetParams, cuGraphExecChildGraphNodeSetParams, cuGraphExecNodeSetParams:
// XLA points its command buffers at each run's buffers so) is followed (cupti/graph_plan.hpp).
// Other per-node setters make the clone stale: that graph is then launched as it is.
#include <cuda.h>

#include <cstdint>
#include <string>
#include <vector>

namespace roofline::cupti {

struct DriverApi;

/// How reading a graph's nodes went (nodesInOrder).
enum class GraphRead { Ok, NodesUnreadable, EdgesUnreadable, Cycle };
/// The nodes of `graph` (not those of its child graphs) in an order that respects its edges:
/// among the nodes whose predecessors are all listed, the graph's own node order first (the
/// capture order, for a graph captured from one stream). EdgesUnreadable: `ordered` holds the
/// nodes in the graph's own order; Cycle: those listed before it; NodesUnreadable: none.
GraphRead nodesInOrder(const DriverApi& d, CUgraph graph, std::vector<CUgraphNode>& ordered);

/// Launches are replaced from now on (true) or run as they are (false). Process-wide.
void replaceGraphLaunches(bool on) noexcept;
bool graphLaunchesReplaced() noexcept;

/// At instantiation or update of `exec` from `graph`: its nodes are listed (never throws).
void rememberGraph(CUgraphExec exec, CUgraph graph) noexcept;
/// This thread is inside rememberGraph() (its own instantiation is not the application's).
bool rememberingGraph() noexcept;
/// At cuGraphExecDestroy, or when a node setter changed `exec` (its list no longer matches).
void forgetGraph(CUgraphExec exec) noexcept;
/// A node setter changed `exec` in a way its clone does not follow: it is launched as it is from
/// now on, `why` (a static string) saying so.
void staleGraph(CUgraphExec exec, const char* why) noexcept;
/// After a kernel node setter changed `node` of `exec` to `params`: the clone's node follows
/// (or, when it cannot, the graph goes stale).
void updateGraphKernel(CUgraphExec exec, CUgraphNode node,
                       const CUDA_KERNEL_NODE_PARAMS& params) noexcept;
/// After cuGraphExecChildGraphNodeSetParams changed child graph node `node` of `exec` to hold
/// `child`'s nodes: the plan lists them in place of the old ones (or the graph goes stale).
void updateChildGraph(CUgraphExec exec, CUgraphNode node, CUgraph child) noexcept;
/// At the exit of a per-node setter on an executable graph (CUPTI driver callback `cbid`, its
/// parameters and return value): a kernel node's or child graph's change is followed
/// (updateGraphKernel, updateChildGraph), any other leaves the graph stale, saying which.
void nodeSetterReturned(unsigned cbid, const void* functionParams,
                        const void* functionReturnValue) noexcept;

/// At cuGraphLaunch's entry, when replaceGraphLaunches(true): launches the nodes of `*exec` on
/// `stream` and points `*exec` at an empty executable graph. False (nothing launched, `*exec`
/// untouched) when the graph is unknown or has a node the host cannot issue; `why` then says
/// which. Called on the launching thread, inside the driver's callback.
bool launchGraphNodes(CUgraphExec* exec, CUstream stream, std::string& why) noexcept;
/// The first reason a graph launch ran as it is while launches were replaced (what
/// launchGraphNodes() said), kept for the exit line; "" when none did.
void noteGraphRanAsItIs(const std::string& why) noexcept;
std::string graphRanAsItIs();
/// Inside launchGraphNodes(), while it launches a kernel node on this thread: the node of the
/// application's graph that kernel stands for (its graphNodeId()); 0 otherwise.
std::uint64_t replayedNode() noexcept;
/// CUPTI's id of `node`, unique in the process (never reused, unlike node handles); 0 when
/// CUPTI cannot say.
std::uint64_t graphNodeId(CUgraphNode node) noexcept;

} // namespace roofline::cupti
