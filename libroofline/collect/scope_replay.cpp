#include "collect/scope_replay.hpp"
#include "collect/notes.hpp"

#include "core/log.hpp"
#include "core/scope_names.hpp"

namespace roofline::collect {

ScopeReplay::ScopeReplay(Shared& shared, std::vector<DeviceSlot*> slots)
    : GroupReplay(shared, std::move(slots)), scopes_(slots_.size()) {}

void ScopeReplay::groupBegins(PassGroup& g) {
    Scopes& c = scopes_[g.slot->index];
    c.expected.clear();
    c.expectedScopes.clear();
}

void ScopeReplay::scopePushed(Stack& stack) {
    const IterationModel& model = shared_.model;
    const CollectorConfig& config = shared_.config;
    const std::size_t base = model.iterationIndex(stack);
    const std::size_t level = stack.size() - base; // 1: the iteration scope itself
    Frame& f = stack.back();
    f.records.assign(slots_.size(), -2); // -2: no CUPTI range pushed
    if (level > config.scopeLevels)
        return;
    if (level > 1 && config.filter.hasNvtxFilter() &&
        !config.filter.nvtxAdmits(model.views(stack), model.startEndViews()))
        return;
    // The iteration scope's range is named "<name>#<iteration in pass>" so that the iterations a
    // pass spans are distinct ranges; nested scopes are told apart by their parents.
    const std::string own =
        level == 1 ? core::uniformInstance(f.name) + "#" + std::to_string(groups_[0].passIters)
                   : f.name;
    if (level == 1)
        iterationRangeName_ = own;
    const std::string rel =
        level == 1 ? own : iterationRangeName_ + "/" + model.path(stack, base + 1);
    for (PassGroup& g : groups_) {
        DeviceSlot& s = *g.slot;
        Scopes& c = scopes_[s.index];
        if (s.failed || !g.group || !g.passOpen)
            continue;
        if (g.scopeCount >= s.backend->capacity()) {
            if (!c.overflowNoted) {
                c.overflowNoted = true;
                core::log().warn("an iteration opened more than {} scopes: later ones are not "
                                 "measured (raise ROOFLINE_RANGES_PER_IMAGE)",
                                 s.backend->capacity());
            }
            continue;
        }
        s.guard([&] { s.backend->pushRange(own); });
        if (s.failed)
            continue;
        f.records[s.index] = -1; // pushed; no record (replay pass)
        if (g.pass == 0) {
            core::LaunchInfo info;
            info.name = level == 1 ? core::uniformInstance(f.name) : f.name;
            model.setScope(info, stack);
            info.threadId = model.thread();
            info.scopeRecord = true;
            info.kernels = 0;
            f.records[s.index] = shared_.records.add(std::move(info));
            s.members.push_back(f.records[s.index]);
            c.expectedScopes.push_back(rel);
        } else if (g.scopeCount >= c.expectedScopes.size() ||
                   c.expectedScopes[g.scopeCount] != rel) {
            noteMismatch(g, "pass " + std::to_string(g.pass) + " opened scope '" + rel +
                                "' where pass 0 opened '" +
                                (g.scopeCount < c.expectedScopes.size()
                                     ? c.expectedScopes[g.scopeCount]
                                     : std::string("nothing")) +
                                "'");
        }
        ++g.scopeCount;
    }
}

void ScopeReplay::scopePopping(Frame& f) {
    for (std::size_t i = 0; i < f.records.size() && i < groups_.size(); ++i)
        if (f.records[i] != -2 && groups_[i].passOpen)
            slots_[i]->guard([&] { slots_[i]->backend->popRange(); });
}

// Every launch of the iteration belongs to the group; pass 0 counts it into its open scopes,
// later passes check it against pass 0's launch at the same position: kernel, grid and block must
// agree (the first difference marks the group, since every scope's range sums its kernels).
void ScopeReplay::launch(DeviceSlot& s, const Launch& l, const Stack& stack) {
    if (!shared_.model.inside())
        return;
    PassGroup& g = groupOf(s);
    ++g.k;
    if (!g.group)
        return; // the launch count is reached
    Scopes& c = scopes_[s.index];
    LaunchKey key = l.identity();
    const std::size_t at = c.passKernels++;
    if (g.pass == 0) {
        c.expected.push_back(std::move(key));
        for (const Frame& f : stack)
            if (s.index < f.records.size() && f.records[s.index] >= 0)
                ++shared_.records[f.records[s.index]].kernels;
        return;
    }
    if (at < c.expected.size() && sameLaunch(c.expected[at], key))
        return;
    noteMismatch(
        g, "pass " + std::to_string(g.pass) + " launch " + std::to_string(at) + " is " +
               launchText(key) + " where pass 0 launched " +
               (at < c.expected.size() ? launchText(c.expected[at]) : std::string("nothing")));
}

bool ScopeReplay::passChecked(PassGroup& g, bool) {
    Scopes& c = scopes_[g.slot->index];
    if (g.pass > 0 && g.scopeCount != c.expectedScopes.size())
        noteMismatch(g, "pass " + std::to_string(g.pass) + " opened " +
                            std::to_string(g.scopeCount) + " scopes where pass 0 opened " +
                            std::to_string(c.expectedScopes.size()));
    return true;
}

bool ScopeReplay::advance(PassGroup& g, bool) {
    ++g.pass;
    return true;
}

void ScopeReplay::completeGroup(PassGroup& g) {
    DeviceSlot& s = *g.slot;
    const Scopes& c = scopes_[s.index];
    int chunk = -1;
    std::vector<RangeValues> ranges = s.evaluateImage(chunk);
    assignRanges(shared_.records, s.members, ranges, chunk, ranges.size() != s.members.size(),
                 g.mismatch, [&](std::size_t i, core::LaunchInfo& info) {
                     if (i < ranges.size() && i < c.expectedScopes.size() &&
                         ranges[i].name != c.expectedScopes[i])
                         appendNote(info.note, "CUPTI named this range '" + ranges[i].name + "'");
                     if (g.mismatch) { // values kept, combined work noted
                         appendNote(info.note, g.mismatchNote);
                         info.replay = ReplayStatus::Differs;
                     }
                 });
    recorded(g);
    s.backend->configure(); // the same image, fresh, for the next group
}

} // namespace roofline::collect
