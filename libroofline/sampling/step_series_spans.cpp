// The step series' steps without kernel records (sampling/step_series.hpp): where the records are
// on for a share of the steps only, a step without them is the span of GPU time from its first
// launch call to the next step's, both moved by the lag the recorded steps show from a launch call
// to its kernel's start, and bounded by the row before it and by the next recorded step's first
// kernel; it ends the recorded steps' median gap (their last kernel's end to the next step's
// start) before the next one begins, as a recorded step's span ends at its last kernel. Its values
// are the samples over that span, each in proportion to the part of it the span covers: the
// kernels' work and the gaps' together, as a step's work is.
#include "sampling/step_series.hpp"

#include "core/sampled_figures.hpp"

#include <algorithm>

namespace roofline::sampling {
namespace {
// `value` kept among the last `most` (the oldest dropped).
void keepLast(std::deque<std::uint64_t>& kept, std::uint64_t value, std::size_t most) {
    kept.push_back(value);
    while (kept.size() > most)
        kept.pop_front();
}

std::uint64_t medianNs(const std::deque<std::uint64_t>& kept) {
    return static_cast<std::uint64_t>(
        core::medianOf(std::vector<double>(kept.begin(), kept.end())));
}
} // namespace

std::uint64_t StepSeries::lag() const {
    return medianNs(lags_);
}

void StepSeries::noteLag(const Pending& p, std::uint64_t firstKernelNs) {
    if (p.hostBeginNs == 0 || firstKernelNs == 0 || config_.lagsKept == 0)
        return;
    keepLast(lags_, firstKernelNs > p.hostBeginNs ? firstKernelNs - p.hostBeginNs : 0,
             config_.lagsKept);
}

std::uint64_t StepSeries::gap() const {
    return medianNs(gaps_);
}

void StepSeries::noteRowStart(std::uint64_t startNs) {
    if (gapFrom_ == 0 || config_.lagsKept == 0)
        return;
    keepLast(gaps_, startNs > gapFrom_ ? startNs - gapFrom_ : 0, config_.lagsKept);
    gapFrom_ = 0;
}

bool StepSeries::laterRecordedSettled(std::map<std::int64_t, Pending>::const_iterator at) const {
    for (auto it = std::next(at); it != pending_.end(); ++it) {
        const Pending& r = it->second;
        if (r.records && complete(r) && !r.kernels.empty())
            return samplesEnd_ >= spanOfPending(r).second;
    }
    return false;
}

// Whether the host paces the GPU: the recorded steps' median lag under mostLagShare of their
// median span, told to the program's side for the steps that begin next.
void StepSeries::noteHostPace(std::uint64_t spanNs, std::uint64_t steps) {
    if (config_.lagsKept == 0)
        return;
    keepLast(recordedSpans_, spanNs / std::max<std::uint64_t>(steps, 1), config_.lagsKept);
    const double span = static_cast<double>(medianNs(recordedSpans_));
    const bool paces = !lags_.empty() && static_cast<double>(lag()) < config_.mostLagShare * span;
    std::lock_guard<std::mutex> lock(logMutex_);
    hostPaces_ = paces;
}

// The span ends where the next step begins on the GPU: its first kernel where its records are in
// (every one, or -- some lost -- once the host is a step further), else its first launch call
// moved by the lag. The last step of a run ends at its end call, moved by the lag.
bool StepSeries::unrecordedSpan(std::map<std::int64_t, Pending>::const_iterator at, bool finishing,
                                std::uint64_t& from, std::uint64_t& to) const {
    if (lags_.empty() && !finishing)
        return false; // no recorded step yet: the lag is not known
    const Pending& p = at->second;
    const std::uint64_t lagNs = lag();
    from = std::max(p.hostBeginNs > 0 ? p.hostBeginNs + lagNs : lastEndNs_, lastEndNs_);
    bool known = false;
    if (const auto next = std::next(at); next != pending_.end()) {
        const Pending& q = next->second;
        // A recorded step's records are waited for (the host may be steps ahead of the GPU,
        // where the lag says little) until a later recorded step is in and sampled: then those
        // missing are lost.
        const bool lost = q.records && !complete(q) && laterRecordedSettled(next);
        if (q.records && !q.kernels.empty() && (complete(q) || lost || finishing)) {
            to = spanOfPending(q).first;
            if (q.hostBeginNs > 0 && !complete(q))
                to = std::min(to, q.hostBeginNs + lagNs);
            known = true;
        } else if (q.hostBeginNs > 0 && (!q.records || lost || finishing)) {
            to = q.hostBeginNs + lagNs;
            known = true;
        }
    }
    if (!known) {
        if (!finishing)
            return false;
        to = p.hostEndNs > 0 ? p.hostEndNs + lagNs : std::max(from, samplesEnd_);
    }
    const std::uint64_t gapNs = gap();
    to = std::max(to > gapNs ? to - gapNs : 0, from);
    return finishing || samplesEnd_ >= to;
}

void StepSeries::processUnrecorded(std::int64_t step, const Pending& p, std::uint64_t steps) {
    core::SampledStep out;
    out.index = static_cast<std::uint64_t>(step);
    out.steps = steps;
    out.kernelRecords = false;
    out.values.assign(config_.counters, 0.0);
    out.between.assign(config_.counters, 0.0);
    out.startNs = p.spanFrom;
    out.endNs = std::max(p.spanFrom, p.spanTo);
    noteRowStart(out.startNs);
    out.kernels = p.expected; // the kernels its launches ran, none of them recorded
    for (auto s = firstSampleEndingAfter(out.startNs);
         s != samples_.end() && s->startNs < out.endNs; ++s) {
        if (s->endNs <= s->startNs || s->values.size() != config_.counters)
            continue;
        const std::uint64_t a = std::max(s->startNs, out.startNs),
                            b = std::min(s->endNs, out.endNs);
        if (b <= a)
            continue;
        const double share =
            static_cast<double>(b - a) / static_cast<double>(s->endNs - s->startNs);
        for (std::size_t m = 0; m < config_.counters; ++m)
            out.values[m] += s->values[m] * share;
        out.coveredNs += b - a;
    }
    out.coveredNs = std::min(out.coveredNs, out.endNs - out.startNs);
    releaseUpTo(out.endNs);
    lastEndNs_ = std::max(lastEndNs_, out.endNs);
    // Its span stands for its kernels where the next recorded step shares its last samples.
    if (out.endNs > out.startNs)
        recentKernels_.push_back({out.startNs, out.endNs});
    tally_.steps += steps;
    tally_.withoutRecords += steps;
    ++tally_.rows;
    if (out.endNs > out.startNs &&
        strays(static_cast<double>(out.endNs - out.startNs) / static_cast<double>(steps)) > 0)
        ++tally_.strays;
    batch_.steps.push_back(std::move(out));
    ++stepsSinceWrite_;
}

} // namespace roofline::sampling
