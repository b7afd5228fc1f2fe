#pragma once
// An open push/pop range (an NVTX range or a ProfileScope) and a thread's stack of them: what the
// collector attributes launches to, with its host side (HostFrame: scopes/host_timing keeps the
// times). Pure: no CUDA.
#include <cstdint>
#include <string>
#include <vector>

namespace roofline::collect {

struct HostNode;

/// A scope instance's host side, kept in its stack frame.
struct HostFrame {
    HostNode* node = nullptr; ///< null: not timed
    void* tree = nullptr;     ///< the tree the node is in
    std::int64_t wallStartNs = 0;
    std::int64_t cpuStartNs = -1; ///< -1: no CPU clock
    std::int64_t childWallNs = 0, childCpuNs = 0;
    std::uint64_t thread = 0; ///< the pushing thread (its CPU clock)
    bool childCpuUnknown = false;
    /// Kernels launched while it was open (counted by the session at each launch, records or
    /// not): with the mean GPU time of the scope's records, its GPU time per call.
    mutable std::uint64_t launches = 0;
    /// libroofline's own work while it was open (counter collection at scope boundaries and
    /// launches, nested instances included), taken out of its wall and CPU time.
    mutable std::int64_t profilerWallNs = 0, profilerCpuNs = 0;
    /// Kernels ran under the profiler while it was open: CUPTI's
    /// work inside those launches is in its host time, and cannot be measured apart. Such
    /// instances are left out of the scope's times when it has others.
    mutable bool profiled = false;
    /// Opened before the session saw it (adopted at the session's start): its instance's start
    /// is unknown, so it adds no time; its nested instances are timed under its path.
    bool partial = false;
};

/// One open push/pop range (an NVTX range or a ProfileScope) on a thread.
struct Frame {
    std::string domain; ///< "" for the default domain
    std::string name;
    std::vector<std::int64_t> records; ///< scope mode: its record per device slot, -1: none
    std::int64_t instance = -1; ///< the iteration scope: its number (from the name, or counted)
    /// Reuse: a number unique to this scope instance, given at its first launch (0: none yet);
    /// a launch's place within its innermost scope instance is part of its signature.
    mutable std::uint64_t serial = 0;
    /// Reuse: the uniform scope path of this instance's launches (made at its first one).
    mutable std::string uniform{};
    /// Sampling: what this instance's launches tell the step sink while it is the innermost
    /// scope, found at its first one -- its scope's number plus one (0: not yet) and its step.
    mutable std::uint32_t sampledScope = 0;
    mutable std::int64_t sampledStep = -1;
    /// Host time of this instance.
    HostFrame host{};
    std::uint64_t thread = 0; ///< the OS thread that opened it
    bool nvtx = false;        ///< an NVTX range (false: a ProfileScope)
    bool iteration = false;   ///< opened an iteration (Collector::onPush)
};
using Stack = std::vector<Frame>;

} // namespace roofline::collect
