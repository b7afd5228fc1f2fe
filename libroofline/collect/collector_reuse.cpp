// The collector's repeated-launch cycles (docs/design/0009-repeated-launches.md): observing
// iterations, starting and advancing cycles over a reference iteration, samples and reused
// records. The pure pieces are collect/reuse_plan, collect/observed_iteration and
// collect/repeats; this is where they meet the collector's state.
#include "collect/collector.hpp"
#include "collect/notes.hpp"

#include "core/demangle.hpp"
#include "core/log.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace roofline::collect {
// Reuse, at an iteration's end, once a profile is complete: a program that keeps showing new
// signatures stops being observed (later new kernels are not profiled; the log says so).
void Collector::stopObservingIfUnbounded(Slot& s) {
    if (s.plan.signatures() <= config_.reuseMaxSignatures || s.cyclesDone == 0 || s.cycle ||
        s.group)
        return;
    core::log().info("libroofline: {} distinct launch signatures (a grid that changes with every "
                     "iteration?): repeated launches are no longer observed, so kernels first "
                     "launched from now on are not profiled",
                     s.plan.signatures());
    s.observing = false;
    s.observed = ObservedIteration{};
    s.plan = ReusePlan(config_.reuseSamples, config_.reuseMaxGap);
    s.iterSigs.clear();
    s.iterFamilies.clear();
    s.prevFamilies.clear();
    s.iterInfo.clear();
}

// Reuse: the signature of launch `idx` of the current iteration and, while no cycle is in
// progress, what a reused record of it would need (an iteration a cycle may refer to).
void Collector::observePosition(Slot& s, const Launch& l, const Stack& stack,
                                std::size_t idx) {
    const bool in = filtersAdmit(l, stack);
    std::uint64_t instance = 0;
    const std::string* uniform = nullptr; // outside every scope, or not admitted: ""
    if (!stack.empty()) {
        const Frame& f = stack.back();
        if (f.serial == 0) { // the instance's first launch: its number and uniform path
            f.serial = ++frameSerials_;
            f.uniform = uniformPath(stack);
        }
        instance = f.serial;
        if (in)
            uniform = &f.uniform;
    }
    static const std::string none;
    const std::uint32_t scope = s.observed.scope(uniform ? *uniform : none);
    s.observed.add(l.mangledName, l.grid, l.block, l.sharedMemBytes(), scope, instance, in);
    if (s.cycle || !in)
        return;
    if (s.iterInfo.size() < idx)
        s.iterInfo.resize(idx);
    core::LaunchInfo info = launchInfo(l, stack); // demangled only if it becomes a record
    info.position = static_cast<std::int64_t>(idx);
    s.iterInfo.push_back(std::move(info));
}

// Reuse: the signature the current iteration's launch `at` is a sample of -- the reference's at
// its position, or, when it is another launch there (a data-dependent grid), its own (as
// observed) at the reference's place.
std::uint32_t Collector::measuredSignature(Slot& s, std::size_t at) {
    if (!s.cycle || at >= s.refSigs.size() || at >= s.refShapes.size() || at >= s.refLabels.size())
        return ReusePlan::kNotMeasured;
    if (s.observed.shape(at) == s.refShapes[at])
        return s.refSigs[at];
    return s.observed.signatureAt(s.plan, at, s.refLabels[at]);
}

// Reuse, at the end of an iteration with no cycle in progress: when some signature of this
// iteration lacks samples, a cycle over it starts (its first window is measured from the next
// iteration on). `unmeasured`: some launch of the iteration has a family no cycle measured.
void Collector::maybeStartCycle(Slot& s, bool unmeasured) {
    // The iteration's launch details are kept only while no cycle runs: right after one ended,
    // the next iteration is the one a new cycle refers to.
    if (s.failed || s.iterSigs.empty() || s.iterInfo.empty() || limitReached())
        return;
    // After a complete profile, a launch whose grid depends on the data has a new signature in
    // every iteration: it starts another cycle only when nothing of its family was measured (a
    // new kernel, block or scope), or profiling would never end.
    if (s.cyclesDone > 0 && !unmeasured)
        return;
    // The cycle's image holds its longest window, not a whole image's worth: CUPTI's host memory
    // grows with the ranges an image holds (~2 MiB each).
    const std::size_t ranges = s.plan.longestWindow(s.iterSigs, s.capacity);
    const auto w = s.plan.next(s.iterSigs, 0, ranges);
    if (!w)
        return;
    guard(s, [&] { s.backend->release(ranges); });
    s.cycleRanges = ranges;
    s.refSigs = s.iterSigs;
    s.refLabels = s.iterLabels;
    s.refShapes.resize(s.observed.size());
    for (std::size_t p = 0; p < s.refShapes.size(); ++p)
        s.refShapes[p] = s.observed.shape(p);
    s.refInfo = std::move(s.iterInfo);
    s.refInfo.resize(s.refSigs.size());
    s.iterInfo.clear();
    s.measuredPos.assign(s.refSigs.size(), false);
    s.cycle = true;
    s.offset = w->begin;
    s.windowEnd = w->end;
    s.windows = 1;
}

// Reuse: a window's group completed: the next window of the cycle, or the cycle's end.
void Collector::advanceCycle(Slot& s) {
    if (!s.cycle)
        return;
    const auto w = s.plan.next(s.refSigs, s.windowEnd, s.cycleRanges);
    if (w) {
        s.offset = w->begin;
        s.windowEnd = w->end;
        ++s.windows;
        return;
    }
    emitReused(s);
    s.cycle = false;
    ++s.cyclesDone;
    guard(s, [&] { s.backend->release(0); }); // nothing to measure until another cycle
    s.offset = 0;
    s.windowEnd = 0;
    if (&s == &slots_[0]) {
        coveredWhole_ = true;
        cycleWindows_ = s.windows;
    }
}

