// Repeated-launch reuse's cycles (collect/reuse_windows.hpp): when one begins on a steady
// iteration, its windows -- the last and first measured as one across the iteration's end where
// that saves iterations -- and its end, when every signature has its samples.
#include "collect/reuse_windows.hpp"

#include "core/log.hpp"

#include <algorithm>
#include <string>
#include <utility>

namespace roofline::collect {

// A cycle refers to a steady iteration: one that launched what the one before did (the first
// often runs a validation pass or creates state). Launches no earlier cycle measured anything like
// (a new kernel, block or scope) keep the replay helper waiting for them to form a steady
// iteration. A program whose iterations never repeat exactly is taken as it is after a few.
void ReuseWindows::plan(Shared& shared, const IterationFacts& facts, ImageChanges& changes) {
    // Once a cycle is done, an iteration of another launch count than the steady one (one that
    // also validated) is not the step the profile describes: its new launches neither start a
    // cycle nor keep the profile from completing.
    const bool unmeasured =
        (cyclesDone_ == 0 || facts.steadyShape) &&
        std::any_of(iteration_.signatures.begin(), iteration_.signatures.end(),
                    [&](std::uint32_t id) {
                        return id != ReusePlan::kNotMeasured && !plan_.familyMeasured(id);
                    });
    bool steady = iteration_.families == prevFamilies_;
    if (!steady && !cycle_ && (cyclesDone_ == 0 || unmeasured) && ++unsteady_ >= kSteadyAttempts)
        steady = true;
    // The first iteration is the odd one of most programs: the second is taken as the reference
    // at once, and the third checks it (iterationEnded) -- one iteration sooner than waiting for
    // two alike.
    const bool optimistic = !steady && !cycle_ && cyclesDone_ == 0 && observedIterations_ == 2;
    steady = steady || optimistic;
    prevFamilies_ = iteration_.families;
    if (steady && !cycle_ && !facts.inGroup && !facts.restartPending) {
        maybeStart(unmeasured, shared.limitReached(), facts, changes);
        if (cycle_) // a new reference: its cycle measures the launches a dropped group kept
            dropProvisional(shared);
        if (cycle_ && optimistic) { // the next iteration must launch the same families
            verifying_ = true;
            verifyFamilies_ = prevFamilies_;
        }
        // A steady iteration with nothing left to measure: done -- once the filters admitted
        // some launch (`Train step 5/`: steps 0-4 admit none, and the profile waits for step 5).
        const bool admitted =
            std::any_of(iteration_.signatures.begin(), iteration_.signatures.end(),
                        [](std::uint32_t id) { return id != ReusePlan::kNotMeasured; });
        if (!cycle_ && cyclesDone_ == 0 && admitted)
            cyclesDone_ = 1;
    }
    if (cycle_)
        unsteady_ = 0;
    awaiting_ = !cycle_ && unmeasured;
}

// When some signature of the iteration lacks samples, a cycle over it starts (its first window is
// measured from the next iteration on). `unmeasured`: some launch of the iteration has a family no
// cycle measured.
void ReuseWindows::maybeStart(bool unmeasured, bool limitReached, const IterationFacts& facts,
                              ImageChanges& changes) {
    // The iteration's launch details are kept only while no cycle runs: right after one ended,
    // the next iteration is the one a new cycle refers to.
    if (slot_->failed || iteration_.signatures.empty() || iteration_.launches.empty() ||
        limitReached)
        return;
    // After a complete profile, a launch whose grid depends on the data has a new signature in
    // every iteration: it starts another cycle only when nothing of its family was measured (a
    // new kernel, block or scope), or profiling would never end.
    if (cyclesDone_ > 0 && !unmeasured)
        return;
    // The cycle's image holds its longest window, not a whole image's worth: CUPTI's host memory
    // grows with the ranges an image holds (~2 MiB each).
    if (shareCount_ > 1)
        plan_.share(iteration_.signatures, shareIndex_, shareCount_, slot_->launchesPerImage());
    const std::size_t capacity = slot_->launchesPerImage();
    const std::vector<Window> planned = plan_.plannedWindows(iteration_.signatures, capacity);
    std::size_t ranges = longestOf(planned);
    auto w = plan_.next(iteration_.signatures, 0, ranges);
    if (!w)
        return;
    // The cycle's last window reaches the iteration's end and its first one begins the
    // iteration (a training step's optimizer and its next forward pass): measured as one window
    // across the end, they take P + 1 iterations instead of 2P - 1 (chained) -- where that is
    // fewer (P >= 3), nothing ran between the iterations (a launch there that comes and goes
    // would put the passes out of step) and one image holds both, with room for a launch or two
    // between.
    const std::size_t L = iteration_.signatures.size();
    wraps_ = false;
    tailBegin_ = Window::kOpen;
    std::vector<Window> chosen = planned;
    if (planned.size() >= 2 && facts.launchesBefore == 0 && facts.passes >= 3) {
        const std::size_t gap = plan_.maxGap();
        const auto across = [&](const std::vector<Window>& ws) {
            return (L - ws.back().begin) + ws.front().end + kRoomBetween;
        };
        const auto merges = [&](const std::vector<Window>& ws) {
            return ws.size() >= 2 && ws.front().begin <= gap && L - ws.back().end <= gap &&
                   across(ws) <= capacity;
        };
        // The tail and the whole first window overflow the image: a shorter head leaves room for
        // the tail, and the rest of the first window joins the next -- when that still saves
        // iterations (the merged window: 1 + (W' - 1) x (P - 1) + 1; chained: 1 + W x (P - 1)).
        const std::size_t tail = L - planned.back().begin;
        if (!merges(chosen) && tail + kRoomBetween < capacity) {
            std::vector<Window> shorter = plan_.plannedWindows(iteration_.signatures, capacity,
                                                               capacity - tail - kRoomBetween);
            if (merges(shorter) &&
                (shorter.size() - 1) * (facts.passes - 1) + 1 < planned.size() * (facts.passes - 1))
                chosen = std::move(shorter);
        }
        if (merges(chosen)) {
            wraps_ = true;
            tailBegin_ = chosen.back().begin;
            ranges = std::max(longestOf(chosen), across(chosen));
            w = Window{chosen.back().begin, chosen.front().end};
        }
    }
    cycleWrapped_ = wraps_;
    if (core::log().should_log(spdlog::level::debug)) {
        std::string list;
        for (const Window& p : chosen)
            list += (list.empty() ? "" : ", ") + std::string("[") + std::to_string(p.begin) + ", " +
                    std::to_string(p.end) + ")";
        core::log().debug("libroofline: repeated-launch cycle over {} launches: windows {} in "
                          "images of {} ranges; across the iteration's end: {} ({} launches "
                          "before the iteration, {} passes, gap {})",
                          L, list, ranges, wraps_ ? "yes" : "no", facts.launchesBefore,
                          facts.passes, plan_.maxGap());
    }
    changes.push_back(ImageChange{ranges});
    cycleRanges_ = ranges;
    std::vector<std::uint64_t> shapes(observed_.size());
    for (std::size_t p = 0; p < shapes.size(); ++p)
        shapes[p] = observed_.shape(p);
    reference_ =
        Observation{iteration_.signatures, iteration_.labels,   iteration_.parents,
                    std::move(shapes),     iteration_.families, std::move(iteration_.launches)};
    reference_.launches.resize(reference_.signatures.size());
    iteration_.launches.clear();
    measuredPos_.assign(reference_.signatures.size(), false);
    rewind_ = false;
    cycle_ = true;
    offset_ = w->begin;
    windowEnd_ = w->end;
    windows_ = 1;
}

bool ReuseWindows::advance(Shared& shared, ImageChanges& changes) {
    if (!cycle_)
        return false;
    std::optional<Window> w;
    if (rewind_) {
        // After a split: the split signatures' positions not measured yet, wherever they are
        // (positions this cycle measured are not measured again).
        w = rewound(changes);
        rewind_ = false;
    } else {
        w = nextWindow(resumeFrom());
    }
    if (w) {
        enter(*w);
        return false;
    }
    emitReused(shared);
    dropCycle(); // its records are out
    ++cyclesDone_;
    changes.push_back(ImageChange{0}); // nothing to measure until another cycle
    return true;
}

} // namespace roofline::collect
