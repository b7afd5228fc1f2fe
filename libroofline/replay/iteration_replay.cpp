#include "replay/iteration_replay.hpp"
#include "collect/notes.hpp"
#include "replay/plain_windows.hpp"

#include "core/log.hpp"

#include <algorithm>
#include <utility>

namespace roofline::collect {
IterationReplay::Device::Device(IterationReplay& o, DeviceSlot& slot)
    : owner(&o), replay(slot), checker(makePassChecker(o.aligned_, slot)) {
    if (o.reuse_) // only with a chooser to make
        windows = o.makeReuse_(o.shared_.config, o.serials_, slot);
    else
        windows = std::make_unique<PlainWindows>(slot);
}

IterationReplay::IterationReplay(Shared& shared, std::vector<DeviceSlot*> slots,
                                 MakeReuseChooser makeReuse)
    : Strategy(shared, std::move(slots)), makeReuse_(std::move(makeReuse)) {
    const CollectorConfig& config = shared_.config;
    aligned_ = config.alignedPasses > 0 && config.alignFromStart;
    if (aligned_)
        passes_ = config.alignedPasses;
    reuse_ = config.reuses() && shared_.level == Level::Counters && makeReuse_;
    for (DeviceSlot* s : slots_)
        devices_.push_back(std::make_unique<Device>(*this, *s));
    if (config.windowsOutsideSteps && shared_.level == Level::Counters)
        outside_ = std::make_unique<Windows>(
            shared_, slots_.size(), "launches no step covers",
            [this](DeviceSlot& s, bool last) { return recordOutside(s, last); },
            Windows::OnFailure::StopWindows);
}

IterationReplay::~IterationReplay() = default;

// ---- the program --------------------------------------------------------------------------------

void IterationReplay::iterationBegins() {
    for (auto& dp : devices_) {
        Device& d = *dp;
        if (!d.stepsBegun)
            stepsBegin(d); // windows are over: the profiler as iteration replay holds it
        PassSchedule& schedule = d.replay.schedule;
        if (d.replay.slot->failed)
            continue;
        schedule.iterationBegins();
        d.lastBetween = std::exchange(d.between, 0);
        d.placement.iterationBegins();
        d.windows->iterationBegins();
        if (schedule.passOpen())
            continue; // a pass spanning several iterations goes on
        if (!schedule.inGroup()) {
            if (!d.replay.mayBeginGroup(shared_, d.windows->state(shared_).holdsBack))
                continue;
            GroupStart g = d.windows->nextGroup(shared_, schedule.restartPending());
            if (g.complete) { // every launch of the steady iteration has its record
                changeImage(*d.replay.slot, g.changes);
                continue;
            }
            beginGroup(d, g);
        }
        schedule.startOfIteration(d);
    }
}

void IterationReplay::launch(DeviceSlot& s, const Launch& l, const Stack& stack) {
    Device& d = device(s);
    d.launch = &l;
    d.stack = &stack;
    if (!shared_.model.inside()) {
        const char* why = nullptr;
        if (outside_ && outsideWindowed(d, why)) {
            outside_->launch(s, l, stack);
            return;
        }
        // Between iterations: profiled only while a pass spans iterations (its range must be
        // accounted for); a record of its own, lent its counters at the stop.
        ++d.between;
        keepOutside(l, stack, why);
        if (!s.failed)
            d.replay.schedule.launchBetween(s.launchesInImage(), d);
        return;
    }
    d.placement.launch(l, stack, shared_.model.iterationIndex(stack));
    d.windows->observe(shared_, l, stack, d.replay.schedule.launches());
    d.placing = true;
    d.replay.schedule.launch(s.launchesInImage(), d);
    d.placing = false;
}

void IterationReplay::iterationEnds() {
    // What one iteration launches (the first one may differ: not counted as the steady one).
    shared_.model.countLaunches(devices_[0]->replay.schedule.launches());
    const CollectorConfig& config = shared_.config;
    for (auto& dp : devices_) {
        Device& d = *dp;
        DeviceSlot& s = *d.replay.slot;
        if (s.failed)
            continue;
        PassSchedule& schedule = d.replay.schedule;
        d.windows->iterationObserved(config, schedule.inGroup());
        // The replay helper keeps one iteration per pass.
        if (schedule.iterationEnds(s.launchesInImage(), schedule.launches(),
                                   {config.options.iterationsPerPass, !shared_.helperActive}, d))
            endIteration(d);
    }
}

// The iteration's passes are handled: the window moves on (a completed group), or is given up.
void IterationReplay::endIteration(Device& d) {
    DeviceSlot& s = *d.replay.slot;
    PassSchedule& schedule = d.replay.schedule;
    if (schedule.completedThisIteration())
        d.placement.windowDone();
    IterationFacts facts;
    facts.launches = schedule.launches();
    facts.groupCompleted = schedule.completedThisIteration();
    facts.inGroup = schedule.inGroup();
    facts.passStarted = schedule.startedThisIteration();
    facts.restartPending = schedule.restartPending();
    facts.iterationsPerPass = schedule.iterationsPerPass();
    facts.launchesBefore = d.lastBetween;
    facts.passes = passes_;
    facts.firstPassIn = schedule.firstPassThisIteration();
    facts.cycleBegins = [this](const std::vector<std::string>& kernels) {
        anticipateTensorMetrics(kernels);
        return passes_;
    };
    // Loops driven by needsPass() (a benchmark's cases) have no steady launch count.
    facts.steadyShape =
        shared_.model.drivenByHelper() || schedule.launches() == shared_.model.steadyLaunches();
    const IterationVerdict v = d.windows->iterationEnded(shared_, facts);
    if (v.dropGroup) {
        // A group whose later passes are still due: its pass-0 records go (a later cycle
        // measures those launches again) -- or keep what its passes collected, when the chooser
        // says so (keepCutShort) -- and a fresh profiler takes CUPTI's user replay back to pass 0,
        // also when a pass is open (a window across the iteration's end).
        const bool midGroup = schedule.inGroup() && (schedule.pass() > 0 || schedule.passOpen());
        if (!v.keepDropped || !keepCutShort(d, false)) {
            d.replay.stopPass();
            d.replay.abandon(shared_);
        }
        schedule.cancelRestart();
        if (midGroup)
            s.guard([&] { s.recreate(firstConfig()); });
    }
    if (!v.mismatch.empty())
        d.replay.noteMismatch(shared_, v.mismatch);
    changeImage(s, v.changes);
}

// The image changes a chooser asked for, in order.
void IterationReplay::changeImage(DeviceSlot& s, const ImageChanges& changes) {
    for (const ImageChange& c : changes)
        if (s.backend && (c.launches > 0 || !s.backend->released()))
            s.guard([&] { s.backend->release(c.launches * s.rangesPerLaunch); });
}

// ---- what the schedule emits ------------------------------------------------------------------

// A window inside the iteration starts its passes where the same launches ran before it
// (WindowPlacement); a group whose pass 0 ran on an odd iteration starts again.
bool IterationReplay::Device::mayStartWindow(std::size_t begin, std::size_t pass) {
    switch (placement.place(begin, pass, owner->shared_.model.drivenByHelper())) {
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
                     begin, placement.waited());
    replay.abandon(owner->shared_);
    replay.slot->recreate(owner->firstConfig());
    return false;
}

// A launch that occupies the next auto range of the open pass (inside the iteration or, for passes
// spanning iterations, between them): pass 0 makes its record (when admitted) and expects it in
// the later passes.
void IterationReplay::Device::measure(std::size_t range, std::size_t position, bool inside) {
    DeviceSlot& s = *replay.slot;
    if (s.failed)
        return;
    const std::size_t pass = replay.schedule.pass();
    if (s.rangesPerLaunch > 1) // the flush kernel's range comes first, in every pass
        s.backend->flushBeforeLaunch(launch->stream);
    checker->launch(pass, range, launch->identity());
    if (pass == 0)
        s.members.push_back(owner->record(*this, position, inside));
}

// Pass 0's launch at `position`: its record when the window chooser admits it.
std::int64_t IterationReplay::record(Device& d, std::size_t position, bool inside) {
    const Admission a = d.windows->admit(shared_, *d.launch, *d.stack, position, inside);
    if (!a.admitted)
        return -1;
    const std::int64_t m = shared_.addLaunch(*d.launch, *d.stack);
    core::LaunchInfo& record = shared_.records[m];
    // Reuse: a place the cycle's reference admitted is measured in this window even where this
    // iteration's own scopes are not what the filters ask for (`--nvtx-include 'Train step 5/'`
    // picks step 5, its windows run on steps 6, 7, ...). The record is the reference's launch at
    // that place -- its scope and iteration -- as the reused ones are: one profile describes one
    // step.
    if (const core::LaunchInfo* reference = a.reference) {
        record.scopePath = reference->scopePath;
        record.scopePathRaw = reference->scopePathRaw;
        record.iteration = reference->iteration;
        // Measured where the framework named nothing (a profiler of the program's own held
        // PyTorch's operator ranges then): the reference's operator and module.
        if (record.op.empty() && record.module.empty()) {
            record.op = reference->op;
            record.phase = reference->phase;
            record.module = reference->module;
            record.shapes = reference->shapes;
        }
    }
    record.position = static_cast<std::int64_t>(position);
    return m;
}

void IterationReplay::beginGroup(Device& d, const GroupStart& g, bool chained) {
    changeImage(*d.replay.slot, g.changes);
    d.replay.beginGroup(shared_, g.window, g.iterationsPerPass, chained);
    d.checker->groupBegins();
    d.placement.groupBegins();
}

void IterationReplay::startPass(Device& d) {
    // A group that starts again (its profiler was stale) is never the profile's completion.
    d.replay.startPass(shared_, firstConfig(),
                       [&] { beginGroup(d, d.windows->nextGroup(shared_, true)); });
}

void IterationReplay::endPass(Device& d) {
    DeviceSlot& s = *d.replay.slot;
    PassSchedule& schedule = d.replay.schedule;
    bool completed = false;
    s.guard([&] {
        const bool all = s.backend->stop();
        schedule.passStopped();
        const bool groupDone = d.checker->groupEnds(all);
        if (!groupDone && s.stale()) { // later passes need a new profiler: restart
            d.replay.abandon(shared_);
            s.reenableIfStale(firstConfig());
            return;
        }
        d.checker->passEnded(schedule.pass(), schedule.ranges());
        const auto& members = s.members;
        if (schedule.pass() == 0 && !groupDone &&
            std::none_of(members.begin(), members.end(), [](std::int64_t m) { return m >= 0; })) {
            // No launch of this pass 0 was admitted (filters, launch skip, worker threads outside
            // the scopes): its later passes would measure nothing, and would spend iterations
            // whose launches a filter may admit. The group ends here; the next iteration starts
            // a new one (on a fresh profiler: CUPTI's replay back at pass 0). A loop driven by
            // needsPass() alone stops here: its region admits nothing.
            ++shared_.tally.emptyGroups;
            d.replay.abandon(shared_);
            schedule.cancelRestart(); // nothing to redo: needsPass() does not wait for it
            s.recreate(firstConfig());
            return;
        }
        if (schedule.pass() == 1 &&
            d.replay.firstIterationDiffers(shared_, d.checker->difference(), firstConfig()))
            return;
        if (switchToAligned(d))
            return;
        d.checker->advance(s, schedule.pass(), all, shared_.tally);
        schedule.nextPass();
        if (!groupDone)
            return;
        completeGroup(d);
        if (d.redo) { // more counters now, or launches lost: the same window again
            d.redo = false;
            schedule.measureAgain();
            return;
        }
        schedule.groupCompleted();
        completed = true;
    });
    if (completed && d.placing)
        chainGroup(d);
}

void IterationReplay::chainGroup(Device& d) {
    DeviceSlot& s = *d.replay.slot;
    PassSchedule& schedule = d.replay.schedule;
    if (s.failed || schedule.inGroup() || schedule.restartPending() ||
        !d.replay.mayBeginGroup(shared_, d.windows->state(shared_).holdsBack))
        return;
    const std::optional<GroupStart> g = d.windows->chain(shared_, schedule.launches() - 1);
    if (!g)
        return;
    d.placement.windowDone();
    beginGroup(d, *g, true);
}

// Every pass is in: the values into the records, the verdicts with them; then tensor counters by
// detection and the window chooser's samples.
void IterationReplay::completeGroup(Device& d) {
    DeviceSlot& s = *d.replay.slot;
    PassChecker& checker = *d.checker;
    std::vector<MemberValues> values = checker.complete(s, s.members.size());
    const bool again = measureAgain(d);
    if (checker.anyIssue() && !again) {
        ++shared_.tally.mismatchedGroups;
        core::log().warn("libroofline: {}", checker.firstIssue());
    }
    Tally scratch; // a group measured again: its verdicts are not the profile's
    recordValues(d, values, again ? scratch : shared_.tally);
    if (inferTensorMetrics(s) && !again) {
        // Its MMA work needs tensor counters this window lacked: measured again with them. Until
        // then its records stay, partial -- the stop keeps them if it comes first.
        d.redo = true;
        d.previous = s.members;
        d.previousLost = false;
        // What it shows may widen the window.
        d.windows->groupCompleted(shared_, completed(d, CompletedGroup::Outcome::AgainForCounters));
        for (std::int64_t m : s.members)
            if (m >= 0)
                appendNote(shared_.records[m].note,
                           "partial: its window was to be measured again with the tensor "
                           "counters its MMA work needs, and the profile stopped first");
    } else if (again) {
        inferTensorMetrics(s); // the window is measured again anyway, with them
    }
    if (!d.redo)
        d.windows->groupCompleted(shared_, completed(d, CompletedGroup::Outcome::Recorded));
    s.members.clear();
    ++shared_.tally.groupsCompleted;
    d.checker->done(s); // the backend fresh for the next group
}

void IterationReplay::recordValues(Device& d, std::vector<MemberValues>& values, Tally& tally,
                                   const std::string& note) {
    const auto& members = d.replay.slot->members;
    for (std::size_t i = 0; i < members.size() && i < values.size(); ++i) {
        if (members[i] < 0)
            continue; // a range of a launch the filters left out
        core::LaunchInfo& info = shared_.records[members[i]];
        MemberValues& v = values[i];
        info.range = v.range;
        info.chunk = v.chunk;
        if (!v.values.empty())
            info.values = std::move(v.values);
        appendNote(info.note, v.note);
        if (d.replay.mismatch()) {
            appendNote(info.note, d.replay.mismatchNote());
            info.replay = ReplayStatus::Differs;
        }
        applyVerdict(info, d.checker->verdict(i), d.checker->note(i), tally);
        if (info.replay != ReplayStatus::Unmatched) // else its counters are gone, and it says why
            appendNote(info.note, note);
    }
}

CompletedGroup IterationReplay::completed(const Device& d, CompletedGroup::Outcome outcome) const {
    const PassSchedule& schedule = d.replay.schedule;
    return CompletedGroup{outcome, &d.replay.slot->members, schedule.window(),
                          schedule.iterationsPerPass()};
}

// A later pass did not run some of pass 0's launches (one that runs every step included): it ran
// in an iteration that launched other kernels there -- one that also validated, a data-dependent
// branch -- so the window's positions held other work. Those launches would have no values: the
// window is measured again from the next iteration, up to kLostRetries times in a row; after that
// they keep their notes (the launch is not in every iteration).
bool IterationReplay::measureAgain(Device& d) {
    const auto& members = d.replay.slot->members;
    bool lost = false;
    for (std::size_t i = 0; i < members.size() && !lost; ++i)
        lost = members[i] >= 0 && d.checker->verdict(i) == ReplayVerdict::Unmatched;
    shared_.records.supersede(d.previous); // an earlier attempt: this one replaces it
    d.previous.clear();
    if (!lost || d.retries >= kLostRetries) {
        d.retries = 0;
        return false;
    }
    ++d.retries;
    ++shared_.tally.windowsMeasuredAgain;
    d.previous = members; // kept until the next attempt completes
    d.previousLost = true;
    d.redo = true;
    core::log().info("libroofline: {}; the window is measured again on the next iteration "
                     "(attempt {} of {})",
                     d.checker->firstIssue(), d.retries, kLostRetries);
    return true;
}

// Positional replay, a replayed pass just ended: when it ran other kernels than pass 0 at some
// position (a launch inserted or left out: every later position of the pass is shifted), the
// session switches to aligned replay, where such a launch costs only itself, and measures the
// group again. Data-dependent grids alone do not switch (their values are kept either way).
bool IterationReplay::switchToAligned(Device& d) {
    DeviceSlot& s = *d.replay.slot;
    if (aligned_ || !shared_.config.alignAvailable || d.replay.schedule.pass() == 0 ||
        !d.checker->outOfStep())
        return false;
    std::size_t passes = 0;
    s.guard([&] { passes = s.backend->prepareAligned(); });
    if (s.failed || passes == 0 || s.backend->configurations() < 2)
        return false;
    aligned_ = true;
    passes_ = passes;
    core::log().info("libroofline: {}. Iteration replay switches to aligned passes (one "
                     "configuration per pass, {} passes, each pass's launches matched with pass "
                     "0's) and measures this replay group again (ROOFLINE_ALIGN_PASSES)",
                     d.checker->difference(), passes_);
    d.replay.abandon(shared_); // measured again, aligned
    changeEveryBackend(s, [&](DeviceSlot& other) {
        other.backend->prepareAligned();
        other.configs = other.backend->configurations();
        other.recreate(firstConfig()); // at the first aligned configuration
        device(other).checker = makePassChecker(true, other);
    });
    return true;
}

void IterationReplay::metricsAdded(DeviceSlot& other) {
    if (!aligned_)
        return;
    device(other).windowsReady = false; // at configuration 1 from here
    passes_ = other.backend->prepareAligned();
    other.configs = other.backend->configurations();
    other.backend->selectConfiguration(1);
    device(other).checker->configurationsChanged(other.configs);
}

// ---- the rest of the strategy -----------------------------------------------------------------

void IterationReplay::graphLaunch(DeviceSlot& s) {
    closeOutside(s);
    device(s).replay.graphLaunched(shared_, firstConfig());
}

void IterationReplay::renewStaleProfiler(DeviceSlot& s) {
    if (outside_ && outside_->isOpen(s)) {
        outside_->renewStaleProfiler(s); // its passes relaunched on a fresh profiler
        return;
    }
    device(s).replay.renewStaleProfiler(shared_, firstConfig());
}

bool IterationReplay::profiling(const DeviceSlot& s) const {
    return (outside_ && outside_->isOpen(s) && !s.failed) || device(s).replay.profiling();
}

void IterationReplay::quiesce(DeviceSlot& s) {
    device(s).replay.quiesce(shared_);
}

} // namespace roofline::collect
