#pragma once
// The push/pop ranges open in the process (NVTX ranges and ProfileScopes), tracked from the
// moment libroofline is loaded, whether a session runs or not: one stack per thread and one for
// the whole process (Options::processScopes). A session started later -- `roofline run` starts
// one at the process's first kernel launch, typically inside a step and a forward pass already
// open -- adopts the open ranges: its collector sees their pushes, bottom first, before the first
// event of the session on that stack, so records get their true paths and the iteration scope is
// known from the first launch on. Pure C++ (no CUDA): unit-tested with a fake counter backend.
#include "collect/collector.hpp"
#include "scopes/host_timing.hpp"

#include <cstdint>
#include <mutex>

namespace roofline::collect {

class FoundSteps;

/// What a running session gives the scope stacks: where pushes and pops go.
struct ScopeTarget {
    std::uint32_t generation = 0; ///< unique per session, never 0
    bool listenNvtx = true;       ///< NVTX ranges reach the session (Options::listenNvtx)
    bool processScopes = false;   ///< one stack for the process (Options::processScopes)
    Collector* collector = nullptr;
    HostTimes* hostTimes = nullptr; ///< null or off: no host timing
    /// Called once, with no lock held, after a pop at which the collector found nothing left to
    /// measure (Collector::takeCompletion); null: nobody is told.
    void (*complete)(void* user) noexcept = nullptr;
    void* user = nullptr;
    /// The step of a program with no range of its own, where the session searches for it.
    FoundSteps* foundSteps = nullptr;
};

/// The session events go to from now on (null: none). Set once its collector exists, cleared
/// when it stops.
void setScopeTarget(ScopeTarget* target) noexcept;
ScopeTarget* scopeTarget() noexcept;

/// A range pushed or popped on this thread. `fromNvtx`: the application's NVTX call (ignored by
/// a session that does not listen to NVTX); false: a ProfileScope.
void trackPush(const char* domain, const char* name, bool fromNvtx = false) noexcept;
void trackPop(const char* domain, bool fromNvtx = false) noexcept;
/// A range the application pushed or popped through NVTX (scopes/scope_listener.cpp): a
/// framework's operation goes to the framework context (scopes/framework_context.hpp), anything
/// else on the scope stacks; the end of a run of an XLA executable is told to the step search.
void nvtxPushed(const char* domain, const char* name) noexcept;
void nvtxPopped(const char* domain) noexcept;

/// The stack `target`'s collector sees for this thread's events: the thread's own, or the
/// process's (locked for the caller while this lives), its open ranges adopted first.
class SessionStack {
public:
    explicit SessionStack(ScopeTarget& target) noexcept;
    Stack& stack() noexcept { return *stack_; }

private:
    std::unique_lock<std::recursive_mutex> lock_;
    Stack* stack_ = nullptr;
};

/// The step libroofline found in the launch stream (scopes/found_steps) opens and closes on
/// `stack`, the stack a SessionStack of `target` gave (locked): the session sees a push and a pop
/// as of the program's ranges. closeFoundStep returns whether the profile is complete now (the
/// caller lets the session go idle once it holds no lock); false when no found step was open.
/// dropFoundStep removes it unseen (the session stops: a later one must not adopt it).
void openFoundStep(ScopeTarget& target, Stack& stack, const char* name) noexcept;
bool closeFoundStep(ScopeTarget& target, Stack& stack) noexcept;
void dropFoundStep(Stack& stack) noexcept;

/// Pops with nothing open to pop, since the process started.
std::uint64_t unbalancedPops() noexcept;
/// The OS thread id of the calling thread.
std::uint64_t currentThreadId() noexcept;
/// Ranges open on this thread and in the process (for tests and diagnostics).
std::size_t openThreadRanges() noexcept;
std::size_t openProcessRanges() noexcept;

} // namespace roofline::collect
