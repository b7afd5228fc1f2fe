// ProfileScope and the NVTX listener feed the scope stacks (collect/scope_stacks.hpp), from the
// moment libroofline is loaded, whether a session runs or not.
#include "collect/framework_context.hpp"
#include "collect/scope_stacks.hpp"
#include "nvtx/listener.hpp"

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <roofline/profile_scope.hpp>

namespace roofline::collect {
namespace {

// A session that does not listen to NVTX (Options::listenNvtx) ignores start/end ranges too.
Collector* startEndTarget() noexcept {
    ScopeTarget* t = scopeTarget();
    return t && t->listenNvtx ? t->collector : nullptr;
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

class NvtxToScopes final : public nvtx::Listener {
public:
    NvtxToScopes() { nvtx::setListener(this); }
    ~NvtxToScopes() override { nvtx::setListener(nullptr); }
    // A framework's ranges (PyTorch's operators, record_functions) go to the framework context,
    // never on the scope stacks.
    void push(const char* domain, const char* name) noexcept override {
        const bool op = framework::pushed(domain, name);
        if (traceNvtx())
            std::fprintf(stderr, "[roofline nvtx] %llu push %s '%s' '%s'\n",
                         static_cast<unsigned long long>(currentThreadId()), op ? "op" : "scope",
                         domain ? domain : "", name ? name : "");
        if (!op)
            trackPush(domain, name, true);
    }
    void pop(const char* domain) noexcept override {
        const bool op = framework::popped(domain);
        if (traceNvtx())
            std::fprintf(stderr, "[roofline nvtx] %llu pop %s '%s'\n",
                         static_cast<unsigned long long>(currentThreadId()), op ? "op" : "scope",
                         domain ? domain : "");
        if (!op)
            trackPop(domain, true);
    }
    void start(std::uint64_t id, const char* domain, const char* name) noexcept override {
        if (Collector* c = startEndTarget())
            c->onRangeStart(id, domain, name);
    }
    void end(std::uint64_t id) noexcept override {
        if (Collector* c = startEndTarget())
            c->onRangeEnd(id);
    }
};
NvtxToScopes gNvtxToScopes;

} // namespace
} // namespace roofline::collect

namespace roofline::detail {

namespace {
constexpr std::uint32_t kNvtxPushed = 1u << 31;
}

// Every ProfileScope is tracked, session or not: a session started inside it adopts it.
std::uint32_t pushScope(const char* name) noexcept {
    std::uint32_t token = 1;
    if (nvtx::ownRangesVisible()) {
        nvtx::pushOwn(name ? name : "");
        token |= kNvtxPushed;
    }
    collect::trackPush("", name);
    return token;
}

void popScope(std::uint32_t token) noexcept {
    if (token & ~kNvtxPushed)
        collect::trackPop("");
    if (token & kNvtxPushed)
        nvtx::popOwn();
}

} // namespace roofline::detail
