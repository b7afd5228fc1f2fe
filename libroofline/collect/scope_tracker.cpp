// Per-thread scope stacks, fed by ProfileScope and by the NVTX listener.
#include "collect/session_impl.hpp"
#include "nvtx/listener.hpp"

#include <roofline/profile_scope.hpp>

#include <sys/syscall.h>
#include <unistd.h>

namespace roofline::collect {
namespace {

std::atomic<std::uint64_t> gUnbalanced{0};

// Frames of an earlier session are forgotten (counted as untracked so their pops balance).
ThreadScopes& synced(std::uint32_t generation) noexcept {
    ThreadScopes& t = threadScopes();
    if (t.generation != generation) {
        untrackedScopes() += static_cast<int>(t.stack.size());
        t.stack.clear();
        t.generation = generation;
    }
    return t;
}

// The session a range event goes to: the active one, unless the event comes from the NVTX listener
// and that session does not listen (Options::listenNvtx): then it is handled as if idle.
SessionState* feeding(bool fromNvtx) noexcept {
    SessionState* s = gActive.load(std::memory_order_acquire);
    return s && fromNvtx && !s->options.listenNvtx ? nullptr : s;
}

class NvtxToScopes final : public nvtx::Listener {
public:
    NvtxToScopes() { nvtx::setListener(this); }
    ~NvtxToScopes() override { nvtx::setListener(nullptr); }
    void push(const char* domain, const char* name) noexcept override {
        trackPush(domain, name, true);
    }
    void pop(const char* domain) noexcept override { trackPop(domain, true); }
    void start(std::uint64_t id, const char* domain, const char* name) noexcept override {
        if (SessionState* s = feeding(true))
            s->collector->onRangeStart(id, domain, name);
    }
    void end(std::uint64_t id) noexcept override {
        if (SessionState* s = feeding(true))
            s->collector->onRangeEnd(id);
    }
};
NvtxToScopes gNvtxToScopes;

// The stack a range event of this thread goes to: the thread's own, or with
// Options::processScopes the process's one stack, locked for the caller.
struct ScopeStack {
    Stack& stack;
    std::unique_lock<std::recursive_mutex> lock;
};
ScopeStack stackOf(SessionState& s) {
    if (s.options.processScopes)
        return {s.processStack, std::unique_lock<std::recursive_mutex>(s.processStackMutex)};
    return {synced(s.generation).stack, {}};
}

} // namespace

ThreadScopes& threadScopes() noexcept {
    thread_local ThreadScopes scopes;
    return scopes;
}

namespace {
thread_local int tUntracked = 0;
}
int& untrackedScopes() noexcept {
    return tUntracked;
}

std::uint64_t currentThreadId() noexcept {
    thread_local const std::uint64_t id = static_cast<std::uint64_t>(::syscall(SYS_gettid));
    return id;
}

std::uint64_t unbalancedPops() noexcept {
    return gUnbalanced.load();
}

void trackPush(const char* domain, const char* name, bool fromNvtx) noexcept {
    SessionState* s = feeding(fromNvtx);
    if (!s) {
        ++tUntracked;
        return;
    }
    ScopeStack t = stackOf(*s);
    try {
        t.stack.push_back(Frame{domain ? domain : "", name ? name : "", {}});
    } catch (...) {
        ++tUntracked; // out of memory: this range is not tracked, the application carries on
        return;
    }
    const std::size_t n = t.stack.size();
    HostTimes* host = s->hostTimes && s->hostTimes->on() ? s->hostTimes.get() : nullptr;
    // libroofline's work at the boundary (a pass beginning) belongs to no scope of the
    // application: it is timed before this instance starts, and taken out of the enclosing one.
    // The clocks read at the work's end start the instance.
    const HostClocks ours =
        host ? host->profilerStart(s->collector->level() == Level::Counters) : HostClocks{};
    s->collector->onPush(t.stack, currentThreadId());
    if (host) {
        const HostFrame* parent = n > 1 ? &t.stack[n - 2].host : nullptr;
        const HostClocks now = host->profilerEnd(ours, parent, currentThreadId());
        host->push(t.stack[n - 1].host, parent, t.stack[n - 1].name, currentThreadId(), now);
    }
}

void trackPop(const char* domain, bool fromNvtx) noexcept {
    const std::string_view d = domain ? domain : "";
    SessionState* s = feeding(fromNvtx);
    if (!s && tUntracked > 0) { // the common idle case: no stack to look at
        --tUntracked;
        return;
    }
    ScopeStack t = s ? stackOf(*s) : ScopeStack{threadScopes().stack, {}};
    // NVTX push/pop stacks are per domain: pop this domain's innermost range (process-wide
    // scopes: whichever thread opened it, as Nsight Compute does).
    std::size_t i = t.stack.size();
    while (i > 0 && t.stack[i - 1].domain != d)
        --i;
    if (i == 0) {
        if (tUntracked > 0)
            --tUntracked;
        else
            gUnbalanced.fetch_add(1);
        return;
    }
    HostTimes* host = s && s->hostTimes && s->hostTimes->on() ? s->hostTimes.get() : nullptr;
    HostFrame* parent = i > 1 ? &t.stack[i - 2].host : nullptr;
    const HostClocks closed =
        host ? host->pop(t.stack[i - 1].host, parent, currentThreadId()) : HostClocks{};
    if (i == t.stack.size()) {
        if (s) { // a pass ending: timed from the instance's end, out of the enclosing one
            const HostClocks ours =
                host ? host->profilerStart(s->collector->level() == Level::Counters, closed)
                     : HostClocks{};
            s->collector->onPop(t.stack);
            if (host)
                host->profilerEnd(ours, parent, currentThreadId());
        }
        t.stack.pop_back();
    } else {
        t.stack.erase(t.stack.begin() + static_cast<std::ptrdiff_t>(i - 1)); // interleaved domains
    }
}

} // namespace roofline::collect

namespace roofline::detail {

namespace {
constexpr std::uint32_t kNvtxPushed = 1u << 31;
}

std::uint32_t pushScope(const char* name) noexcept {
    std::uint32_t token = 0;
    if (nvtx::ownRangesVisible()) {
        nvtx::pushOwn(name ? name : "");
        token |= kNvtxPushed;
    }
    collect::SessionState* session = collect::gActive.load(std::memory_order_acquire);
    if (!session)
        return token;
    collect::trackPush("", name);
    return token | session->generation;
}

void popScope(std::uint32_t token) noexcept {
    const std::uint32_t generation = token & ~kNvtxPushed;
    if (generation != 0) {
        collect::SessionState* session = collect::gActive.load(std::memory_order_acquire);
        if (session && session->generation == generation)
            collect::trackPop("");
        else if (!collect::threadScopes().stack.empty())
            collect::threadScopes().stack.pop_back(); // its session ended: just forget the frame
    }
    if (token & kNvtxPushed)
        nvtx::popOwn();
}

} // namespace roofline::detail
