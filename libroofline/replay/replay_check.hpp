#pragma once
// Per-launch checking of an iteration-replay group: every replayed pass is compared with pass 0
// launch by launch, and each launch gets its own verdict instead of one flag for the whole group.
//
// CUPTI's auto ranges are positional: in each pass the n-th launch lands in range "n", and the
// metrics a pass collects for range "n" come from whatever launch ran n-th in that pass. So:
//  - same kernel at the same position, same grid and block: clean;
//  - same kernel, different grid or block (data-dependent launches): the values are kept -- they
//    are that kernel's counters, from launches configured differently -- with a note saying
//    which pass ran what;
//  - a different kernel at that position, or no launch there (the pass ended early): the range
//    combines different kernels' counters, so the launch loses its values, with the reason. After
//    an inserted or missing launch every later position of that pass holds a shifted launch; the
//    note names the first position where the pass went out of step (see docs/design/0006).
// Pure logic: no CUDA, unit-tested in test/unit/replay_check_test.cpp.
#include "core/launch.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace roofline::collect {

using core::LaunchKey;
using core::launchText;
using core::sameLaunch;

/// What a launch's replayed passes did: each ran it as pass 0 did (Clean); some ran it with
/// another grid or block (Differs: values kept, noted); some ran another kernel there or none
/// (Unmatched: no values, with the reason).
enum class ReplayVerdict { Clean, Differs, Unmatched };

/// One launch's verdict over its group's passes.
struct LaunchVerdict {
    ReplayVerdict verdict = ReplayVerdict::Clean;
    std::string note; ///< what differed, or why it has no values; "" when clean
};

/// The one rule that combines a group's findings, for positional (ReplayCheck) and aligned
/// (AlignedGroup) replay alike: a launch that loses its values keeps only the reason it did
/// (what differed before no longer matters), differences add up in its note, and a clean launch
/// takes the first finding. Counts the group's launches with issues and without values, and
/// keeps the first finding for the log.
class VerdictTally {
public:
    void reset();
    void mark(LaunchVerdict& launch, ReplayVerdict v, const std::string& why);
    std::size_t issues() const noexcept { return issues_; }
    std::size_t unmatched() const noexcept { return unmatched_; }
    const std::string& first() const noexcept { return first_; }
    /// A finding with no launch of its own (a pass that went out of step).
    void note(const std::string& why);

private:
    std::size_t issues_ = 0, unmatched_ = 0;
    std::string first_;
};

class ReplayCheck {
public:
    using Verdict = ReplayVerdict;

    /// A new group: forget every pass.
    void reset();
    /// Pass 0's launch at the next position.
    void expect(LaunchKey key);
    /// Launch `at` of replayed pass `pass`.
    void check(std::size_t pass, std::size_t at, const LaunchKey& key);
    /// Replayed pass `pass` ended after `launches` launches.
    void endPass(std::size_t pass, std::size_t launches);

    std::size_t size() const noexcept { return expected_.size(); }
    Verdict verdict(std::size_t at) const noexcept;
    /// What differed, or why the launch has no values; "" when clean.
    const std::string& note(std::size_t at) const noexcept;
    /// Any launch not clean.
    bool anyIssue() const noexcept { return tally_.issues() > 0; }
    /// Any launch whose passes ran different kernels (not merely other grids or blocks).
    bool anyUnmatched() const noexcept { return tally_.unmatched() > 0; }
    /// One line for the log: the first issue of the group.
    const std::string& firstIssue() const noexcept { return tally_.first(); }

private:
    struct Position {
        LaunchKey key;
        LaunchVerdict result;
    };
    std::vector<Position> expected_;
    VerdictTally tally_;
    std::size_t shiftedPass_ = 0; // pass whose launches went out of step (0: none yet)
    std::size_t shiftedFrom_ = 0; // first position where they did
};

} // namespace roofline::collect
