#pragma once
// Where a replay window that starts inside the iteration (offset > 0) may take its passes. Auto
// ranges are positional: on an iteration that ran other launches before the window (one that
// also validated first) the window's positions hold other work. Pass 0 starts on an iteration
// whose launches before the window were those of the iteration before it (not an odd one) and
// notes them; a later pass starts only on an iteration that ran the same kernels in the same
// scopes before it. Each waits up to kWaits iterations; then pass 0 itself was the odd one and
// the group starts again -- kRestarts times at most: after that positions decide (a loop whose
// launches vary every iteration). docs/design/0006.
#include "collect/frame.hpp"

#include "core/launch.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

namespace roofline::collect {

/// What ran in the current and the last iteration before each launch, one number per launch: the
/// kernels launched and the scopes they ran in below the iteration scope (grids left out:
/// data-dependent grids vary every iteration).
class IterationSequence {
public:
    void iterationBegins();
    /// The iteration's next launch; `iterationIndex`: the iteration scope's index in `stack`
    /// (stack.size(): none).
    void launch(const core::Launch& l, const Stack& stack, std::size_t iterationIndex);
    /// The current iteration's launches before launch `at`.
    std::uint64_t before(std::size_t at) const noexcept;
    /// The current and the last iteration ran the same launches before launch `at`.
    bool sameAsLast(std::size_t at) const noexcept;

private:
    static constexpr std::uint64_t kSeed = 1469598103934665603ull;
    static constexpr std::size_t kMaxLaunches = std::size_t{1} << 20;
    std::uint64_t value_ = kSeed;
    std::vector<std::uint64_t> current_, last_; // before each launch
};

/// One device's window placement: the iterations' launch sequences, pass 0's prefix, the
/// iterations a pass has waited and the groups restarted for the current window.
class WindowPlacement {
public:
    enum class Verdict {
        Start,   ///< the window's pass starts here
        Wait,    ///< not on this iteration
        Restart, ///< pass 0 was on an odd iteration: start the group again (not here)
    };
    static constexpr std::size_t kWaits = 3, kRestarts = 2;

    void iterationBegins() { sequence_.iterationBegins(); }
    void launch(const core::Launch& l, const Stack& stack, std::size_t iterationIndex) {
        sequence_.launch(l, stack, iterationIndex);
    }
    /// A new group: its pass 0 has no prefix yet.
    void groupBegins() noexcept;
    /// The window's group completed: the next window may restart its group again.
    void windowDone() noexcept { restarts_ = 0; }
    /// The iteration reached the window at `offset` with pass `pass` due. `positionsDecide`: the
    /// loop has no steady shape to wait for (a benchmark's cases driven by needsPass()).
    Verdict place(std::size_t offset, std::size_t pass, bool positionsDecide);
    /// Iterations the last Restart waited for.
    std::size_t waited() const noexcept { return waited_; }

private:
    IterationSequence sequence_;
    std::optional<std::uint64_t> reference_; // pass 0's prefix
    std::size_t waits_ = 0;                  // iterations the due pass has waited
    std::size_t restarts_ = 0;               // groups of this window restarted
    std::size_t waited_ = 0;
};

} // namespace roofline::collect
