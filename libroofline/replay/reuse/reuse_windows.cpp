#include "replay/reuse/reuse_windows.hpp"
#include "collect/notes.hpp"

#include "core/demangle.hpp"
#include "core/log.hpp"
#include "core/merge.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>
#include <utility>

namespace roofline::collect {

ReuseWindows::ReuseWindows(const CollectorConfig& config, std::uint64_t& serials,
                           const DeviceSlot& slot)
    : plan_(config.reuseSamples, config.reuseMaxGap), serials_(&serials), slot_(&slot),
      work_(workCounters(config.metricNames)), shareIndex_(config.shares() ? config.shareIndex : 0),
      shareCount_(config.shares() ? config.shareCount : 1), maxRanges_(config.rangesPerImageMax) {}

// ---- observation ------------------------------------------------------------------------------

void ReuseWindows::iterationBegins() {
    observed_.clear();
    iteration_.signatures.clear();
    iteration_.families.clear();
    iteration_.launches.clear();
}

void ReuseWindows::observe(Shared& shared, const Launch& l, const Stack& stack, std::size_t idx) {
    if (!observing_)
        return;
    const bool in = shared.filtersAdmit(l, stack);
    std::uint64_t instance = 0;
    // The scope takes part in the signature whether or not the filters admit the launch, so that
    // an iteration they admit (`Train step 5/`) looks like the ones around it.
    std::uint64_t parent = 0;
    const std::string* uniform = nullptr; // outside every scope: ""
    if (!stack.empty()) {
        const Frame& f = stack.back();
        if (f.serial == 0) // the instance's first launch (or child): its number
            f.serial = ++*serials_;
        if (f.uniform.empty()) // its first launch: its uniform path
            f.uniform = shared.model.uniformPath(stack);
        instance = f.serial;
        uniform = &f.uniform;
        if (stack.size() >= 2) { // the instance it is in: its parent
            const Frame& p = stack[stack.size() - 2];
            if (p.serial == 0)
                p.serial = ++*serials_;
            parent = p.serial;
        }
    }
    static const std::string none;
    const std::uint32_t scope = observed_.scope(uniform ? *uniform : none);
    observed_.add(l.mangledName, l.grid, l.block, l.sharedMemBytes(), scope, instance, parent, in);
    if (cycling() || !in)
        return;
    if (iteration_.launches.size() < idx)
        iteration_.launches.resize(idx);
    core::LaunchInfo info = shared.launchInfo(l, stack); // demangled only if it becomes a record
    info.position = static_cast<std::int64_t>(idx);
    iteration_.launches.push_back(std::move(info));
}

// The reference's signature at `at` or, when the current iteration ran another launch there (a
// data-dependent grid), its own (as observed) at the reference's place.
std::uint32_t ReuseWindows::measuredSignature(std::size_t at) {
    if (!cycling() || at >= reference_.signatures.size() || at >= reference_.shapes.size() ||
        at >= reference_.labels.size())
        return ReusePlan::kNotMeasured;
    if (observed_.shape(at) == reference_.shapes[at])
        return reference_.signatures[at];
    return resolvedAt(observed_.signatureAt(plan_, at, reference_.labels[at]), at);
}

void ReuseWindows::iterationObserved(const CollectorConfig& config, bool groupOpen) {
    if (!observing_)
        return;
    observed_.assign(plan_, iteration_.signatures, iteration_.families, iteration_.labels);
    ++observedIterations_;
    iteration_.parents = observed_.parentPlaces();
    // Signatures split before: as then.
    for (std::size_t p = 0; p < iteration_.signatures.size(); ++p)
        iteration_.signatures[p] =
            plan_.resolve(iteration_.signatures[p], p, iteration_.parents[p]);
    stopObservingIfUnbounded(config, groupOpen);
}

// Once a profile is complete, a program that keeps showing new signatures stops being observed
// (later new kernels are not profiled; the log says so).
void ReuseWindows::stopObservingIfUnbounded(const CollectorConfig& config, bool groupOpen) {
    if (plan_.signatures() <= config.reuseMaxSignatures || cyclesDone_ == 0 || cycling() ||
        groupOpen)
        return;
    core::log().info("libroofline: {} distinct launch signatures (a grid that changes with every "
                     "iteration?): repeated launches are no longer observed, so kernels first "
                     "launched from now on are not profiled",
                     plan_.signatures());
    observing_ = false;
    observed_ = ObservedIteration{};
    plan_ = ReusePlan(config.reuseSamples, config.reuseMaxGap);
    iteration_.signatures.clear();
    iteration_.families.clear();
    prevFamilies_.clear();
    iteration_.launches.clear();
}

// ---- records ------------------------------------------------------------------------------------

// Reuse: a place the cycle's reference admitted is measured in this window even where this
// iteration's own scopes are not what the filters ask for (`--nvtx-include 'Train step 5/'` picks
// step 5, its windows run on steps 6, 7, ...). The record is the reference's launch at that
// place -- its scope and iteration -- as the reused ones are: one profile describes one step.
Admission ReuseWindows::admit(Shared& shared, const Launch& l, const Stack& stack,
                              std::size_t position, bool inside) {
    const core::LaunchInfo* reference = inside ? referenceAdmitted(position) : nullptr;
    const bool admitted =
        inside && (reference && !shared.filtersAdmit(l, stack) ? shared.admitsCounted()
                                                               : shared.admits(l, stack));
    if (!admitted)
        return Admission{};
    // The sample it will be: its signature as this iteration launched it here, looked up when
    // its group completes (signaturesOf).
    if (const std::uint32_t sig = measuredSignature(position); sig != ReusePlan::kNotMeasured)
        admittedAt_[position] = sig;
    else
        admittedAt_.erase(position);
    return Admission{true, reference};
}

void ReuseWindows::signaturesOf(Shared& shared, const std::vector<std::int64_t>& members) {
    signatureOf_.clear();
    for (std::int64_t m : members) {
        if (m < 0 || shared.records[m].position < 0)
            continue;
        const auto it = admittedAt_.find(static_cast<std::size_t>(shared.records[m].position));
        if (it != admittedAt_.end())
            signatureOf_[m] = it->second;
    }
}

void ReuseWindows::groupCompleted(Shared& shared, const CompletedGroup& group) {
    cycle_.chained = false;
    signaturesOf(shared, *group.members);
    if (group.outcome == CompletedGroup::Outcome::AgainForCounters) {
        inspect(shared, *group.members);
        return;
    }
    if (group.outcome == CompletedGroup::Outcome::Provisional) {
        for (std::int64_t m : *group.members)
            if (const auto it = signatureOf_.find(m); m >= 0 && it != signatureOf_.end())
                provisional_.emplace_back(m, it->second);
        return; // no samples yet: planning must not take them for measured (finish())
    }
    recorded(shared, *group.members);
    if (group.outcome == CompletedGroup::Outcome::Recorded)
        covered_.offsets.insert(group.window.begin); // not one cut short: its records are partial
}

// A group measured again for more counters: its records' work counters (instruction counts, L1
// bytes: those it has) already tell launches that look alike but work differently apart, so the
// window it is measured again over takes in every launch of a split signature it can hold -- not
// a window of its own later (as many iterations as passes).
void ReuseWindows::inspect(Shared& shared, const std::vector<std::int64_t>& members) {
    std::vector<std::uint32_t> touched;
    for (std::int64_t m : members)
        if (const auto it = signatureOf_.find(m); m >= 0 && it != signatureOf_.end())
            touched.push_back(it->second);
    if (splitDisagreeing(shared, touched, members))
        cycle_.rewind = true;
}

// The cycle's windows lie in the reference's order: the next one begins after the one that just
// completed, on the iteration whose last pass that was. Its passes start there -- 1 + windows x
// (passes - 1) iterations for a cycle, not windows x passes. Not after a split (the next window
// is searched from the start again), nor while the second iteration is still checked against
// the third (a cycle dropped then would lose the window begun).
std::optional<GroupStart> ReuseWindows::chain(Shared&, std::size_t position) {
    if (phase_ != Phase::Measuring || cycle_.rewind)
        return std::nullopt;
    const auto w = nextWindow(resumeFrom());
    if (!w || w->begin < position)
        return std::nullopt; // the cycle ends at the iteration's end (advance)
    enter(*w);
    cycle_.chained = true;
    GroupStart g;
    g.window = window();
    g.iterationsPerPass = 1;
    return g;
}

// After the window that just completed -- after a window across the iteration's end, from the
// end of its head, or from the first launch of that head it did not measure (launches between
// the iterations filled its image first): forward only, so a launch whose grid follows the data
// (another signature every iteration) is never looked for again.
std::size_t ReuseWindows::resumeFrom() const {
    if (!cycle_.wraps)
        return cycle_.windowEnd;
    for (std::size_t p = 0; p < cycle_.windowEnd && p < reference_.signatures.size(); ++p)
        if (reference_.signatures[p] != ReusePlan::kNotMeasured &&
            (p >= cycle_.measured.size() || !cycle_.measured[p]))
            return p;
    return cycle_.windowEnd;
}

std::optional<Window> ReuseWindows::nextWindow(std::size_t from) const {
    auto w = plan_.next(reference_.signatures, from, cycle_.ranges, cycle_.gap);
    if (w && w->begin >= cycle_.tailBegin)
        return std::nullopt;
    if (w)
        w->end = std::min(w->end, cycle_.tailBegin);
    return w;
}

void ReuseWindows::enter(const Window& w) {
    cycle_.offset = w.begin;
    cycle_.windowEnd = w.end;
    cycle_.wraps = false;
    ++cycle_.windows;
}

Window ReuseWindows::window() const noexcept {
    return cycle_.wraps ? Window{cycle_.offset, Window::kOpen, cycle_.windowEnd}
                        : Window{cycle_.offset, cycle_.windowEnd};
}

GroupStart ReuseWindows::nextGroup(Shared&, bool) {
    GroupStart g;
    if (cycle_.rewind && cycling()) {
        cycle_.rewind = false;
        if (const auto w = rewound(g.changes)) {
            cycle_.offset = w->begin;
            cycle_.windowEnd = w->end;
            cycle_.wraps = false;
        }
    }
    g.window = window();
    g.iterationsPerPass = 1;
    return g;
}

std::optional<Window> ReuseWindows::rewound(ImageChanges& changes) {
    std::vector<std::uint32_t> left = reference_.signatures;
    for (std::size_t p = 0; p < left.size(); ++p)
        if (p < cycle_.measured.size() && cycle_.measured[p])
            left[p] = ReusePlan::kNotMeasured;
    const auto w =
        plan_.next(left, 0, std::max(cycle_.ranges, slot_->launchesPerImage()), cycle_.gap);
    if (w && w->end - w->begin > cycle_.ranges) { // a larger image, between groups
        cycle_.ranges = w->end - w->begin;
        largestImage_ = std::max(largestImage_, cycle_.ranges);
        changes.push_back(ImageChange{cycle_.ranges});
    }
    return w;
}

void ReuseWindows::recorded(Shared& shared, const std::vector<std::int64_t>& members) {
    std::vector<std::uint32_t> touched;
    for (std::int64_t m : members) {
        if (m < 0)
            continue;
        const core::LaunchInfo& info = shared.records[m];
        const auto sig = signatureOf_.find(m);
        if (info.values.empty() || info.replay == ReplayStatus::Unmatched ||
            sig == signatureOf_.end())
            continue;
        plan_.addSample(sig->second, static_cast<std::size_t>(m));
        touched.push_back(sig->second);
        if (info.position >= 0 && static_cast<std::size_t>(info.position) < cycle_.measured.size())
            cycle_.measured[static_cast<std::size_t>(info.position)] = true;
    }
    if (splitDisagreeing(shared, touched))
        cycle_.rewind = true;
}

// ---- windows and cycles -----------------------------------------------------------------------

IterationVerdict ReuseWindows::iterationEnded(Shared& shared, const IterationFacts& given) {
    IterationVerdict v;
    IterationFacts facts = given;
    // What the strategy does about a dropped group: no group open, none to restart.
    const auto planned = [&] {
        if (v.dropGroup)
            facts.inGroup = facts.restartPending = false;
        plan(shared, facts, v.changes);
        return v;
    };
    if (phase_ == Phase::Verifying) {
        phase_ = Phase::Measuring;
        if (iteration_.families != verifyFamilies_) {
            // The second iteration was not the steady one after all: the cycle starts again on
            // an iteration that launches what the one before it did.
            core::log().info("libroofline: the second iteration differs from the third: the "
                             "repeated-launch cycle waits for a steady iteration");
            v.dropGroup = true;
            dropCycle();
            unsteady_ = 0;
            return planned();
        }
    }
    const bool chained = std::exchange(cycle_.chained, false);
    if (facts.groupCompleted && !chained) {
        if (advance(shared, v.changes)) {
            covered_.whole = true;
            covered_.windows = cycle_.windows;
        }
    } else if (facts.inGroup && !facts.passStarted && facts.launches <= cycle_.offset) {
        // The iteration ended before the window: not the reference's shape. The cycle ends
        // without reused records (those of the windows completed so far stay); a later steady
        // iteration starts another.
        core::log().warn("libroofline: an iteration launched only {} kernels, none inside the "
                         "replay window that starts at launch {}: the repeated-launch cycle "
                         "starts again on a later iteration",
                         facts.launches, cycle_.offset);
        v.dropGroup = true;
        dropCycle();
        // Its records are of steady iterations (pass 0 ran none of this one's launches; a later
        // pass that did was checked launch by launch against pass 0's): what its passes
        // collected stands for the stop -- a job whose last iteration evaluates -- unless
        // another cycle begins now or later.
        const bool keep = cyclesDone_ == 0 && !facts.firstPassIn;
        planned();
        v.keepDropped = keep && !cycling();
        return v;
    }
    return planned();
}

void ReuseWindows::dropCycle() {
    phase_ = Phase::Searching;
    cycle_.chained = false;
    cycle_.wraps = false;
    cycle_.tailBegin = Window::kOpen;
    cycle_.offset = 0;
    cycle_.windowEnd = 0;
    // Before any cycle completed, the reference's launches stay until another cycle takes a new
    // reference: a program that ends now (a short job whose last iteration was an evaluation)
    // still gets a record of each, measured, reused or saying why not.
    if (cyclesDone_ > 0)
        reference_.launches.clear();
}

// ---- state ------------------------------------------------------------------------------------

ChooserState ReuseWindows::state(const Shared& shared) const {
    ChooserState s;
    s.holdsBack = !cycling();
    s.pending =
        cycling() || ((cyclesDone_ == 0 || phase_ == Phase::Awaiting) && !shared.limitReached());
    s.done = cyclesDone_ > 0 && phase_ == Phase::Searching;
    s.windowAt = cycle_.offset;
    s.signatures = plan_.signatures();
    return s;
}

void ReuseWindows::coverage(core::Coverage& c, bool) const {
    // Two observed iterations (a steady one), then the windows of a cycle.
    // (Each window after the first starts on the last iteration of the one before: chain().)
    const std::size_t windows = std::max<std::size_t>(covered_.windows, cycle_.windows);
    c.launchesPerImage = std::max<std::uint64_t>(c.launchesPerImage, largestImage_);
    // (A window across the iteration's end takes one iteration more than its passes.)
    c.windows = windows;
    c.windowAcrossEnd = cycle_.wrapped;
    c.signatures = plan_.signatures();
    c.iterationsNeeded =
        2 + (windows == 0 ? 0
                          : 1 + windows * (std::max<std::size_t>(1, c.passes) - 1) +
                                (cycle_.wrapped ? 1 : 0));
    c.launchesCovered = covered_.whole ? c.launchesPerIteration
                                       : launchesCoveredBy(covered_.offsets, c.launchesPerIteration,
                                                           c.launchesPerImage);
}

void ReuseWindows::dropProvisional(Shared& shared) {
    std::vector<std::int64_t> members;
    for (const auto& [m, sig] : provisional_)
        members.push_back(m);
    shared.records.supersede(members);
    provisional_.clear();
}

// A cycle cut short by the stop -- or dropped before any cycle completed -- still gives every
// launch of its reference a record: reused where its signature has samples, else saying why not.
void ReuseWindows::finish(Shared& shared) {
    if (!provisional_.empty()) { // a dropped group's records stand: samples of their signatures
        std::vector<std::int64_t> members;
        signatureOf_.clear();
        for (const auto& [m, sig] : provisional_) {
            members.push_back(m);
            signatureOf_[m] = sig;
        }
        provisional_.clear();
        recorded(shared, members);
    }
    if (!cycling() && reference_.launches.empty())
        return;
    try {
        emitReused(shared);
    } catch (...) {
        // out of memory: those records are missing, as unmeasured launches are
    }
    phase_ = Phase::Searching;
}

} // namespace roofline::collect
