#pragma once
// The step of a program that opens no range of its own, found in its launch stream: the shortest
// cycle of launch signatures (kernel, block, shared memory; not the grid, which real steps vary
// with their data -- an embedding's backward, a decoder's attention over a growing cache) that
// repeats (docs/design/0024-the-step-without-nvtx.md). Pure: no CUDA, no lock (the caller holds
// one).
//
// The rule, launch by launch:
//  1. Searching. For every period P up to `longestCycle`, the run of launches equal to the one P
//     before them (PeriodRuns). A cycle of P is adopted once its run reaches P (the last 2P
//     launches are two copies of one block): the smallest such P longer than every cycle that
//     broke before, and not itself a repetition of a shorter block (two of a model's identical
//     layers are not a cycle of their own), nor one that holds a known cycle (steps with a
//     validation pass between). The cycle begins where that periodic stretch began.
//  2. Confirming. An adopted cycle gives no step until the stream held it kConfirmCopies times
//     over and for kConfirmLaunches launches. A model's identical layers repeat inside a step,
//     and a layer's own kernels inside it: their cycles are adopted, and break (at the head, at
//     the next layer's first different launch) before they span that many launches; the step,
//     longer, is adopted once two steps ran and confirmed once the stream held it long enough.
//     Structure nests (kernels in a layer, layers in a step), so only time tells the step from
//     what repeats inside it: a step whose repeated part spans more launches than this is not
//     found.
//  3. Following. Each launch is checked against the confirmed cycle. At its first signature a
//     step begins (the one open ends); a launch that is not the expected one breaks the cycle:
//     the open step ends before it, and the search goes on.
//  4. Known cycles. A confirmed cycle that broke (a validation pass every N steps, an evaluation)
//     resumes as soon as one whole cycle of launches matched it again, at the next launch that
//     begins it. A known cycle found inside a longer one confirmed later never resumes.
#include "core/launch.hpp"

#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <utility>
#include <vector>

namespace roofline::collect {

/// For every period P up to `longest`, the run of launches equal to the one P before them, in a
/// row, ending with the last launch added. Kept sparse: a run of 1 (the last launch equals the
/// one P before it, the launch before that does not equal its own) is implied by the
/// signatures' occurrences and not kept; runs of 2 and more are, and a launch finds them where
/// its signature and the one before it both occurred P launches earlier, walking the rarer of
/// the two's occurrences. So a launch costs the occurrences of the rarer signature in the last
/// `longest` launches, not `longest` comparisons: a stream that never repeats costs a lookup,
/// and so does one kernel every other launch between ones that never repeat.
class PeriodRuns {
public:
    explicit PeriodRuns(std::size_t longest);
    void add(std::uint64_t signature);
    /// Period P's run (0: the last launch differs from the one P before it).
    std::uint32_t run(std::size_t period) const;
    /// The periods whose run is 2 or more, ascending, with their runs.
    const std::vector<std::pair<std::uint32_t, std::uint32_t>>& active() const noexcept {
        return active_;
    }

private:
    struct Seen {
        std::vector<std::uint64_t> at; // launches with the signature, oldest first, from `first`
        std::size_t first = 0;
    };
    // The signature of launch `index`, among the last longest_ + 1.
    std::uint64_t signatureAt(std::uint64_t index) const { return ring_[index % ring_.size()]; }
    // The periods (ascending) at which the launch about to be added equals the one before it and
    // the launch before it equals its own (launch `next_ - 1`); their runs go on.
    void continueRuns(std::uint64_t signature, const Seen& now);

    std::size_t longest_;
    std::uint64_t next_ = 0; // the next launch's index
    std::unordered_map<std::uint64_t, Seen> seen_;
    std::vector<std::uint64_t> ring_; // the last longest_ + 1 launches' signatures
    std::vector<std::pair<std::uint32_t, std::uint32_t>> active_, scratch_;
};

class LaunchCycle {
public:
    /// What happens before the launch just seen.
    enum class Event {
        None,   ///< nothing: a step goes on, or none is open
        Begins, ///< a step begins at this launch (the one open, if any, ends first)
        Ends,   ///< the open step ends before this launch (the cycle broke)
    };

    explicit LaunchCycle(std::size_t longestCycle = kLongestCycle);

    /// The next launch of the stream, by its signature.
    Event launch(std::uint64_t signature);

    /// A step is open (between a Begins and the next Ends or Begins).
    bool inStep() const noexcept { return inStep_; }
    /// The cycle followed now (0: none).
    std::size_t length() const noexcept { return following_ ? cycle_.size() : 0; }
    /// Launches seen, and how many of them were inside a step.
    std::uint64_t launches() const noexcept { return seen_; }
    std::uint64_t launchesInSteps() const noexcept { return inSteps_; }
    /// Steps begun.
    std::uint64_t steps() const noexcept { return steps_; }

    /// Steps longer than this many launches are not found (a launch costs the occurrences of its
    /// signature among this many before it).
    static constexpr std::size_t kLongestCycle = 8192;
    /// Known cycles kept for resuming.
    static constexpr std::size_t kKnownCycles = 8;
    /// Copies of a cycle the stream holds before it gives steps; and the launches they must span
    /// too, while no shorter cycle broke before it.
    static constexpr std::uint64_t kConfirmCopies = 3;
    static constexpr std::uint64_t kConfirmLaunches = 4096;

private:
    struct Known {
        std::vector<std::uint64_t> cycle;
        std::size_t matched = 0; ///< launches of it matched in a row, from its first
    };

    void remember(std::uint64_t signature);
    void rebuildRuns();
    void adopt(std::size_t period);
    /// The adoptable period: the smallest longer than floor_ whose run holds two copies (0: none).
    std::size_t adoptable() const;
    bool adoptableAt(std::size_t period) const;
    Event followed(std::uint64_t signature);
    void confirm();
    /// A known cycle matched whole: the one to resume (longest first), or null.
    const Known* resumable(std::uint64_t signature);
    void forgetNestedIn(const std::vector<std::uint64_t>& cycle);

    std::size_t longest_;
    // The last launches' signatures, oldest first; compacted to the last longest_ when it holds
    // twice as many.
    std::vector<std::uint64_t> history_;
    PeriodRuns runs_;
    bool runsBehind_ = false; // launches of a confirmed cycle were not added to runs_

    bool following_ = false;
    bool confirmed_ = false; // the followed cycle gives steps
    std::vector<std::uint64_t> cycle_;
    std::size_t position_ = 0; // the next expected signature's index in cycle_
    std::uint64_t copies_ = 0; // whole copies of the cycle the stream held, in a row
    std::uint64_t copiesNeeded_ = 0;
    std::size_t floor_ = 0; // new cycles must be longer than every one that broke
    std::vector<Known> known_;

    bool inStep_ = false;
    std::uint64_t seen_ = 0, inSteps_ = 0, steps_ = 0;
};

/// A launch's signature for the cycle: its kernel (mangled name), block and shared memory, hashed.
/// The grid is left out: a step whose grids follow its data is still the step (the replay's
/// check flags launches whose grid differs between passes).
std::uint64_t launchSignature(const core::Launch& launch) noexcept;

} // namespace roofline::collect
