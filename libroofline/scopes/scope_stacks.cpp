#include "scopes/scope_stacks.hpp"
#include "collect/iteration_model.hpp"
#include "scopes/found_steps.hpp"
#include "scopes/framework_context.hpp"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <sys/syscall.h>
#include <unistd.h>

namespace roofline::collect {
namespace {

std::atomic<ScopeTarget*> gTarget{nullptr};
std::atomic<std::uint64_t> gUnbalanced{0};

/// Open ranges, bottom first, and the session whose collector has seen them (0: none).
struct Tracked {
    Stack stack;
    std::uint32_t generation = 0;
};

Tracked& threadTracked() noexcept {
    thread_local Tracked tracked;
    return tracked;
}

struct ProcessTracked {
    std::recursive_mutex mutex; // then the collector's
    Tracked tracked;
};
ProcessTracked& processTracked() noexcept {
    static ProcessTracked* p = new ProcessTracked(); // never destroyed: threads outlive statics
    return *p;
}

// NVTX ranges of this thread that a session not listening to NVTX ignored, innermost last, each
// with the stack that still holds it -- the one that session does not follow: 'p' the process's,
// 't' the thread's. Their pops close them there (a later session must not adopt a range that is
// closed), and never pop a ProfileScope's frame.
thread_local std::vector<char> tIgnored;

HostTimes* hostOf(const ScopeTarget& t) noexcept {
    return t.hostTimes && t.hostTimes->on() ? t.hostTimes : nullptr;
}

// The session's collector and host timing see `stack.back()` pushed. libroofline's work at the
// boundary (a pass beginning) belongs to no scope of the application: it is timed before the
// instance starts and taken out of the enclosing one; the clocks read at its end start the
// instance.
void pushed(ScopeTarget& t, Stack& stack) noexcept {
    const std::size_t n = stack.size();
    const std::uint64_t thread = stack[n - 1].thread;
    HostTimes* host = hostOf(t);
    const HostClocks ours =
        host ? host->profilerStart(t.collector->level() == Level::Counters) : HostClocks{};
    t.collector->onPush(stack, thread);
    if (host) {
        const HostFrame* parent = n > 1 ? &stack[n - 2].host : nullptr;
        const HostClocks now = host->profilerEnd(ours, parent, thread);
        host->push(stack[n - 1].host, parent, stack[n - 1].name, thread, now);
    }
}

// The session sees, bottom first, the ranges opened before it (idle, or under an earlier
// session): fresh frames, whose host time is unknown (only their nested instances are timed).
// NVTX ranges are left out for a session that ignores them.
void adopt(ScopeTarget& t, Tracked& tracked, bool ownThread) noexcept {
    if (tracked.generation == t.generation)
        return;
    tracked.generation = t.generation;
    Stack open;
    open.swap(tracked.stack);
    try {
        tracked.stack.reserve(open.size());
        std::size_t dropped = 0;
        for (Frame& f : open) {
            if (f.nvtx && !t.listenNvtx) {
                // Outer to any range ignored since: below them. The process's stack, which this
                // session does not follow, still holds it.
                if (ownThread)
                    tIgnored.insert(tIgnored.begin() + static_cast<std::ptrdiff_t>(dropped++), 'p');
                continue;
            }
            Frame& fresh = tracked.stack.emplace_back();
            fresh.domain = std::move(f.domain);
            fresh.name = std::move(f.name);
            fresh.thread = f.thread;
            fresh.nvtx = f.nvtx;
            pushed(t, tracked.stack);
            tracked.stack.back().host.partial = true;
        }
    } catch (...) {
        // out of memory: the ranges not adopted are forgotten, as if never opened
    }
}

// The innermost open range of domain `d` (an NVTX range only, when `nvtxOnly`), as NVTX pops it
// (push/pop stacks are per domain); stack.size() when none.
std::size_t innermost(const Stack& stack, std::string_view d, bool nvtxOnly = false) noexcept {
    for (std::size_t i = stack.size(); i > 0; --i)
        if (stack[i - 1].domain == d && (stack[i - 1].nvtx || !nvtxOnly))
            return i - 1;
    return stack.size();
}

// Whether the session of `t` (null: none) follows the process's stack (or the threads').
bool follows(const ScopeTarget* t, bool processStack) noexcept {
    return t && t->processScopes == processStack;
}

// Opens a range on `tracked`; a session that follows it adopts its open ranges first and sees
// the push.
void pushOn(ScopeTarget* t, bool followed, Tracked& tracked, bool ownThread, const char* domain,
            const char* name, std::uint64_t thread, bool nvtx) {
    if (followed)
        adopt(*t, tracked, ownThread);
    Frame& f = tracked.stack.emplace_back(); // in place: no frame copied
    f.domain = domain;
    f.name = name;
    f.thread = thread;
    f.nvtx = nvtx;
    if (followed)
        pushed(*t, tracked.stack);
}

// Closes domain `d`'s innermost NVTX range on `where` ('p' the process's stack, 't' the
// thread's), unseen by any session; false when none is open there.
// Closes domain `d`'s innermost range (NVTX only, when `nvtxOnly`) on `stack`, unseen by any
// session; false when none is open there.
bool plainPop(Stack& stack, std::string_view d, bool nvtxOnly = false) noexcept {
    const std::size_t i = innermost(stack, d, nvtxOnly);
    if (i == stack.size())
        return false;
    stack.erase(stack.begin() + static_cast<std::ptrdiff_t>(i));
    return true;
}

// Closes domain `d`'s innermost NVTX range on `where` ('p' the process's stack, 't' the
// thread's), unseen by any session; false when none is open there.
bool ignoredPop(char where, std::string_view d) noexcept {
    if (where == 't')
        return plainPop(threadTracked().stack, d, true);
    ProcessTracked& p = processTracked();
    std::lock_guard<std::recursive_mutex> lock(p.mutex);
    return plainPop(p.tracked.stack, d, true);
}

// The session sees the pop of domain `d`'s innermost range. NVTX keeps one push/pop stack per
// domain: a range may close under ranges of other domains that stay open (NCCL's communicator
// set-up, pushed inside the first step of an FSDP job and never popped). The session then sees
// this range close as if it were on top -- an iteration that ends is an iteration that ended --
// and the ranges above stay open as they were.
bool sessionPop(ScopeTarget& t, Stack& stack, std::string_view d) noexcept {
    const std::size_t i = innermost(stack, d);
    if (i == stack.size())
        return false;
    const std::uint64_t thread = currentThreadId();
    HostTimes* host = hostOf(t);
    HostFrame* parent = i > 0 ? &stack[i - 1].host : nullptr;
    const HostClocks closed = host ? host->pop(stack[i].host, parent, thread) : HostClocks{};
    Stack above;
    try {
        above.reserve(stack.size() - i - 1);
    } catch (...) {
        stack.erase(stack.begin() + static_cast<std::ptrdiff_t>(i)); // out of memory: unseen
        return true;
    }
    for (std::size_t k = i + 1; k < stack.size(); ++k)
        above.push_back(std::move(stack[k])); // reserved: no allocation, no throw
    stack.resize(i + 1);
    // A pass ending: timed from the instance's end, out of the enclosing one.
    const HostClocks ours =
        host ? host->profilerStart(t.collector->level() == Level::Counters, closed) : HostClocks{};
    t.collector->onPop(stack);
    if (host)
        host->profilerEnd(ours, parent, thread);
    stack.pop_back();
    for (Frame& f : above)
        stack.push_back(std::move(f)); // capacity is there: the stack held them a moment ago
    return true;
}

// Closes domain `d`'s innermost range on `tracked` (false: none open), seen by the session that
// follows it.
bool popOn(ScopeTarget* t, bool followed, Tracked& tracked, bool ownThread,
           std::string_view d) noexcept {
    if (!followed)
        return plainPop(tracked.stack, d);
    adopt(*t, tracked, ownThread);
    return sessionPop(*t, tracked.stack, d);
}

// ROOFLINE_TRACE_NVTX=1: one stderr line per NVTX push and pop, with the thread and where it went
// (a scope or a framework operator) -- for reports of scope paths that look wrong.
bool traceNvtx() noexcept {
    static const bool on = [] {
        const char* v = std::getenv("ROOFLINE_TRACE_NVTX");
        return v && std::strcmp(v, "1") == 0;
    }();
    return on;
}

} // namespace

void setScopeTarget(ScopeTarget* target) noexcept {
    gTarget.store(target, std::memory_order_release);
}

ScopeTarget* scopeTarget() noexcept {
    return gTarget.load(std::memory_order_acquire);
}

std::uint64_t currentThreadId() noexcept {
    thread_local const std::uint64_t id = static_cast<std::uint64_t>(::syscall(SYS_gettid));
    return id;
}

std::uint64_t unbalancedPops() noexcept {
    return gUnbalanced.load();
}

std::size_t openThreadRanges() noexcept {
    return threadTracked().stack.size();
}

std::size_t openProcessRanges() noexcept {
    ProcessTracked& p = processTracked();
    std::lock_guard<std::recursive_mutex> lock(p.mutex);
    return p.tracked.stack.size();
}

// Every range goes on both stacks, the thread's and the process's: the one the session uses
// (Options::processScopes) with its collector told, the other as it is, for a later session.
void trackPush(const char* domain, const char* name, bool fromNvtx) noexcept {
    ScopeTarget* t = scopeTarget();
    try {
        const char* d = domain ? domain : "";
        const char* n = name ? name : "";
        const std::uint64_t thread = currentThreadId();
        if (t && fromNvtx && !t->listenNvtx) { // only on the stack the session does not follow
            tIgnored.reserve(tIgnored.size() + 1);
            if (t->processScopes) {
                pushOn(t, false, threadTracked(), true, d, n, thread, true);
            } else {
                ProcessTracked& p = processTracked();
                std::lock_guard<std::recursive_mutex> lock(p.mutex);
                pushOn(t, false, p.tracked, false, d, n, thread, true);
            }
            tIgnored.push_back(t->processScopes ? 't' : 'p'); // reserved: no throw
            return;
        }
        {
            ProcessTracked& p = processTracked();
            std::lock_guard<std::recursive_mutex> lock(p.mutex);
            pushOn(t, follows(t, true), p.tracked, false, d, n, thread, fromNvtx);
        }
        pushOn(t, follows(t, false), threadTracked(), true, d, n, thread, fromNvtx);
    } catch (...) {
        // out of memory: this range is not tracked, the application carries on
    }
}

void trackPop(const char* domain, bool fromNvtx) noexcept {
    ScopeTarget* t = scopeTarget();
    if (fromNvtx && (!t || !t->listenNvtx)) {
        if (!tIgnored.empty()) {
            const char where = tIgnored.back();
            tIgnored.pop_back();
            ignoredPop(where, domain ? domain : "");
            return;
        }
        if (t) { // the session ignores NVTX ranges: one it dropped from the stack it follows
            if (!ignoredPop(t->processScopes ? 't' : 'p', domain ? domain : ""))
                gUnbalanced.fetch_add(1);
            return;
        }
    }
    const std::string_view d = domain ? domain : "";
    bool inProcess = false;
    {
        // Whichever thread opened it, as Nsight Compute's process-wide push/pop scope does.
        ProcessTracked& p = processTracked();
        std::lock_guard<std::recursive_mutex> lock(p.mutex);
        inProcess = popOn(t, follows(t, true), p.tracked, false, d);
    }
    const bool inThread = popOn(t, follows(t, false), threadTracked(), true, d);
    // Unbalanced: nothing to pop on the stack the session follows (idle: the thread's).
    if (!(follows(t, true) ? inProcess : inThread))
        gUnbalanced.fetch_add(1);
    // An iteration ended with nothing left to measure: the session may go idle (outside every
    // lock: it switches CUPTI's callbacks off).
    if (t && t->complete && t->collector->takeCompletion())
        t->complete(t->user);
}

void openFoundStep(ScopeTarget& t, Stack& stack, const char* name) noexcept {
    try {
        Frame& f = stack.emplace_back();
        f.domain = kFoundStepDomain;
        f.name = name;
        f.thread = currentThreadId();
        pushed(t, stack);
    } catch (...) {
        // out of memory: no step opened; the launches stay outside every scope
    }
}

bool closeFoundStep(ScopeTarget& t, Stack& stack) noexcept {
    if (!sessionPop(t, stack, kFoundStepDomain))
        return false;
    return t.complete && t.collector->takeCompletion();
}

void dropFoundStep(Stack& stack) noexcept {
    plainPop(stack, kFoundStepDomain);
}

SessionStack::SessionStack(ScopeTarget& target) noexcept {
    if (target.processScopes) {
        ProcessTracked& p = processTracked();
        lock_ = std::unique_lock<std::recursive_mutex>(p.mutex);
        adopt(target, p.tracked, false);
        stack_ = &p.tracked.stack;
        return;
    }
    Tracked& mine = threadTracked();
    adopt(target, mine, true);
    stack_ = &mine.stack;
}

// A framework's ranges (PyTorch's operators and record_functions, XLA's operations and runs) go
// to the framework context, never on the scope stacks.
void nvtxPushed(const char* domain, const char* name) noexcept {
    const bool op = framework::pushed(domain, name);
    if (traceNvtx())
        std::fprintf(stderr, "[roofline nvtx] %llu push %s '%s' '%s'\n",
                     static_cast<unsigned long long>(currentThreadId()), op ? "op" : "scope",
                     domain ? domain : "", name ? name : "");
    if (!op)
        trackPush(domain, name, true);
}

void nvtxPopped(const char* domain) noexcept {
    // An XLA executable's run ends (a framework's step: scopes/found_steps): its name, read
    // before the pop.
    std::string run;
    framework::closingRun(domain, run);
    const bool op = framework::popped(domain);
    if (traceNvtx())
        std::fprintf(stderr, "[roofline nvtx] %llu pop %s '%s'\n",
                     static_cast<unsigned long long>(currentThreadId()), op ? "op" : "scope",
                     domain ? domain : "");
    if (!op)
        trackPop(domain, true);
    if (!run.empty())
        rangeClosed(domain ? domain : "", run);
}
} // namespace roofline::collect
