// ProfileScope and the NVTX listener feed the scope stacks (scopes/scope_stacks.hpp), from the
// moment libroofline is loaded, whether a session runs or not.
#include "scopes/scope_stacks.hpp"
#include "nvtx/listener.hpp"

#include <roofline/profile_scope.hpp>

namespace roofline::collect {
namespace {

// A session that does not listen to NVTX (Options::listenNvtx) ignores start/end ranges too.
Collector* startEndTarget() noexcept {
    ScopeTarget* t = scopeTarget();
    return t && t->listenNvtx ? t->collector : nullptr;
}

class NvtxToScopes final : public nvtx::Listener {
public:
    NvtxToScopes() { nvtx::setListener(this); }
    ~NvtxToScopes() override { nvtx::setListener(nullptr); }
    void push(const char* domain, const char* name) noexcept override { nvtxPushed(domain, name); }
    void pop(const char* domain) noexcept override { nvtxPopped(domain); }
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
