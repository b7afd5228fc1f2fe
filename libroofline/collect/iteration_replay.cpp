#include "collect/iteration_replay.hpp"
#include "collect/notes.hpp"

#include "core/log.hpp"

#include <algorithm>
#include <functional>

namespace roofline::collect {
namespace {

// One verdict rule for positional and aligned replay (VerdictTally's): a launch whose passes ran
// other kernels loses its values, one whose grid or block differed keeps them; both say why.
void applyVerdict(core::LaunchInfo& info, ReplayVerdict verdict, const std::string& note,
                  Tally& tally) {
    if (verdict == ReplayVerdict::Clean)
        return;
    appendNote(info.note, note);
    if (verdict == ReplayVerdict::Unmatched) {
        info.values.clear();
        info.chunk = -1; // not evaluated from a kept image either
        info.replay = ReplayStatus::Unmatched;
        ++tally.unmatched;
    } else {
        info.replay = ReplayStatus::Differs;
        ++tally.differing;
    }
}

} // namespace

IterationReplay::IterationReplay(Shared& shared, std::vector<DeviceSlot*> slots)
    : GroupReplay(shared, std::move(slots)), passes_(slots_.size()) {
    CollectorConfig& config = shared_.config;
    aligned_ = config.alignedPasses > 0 && config.alignFromStart;
    if (aligned_)
        config.passes = config.alignedPasses;
    reuse_ = config.reuses() && shared_.level == Level::Counters;
    if (reuse_)
        cycles_.assign(slots_.size(), ReuseCycle(config));
}

// ---- launches ---------------------------------------------------------------------------------

void IterationReplay::launch(DeviceSlot& s, const Launch& l, const Stack& stack) {
    PassGroup& g = groupOf(s);
    if (!shared_.model.inside()) {
        // Between iterations: profiled only while a pass spans iterations (its range must be
        // accounted for), never recorded.
        if (g.passOpen && !s.failed) {
            if (g.passCount == s.backend->capacity())
                endPass(g);
            else
                position(g, l, stack, false);
        }
        return;
    }
    const std::size_t idx = g.k++;
    passes_[s.index].placement.launch(l, stack, shared_.model.iterationIndex(stack));
    if (reuse_ && cycles_[s.index].observing())
        cycles_[s.index].observe(shared_, l, stack, idx, serials_);
    if (!g.group)
        return; // the group completed earlier in this iteration, or the launch count is reached
    const std::size_t capacity = s.backend->capacity();
    if (idx == g.offset && g.offset > 0 && !g.passOpen && !g.passStartedThisIteration &&
        windowInPlace(g))
        startPass(g);
    if (g.passOpen && reuse_ && idx >= cycles_[s.index].windowEnd() && g.passStartedThisIteration) {
        endPass(g); // the window ends here: later launches are not measured
        return;
    }
    if (g.passOpen && g.passCount == capacity) {
        if (g.itersPerPass == 0)
            g.itersPerPass = 1; // one iteration fills an image: cover it window by window
        endPass(g); // the image is full: this pass ends here (later launches: a later window)
    }
    if (!g.passOpen || idx < g.offset || s.failed)
        return;
    position(g, l, stack, true);
}

// A launch that occupies the next auto range of the open pass (inside the iteration scope or, for
// passes spanning iterations, between them).
void IterationReplay::position(PassGroup& g, const Launch& l, const Stack& stack, bool inside) {
    Passes& p = passes_[g.slot->index];
    const std::size_t w = g.passCount++;
    LaunchKey key = l.identity();
    if (alignedOn(g))
        p.aligned.launch(key);
    if (g.pass > 0) {
        p.replay.check(g.pass, w, key);
        return;
    }
    // Reuse: a place the cycle's reference admitted is measured in this window even where this
    // iteration's own scopes are not what the filters ask for; the record is the reference's.
    const core::LaunchInfo* reference =
        reuse_ && inside && !shared_.filtersAdmit(l, stack)
            ? cycles_[g.slot->index].referenceAdmitted(g.k - 1)
            : nullptr;
    const bool admitted =
        inside && (reference ? shared_.admitsCounted() : shared_.admits(l, stack));
    const std::int64_t m = admitted ? shared_.addLaunch(l, stack) : std::int64_t{-1};
    if (m >= 0) {
        core::LaunchInfo& record = shared_.records[m];
        if (reference) {
            record.scopePath = reference->scopePath;
            record.scopePathRaw = reference->scopePathRaw;
            record.iteration = reference->iteration;
        }
        record.position = static_cast<std::int64_t>(g.k) - 1;
        if (reuse_) {
            signature_.resize(shared_.records.size(), ReusePlan::kNotMeasured);
            signature_[static_cast<std::size_t>(m)] =
                cycles_[g.slot->index].measuredSignature(g.k - 1);
        }
    }
    g.slot->members.push_back(m);
    p.replay.expect(std::move(key));
}

// ---- iterations -------------------------------------------------------------------------------

void IterationReplay::startIteration(PassGroup& g) {
    passes_[g.slot->index].placement.iterationBegins();
    if (reuse_)
        cycles_[g.slot->index].startIteration();
}

void IterationReplay::iterationObserved(PassGroup& g) {
    if (reuse_)
        cycles_[g.slot->index].endObservation(shared_.config, g.group);
}

bool IterationReplay::holdsBack(const PassGroup& g) const {
    return reuse_ && !cycles_[g.slot->index].inCycle(); // only observed
}

bool IterationReplay::complete(PassGroup& g) {
    if (shared_.config.measureAfterComplete || shared_.helperUsed || g.restart ||
        !windowsComplete())
        return false;
    if (completedAt_ == 0) // the iteration before this one completed it
        completedAt_ = shared_.model.seen() - 1;
    completeProfile(g);
    return true; // every launch of the steady iteration has its record
}

void IterationReplay::groupBegins(PassGroup& g) {
    Passes& p = passes_[g.slot->index];
    if (reuse_)
        g.itersPerPass = 1;
    p.replay.reset();
    p.config = firstConfig();
    p.subPass = p.configPass = 0;
    p.aligned.reset();
    p.placement.groupBegins();
}

// A window inside the iteration starts its passes where the same launches ran before it
// (WindowPlacement); a group whose pass 0 ran on an odd iteration starts again.
bool IterationReplay::windowInPlace(PassGroup& g) {
    WindowPlacement& placement = passes_[g.slot->index].placement;
    switch (placement.place(g.offset, g.pass, shared_.helperUsed)) {
    case WindowPlacement::Verdict::Start:
        return true;
    case WindowPlacement::Verdict::Wait:
        return false;
    case WindowPlacement::Verdict::Restart:
        break;
    }
    core::log().info("libroofline: iteration replay: the launches before the replay window at "
                     "launch {} differed on {} iterations from those of its pass 0: the group "
                     "starts again",
                     g.offset, placement.waited());
    abandonGroup(g);
    g.slot->recreate(firstConfig());
    return false;
}

void IterationReplay::endIteration(PassGroup& g) {
    DeviceSlot& s = *g.slot;
    if (g.completedThisIteration) // the window moves on
        passes_[s.index].placement.windowDone();
    if (reuse_) {
        ReuseCycle& cycle = cycles_[s.index];
        if (g.completedThisIteration) {
            if (cycle.advance(shared_, s, g, signature_) && s.index == 0) {
                coveredWhole_ = true;
                cycleWindows_ = cycle.windows();
            }
        } else if (g.group && !g.passStartedThisIteration && g.k <= g.offset) {
            dropCycle(g); // the iteration ended before the window: not the reference's shape
        }
        // Loops driven by needsPass() (a benchmark's cases) have no steady launch count.
        cycle.afterIteration(s, g, shared_.limitReached(),
                             shared_.helperUsed || g.k == shared_.model.steadyLaunches());
    } else if (g.completedThisIteration) { // the group completed in this iteration: next window
        const std::size_t capacity = s.backend ? s.backend->capacity() : 0;
        g.offset = g.itersPerPass <= 1 && g.k > g.offset + capacity ? g.offset + capacity : 0;
    } else if (g.group && g.offset > 0 && !g.passStartedThisIteration && g.k <= g.offset) {
        noteMismatch(g, "an iteration launched only " + std::to_string(g.k) +
                            " kernels, none inside this group's window");
    }
}

// Reuse: an iteration ended before the current window began (it launched fewer kernels than the
// cycle's reference): the cycle ends without reused records; a later steady iteration starts
// another. Records of the windows completed so far stay.
void IterationReplay::dropCycle(PassGroup& g) {
    core::log().warn("libroofline: an iteration launched only {} kernels, none inside the replay "
                     "window that starts at launch {}: the repeated-launch cycle starts again on "
                     "a later iteration",
                     g.k, g.offset);
    // A group whose later passes are still due: its pass-0 records go (a later cycle measures
    // those launches again) and a fresh profiler takes CUPTI's user replay back to pass 0.
    const bool midGroup = g.group && g.pass > 0;
    abandonGroup(g);
    g.restart = false;
    if (midGroup)
        g.slot->guard([&] { g.slot->recreate(firstConfig()); });
    cycles_[g.slot->index].drop(g);
}

bool IterationReplay::morePending(const PassGroup& g) const {
    if (!reuse_)
        return false;
    const ReuseCycle& c = cycles_[g.slot->index];
    return c.inCycle() || ((c.cyclesDone() == 0 || c.awaiting()) && !shared_.limitReached());
}

// Reuse: a cycle cut short by the stop still gives the launches whose signature has samples
// their reused records.
void IterationReplay::finishGroup(PassGroup& g) {
    keepPreviousAttempt(g);
    if (!reuse_ || !cycles_[g.slot->index].inCycle())
        return;
    try {
        cycles_[g.slot->index].emitReused(shared_, signature_);
    } catch (...) {
        // out of memory: those records are missing, as unmeasured launches are
    }
    cycles_[g.slot->index].endCycle();
}

// The profile stopped while a window was to be measured again: the earlier attempt's records stay
// (the launches it lost say why), an unfinished attempt's records go, and the earlier attempt
// counts as the profile's.
void IterationReplay::keepPreviousAttempt(PassGroup& g) {
    Passes& p = passes_[g.slot->index];
    if (p.previous.empty())
        return;
    if (g.group)
        shared_.records.supersede(g.slot->members);
    ++shared_.tally.mismatchedGroups;
    for (std::int64_t m : p.previous) {
        if (m < 0)
            continue;
        const ReplayStatus status = shared_.records[m].replay;
        shared_.tally.unmatched += status == ReplayStatus::Unmatched ? 1 : 0;
        shared_.tally.differing += status == ReplayStatus::Differs ? 1 : 0;
    }
    p.previous.clear();
}

// ---- passes -----------------------------------------------------------------------------------

bool IterationReplay::groupEnds(const PassGroup& g, bool all) const {
    // Aligned replay: `all` ends the configuration; the group ends with the last one.
    return all && (!alignedOn(g) || passes_[g.slot->index].config + 1 >= g.slot->configs);
}

bool IterationReplay::passChecked(PassGroup& g, bool groupDone) {
    Passes& p = passes_[g.slot->index];
    if (g.pass > 0)
        p.replay.endPass(g.pass, g.passCount);
    const auto& members = g.slot->members;
    if (g.pass == 0 && !groupDone &&
        std::none_of(members.begin(), members.end(), [](std::int64_t m) { return m >= 0; })) {
        // No launch of this pass 0 was admitted (filters, launch skip, worker threads outside
        // the scopes): its later passes would measure nothing, and would spend iterations whose
        // launches a filter may admit. The group ends here; the next iteration starts a new one
        // (on a fresh profiler: CUPTI's replay back at pass 0). A loop driven by needsPass()
        // alone stops here: its region admits nothing.
        ++shared_.tally.emptyGroups;
        abandonGroup(g);
        g.restart = false; // nothing to redo: needsPass() does not wait for it
        g.slot->recreate(firstConfig());
        return false;
    }
    return true;
}

bool IterationReplay::differs(const PassGroup& g) const {
    return passes_[g.slot->index].replay.anyUnmatched();
}

const std::string& IterationReplay::difference(const PassGroup& g) const {
    return passes_[g.slot->index].replay.firstIssue();
}

bool IterationReplay::advance(PassGroup& g, bool all) {
    if (switchToAligned(g))
        return false;
    Passes& p = passes_[g.slot->index];
    if (alignedOn(g))
        p.aligned.endPass(g.pass, p.subPass == 0);
    ++g.pass;
    ++p.subPass;
    if (all && alignedOn(g))
        completeConfiguration(g);
    return true;
}

void IterationReplay::completeGroup(PassGroup& g) {
    if (alignedOn(g))
        completeAligned(g);
    else
        completeImage(g);
}

void IterationReplay::groupRecorded(PassGroup& g) {
    if (reuse_ && !g.redo)
        cycles_[g.slot->index].recordSamples(shared_.records, g.slot->members, signature_);
}

void IterationReplay::groupCovered(PassGroup& g) {
    if (g.slot->index != 0)
        return;
    if (g.itersPerPass > 1)
        coveredWhole_ = true;
    else
        coveredOffsets_.insert(g.offset);
}

// A later pass did not run some of pass 0's launches (one that runs every step included): it ran
// in an iteration that launched other kernels there -- one that also validated, a data-dependent
// branch -- so the window's positions held other work. Those launches would have no values: the
// window is measured again from the next iteration, up to kLostRetries times in a row; after that
// they keep their notes (the launch is not in every iteration).
bool IterationReplay::measureAgain(PassGroup& g,
                                   const std::function<ReplayVerdict(std::size_t)>& verdict,
                                   const std::string& issue) {
    Passes& p = passes_[g.slot->index];
    bool lost = false;
    for (std::size_t i = 0; i < g.slot->members.size() && !lost; ++i)
        lost = g.slot->members[i] >= 0 && verdict(i) == ReplayVerdict::Unmatched;
    shared_.records.supersede(p.previous); // an earlier attempt: this one replaces it
    p.previous.clear();
    if (!lost || p.retries >= kLostRetries) {
        p.retries = 0;
        return false;
    }
    ++p.retries;
    ++shared_.tally.windowsMeasuredAgain;
    p.previous = g.slot->members; // kept until the next attempt completes
    g.redo = true;
    core::log().info("libroofline: {}; the window is measured again on the next "
                     "iteration (attempt {} of {})",
                     issue, p.retries, kLostRetries);
    return true;
}

void IterationReplay::completeImage(PassGroup& g) {
    DeviceSlot& s = *g.slot;
    Passes& p = passes_[s.index];
    int chunk = -1;
    std::vector<RangeValues> ranges = s.evaluateImage(chunk);
    const bool again = measureAgain(
        g, [&](std::size_t i) { return p.replay.verdict(i); }, p.replay.firstIssue());
    if (p.replay.anyIssue() && !again) {
        ++shared_.tally.mismatchedGroups;
        core::log().warn("libroofline: {}", p.replay.firstIssue());
    }
    // Launches a later pass added beyond pass 0's count only add ranges at the end (auto ranges
    // are positional), which shifts nothing.
    Tally scratch; // a group measured again: its verdicts are not the profile's
    Tally& tally = again ? scratch : shared_.tally;
    assignRanges(shared_.records, s.members, ranges, chunk, ranges.size() < s.members.size(),
                 g.mismatch, [&](std::size_t i, core::LaunchInfo& info) {
                     if (g.mismatch) {
                         appendNote(info.note, g.mismatchNote);
                         info.replay = ReplayStatus::Differs;
                     }
                     applyVerdict(info, p.replay.verdict(i), p.replay.note(i), tally);
                 });
    recorded(g);
    s.backend->configure(); // the same image, fresh, for the next group
}

// Positional replay, a replayed pass just ended: when it ran other kernels than pass 0 at some
// position (a launch inserted or left out: every later position of the pass is shifted), the
// session switches to aligned replay, where such a launch costs only itself, and measures the
// group again. Data-dependent grids alone do not switch (their values are kept either way).
bool IterationReplay::switchToAligned(PassGroup& g) {
    CollectorConfig& config = shared_.config;
    DeviceSlot& s = *g.slot;
    const ReplayCheck& replay = passes_[s.index].replay;
    if (aligned_ || !config.alignAvailable || g.pass == 0 || !replay.anyUnmatched())
        return false;
    std::size_t passes = 0;
    s.guard([&] { passes = s.backend->prepareAligned(); });
    if (s.failed || passes == 0 || s.backend->configurations() < 2)
        return false;
    config.alignedPasses = passes;
    aligned_ = true;
    config.passes = config.alignedPasses;
    core::log().info("libroofline: {}. Iteration replay switches to aligned passes (one "
                     "configuration per pass, {} passes, each pass's launches matched with pass "
                     "0's) and measures this replay group again (ROOFLINE_ALIGN_PASSES)",
                     replay.firstIssue(), config.passes);
    abandonGroup(g); // measured again, aligned
    changeEveryBackend(s, [&](DeviceSlot& other) {
        other.backend->prepareAligned();
        other.configs = other.backend->configurations();
        other.recreate(firstConfig()); // at the first aligned configuration
    });
    return true;
}

void IterationReplay::metricsAdded(DeviceSlot& other) {
    if (!aligned_)
        return;
    shared_.config.alignedPasses = other.backend->prepareAligned();
    other.configs = other.backend->configurations();
    other.backend->selectConfiguration(1);
    shared_.config.passes = shared_.config.alignedPasses;
}

// Aligned replay: every pass of the current configuration is in. Its image holds exactly those
// passes' launches; their values go to the pass-0 launches the alignment matched them to, and the
// next pass runs the next configuration.
void IterationReplay::completeConfiguration(PassGroup& g) {
    DeviceSlot& s = *g.slot;
    Passes& p = passes_[s.index];
    shared_.tally.dropped += s.backend->decode();
    p.aligned.addConfiguration(p.configPass, s.backend->evaluate());
    p.subPass = 0;
    p.configPass = g.pass;
    if (p.config + 1 < s.configs) {
        s.enabled(); // a fresh profiler: loads from here on count again
        s.backend->selectConfiguration(++p.config);
    }
}

// Aligned replay: every configuration is in. Counter-data images hold one configuration each, so
// records carry evaluated values only (no image reference).
void IterationReplay::completeAligned(PassGroup& g) {
    DeviceSlot& s = *g.slot;
    Passes& p = passes_[s.index];
    const bool again = measureAgain(
        g, [&](std::size_t i) { return p.aligned.verdict(i); }, p.aligned.firstIssue());
    if (p.aligned.anyIssue() && !again) {
        ++shared_.tally.mismatchedGroups;
        core::log().warn("libroofline: {}", p.aligned.firstIssue());
    }
    Tally scratch; // a group measured again: its verdicts are not the profile's
    for (std::size_t i = 0; i < s.members.size(); ++i) {
        if (s.members[i] < 0)
            continue;
        core::LaunchInfo& info = shared_.records[s.members[i]];
        info.chunk = -1;
        info.range = static_cast<std::uint32_t>(i);
        const ReplayVerdict verdict = p.aligned.verdict(i);
        if (verdict != ReplayVerdict::Unmatched)
            info.values = p.aligned.takeValues(i);
        applyVerdict(info, verdict, p.aligned.note(i), again ? scratch : shared_.tally);
    }
    recorded(g);
    p.config = firstConfig();
    p.subPass = p.configPass = 0;
    s.enabled();                              // a fresh profiler: loads from here on count again
    s.backend->selectConfiguration(p.config); // the first configuration, fresh, for the next group
}

// ---- completion and coverage ------------------------------------------------------------------

// Positional replay (no reuse): completed groups cover every launch of the steady iteration.
// Measuring more would give the same launches more records and cost the program as much as the
// first profile did.
bool IterationReplay::windowsComplete() const {
    if (reuse_ || !shared_.model.anyCounted())
        return false;
    const std::uint64_t L = shared_.model.steadyLaunches();
    return coveredWhole_ || (L > 0 && launchesCovered(L) >= L);
}

// Of an iteration of `launches` launches, those the completed groups' windows cover.
std::uint64_t IterationReplay::launchesCovered(std::uint64_t launches) const {
    if (coveredWhole_)
        return launches;
    const std::uint64_t cap = std::max<std::uint64_t>(1, slots_[0]->capacity);
    std::uint64_t covered = 0;
    for (std::size_t offset : coveredOffsets_)
        if (offset < launches)
            covered += std::min<std::uint64_t>(cap, launches - offset);
    return covered;
}

// The profile is complete: the device's range profiler is released (its counter-data image and
// CUPTI's per-range state with it) and nothing more is measured.
void IterationReplay::completeProfile(PassGroup& g) {
    g.offset = 0;
    DeviceSlot& s = *g.slot;
    if (s.backend && !s.backend->released())
        s.guard([&] { s.backend->release(0); });
}

// At an iteration's end: every launch of the steady iteration has its record and no replay group
// or reuse cycle is in progress or waiting. Graph launches keep getting records of their own,
// launch by launch, so a program that launches graphs is never done.
bool IterationReplay::done() const {
    if (shared_.level != Level::Counters || shared_.config.measureAfterComplete ||
        shared_.helperUsed || shared_.tally.graphLaunches > 0 || shared_.limitReached())
        return false;
    for (const PassGroup& g : groups_) {
        if (!g.slot->usable())
            continue;
        if (g.group || g.passOpen || g.restart || g.redo)
            return false;
        if (reuse_) {
            const ReuseCycle& c = cycles_[g.slot->index];
            if (c.cyclesDone() == 0 || c.inCycle() || c.awaiting())
                return false;
        } else if (!windowsComplete()) {
            return false;
        }
    }
    return true;
}

void IterationReplay::completed() {
    for (PassGroup& g : groups_)
        if (g.slot->usable())
            completeProfile(g);
}

void IterationReplay::coverage(core::Coverage& c) const {
    const IterationModel& model = shared_.model;
    if (model.ended() == 0 || slots_[0]->capacity == 0)
        return;
    c.known = true;
    c.launchesPerIteration = model.steadyLaunches();
    c.launchesVaried = model.launchesVaried();
    c.rangesPerImage = slots_[0]->capacity;
    c.passes = shared_.config.passes;
    c.iterationsPerPass = std::max<std::size_t>(1, groups_[0].itersPerPass);
    c.iterationsRun = model.ended();
    c.firstIterationSkipped = !shared_.firstIterationIssue.empty();
    const std::uint64_t L = c.launchesPerIteration,
                        cap = std::max<std::uint64_t>(1, c.rangesPerImage);
    c.iterationsNeeded =
        c.iterationsPerPass > 1 ? c.passes * c.iterationsPerPass : (L + cap - 1) / cap * c.passes;
    if (reuse_) // two observed iterations (a steady one), then the windows of a cycle
        c.iterationsNeeded =
            2 + std::max<std::size_t>(cycleWindows_, cycles_[0].windows()) * c.passes;
    else if (shared_.observeFirst)
        ++c.iterationsNeeded; // the first iteration is observed only
    c.launchesCovered = launchesCovered(L);
}

} // namespace roofline::collect
