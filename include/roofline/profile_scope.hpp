#pragma once
/// \file profile_scope.hpp
/// RAII scope that tags every kernel launched inside it, and marks what a Session profiles.

#include <roofline/export.hpp>

#include <cstdint>

namespace roofline {

namespace detail {
/// 0 when no Session is active (nothing to pop); otherwise a token for popScope() that names the
/// session, so a scope outliving its Session never disturbs a later one.
ROOFLINE_API std::uint32_t pushScope(const char* name) noexcept;
ROOFLINE_API void popScope(std::uint32_t token) noexcept;
} // namespace detail

/// Names a region of host code. Kernels launched on this thread while it lives get a record whose
/// scopePath ends with `name` ("outer/inner"). Only kernels inside some scope are profiled.
/// `name` must outlive the scope (a string literal is ideal): nothing is copied on the hot path.
/// Costs one branch when no Session is active; compiles to nothing under ROOFLINE_DISABLED.
///
///     for (int step = 0; step < steps; ++step) {
///         roofline::ProfileScope scope{"step"};
///         trainStep();
///     }
class ProfileScope {
public:
#if defined(ROOFLINE_DISABLED)
    explicit ProfileScope(const char*) noexcept {}
    ~ProfileScope() = default;
#else
    explicit ProfileScope(const char* name) noexcept : token_(detail::pushScope(name)) {}
    ~ProfileScope() {
        if (token_ != 0)
            detail::popScope(token_);
    }
#endif
    ProfileScope(const ProfileScope&) = delete;
    ProfileScope& operator=(const ProfileScope&) = delete;
    ProfileScope(ProfileScope&&) = delete;
    ProfileScope& operator=(ProfileScope&&) = delete;

#if !defined(ROOFLINE_DISABLED)
private:
    std::uint32_t token_;
#endif
};

} // namespace roofline
