#include "collect/session_impl.hpp"

#include <roofline/profile_scope.hpp>

namespace roofline::detail {

bool pushScope(const char* name) noexcept {
    collect::SessionState* session = collect::gActive.load(std::memory_order_acquire);
    if (!session)
        return false;
    session->onPush(name);
    return true;
}

void popScope() noexcept {
    if (collect::SessionState* session = collect::gActive.load(std::memory_order_acquire))
        session->onPop();
}

} // namespace roofline::detail
