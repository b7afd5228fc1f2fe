// Repeated-launch reuse's cycles (replay/reuse/reuse_windows.hpp): when one begins on a steady
// iteration, its windows -- the last and first measured as one across the iteration's end where
// that saves iterations -- and its end, when every signature has its samples.
#include "replay/reuse/reuse_windows.hpp"

#include "core/log.hpp"

#include <algorithm>
#include <set>
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
    if (!steady && !cycling() && (cyclesDone_ == 0 || unmeasured) && ++unsteady_ >= kSteadyAttempts)
        steady = true;
    // The first iteration is the odd one of most programs: the second is taken as the reference
    // at once, and the third checks it (iterationEnded) -- one iteration sooner than waiting for
    // two alike.
    const bool optimistic = !steady && !cycling() && cyclesDone_ == 0 && observedIterations_ == 2;
    steady = steady || optimistic;
    prevFamilies_ = iteration_.families;
    if (steady && !cycling() && !facts.inGroup && !facts.restartPending) {
        splitDataDependent(shared);
        const bool sharedAway = maybeStart(unmeasured, shared.limitReached(), facts, changes);
        // A new reference: its cycle measures the launches a dropped group kept -- or, where
        // other ranks measure all of it, its records say which rank does.
        if (cycling() || sharedAway)
            dropProvisional(shared);
        if (sharedAway) {
            emitReused(shared);
            dropCycle();
            ++cyclesDone_;
            covered_.whole = true;
        }
        if (cycling() && optimistic) { // the next iteration must launch the same families
            phase_ = Phase::Verifying;
            verifyFamilies_ = prevFamilies_;
        }
        // A steady iteration with nothing left to measure: done -- once the filters admitted
        // some launch (`Train step 5/`: steps 0-4 admit none, and the profile waits for step 5).
        const bool admitted =
            std::any_of(iteration_.signatures.begin(), iteration_.signatures.end(),
                        [](std::uint32_t id) { return id != ReusePlan::kNotMeasured; });
        if (!cycling() && cyclesDone_ == 0 && admitted) {
            cyclesDone_ = 1;
            covered_.whole = true; // nothing of it was left to measure
        }
    }
    if (cycling())
        unsteady_ = 0;
    else
        phase_ = unmeasured ? Phase::Awaiting : Phase::Searching;
}

void ReuseWindows::splitDataDependent(Shared& shared) {
    const std::set<std::string>& varying = shared.dataDependentLaunches;
    // Ranks sharing the profile each choose the same owners from the same signatures; what one
    // rank's windows saw, another's may not have (other data): they find it out from samples.
    if (varying.empty() || shareCount_ > 1 || iteration_.signatures.size() != observed_.size())
        return;
    std::set<std::uint32_t> split;
    for (std::size_t p = 0; p < iteration_.signatures.size(); ++p) {
        const std::uint32_t id = iteration_.signatures[p];
        if (id == ReusePlan::kNotMeasured || plan_.isSplit(id) || plan_.isPositional(id) ||
            plan_.sampleCount(id) > 0 || varying.count(observed_.keyText(p)) == 0)
            continue;
        plan_.split(id);
        split.insert(id);
    }
    if (split.empty())
        return;
    for (std::size_t p = 0; p < iteration_.signatures.size(); ++p)
        if (split.count(iteration_.signatures[p]) > 0)
            iteration_.signatures[p] =
                plan_.resolve(iteration_.signatures[p], p, iteration_.parents[p]);
    core::log().info("libroofline: {} signature(s) of the step run launch configurations whose "
                     "work the windows before it saw follow the data (the same arguments, "
                     "different work): each of their launches is measured on its own from the "
                     "first window",
                     split.size());
}

