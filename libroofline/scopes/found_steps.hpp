#pragma once
// The step of a program that opens no range of its own, as the session follows it
// (docs/design/0024-the-step-without-nvtx.md, 0025-the-framework-step.md). Steps open and close
// as ranges on the session's stack -- domain kFoundStepDomain, named "step <n>" -- so that
// iteration replay, its reuse and its records work on them as on a program's "Train step <n>".
// Where a step comes from, first found first:
//  1. the program's ranges: a launch inside a range of the program's (not a library's) closes
//     the found step and ends the search for good;
//  2. the framework's step, as its hook observes it (roofline_step_end: a PyTorch optimizer's
//     step() returned), or as XLA annotates it (JAX: the end of a run of the first executable
//     that runs twice, its "XlaModule" range in NVTX domain "TSL"): each one ends the step open,
//     and the next launch begins one;
//  3. the launch stream: each direct launch's signature goes to a LaunchCycle, whose steps
//     open and close at the cycle's first launch.
// Pure logic (no CUDA); one lock of its own.
#include "scopes/launch_cycle.hpp"
#include "scopes/scope_stacks.hpp"

#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>

namespace roofline::collect {

class FoundSteps {
public:
    explicit FoundSteps(ScopeTarget& target, std::size_t longestCycle = LaunchCycle::kLongestCycle)
        : target_(target), cycle_(longestCycle) {}

    /// Before direct launch `launch` reaches the collector, on `stack` (the SessionStack's,
    /// locked): a found step opens or closes. Returns whether the profile is complete now (the
    /// caller lets the session go idle, this launch unrecorded, once it holds no lock).
    /// `graph`: a CUDA graph's launch (a step begins at it, but the launch stream's search
    /// does not see it).
    /// `kernels`: the kernels the launch runs (a graph's kernel nodes).
    bool launch(const core::Launch& launch, bool graph, Stack& stack,
                std::size_t kernels = 1) noexcept;
    /// The framework's step ends (`source` names it: "torch.optim.AdamW"), on `stack` (locked):
    /// the step open ends, and the launch stream is no longer searched. Returns whether the
    /// profile is complete now, as launch() does.
    bool frameworkStep(const char* source, Stack& stack) noexcept;
    /// An XLA executable's run ended (`module`: its annotation, "XlaModule:#hlo_module=jit_step,
    /// program_id=3#"), on `stack` (locked). The program's step is the executable that ran at
    /// least twice with the most launches in its last run, at least kStepLaunches: one run once
    /// is set-up (initialisation, a first compile), and JAX runs each eager operation as an
    /// executable of a launch or two. Its runs' ends are the framework's step ends, as
    /// frameworkStep's; a larger one that runs twice later takes over. Returns as frameworkStep
    /// does.
    bool moduleRunEnded(const std::string& module, Stack& stack) noexcept;
    /// At the stop, on the stack a SessionStack gave: the open step closes unseen (a later session
    /// must not adopt it).
    void drop(Stack& stack) noexcept;

    /// What the search found, for the exit line.
    struct Summary {
        bool programRanges = false;       ///< the program's own ranges took over
        std::size_t cycle = 0;            ///< the step's launches (0: none found)
        std::uint64_t launches = 0;       ///< launches while the program opened no range
        std::uint64_t frameworkSteps = 0; ///< the framework's step ends seen
        std::string source;               ///< where they end: "torch.optim.AdamW's step"
        std::uint64_t steps = 0;          ///< steps opened
        bool following = false;           ///< steps still came at the end (a step source held)
    };
    Summary summary() const;

private:
    bool programRangeOpen(Stack& stack, bool& complete) noexcept;
    bool stepEnds(const std::string& source, Stack& stack) noexcept; // mutex_ held
    void open(Stack& stack) noexcept;

    ScopeTarget& target_;
    mutable std::mutex mutex_;
    LaunchCycle cycle_;
    std::size_t lastCycle_ = 0; // the cycle the last step followed
    bool open_ = false;
    bool programRanges_ = false;
    std::uint64_t stepsOpened_ = 0;
    std::uint64_t launches_ = 0;       // while the program opened no range
    std::uint64_t frameworkSteps_ = 0; // >0: steps follow the framework's, not the stream
    bool openAtNextLaunch_ = false;
    std::string source_;
    // XLA executables' runs ended, by annotation: runs, and the launches since the run before
    // ended (the last run's launches); the one whose runs are steps.
    struct ModuleRuns {
        std::uint64_t runs = 0, launches = 0;
    };
    std::unordered_map<std::string, ModuleRuns> modules_;
    std::string stepModule_;
    std::uint64_t kernels_ = 0, kernelsAtModuleEnd_ = 0;

public:
    static constexpr std::size_t kModulesFollowed = 1024;
    /// The fewest launches a run of an XLA executable has to be the program's step.
    static constexpr std::uint64_t kStepLaunches = 8;
};

/// The framework's step ends (session/framework_api.cpp): told to the session running now, if
/// it searches for the step (ScopeTarget::foundSteps); the session goes idle when that completed
/// its profile. Never throws, never blocks on more than the process's scope stack.
void frameworkStepEnds(const char* source) noexcept;

/// NVTX domain `domain`'s range `name` was closed on this thread (scopes/scope_listener.cpp, after
/// the pop, outside every lock): an XLA executable's run ends when it is an "XlaModule" range of
/// domain "TSL". Told to the session running now, as frameworkStepEnds does.
void rangeClosed(std::string_view domain, const std::string& name) noexcept;
/// Whether a range of `domain` named `name` is an XLA executable's run.
bool xlaModuleRange(std::string_view domain, std::string_view name) noexcept;

} // namespace roofline::collect