// Reuse: an iteration ended before the current window began (it launched fewer kernels than the
// cycle's reference): the cycle ends without reused records; a later steady iteration starts
// another. Records of the windows completed so far stay.
void Collector::dropCycle(Slot& s) {
    core::log().warn("libroofline: an iteration launched only {} kernels, none inside the replay "
                     "window that starts at launch {}: the repeated-launch cycle starts again on "
                     "a later iteration",
                     s.k, s.offset);
    // A group whose later passes are still due: its pass-0 records go (a later cycle measures
    // those launches again) and a fresh profiler takes CUPTI's user replay back to pass 0.
    const bool midGroup = s.group && s.pass > 0;
    abandonGroup(s);
    s.restart = false;
    if (midGroup)
        guard(s, [&] { recreate(s); });
    s.cycle = false;
    s.offset = 0;
    s.windowEnd = 0;
    s.refInfo.clear();
}

// Reuse: the completed group's launches with values are samples of their signatures.
void Collector::recordSamples(Slot& s) {
    if (!reuse_ || s.redo)
        return;
    for (std::int64_t m : s.members) {
        if (m < 0)
            continue;
        const auto i = static_cast<std::size_t>(m);
        const core::LaunchInfo& info = launches_[i];
        if (info.values.empty() || info.replay == ReplayStatus::Unmatched ||
            i >= launchSig_.size() || launchSig_[i] == ReusePlan::kNotMeasured)
            continue;
        s.plan.addSample(launchSig_[i], i);
        if (info.position >= 0 && static_cast<std::size_t>(info.position) < s.measuredPos.size())
            s.measuredPos[static_cast<std::size_t>(info.position)] = true;
    }
}

namespace {
// Counters of work done (instructions, operations): equal for launches doing the same work.
bool isWorkCounter(const std::string& metric) {
    return metric.rfind("sm__sass_thread_inst_executed", 0) == 0 ||
           metric.rfind("sm__ops_path_tensor", 0) == 0 ||
           metric.rfind("sm__inst_executed_pipe_tensor", 0) == 0;
}
} // namespace

// Reuse: every launch of the cycle's reference iteration that no window measured gets a record
// with the mean of its signature's samples, marked as such, with how far the samples spread.
void Collector::emitReused(Slot& s) {
    for (std::size_t p = 0; p < s.refSigs.size() && p < s.refInfo.size(); ++p) {
        const std::uint32_t sig = s.refSigs[p];
        if (sig == ReusePlan::kNotMeasured || s.measuredPos[p] || s.refInfo[p].mangledName.empty())
            continue;
        std::vector<const core::LaunchInfo*> samples;
        for (std::size_t i : s.plan.samples(sig))
            if (i < launches_.size() && !launches_[i].values.empty() &&
                (i >= superseded_.size() || !superseded_[i]))
                samples.push_back(&launches_[i]);
        core::LaunchInfo info = std::move(s.refInfo[p]);
        info.name = core::demangle(info.mangledName);
        info.launchIndex = launches_.size();
        if (samples.empty()) {
            appendNote(info.note, "not measured: the launches of its signature measured in this "
                                  "replay have no values");
        } else {
            const std::size_t n = samples.size(), metrics = samples[0]->values.size();
            info.values.assign(metrics, 0.0);
            double worst = 0;
            std::size_t worstAt = 0, workAt = metrics; // workAt: a work counter that differs
            for (std::size_t m = 0; m < metrics; ++m) {
                double lo = samples[0]->values[m], hi = lo, sum = 0;
                for (const auto* x : samples) {
                    const double v = m < x->values.size() ? x->values[m] : 0.0;
                    sum += v;
                    lo = std::min(lo, v);
                    hi = std::max(hi, v);
                }
                info.values[m] = sum / static_cast<double>(n);
                const double mean = std::fabs(info.values[m]);
                const double spread = mean > 0 ? (hi - lo) / mean : 0.0;
                if (spread > worst) {
                    worst = spread;
                    worstAt = m;
                }
                if (spread > 1e-6 && workAt == metrics && m < config_.metricNames.size() &&
                    isWorkCounter(config_.metricNames[m]))
                    workAt = m;
            }
            std::string positions;
            for (const auto* x : samples)
                positions += (positions.empty() ? "" : ", ") + std::to_string(x->position);
            char spread[64];
            std::snprintf(spread, sizeof spread, "%.1f%%", 100.0 * worst);
            appendNote(info.note, "reused: mean of " + std::to_string(n) +
                                      " measured launches of the same signature (positions " +
                                      positions + ")" +
                                      (n > 1 ? std::string("; they spread by up to ") + spread +
                                                   (worstAt < config_.metricNames.size()
                                                        ? " (" + config_.metricNames[worstAt] + ")"
                                                        : std::string())
                                             : std::string()));
            if (workAt < metrics) {
                // Instruction and operation counts repeat exactly for the same work: samples
                // that differ are launches that look alike but are not (say, GEMMs of one grid
                // and different depth in a loop).
                appendNote(info.note, "the samples' work differs (" + config_.metricNames[workAt] +
                                          "): these launches may not do the same work; "
                                          "ROOFLINE_REUSE=0 measures each");
                ++reusedDiffering_;
            }
            info.reusedSamples = static_cast<std::uint32_t>(n);
            ++reused_;
        }
        launches_.push_back(std::move(info));
        launchSig_.resize(launches_.size(), ReusePlan::kNotMeasured);
    }
    s.refInfo.clear();
}

} // namespace roofline::collect
