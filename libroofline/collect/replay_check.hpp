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
#include <roofline/kernel_record.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace roofline::collect {

struct LaunchKey {
    std::string name; ///< mangled kernel name
    Dim3 grid, block;
};

class ReplayCheck {
public:
    enum class Verdict { Clean, Differs, Unmatched };

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
    bool anyIssue() const noexcept { return issues_ > 0; }
    /// Any launch whose passes ran different kernels (not merely other grids or blocks).
    bool anyUnmatched() const noexcept { return unmatched_ > 0; }
    /// One line for the log: the first issue of the group.
    const std::string& firstIssue() const noexcept { return first_; }

private:
    struct Position {
        LaunchKey key;
        Verdict verdict = Verdict::Clean;
        std::string note;
    };
    void mark(std::size_t at, Verdict v, const std::string& why);
    std::vector<Position> expected_;
    std::size_t issues_ = 0;
    std::size_t unmatched_ = 0;
    std::string first_;
    std::size_t shiftedPass_ = 0; // pass whose launches went out of step (0: none yet)
    std::size_t shiftedFrom_ = 0; // first position where they did
};

/// Same kernel, grid and block.
bool sameLaunch(const LaunchKey& a, const LaunchKey& b);
/// "kernel <<<gx×gy×gz, bx×by×bz>>>" with the kernel name demangled.
std::string launchText(const LaunchKey& key);

} // namespace roofline::collect
