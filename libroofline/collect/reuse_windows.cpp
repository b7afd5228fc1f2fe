#include "collect/reuse_cycle.hpp"
#include "collect/notes.hpp"

#include "core/demangle.hpp"
#include "core/merge.hpp"
#include "core/log.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace roofline::collect {
namespace {

// Iterations observed for a steady one (launching what the one before did) before the last one is
// taken as the reference anyway.
constexpr std::size_t kSteadyAttempts = 4;

} // namespace

void ReuseCycle::startIteration() {
    observed_.clear();
    iterSigs_.clear();
    iterFamilies_.clear();
    iterInfo_.clear();
}

void ReuseCycle::observe(Shared& shared, const Launch& l, const Stack& stack, std::size_t idx,
                         std::uint64_t& serials) {
    const bool in = shared.filtersAdmit(l, stack);
    std::uint64_t instance = 0;
    // The scope takes part in the signature whether or not the filters admit the launch, so that
    // an iteration they admit (`Train step 5/`) looks like the ones around it.
    const std::string* uniform = nullptr; // outside every scope: ""
    if (!stack.empty()) {
        const Frame& f = stack.back();
        if (f.serial == 0) { // the instance's first launch: its number and uniform path
            f.serial = ++serials;
            f.uniform = shared.model.uniformPath(stack);
        }
        instance = f.serial;
        uniform = &f.uniform;
    }
    static const std::string none;
    const std::uint32_t scope = observed_.scope(uniform ? *uniform : none);
    observed_.add(l.mangledName, l.grid, l.block, l.sharedMemBytes(), scope, instance, in);
    if (cycle_ || !in)
        return;
    if (iterInfo_.size() < idx)
        iterInfo_.resize(idx);
    core::LaunchInfo info = shared.launchInfo(l, stack); // demangled only if it becomes a record
    info.position = static_cast<std::int64_t>(idx);
    iterInfo_.push_back(std::move(info));
}

// The reference's signature at `at` or, when the current iteration ran another launch there (a
// data-dependent grid), its own (as observed) at the reference's place.
std::uint32_t ReuseCycle::measuredSignature(std::size_t at) {
    if (!cycle_ || at >= refSigs_.size() || at >= refShapes_.size() || at >= refLabels_.size())
        return ReusePlan::kNotMeasured;
    if (observed_.shape(at) == refShapes_[at])
        return refSigs_[at];
    return observed_.signatureAt(plan_, at, refLabels_[at]);
}

void ReuseCycle::endObservation(const CollectorConfig& config, bool groupOpen) {
    if (!observing_)
        return;
    observed_.assign(plan_, iterSigs_, iterFamilies_, iterLabels_);
    stopObservingIfUnbounded(config, groupOpen);
}

// Once a profile is complete, a program that keeps showing new signatures stops being observed
// (later new kernels are not profiled; the log says so).
void ReuseCycle::stopObservingIfUnbounded(const CollectorConfig& config, bool groupOpen) {
    if (plan_.signatures() <= config.reuseMaxSignatures || cyclesDone_ == 0 || cycle_ || groupOpen)
        return;
    core::log().info("libroofline: {} distinct launch signatures (a grid that changes with every "
                     "iteration?): repeated launches are no longer observed, so kernels first "
                     "launched from now on are not profiled",
                     plan_.signatures());
    observing_ = false;
    observed_ = ObservedIteration{};
    plan_ = ReusePlan(config.reuseSamples, config.reuseMaxGap);
    iterSigs_.clear();
    iterFamilies_.clear();
    prevFamilies_.clear();
    iterInfo_.clear();
}

// A cycle refers to a steady iteration: one that launched what the one before did (the first
// often runs a validation pass or creates state). Launches no earlier cycle measured anything like
// (a new kernel, block or scope) keep the replay helper waiting for them to form a steady
// iteration. A program whose iterations never repeat exactly is taken as it is after a few.
void ReuseCycle::afterIteration(DeviceSlot& slot, PassGroup& g, bool limitReached,
                                bool steadyShape) {
    // Once a cycle is done, an iteration of another launch count than the steady one (one that
    // also validated) is not the step the profile describes: its new launches neither start a
    // cycle nor keep the profile from completing.
    const bool unmeasured = (cyclesDone_ == 0 || steadyShape) &&
                            std::any_of(iterSigs_.begin(), iterSigs_.end(), [&](std::uint32_t id) {
                                return id != ReusePlan::kNotMeasured && !plan_.familyMeasured(id);
                            });
    bool steady = iterFamilies_ == prevFamilies_;
    if (!steady && !cycle_ && (cyclesDone_ == 0 || unmeasured) && ++unsteady_ >= kSteadyAttempts)
        steady = true;
    prevFamilies_.swap(iterFamilies_);
    if (steady && !cycle_ && !g.group && !g.restart) {
        maybeStart(slot, g, unmeasured, limitReached);
        if (!cycle_ && cyclesDone_ == 0)
            cyclesDone_ = 1; // a steady iteration with nothing to measure: done
    }
    if (cycle_)
        unsteady_ = 0;
    awaiting_ = !cycle_ && unmeasured;
}

