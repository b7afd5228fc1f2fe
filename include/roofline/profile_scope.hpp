#pragma once
/// \file profile_scope.hpp
/// RAII scope that tags every kernel launched inside it, and marks what a Session profiles.

#include <roofline/export.hpp>

#include <cstdint>

namespace roofline {

namespace detail {
/// A token for popScope(): the scope is tracked whether or not a Session is active, so that a
/// Session started inside it (`roofline run` starts one at the first kernel launch) knows it.
ROOFLINE_API std::uint32_t pushScope(const char* name) noexcept;
ROOFLINE_API void popScope(std::uint32_t token) noexcept;
} // namespace detail

/// Names a region of host code. Kernels launched on this thread while it lives get a record whose
/// scopePath ends with `name` ("outer/inner"). Only kernels inside some scope are profiled.
/// Scopes are tracked from the start of the process, so a Session started inside one (at the
/// first kernel launch, under `roofline run`) gives its kernels their full path. Costs tens of
/// nanoseconds when no Session is active (the name is copied onto this thread's stack);
/// compiles to nothing under ROOFLINE_DISABLED.
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
