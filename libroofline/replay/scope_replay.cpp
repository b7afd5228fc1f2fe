#include "replay/scope_replay.hpp"
#include "collect/notes.hpp"

#include "core/log.hpp"
#include "core/scope_names.hpp"

namespace roofline::collect {

ScopeReplay::ScopeReplay(Shared& shared, std::vector<DeviceSlot*> slots)
    : Strategy(shared, std::move(slots)) {
    for (DeviceSlot* s : slots_)
        devices_.push_back(std::make_unique<Device>(*this, *s));
}

ScopeReplay::~ScopeReplay() = default;

void ScopeReplay::iterationBegins() {
    for (auto& dp : devices_) {
        Device& d = *dp;
        PassSchedule& schedule = d.replay.schedule;
        if (d.replay.slot->failed)
            continue;
        schedule.iterationBegins();
        d.launches = 0;
        if (schedule.passOpen())
            continue; // a pass spanning several iterations goes on
        d.scopeCount = 0;
        if (!schedule.inGroup()) {
            if (!d.replay.mayBeginGroup(shared_, false))
                continue;
            beginGroup(d);
        }
        schedule.startOfIteration(d);
    }
}

void ScopeReplay::iterationEnds() {
    shared_.model.countLaunches(devices_[0]->launches);
    const CollectorConfig& config = shared_.config;
    for (auto& dp : devices_) {
        Device& d = *dp;
        DeviceSlot& s = *d.replay.slot;
        if (s.failed)
            continue;
        d.replay.schedule.iterationEnds(s.rangesInImage(), d.scopeCount,
                                        {config.options.iterationsPerPass, !shared_.helperActive}, d);
    }
}

void ScopeReplay::beginGroup(Device& d) {
    d.replay.beginGroup(shared_, Window{});
    d.expected.clear();
    d.expectedScopes.clear();
}

void ScopeReplay::startPass(Device& d) {
    if (d.replay.startPass(shared_, 0, [&] { beginGroup(d); })) {
        d.scopeCount = 0;
        d.passKernels = 0;
    }
}

void ScopeReplay::endPass(Device& d) {
    DeviceSlot& s = *d.replay.slot;
    PassSchedule& schedule = d.replay.schedule;
    s.guard([&] {
        const bool all = s.backend->stop();
        schedule.passStopped();
        if (!all && s.stale()) { // later passes need a new profiler: restart
            d.replay.abandon(shared_);
            s.reenableIfStale(0);
            return;
        }
        if (schedule.pass() > 0 && d.scopeCount != d.expectedScopes.size())
            d.replay.noteMismatch(shared_, "pass " + std::to_string(schedule.pass()) + " opened " +
                                               std::to_string(d.scopeCount) +
                                               " scopes where pass 0 opened " +
                                               std::to_string(d.expectedScopes.size()));
        if (schedule.pass() == 1 &&
            d.replay.firstIterationDiffers(
                shared_, d.replay.mismatch() ? d.replay.mismatchNote() : std::string(), 0))
            return;
        schedule.nextPass();
        if (!all)
            return;
        if (completeGroup(d)) // more counters now: the same scopes again, from the next iteration
            schedule.measureAgain();
        else
            schedule.groupCompleted();
    });
}

void ScopeReplay::scopePushed(Stack& stack) {
    const IterationModel& model = shared_.model;
    const CollectorConfig& config = shared_.config;
    const std::size_t base = model.iterationIndex(stack);
    const std::size_t level = stack.size() - base; // 1: the iteration scope itself
    Frame& f = stack.back();
    f.records.assign(slots_.size(), -2); // -2: no CUPTI range pushed
    if (level > config.options.scopeLevels)
        return;
    if (level > 1 && config.filter.hasNvtxFilter() &&
        !config.filter.nvtxAdmits(model.views(stack), model.startEndViews()))
        return;
    // The iteration scope's range is named "<name>#<iteration in pass>" so that the iterations a
    // pass spans are distinct ranges; nested scopes are told apart by their parents.
    const std::string own = level == 1
                                ? core::uniformInstance(f.name) + "#" +
                                      std::to_string(devices_[0]->replay.schedule.passIterations())
                                : f.name;
    if (level == 1)
        iterationRangeName_ = own;
    const std::string rel =
        level == 1 ? own : iterationRangeName_ + "/" + model.path(stack, base + 1);
    for (auto& dp : devices_) {
        Device& d = *dp;
        DeviceSlot& s = *d.replay.slot;
        const PassSchedule& schedule = d.replay.schedule;
        if (s.failed || !schedule.inGroup() || !schedule.passOpen())
            continue;
        if (d.scopeCount >= s.rangesInImage()) {
            if (!d.overflowNoted) {
                d.overflowNoted = true;
                core::log().warn("an iteration opened more than {} scopes: later ones are not "
                                 "measured (raise ROOFLINE_RANGES_PER_IMAGE)",
                                 s.rangesInImage());
            }
            continue;
        }
        s.guard([&] { s.backend->pushRange(own); });
        if (s.failed)
            continue;
        f.records[s.index] = -1; // pushed; no record (replay pass)
        if (schedule.pass() == 0) {
            core::LaunchInfo info;
            info.name = level == 1 ? core::uniformInstance(f.name) : f.name;
            model.setScope(info, stack);
            info.threadId = model.thread();
            info.scopeRecord = true;
            info.kernels = 0;
            f.records[s.index] = shared_.records.add(std::move(info));
            s.members.push_back(f.records[s.index]);
            d.expectedScopes.push_back(rel);
        } else if (d.scopeCount >= d.expectedScopes.size() ||
                   d.expectedScopes[d.scopeCount] != rel) {
            d.replay.noteMismatch(shared_, "pass " + std::to_string(schedule.pass()) +
                                               " opened scope '" + rel + "' where pass 0 opened '" +
                                               (d.scopeCount < d.expectedScopes.size()
                                                    ? d.expectedScopes[d.scopeCount]
                                                    : std::string("nothing")) +
                                               "'");
        }
        ++d.scopeCount;
    }
}

void ScopeReplay::scopePopping(Frame& f) {
    for (std::size_t i = 0; i < f.records.size() && i < devices_.size(); ++i)
        if (f.records[i] != -2 && devices_[i]->replay.schedule.passOpen())
            slots_[i]->guard([&] { slots_[i]->backend->popRange(); });
}

// Every launch of the iteration belongs to the group; pass 0 counts it into its open scopes,
// later passes check it against pass 0's launch at the same position: kernel, grid and block must
// agree (the first difference marks the group, since every scope's range sums its kernels).
void ScopeReplay::launch(DeviceSlot& s, const Launch& l, const Stack& stack) {
    if (!shared_.model.inside())
        return;
    Device& d = device(s);
    ++d.launches;
    const PassSchedule& schedule = d.replay.schedule;
    if (!schedule.inGroup())
        return; // the launch count is reached
    LaunchKey key = l.identity();
    const std::size_t at = d.passKernels++;
    if (schedule.pass() == 0) {
        d.expected.push_back(std::move(key));
        for (const Frame& f : stack)
            if (s.index < f.records.size() && f.records[s.index] >= 0)
                ++shared_.records[f.records[s.index]].kernels;
        return;
    }
    if (at < d.expected.size() && sameLaunch(d.expected[at], key))
        return;
    d.replay.noteMismatch(
        shared_,
        "pass " + std::to_string(schedule.pass()) + " launch " + std::to_string(at) + " is " +
            launchText(key) + " where pass 0 launched " +
            (at < d.expected.size() ? launchText(d.expected[at]) : std::string("nothing")));
}

bool ScopeReplay::completeGroup(Device& d) {
    DeviceSlot& s = *d.replay.slot;
    int chunk = -1;
    std::vector<RangeValues> ranges = s.evaluateImage(chunk);
    assignRanges(shared_.records, s.members, ranges, chunk, ranges.size() != s.members.size(),
                 d.replay.mismatch(), [&](std::size_t i, core::LaunchInfo& info) {
                     if (i < ranges.size() && i < d.expectedScopes.size() &&
                         ranges[i].name != d.expectedScopes[i])
                         appendNote(info.note, "CUPTI named this range '" + ranges[i].name + "'");
                     if (d.replay.mismatch()) { // values kept, combined work noted
                         appendNote(info.note, d.replay.mismatchNote());
                         info.replay = ReplayStatus::Differs;
                     }
                 });
    const bool redo = inferTensorMetrics(s);
    if (redo) // measured again: these records go
        shared_.records.supersede(s.members);
    s.members.clear();
    ++shared_.tally.groupsCompleted;
    s.backend->configure(); // the same image, fresh, for the next group
    return redo;
}

void ScopeReplay::graphLaunch(DeviceSlot& s) {
    device(s).replay.graphLaunched(shared_, 0);
}

void ScopeReplay::renewStaleProfiler(DeviceSlot& s) {
    device(s).replay.renewStaleProfiler(shared_, 0);
}

bool ScopeReplay::profiling(const DeviceSlot& s) const {
    return devices_[s.index]->replay.profiling();
}

void ScopeReplay::quiesce(DeviceSlot& s) {
    device(s).replay.quiesce(shared_);
}

bool ScopeReplay::pending() const {
    const bool observedFirst = shared_.observingFirst();
    for (const auto& d : devices_) {
        const PassSchedule& schedule = d->replay.schedule;
        if (!d->replay.slot->failed && (schedule.inGroup() || schedule.restartPending() ||
                                        (observedFirst && !shared_.limitReached())))
            return true;
    }
    return false;
}

void ScopeReplay::finish() {
    for (auto& d : devices_)
        d->replay.finish(shared_, passes_);
}

} // namespace roofline::collect
