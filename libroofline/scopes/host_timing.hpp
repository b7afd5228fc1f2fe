#pragma once
// Host time per scope: each push/pop range instance gets its wall time and its
// thread's CPU time; instances add up per scope path and thread in a tree of nodes, one tree per
// thread (or one for process-wide scopes), read once at stop. Pure C++: unit-tested on the CPU.
#include "collect/frame.hpp"

#include <roofline/host_scope.hpp>
#include <roofline/options.hpp>

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace roofline::collect {

/// The clocks at one moment on the application's thread: the start or end of some libroofline
/// work, or of a scope instance. At a scope boundary one reading serves both, the instance's
/// start and the end of the work before it (or its end and the start of the work after it).
struct HostClocks {
    std::int64_t wallNs = -1; ///< -1: not read
    std::int64_t cpuNs = -1;
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
    /// A range named `name` opened on `thread`, inside `parent` (null: outermost), starting at
    /// `now` (the clocks read there; those not read are read here).
    void push(HostFrame& frame, const HostFrame* parent, const std::string& name,
              std::uint64_t thread, const HostClocks& now = {}) noexcept;
    /// The range of `frame` closes on `thread`; `parent` is the frame it was opened in, if still
    /// open. Returns the clocks read at its end (none when the range was not timed).
    HostClocks pop(const HostFrame& frame, HostFrame* parent, std::uint64_t thread) noexcept;
    /// Every scope path with a closed instance, per thread (threadId 0: process-wide scopes).
    std::vector<HostScope> collect() const;

    /// libroofline's own work on the application's threads (counter collection: pass
    /// boundaries, decoding, launch serialization) is measured, charged to the innermost open
    /// scope instance it ran in and taken out of the host times, so that a profiled run's
    /// table shows the application's time. `measure` false: nothing is read. `now`: clocks
    /// already read at this moment (a pop's end), used instead of reading them again.
    HostClocks profilerStart(bool measure, const HostClocks& now = {}) const noexcept;
    /// The work that began at `start` ends on `thread`, inside `innermost` (null: no open
    /// scope); its CPU time comes out of the instance's only when it ran on the instance's
    /// thread. Returns the clocks read at its end (none when `start` was not measured).
    HostClocks profilerEnd(const HostClocks& start, const HostFrame* innermost,
                           std::uint64_t thread) noexcept;
    /// The measured libroofline work: all of it, and the part inside scopes (seconds, wall).
    double profilerSeconds() const noexcept;
    double profilerInScopesSeconds() const noexcept;
    /// The base of the tables' shares: the wall time from `startNs` to `endNs` without the
    /// profiled instances of outermost scopes (left out of the times) and without
    /// libroofline's work outside scopes.
    double runSeconds(std::int64_t startNs, std::int64_t endNs) const;

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
    std::atomic<std::int64_t> profilerNs_{0}, profilerInScopesNs_{0};
    /// A profiled instance of the outermost scope `node`: out of the shares' base when the
    /// scope has instances that were not profiled (libroofline's work outside scopes comes out
    /// of it as a total).
    struct Excluded {
        std::int64_t startNs = 0, endNs = 0;
        const HostNode* node = nullptr;
    };
    void exclude(std::int64_t startNs, std::int64_t endNs, const HostNode* node) noexcept;
    mutable std::mutex excludedMutex_;
    std::vector<Excluded> excluded_;
    bool excludedOverflow_ = false; ///< too many to keep: runSeconds() is the whole wall time
};

} // namespace roofline::collect
