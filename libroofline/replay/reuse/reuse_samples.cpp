// Repeated-launch reuse's samples (replay/reuse/reuse_windows.hpp): which counters tell work apart,
// signatures split when their samples disagree, and the reused records of a cycle's reference.
#include "collect/notes.hpp"
#include "replay/reuse/reuse_windows.hpp"

#include "core/demangle.hpp"
#include "core/log.hpp"
#include "core/merge.hpp"

#include <cmath>
#include <cstdio>
#include <limits>
#include <set>

namespace roofline::collect {

// A signature whose samples disagree in a work counter holds launches that look alike but do
// different work (GEMMs of one grid and different depth): each of its launches becomes a
// signature of its own (by position), the samples so far move to theirs, and the cycle goes on to
// measure the others.
bool ReuseWindows::splitDisagreeing(Shared& shared, const std::vector<std::uint32_t>& touched,
                                    const std::vector<std::int64_t>& extra) {
    if (work_.empty())
        return false;
    bool any = false;
    // A split moves samples to finer signatures, whose samples may disagree in turn.
    std::set<std::uint32_t> pending(touched.begin(), touched.end()), done;
    while (!pending.empty()) {
        const std::uint32_t sig = *pending.begin();
        pending.erase(pending.begin());
        if (!done.insert(sig).second || plan_.isSplit(sig) || plan_.isPositional(sig))
            continue; // a launch by its position: nothing finer to split it by
        const core::LaunchInfo* first = nullptr;
        std::size_t metric = work_.size();
        std::vector<std::size_t> records = plan_.samples(sig);
        for (std::int64_t m : extra) {
            const auto it = signatureOf_.find(m);
            if (m >= 0 && it != signatureOf_.end() && it->second == sig)
                records.push_back(static_cast<std::size_t>(m));
        }
        for (std::size_t i : records) {
            const core::LaunchInfo& x = shared.records[static_cast<std::int64_t>(i)];
            if (x.values.empty() || shared.records.superseded(i))
                continue;
            if (!first) {
                first = &x;
                continue;
            }
            for (std::size_t k = 0; k < work_.size() && metric == work_.size(); ++k)
                if (!sameWork(first->values, x.values, {work_[k]}))
                    metric = k;
            if (metric < work_.size())
                break;
        }
        if (metric == work_.size())
            continue;
        any = true;
        ++splits_;
        plan_.split(sig);
        // Where a record's launch goes now: by its place in the reference (its position).
        const auto to = [&](std::int64_t record) {
            const std::int64_t p = shared.records[record].position;
            if (p < 0)
                return ReusePlan::kNotMeasured;
            const std::uint32_t target = resolvedAt(sig, static_cast<std::size_t>(p));
            pending.insert(target); // its samples are checked in turn
            return target;
        };
        plan_.moveSamples(sig, [&](std::size_t i) { return to(static_cast<std::int64_t>(i)); });
        for (auto& [record, s] : signatureOf_)
            if (s == sig)
                s = to(record);
        for (std::size_t p = 0; p < reference_.signatures.size(); ++p)
            if (reference_.signatures[p] == sig) {
                reference_.signatures[p] = resolvedAt(sig, p);
                splitPositions_.insert(reference_.signatures[p]);
            }
        core::log().info("libroofline: launches of {} that look alike (kernel, grid, block, "
                         "place) did different work ({} differs between them): they are told "
                         "apart by where their scope runs, else by their position, and measured "
                         "so",
                         first ? core::demangle(first->mangledName) : std::string("a kernel"),
                         shared.config.metricNames[work_[metric]]);
    }
    return any;
}

namespace {

// Positions of the samples, for a note.
std::string positionsOf(const std::vector<const core::LaunchInfo*>& samples) {
    std::string positions;
    for (const auto* x : samples)
        positions += (positions.empty() ? "" : ", ") + std::to_string(x->position);
    return positions;
}

} // namespace

// The reference's positions that a window's record holds already, with values or without (a
// launch a later pass did not run, one measured again when the stop came): never two records of
// one launch.
std::vector<bool> ReuseWindows::positionsHeld(const Shared& shared) const {
    std::vector<bool> held(reference_.signatures.size(), false);
    const core::LaunchInfo* any = nullptr;
    for (const auto& l : reference_.launches)
        if (!l.mangledName.empty()) {
            any = &l;
            break;
        }
    if (!any)
        return held;
    for (std::size_t i = 0; i < shared.records.size(); ++i) {
        const core::LaunchInfo& r = shared.records[static_cast<std::int64_t>(i)];
        if (r.position >= 0 && static_cast<std::size_t>(r.position) < held.size() &&
            r.iteration == any->iteration && r.device == any->device &&
            !shared.records.superseded(i))
            held[static_cast<std::size_t>(r.position)] = true;
    }
    return held;
}

// Every launch of the cycle's reference iteration that no window measured gets a record with the
// mean of its signature's samples -- which agree in every work counter (or the record has no
// values and says why) -- marked as such, with how far the samples spread.
void ReuseWindows::emitReused(Shared& shared) {
    const std::vector<bool> held = positionsHeld(shared);
    for (std::size_t p = 0; p < reference_.signatures.size() && p < reference_.launches.size();
         ++p) {
        const std::uint32_t sig = reference_.signatures[p];
        if (sig == ReusePlan::kNotMeasured || cycle_.measured[p] || held[p] ||
            reference_.launches[p].mangledName.empty())
            continue;
        core::LaunchInfo info = std::move(reference_.launches[p]);
        info.name = core::demangle(info.mangledName);
        if (const int owner = plan_.foreignOwner(sig); owner >= 0) {
            info.countersRank = owner;
            appendNote(info.note, core::awaitingCountersNote(owner));
            ++shared.tally.foreign;
            shared.records.add(std::move(info));
            continue;
        }
        std::vector<const core::LaunchInfo*> samples;
        for (std::size_t i : plan_.samples(sig))
            if (i < shared.records.size() &&
                !shared.records[static_cast<std::int64_t>(i)].values.empty() &&
                !shared.records.superseded(i))
                samples.push_back(&shared.records[static_cast<std::int64_t>(i)]);
        const bool agree = sameWorkAll(samples, work_);
        if (samples.empty() && splitPositions_.count(sig) > 0) {
            appendNote(info.note, "not measured: launches that look like it (kernel, grid, block, "
                                  "place) did different work, so each is measured on its own, "
                                  "and the profile stopped before this one was (run more "
                                  "iterations)");
            ++shared.tally.reusedDiffering;
        } else if (samples.empty() && plan_.samples(sig).empty()) {
            appendNote(info.note, "not measured: the profile stopped before a launch of its "
                                  "signature was measured (run more iterations)");
        } else if (samples.empty()) {
            appendNote(info.note, "not measured: the launches of its signature measured in this "
                                  "replay have no values");
        } else if (!agree) {
            // Never the mean of different work: the profile stopped before each of these
            // launches was measured on its own.
            appendNote(info.note, "not measured: the launches of its signature that were "
                                  "measured (positions " +
                                      positionsOf(samples) +
                                      ") did different work, and the profile stopped before "
                                      "this one was measured on its own (run more iterations)");
            ++shared.tally.reusedDiffering;
        } else {
            takeSampleMean(samples, "positions " + positionsOf(samples), shared.config.metricNames,
                           info);
            ++shared.tally.reused;
        }
        shared.records.add(std::move(info));
    }
    reference_.launches.clear();
}

} // namespace roofline::collect