// The cycle's windows with an image of `capacity` launches, and the iterations they take: the
// cycle's last window reaches the iteration's end and its first one begins the iteration (a
// training step's optimizer and its next forward pass): measured as one window across the end,
// they take P + 1 iterations instead of 2P - 1 (chained) -- where that is fewer (P >= 3), nothing
// ran between the iterations (a launch there that comes and goes would put the passes out of
// step) and one image holds both, with room for a launch or two between.
ReuseWindows::CycleLayout ReuseWindows::layoutFor(std::size_t capacity,
                                                  const IterationFacts& facts,
                                                  std::size_t gap) const {
    CycleLayout out;
    out.gap = gap;
    const std::size_t P = std::max<std::size_t>(1, facts.passes);
    std::vector<Window> planned = plan_.plannedWindows(iteration_.signatures, capacity, 0, gap);
    out.ranges = longestOf(planned);
    const std::size_t L = iteration_.signatures.size();
    std::vector<Window> chosen = planned;
    if (planned.size() >= 2 && facts.launchesBefore == 0 && P >= 3) {
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
            std::vector<Window> shorter = plan_.plannedWindows(
                iteration_.signatures, capacity, capacity - tail - kRoomBetween, gap);
            if (merges(shorter) && (shorter.size() - 1) * (P - 1) + 1 < planned.size() * (P - 1))
                chosen = std::move(shorter);
        }
        if (merges(chosen)) {
            out.wraps = true;
            out.ranges = std::max(longestOf(chosen), across(chosen));
        }
    }
    out.iterations = chosen.empty() ? 0
                     : out.wraps    ? 2 + (chosen.size() - 1) * (P - 1)
                                    : 1 + chosen.size() * (P - 1);
    std::size_t spans = 0;
    for (const Window& w : chosen)
        spans += w.end - w.begin;
    out.cost = spans * P + out.iterations * kRangesPerIteration;
    out.windows = std::move(chosen);
    return out;
}

// The layout with the session's image size, or a larger image's where that costs less.
ReuseWindows::CycleLayout ReuseWindows::cheapestLayout(const IterationFacts& facts) const {
    const std::size_t base = slot_->launchesPerImage();
    const std::size_t most =
        std::max(base, maxRanges_ / std::max<std::size_t>(1, slot_->rangesPerLaunch));
    const std::size_t step = std::max<std::size_t>(8, base / 4);
    const auto cheapestWith = [&](std::size_t gap) {
        CycleLayout layout = layoutFor(base, facts, gap);
        for (std::size_t capacity = base + step;
             layout.windows.size() > 1 && capacity < most + step; capacity += step) {
            CycleLayout larger = layoutFor(std::min(capacity, most), facts, gap);
            if (larger.cost < layout.cost)
                layout = std::move(larger);
        }
        return layout;
    };
    CycleLayout best = cheapestWith(plan_.maxGap());
    // A run of g launches a window need not measure costs g ranges in each of P passes; another
    // window costs P - 1 iterations more (chained).
    const std::size_t P = std::max<std::size_t>(1, facts.passes);
    const std::size_t split = std::max<std::size_t>(1, kRangesPerIteration * (P - 1) / P);
    if (split < plan_.maxGap()) {
        CycleLayout shorter = cheapestWith(split);
        if (shorter.cost < best.cost)
            best = std::move(shorter);
    }
    return best;
}

