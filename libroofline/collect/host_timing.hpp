#pragma once
// Host time per scope (issue 16): each push/pop range instance gets its wall time and its
// thread's CPU time; instances add up per scope path and thread in a tree of nodes, one tree per
// thread (or one for process-wide scopes), read once at stop. Pure C++: unit-tested on the CPU.
#include <roofline/host_scope.hpp>
#include <roofline/options.hpp>

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
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
};

/// The session's host timing. Push and pop run on the range's thread (with process-wide scopes,
/// under the process stack's lock); collect() may run concurrently with them.
class HostTimes {
public:
    HostTimes(HostTiming mode, bool processScopes);
    ~HostTimes();
    HostTimes(const HostTimes&) = delete;
    HostTimes& operator=(const HostTimes&) = delete;

    bool on() const noexcept { return mode_ != HostTiming::Off; }
    /// A range named `name` opened on `thread`, inside `parent` (null: outermost).
    void push(HostFrame& frame, const HostFrame* parent, const std::string& name,
              std::uint64_t thread) noexcept;
    /// The range of `frame` closes on `thread`; `parent` is the frame it was opened in, if still
    /// open.
    void pop(const HostFrame& frame, HostFrame* parent, std::uint64_t thread) noexcept;
    /// Every scope path with a closed instance, per thread (threadId 0: process-wide scopes).
    std::vector<HostScope> collect() const;

    /// The clocks (nanoseconds): steady wall time, and this thread's CPU time.
    static std::int64_t wallNow() noexcept;
    static std::int64_t cpuNow() noexcept;

private:
    struct Tree;
    HostNode* child(HostNode* parent, Tree& tree, const std::string& name) noexcept;
    Tree* treeOf(std::uint64_t thread) noexcept;

    HostTiming mode_;
    bool processScopes_;
    std::uint64_t id_; ///< unique per instance: the per-thread cache of a tree checks it
    mutable std::mutex mutex_;
    std::vector<std::unique_ptr<Tree>> trees_;
};

} // namespace roofline::collect