// When some signature of the iteration lacks samples, a cycle over it starts (its first window is
// measured from the next iteration on). `unmeasured`: some launch of the iteration has a family no
// cycle measured.
void ReuseCycle::maybeStart(DeviceSlot& slot, PassGroup& g, bool unmeasured, bool limitReached) {
    // The iteration's launch details are kept only while no cycle runs: right after one ended,
    // the next iteration is the one a new cycle refers to.
    if (slot.failed || iterSigs_.empty() || iterInfo_.empty() || limitReached)
        return;
    // After a complete profile, a launch whose grid depends on the data has a new signature in
    // every iteration: it starts another cycle only when nothing of its family was measured (a
    // new kernel, block or scope), or profiling would never end.
    if (cyclesDone_ > 0 && !unmeasured)
        return;
    // The cycle's image holds its longest window, not a whole image's worth: CUPTI's host memory
    // grows with the ranges an image holds (~2 MiB each).
    if (shareCount_ > 1)
        plan_.share(iterSigs_, shareIndex_, shareCount_, slot.capacity);
    const std::size_t ranges = plan_.longestWindow(iterSigs_, slot.capacity);
    const auto w = plan_.next(iterSigs_, 0, ranges);
    if (!w)
        return;
    slot.guard([&] { slot.backend->release(ranges); });
    cycleRanges_ = ranges;
    refSigs_ = iterSigs_;
    refLabels_ = iterLabels_;
    refShapes_.resize(observed_.size());
    for (std::size_t p = 0; p < refShapes_.size(); ++p)
        refShapes_[p] = observed_.shape(p);
    refInfo_ = std::move(iterInfo_);
    refInfo_.resize(refSigs_.size());
    iterInfo_.clear();
    measuredPos_.assign(refSigs_.size(), false);
    cycle_ = true;
    g.offset = w->begin;
    windowEnd_ = w->end;
    windows_ = 1;
}

bool ReuseCycle::advance(Shared& shared, DeviceSlot& slot, PassGroup& g,
                         std::vector<std::uint32_t>& signatures) {
    if (!cycle_)
        return false;
    const auto w = plan_.next(refSigs_, windowEnd_, cycleRanges_);
    if (w) {
        g.offset = w->begin;
        windowEnd_ = w->end;
        ++windows_;
        return false;
    }
    emitReused(shared, signatures);
    cycle_ = false;
    ++cyclesDone_;
    slot.guard([&] { slot.backend->release(0); }); // nothing to measure until another cycle
    g.offset = 0;
    windowEnd_ = 0;
    return true;
}

void ReuseCycle::drop(PassGroup& g) {
    cycle_ = false;
    g.offset = 0;
    windowEnd_ = 0;
    refInfo_.clear();
}

void ReuseCycle::recordSamples(const RecordStore& records, const std::vector<std::int64_t>& members,
                               const std::vector<std::uint32_t>& signatures) {
    for (std::int64_t m : members) {
        if (m < 0)
            continue;
        const auto i = static_cast<std::size_t>(m);
        const core::LaunchInfo& info = records[m];
        if (info.values.empty() || info.replay == ReplayStatus::Unmatched ||
            i >= signatures.size() || signatures[i] == ReusePlan::kNotMeasured)
            continue;
        plan_.addSample(signatures[i], i);
        if (info.position >= 0 && static_cast<std::size_t>(info.position) < measuredPos_.size())
            measuredPos_[static_cast<std::size_t>(info.position)] = true;
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
void ReuseCycle::emitReused(Shared& shared, std::vector<std::uint32_t>& signatures) {
    for (std::size_t p = 0; p < refSigs_.size() && p < refInfo_.size(); ++p) {
        const std::uint32_t sig = refSigs_[p];
        if (sig == ReusePlan::kNotMeasured || measuredPos_[p] || refInfo_[p].mangledName.empty())
            continue;
        if (const int owner = plan_.foreignOwner(sig); owner >= 0) {
            core::LaunchInfo info = std::move(refInfo_[p]);
            info.name = core::demangle(info.mangledName);
            info.countersRank = owner;
            appendNote(info.note, core::awaitingCountersNote(owner));
            ++shared.tally.foreign;
            shared.records.add(std::move(info));
            signatures.resize(shared.records.size(), ReusePlan::kNotMeasured);
            continue;
        }
        std::vector<const core::LaunchInfo*> samples;
        for (std::size_t i : plan_.samples(sig))
            if (i < shared.records.size() &&
                !shared.records[static_cast<std::int64_t>(i)].values.empty() &&
                !shared.records.superseded(i))
                samples.push_back(&shared.records[static_cast<std::int64_t>(i)]);
        core::LaunchInfo info = std::move(refInfo_[p]);
        info.name = core::demangle(info.mangledName);
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
                if (spread > 1e-6 && workAt == metrics && m < shared.config.metricNames.size() &&
                    isWorkCounter(shared.config.metricNames[m]))
                    workAt = m;
            }
            std::string positions;
            for (const auto* x : samples)
                positions += (positions.empty() ? "" : ", ") + std::to_string(x->position);
            char spread[64];
            std::snprintf(spread, sizeof spread, "%.1f%%", 100.0 * worst);
            appendNote(info.note,
                       "reused: mean of " + std::to_string(n) +
                           " measured launches of the same signature (positions " + positions +
                           ")" +
                           (n > 1 ? std::string("; they spread by up to ") + spread +
                                        (worstAt < shared.config.metricNames.size()
                                             ? " (" + shared.config.metricNames[worstAt] + ")"
                                             : std::string())
                                  : std::string()));
            if (workAt < metrics) {
                // Instruction and operation counts repeat exactly for the same work: samples
                // that differ are launches that look alike but are not (say, GEMMs of one grid
                // and different depth in a loop).
                appendNote(info.note, "the samples' work differs (" +
                                          shared.config.metricNames[workAt] +
                                          "): these launches may not do the same work; "
                                          "ROOFLINE_REUSE=0 measures each");
                ++shared.tally.reusedDiffering;
            }
            info.reusedSamples = static_cast<std::uint32_t>(n);
            ++shared.tally.reused;
        }
        shared.records.add(std::move(info));
        signatures.resize(shared.records.size(), ReusePlan::kNotMeasured);
    }
    refInfo_.clear();
}

} // namespace roofline::collect