// When some signature of the iteration lacks samples, a cycle over it starts (its first window is
// measured from the next iteration on). `unmeasured`: some launch of the iteration has a family no
// cycle measured. True when the iteration became the reference of a cycle whose every launch other
// ranks sharing the profile measure (this rank's share is empty): plan() emits its records.
bool ReuseWindows::maybeStart(bool unmeasured, bool limitReached, const IterationFacts& facts,
                              ImageChanges& changes) {
    // The iteration's launch details are kept only while no cycle runs: right after one ended,
    // the next iteration is the one a new cycle refers to.
    if (slot_->failed || iteration_.signatures.empty() || iteration_.launches.empty() ||
        limitReached)
        return false;
    // After a complete profile, a launch whose grid depends on the data has a new signature in
    // every iteration: it starts another cycle only when nothing of its family was measured (a
    // new kernel, block or scope), or profiling would never end.
    if (cyclesDone_ > 0 && !unmeasured)
        return false;
    // The cycle's image holds its longest window, not a whole image's worth: CUPTI's host memory
    // grows with the ranges an image holds (~2 MiB each). It grows beyond the session's image size
    // -- up to what the memory allows (CollectorConfig::rangesPerImageMax) -- where a larger one
    // measures the cycle in fewer windows, so in fewer iterations, for about as many ranges: a
    // window that would take in many launches already sampled costs more than it saves.
    // Ranks sharing the profile split the windows of the image the whole cycle would take.
    const std::size_t L = iteration_.signatures.size();
    // The cycle's passes: the metric set may grow before its first pass (a warp MMA type the
    // kernels' names suggest: design 0022).
    IterationFacts at = facts;
    if (facts.cycleBegins)
        at.passes = facts.cycleBegins(observed_.kernelNames());
    if (shareCount_ > 1)
        plan_.share(iteration_.signatures, shareIndex_, shareCount_,
                    std::max(slot_->launchesPerImage(), cheapestLayout(at).ranges));
    CycleLayout layout = cheapestLayout(at);
    if (layout.windows.empty()) {
        // Ranks sharing the profile: this rank's share is empty (fewer windows than ranks), so
        // every launch gets the record that says whose counters it takes.
        if (shareCount_ <= 1)
            return false;
        takeReference();
        return true;
    }
    std::vector<Window> chosen = std::move(layout.windows);
    std::size_t ranges = layout.ranges;
    cycle_.wraps = layout.wraps;
    cycle_.tailBegin = cycle_.wraps ? chosen.back().begin : Window::kOpen;
    cycle_.gap = layout.gap;
    std::optional<Window> w = cycle_.wraps
                                  ? Window{chosen.back().begin, chosen.front().end}
                                  : plan_.next(iteration_.signatures, 0, ranges, cycle_.gap);
    if (!w)
        return false;
    cycle_.wrapped = cycle_.wraps;
    if (core::log().should_log(spdlog::level::debug)) {
        std::string list;
        for (const Window& p : chosen)
            list += (list.empty() ? "" : ", ") + std::string("[") + std::to_string(p.begin) + ", " +
                    std::to_string(p.end) + ")";
        core::log().debug("libroofline: repeated-launch cycle over {} launches: windows {} in "
                          "images of {} ranges; across the iteration's end: {} ({} launches "
                          "before the iteration, {} passes, gap {})",
                          L, list, ranges, cycle_.wraps ? "yes" : "no", at.launchesBefore,
                          at.passes, cycle_.gap);
    }
    changes.push_back(ImageChange{ranges});
    cycle_.ranges = ranges;
    largestImage_ = std::max(largestImage_, ranges);
    takeReference();
    cycle_.rewind = false;
    phase_ = Phase::Measuring;
    cycle_.offset = w->begin;
    cycle_.windowEnd = w->end;
    cycle_.windows = 1;
    return false;
}

// The iteration just observed becomes the cycle's reference: its launches' records come from it.
void ReuseWindows::takeReference() {
    std::vector<std::uint64_t> shapes(observed_.size());
    for (std::size_t p = 0; p < shapes.size(); ++p)
        shapes[p] = observed_.shape(p);
    reference_ =
        Observation{iteration_.signatures, iteration_.labels,   iteration_.parents,
                    std::move(shapes),     iteration_.families, std::move(iteration_.launches)};
    reference_.launches.resize(reference_.signatures.size());
    iteration_.launches.clear();
    cycle_.measured.assign(reference_.signatures.size(), false);
}

bool ReuseWindows::advance(Shared& shared, ImageChanges& changes) {
    if (!cycling())
        return false;
    std::optional<Window> w;
    if (cycle_.rewind) {
        // After a split: the split signatures' positions not measured yet, wherever they are
        // (positions this cycle measured are not measured again).
        w = rewound(changes);
        cycle_.rewind = false;
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
