#pragma once
// One device's replay groups over the program's iterations (docs/design/0018): a group measures a
// window of each iteration -- launch positions [begin, end) -- once per pass, pass i on the
// group's i-th iteration (short iterations: several iterations in one pass, up to half an image
// of launches). The schedule follows the program (iterations begin and end, launches) and emits
// what the strategy owning it must do at each point -- start a pass, give a launch the open
// pass's next range, end the pass -- through a Listener; the strategy runs the backend, checks
// the passes and tells the schedule how each group goes on (next pass, completed, abandoned).
// Pure logic: no CUDA, no backend; tested with tables of events in
// test/unit/pass_schedule_test.cpp.
#include "replay/window.hpp"

#include <cstddef>
#include <cstdint>

namespace roofline::collect {

class PassSchedule {
public:
    /// What the schedule emits.
    class Listener {
    public:
        virtual ~Listener() = default;
        /// The window begins inside the iteration here, its pass not started: may it start now?
        virtual bool mayStartWindow(std::size_t begin, std::size_t pass) {
            (void)begin;
            (void)pass;
            return true;
        }
        /// Start the group's pass (then passStarted(), unless the device failed).
        virtual void startPass() = 0;
        /// End the open pass (passStopped() first, then the group goes on or not).
        virtual void endPass() = 0;
        /// The launch at `position` of its iteration (`inside`: false between iterations, where
        /// a pass spanning them must account for it) occupies range `range` of the open pass.
        virtual void measure(std::size_t range, std::size_t position, bool inside) = 0;
    };

    /// Iterations a pass spans: `configured` (0: decided after the group's first iteration, as
    /// many as half an image of launches when the window starts with the iteration and
    /// `mayShare`, else 1).
    struct PassLength {
        std::size_t configured = 0;
        bool mayShare = true;
    };

    // ---- the program ----
    /// An iteration begins (its launch positions count from 0 again).
    void iterationBegins() noexcept;
    /// Emits startPass() when a group is in progress whose window starts with the iteration and
    /// no pass spans iterations.
    void startOfIteration(Listener& l);
    /// A launch inside the iteration: may end the pass (the window or the image ends before it),
    /// start the window's pass (mayStartWindow) -- a group's that follows one completed here
    /// included -- and measure it.
    void launch(std::size_t capacity, Listener& l);
    /// A launch between iterations: measured while a pass spans them (the image full: the pass
    /// ends).
    void launchBetween(std::size_t capacity, Listener& l);
    /// The iteration ended after `launches` (what one iteration puts into a pass): returns false
    /// while the open pass spans more iterations; else ends it (endPass) -- unless its window
    /// goes on into the next iteration's head (Window::next), which keeps it open -- and returns
    /// true (the iteration's end is the strategy's to handle).
    bool iterationEnds(std::size_t capacity, std::size_t launches, PassLength length, Listener& l);

    // ---- groups, as the strategy decides ----
    /// A group over `window` begins, its pass 0 on iteration `iteration` (1: the first).
    /// `iterationsPerPass`: fixed for this group (0: decided after its first iteration).
    void beginGroup(Window window, std::uint64_t iteration, std::size_t iterationsPerPass = 0);
    /// The group that completed at the current launch is followed at once by one over
    /// `window`, which begins at this launch or later in this iteration: its pass 0 starts there
    /// (a window needs its passes' iterations, and the next one need not wait for the next
    /// iteration to begin). completedThisIteration() stays true.
    void chainGroup(Window window, std::uint64_t iteration, std::size_t iterationsPerPass = 0);
    void passStarted() noexcept;
    void passStopped() noexcept { passOpen_ = false; }
    void nextPass() noexcept { ++pass_; }
    /// Every pass is in: the group ends (completedThisIteration() from now on).
    void groupCompleted() noexcept;
    /// The group's passes are lost: it is measured again from a later iteration (restart).
    void abandon() noexcept;
    /// The completed group is measured again from the next iteration (more counters needed).
    void measureAgain() noexcept;
    /// Nothing to redo (a restart is forgotten).
    void cancelRestart() noexcept { restart_ = false; }
    /// The next group's window.
    void setWindow(Window w) noexcept { window_ = w; }

    // ---- state ----
    bool inGroup() const noexcept { return group_; }
    bool passOpen() const noexcept { return passOpen_; }
    bool restartPending() const noexcept { return restart_; }
    std::size_t pass() const noexcept { return pass_; }
    const Window& window() const noexcept { return window_; }
    std::uint64_t groupStart() const noexcept { return groupStart_; }
    /// Launches of the current iteration so far.
    std::size_t launches() const noexcept { return position_; }
    /// Ranges of the open pass so far.
    std::size_t ranges() const noexcept { return ranges_; }
    std::size_t iterationsPerPass() const noexcept { return iterationsPerPass_; }
    /// Iterations the open pass has spanned so far (its own included once it ends).
    std::size_t passIterations() const noexcept { return passIterations_; }
    bool startedThisIteration() const noexcept { return startedThisIteration_; }
    /// A group's pass 0 measured a launch of the current iteration (its records are of it).
    bool firstPassThisIteration() const noexcept { return firstPassThisIteration_; }
    bool completedThisIteration() const noexcept { return completedThisIteration_; }

private:
    bool group_ = false, passOpen_ = false, restart_ = false;
    std::size_t pass_ = 0;
    Window window_;
    std::uint64_t groupStart_ = 0;
    std::size_t position_ = 0, ranges_ = 0, passIterations_ = 0, iterationsPerPass_ = 0;
    bool startedThisIteration_ = false, completedThisIteration_ = false;
    bool firstPassThisIteration_ = false;
};

} // namespace roofline::collect
