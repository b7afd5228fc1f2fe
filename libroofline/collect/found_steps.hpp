#pragma once
// The step of a program that opens no range of its own, as the session follows it
// (docs/design/0024-the-step-without-nvtx.md): each direct launch's signature goes to a
// LaunchCycle, and the steps it finds open and close as ranges on the session's stack -- domain
// kFoundStepDomain, named "step <n>" -- so that iteration replay, its reuse and its records work
// on them as on a program's "Train step <n>". The program's ranges come first: a launch inside a
// range of the program's (not a library's) closes the found step and ends the search for good.
// Pure logic (no CUDA); one lock of its own.
#include "collect/launch_cycle.hpp"
#include "collect/scope_stacks.hpp"

#include <cstdint>
#include <mutex>
#include <string>

namespace roofline::collect {

class FoundSteps {
public:
    explicit FoundSteps(ScopeTarget& target, std::size_t longestCycle = LaunchCycle::kLongestCycle)
        : target_(target), cycle_(longestCycle) {}

    /// Before direct launch `launch` reaches the collector, on `stack` (the SessionStack's,
    /// locked): a found step opens or closes. Returns whether the profile is complete now (the
    /// caller lets the session go idle, this launch unrecorded, once it holds no lock).
    bool launch(const core::Launch& launch, Stack& stack) noexcept;
    /// At the stop, on the stack a SessionStack gave: the open step closes unseen (a later session
    /// must not adopt it).
    void drop(Stack& stack) noexcept;

    /// What the search found, for the exit line.
    struct Summary {
        bool programRanges = false; ///< the program's own ranges took over
        std::size_t cycle = 0;      ///< the step's launches (0: none found)
        std::uint64_t launches = 0; ///< launches searched
    };
    Summary summary() const;

private:
    ScopeTarget& target_;
    mutable std::mutex mutex_;
    LaunchCycle cycle_;
    std::size_t lastCycle_ = 0; // the cycle the last step followed
    bool open_ = false;
    bool programRanges_ = false;
};

} // namespace roofline::collect
