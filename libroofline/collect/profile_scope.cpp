#include "collect/session_impl.hpp"

#include <roofline/profile_scope.hpp>

namespace roofline::detail {

std::uint32_t pushScope(const char* name) noexcept {
    collect::SessionState* session = collect::gActive.load(std::memory_order_acquire);
    if (!session)
        return 0;
    try {
        collect::threadScopes().push_back({name ? name : "", session->generation});
    } catch (...) {
        return 0; // out of memory: this scope is not tracked, the application carries on
    }
    session->onPush();
    return session->generation;
}

void popScope(std::uint32_t token) noexcept {
    auto& scopes = collect::threadScopes();
    if (!scopes.empty())
        scopes.pop_back();
    collect::SessionState* session = collect::gActive.load(std::memory_order_acquire);
    if (session && session->generation == token)
        session->onPop();
}

} // namespace roofline::detail
