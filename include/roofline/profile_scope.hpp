#pragma once
/// \file profile_scope.hpp
/// RAII scope that tags every kernel launched inside it, and marks what a Session profiles.

#include <roofline/export.hpp>

namespace roofline {

namespace detail {
/// True when a Session took the scope; only then must popScope() be called.
ROOFLINE_API bool pushScope(const char* name) noexcept;
ROOFLINE_API void popScope() noexcept;
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
    explicit ProfileScope(const char* name) noexcept : pushed_(detail::pushScope(name)) {}
    ~ProfileScope() {
        if (pushed_)
            detail::popScope();
    }
#endif
    ProfileScope(const ProfileScope&) = delete;
    ProfileScope& operator=(const ProfileScope&) = delete;
    ProfileScope(ProfileScope&&) = delete;
    ProfileScope& operator=(ProfileScope&&) = delete;

#if !defined(ROOFLINE_DISABLED)
private:
    bool pushed_; // a scope opened before a Session started is not popped from its stack
#endif
};

} // namespace roofline
