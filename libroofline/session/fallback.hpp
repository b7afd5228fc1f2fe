#pragma once
// What a Session does when counter collection cannot start: the decision from the error's code,
// and the one message users see (cause and fix). Pure logic, unit-tested.
#include <roofline/error.hpp>

#include <string>

namespace roofline::collect {

struct Fallback {
    enum class Action {
        Rethrow,    ///< the caller's mistake (bad options): Session's constructor throws
        TimingOnly, ///< no counters: kernel durations from CUPTI activity records
        Nothing,    ///< nothing to measure (no GPU): the session records nothing
    };
    Action action = Action::TimingOnly;
    std::string message; ///< logged once: what happened, what libroofline does, the fix
};

Fallback decideFallback(ErrorCode code, const std::string& what);

} // namespace roofline::collect
