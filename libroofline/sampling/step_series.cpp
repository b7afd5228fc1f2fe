#include "sampling/step_series.hpp"

#include "core/sampled_figures.hpp"

#include <algorithm>
#include <cmath>
#include <tuple>
#include <utility>

namespace roofline::sampling {

StepSeries::StepSeries(const StepSeriesConfig& config, Write write)
    : config_(config), write_(std::move(write)), policy_(config.records) {}

void StepSeries::kernels(std::vector<KernelActivity> activity) {
    std::lock_guard<std::mutex> reader(readerMutex_);
    applyLog(); // every launch whose record is here was logged before the record was read
    for (KernelActivity& k : activity) {
        const auto it = awaiting_.find(k.correlationId);
        if (it == awaiting_.end()) {
            ++tally_.unmatched;
            continue;
        }
        if (it->second.step < 0) {
            ++tally_.outsideSteps;
            if (--it->second.kernels == 0)
                awaiting_.erase(it);
            continue;
        }
        pending_[it->second.step].kernels.push_back({std::move(k), it->second.scope});
    }
    trimAwaitingOrder();
}

void StepSeries::samples(const std::vector<core::CounterSample>& samples) {
    std::lock_guard<std::mutex> reader(readerMutex_);
    // Held in time order (they come in it; one that does not is put in its place), which the
    // steps' searches and the samples' release rely on.
    const auto earlier = [](const core::CounterSample& a, const core::CounterSample& b) {
        return a.startNs < b.startNs;
    };
    for (const core::CounterSample& s : samples) {
        if (samples_.empty() || !earlier(s, samples_.back()))
            samples_.push_back(s);
        else
            samples_.insert(std::upper_bound(samples_.begin(), samples_.end(), s, earlier), s);
        samplesEnd_ = std::max(samplesEnd_, s.endNs);
    }
    while (samples_.size() > config_.maxSamples) {
        samples_.pop_front();
        ++tally_.droppedSamples;
    }
}

namespace {
// Kernels' GPU span: the first one's start and the last one's end ({0, 0}: no kernel).
std::pair<std::uint64_t, std::uint64_t> spanOf(const std::vector<StepSeries::Kernel>& kernels) {
    if (kernels.empty())
        return {0, 0};
    std::uint64_t from = kernels.front().activity.startNs, to = 0;
    for (const auto& k : kernels) {
        from = std::min(from, k.activity.startNs);
        to = std::max(to, k.activity.endNs);
    }
    return {from, to};
}
} // namespace

std::pair<std::uint64_t, std::uint64_t> StepSeries::spanOfPending(const Pending& p) const {
    if (!p.records)
        return {p.spanFrom, std::max(p.spanFrom, p.spanTo)};
    return spanOf(p.kernels);
}

// The samples are held in time order: the first that ends after `ns` is found by a binary search.
std::deque<core::CounterSample>::const_iterator
StepSeries::firstSampleEndingAfter(std::uint64_t ns) const {
    return std::partition_point(samples_.begin(), samples_.end(),
                                [ns](const core::CounterSample& c) { return c.endNs <= ns; });
}

// A step is turned into values once its kernels are all in, the samples reach past its last
// kernel, and the next step is complete too (its first kernels share the boundary's samples).
// A step some of whose kernels' records never came (CUPTI lost them) does not hold the others
// up: once the two steps after it are complete and sampled, it goes with what it has.
bool StepSeries::ready(std::int64_t step, bool finishing) const {
    const auto it = pending_.find(step);
    if (it == pending_.end() || !it->second.ended)
        return false;
    if (finishing)
        return true;
    const Pending& p = it->second;
    if (!p.records) {
        std::uint64_t from = 0, to = 0;
        return unrecordedSpan(it, false, from, to);
    }
    if (p.kernels.empty() && p.expected == 0)
        return true; // a step that launched nothing
    const auto settled = [this](const Pending& q) {
        if (!q.records)
            return complete(q);
        return complete(q) && !q.kernels.empty() && samplesEnd_ >= spanOf(q.kernels).second;
    };
    // Whether the step at `at` is given up waiting for: the two steps after it are settled.
    const auto givenUp = [&](std::map<std::int64_t, Pending>::const_iterator at) {
        const auto a = std::next(at);
        if (a == pending_.end() || std::next(a) == pending_.end())
            return false;
        return settled(a->second) && settled(std::next(a)->second);
    };
    if (!complete(p) && !givenUp(it))
        return false;
    if (!p.kernels.empty() && samplesEnd_ < spanOf(p.kernels).second)
        return false;
    const auto next = std::next(it);
    return next != pending_.end() && (complete(next->second) || givenUp(next));
}

double StepSeries::strays(double ns) {
    double distance = 0;
    if (recent_.size() >= 5) {
        const double median = core::medianOf({recent_.begin(), recent_.end()});
        distance = median > 0 ? std::abs(ns - median) / median : 0.0;
    }
    recent_.push_back(ns);
    while (recent_.size() > config_.medianOf)
        recent_.pop_front();
    return distance > config_.strayShare ? distance : 0.0;
}

// A stray step's launches are kept for the next write if it is among the strayStepsKept
// farthest from the median since the last write.
void StepSeries::keepStray(double distance, std::vector<core::SampledLaunch> launches) {
    if (config_.strayStepsKept == 0)
        return;
    if (strayLaunches_.size() < config_.strayStepsKept) {
        strayLaunches_.emplace_back(distance, std::move(launches));
        return;
    }
    auto nearest = std::min_element(strayLaunches_.begin(), strayLaunches_.end(),
                                    [](const auto& a, const auto& b) { return a.first < b.first; });
    if (nearest->first < distance)
        *nearest = {distance, std::move(launches)};
}

// Every kernel that may share the samples over [from, to): the step's own first (in their
// order), then those of steps before it the held samples still cover, and those of steps after
// it already in (a sample longer than a step spans several).
std::vector<core::KernelSpan> StepSeries::spansFor(const std::vector<Kernel>& own,
                                                   const std::vector<core::KernelSpan>& later,
                                                   std::uint64_t from, std::uint64_t to) const {
    std::vector<core::KernelSpan> spans;
    spans.reserve(own.size() + later.size());
    for (const Kernel& k : own)
        spans.push_back({k.activity.startNs, k.activity.endNs});
    const auto add = [&](const core::KernelSpan& k) {
        if (k.endNs > from && k.startNs < to)
            spans.push_back(k);
    };
    for (const core::KernelSpan& k : recentKernels_)
        add(k);
    for (const core::KernelSpan& k : later)
        add(k);
    return spans;
}

// A step as long as shortestRowPeriods makes its own row; a shorter one joins the row being
// gathered if it begins within a period of that row's end (else that row goes as it is), and the
// row goes once it is that long.
// Steps with records and steps without make rows apart.
void StepSeries::gather(std::int64_t step, Pending p) {
    const auto [from, to] = spanOfPending(p);
    const std::uint64_t shortest = config_.shortestRowPeriods * config_.periodNs;
    const bool hasKernels = p.records ? !p.kernels.empty() : to > from;
    const bool isShort = to - from < shortest;
    if (row_.steps > 0 && (!isShort || row_.pending.records != p.records ||
                           (hasKernels && row_.endNs > 0 && from > row_.endNs + config_.periodNs)))
        flushRow();
    if (!isShort) {
        process(step, std::move(p), 1);
        return;
    }
    if (row_.steps == 0) {
        row_.first = step;
        row_.pending = std::move(p);
    } else {
        row_.pending.expected += p.expected;
        row_.pending.kernels.insert(row_.pending.kernels.end(),
                                    std::make_move_iterator(p.kernels.begin()),
                                    std::make_move_iterator(p.kernels.end()));
    }
    ++row_.steps;
    if (hasKernels) {
        row_.startNs = row_.endNs == 0 ? from : std::min(row_.startNs, from);
        row_.endNs = std::max(row_.endNs, to);
    }
    if (row_.endNs - row_.startNs >= shortest || row_.steps >= config_.maxRowSteps)
        flushRow();
}

void StepSeries::flushRow() {
    if (row_.steps == 0)
        return;
    Row row = std::move(row_);
    row_ = Row{};
    if (!row.pending.records) { // the row's span: its steps' spans together
        row.pending.spanFrom = row.startNs;
        row.pending.spanTo = row.endNs;
    }
    process(row.first, std::move(row.pending), row.steps);
}

void StepSeries::process(std::int64_t step, Pending p, std::uint64_t steps) {
    if (!p.records) {
        processUnrecorded(step, p, steps);
        return;
    }
    core::SampledStep out;
    out.index = static_cast<std::uint64_t>(step);
    out.steps = steps;
    out.values.assign(config_.counters, 0.0);
    out.between.assign(config_.counters, 0.0);
    std::vector<core::SampledLaunch> launches;
    if (!p.kernels.empty()) {
        std::sort(p.kernels.begin(), p.kernels.end(), [](const Kernel& a, const Kernel& b) {
            return a.activity.startNs < b.activity.startNs;
        });
        std::tie(out.startNs, out.endNs) = spanOf(p.kernels);
        noteLag(p, out.startNs);
        noteHostPace(out.endNs - out.startNs, steps);
        noteRowStart(out.startNs);
        lastEndNs_ = std::max(lastEndNs_, out.endNs);
        gapFrom_ = out.endNs;
        std::vector<core::CounterSample> used;
        std::uint64_t from = out.startNs, to = out.endNs;
        for (auto s = firstSampleEndingAfter(out.startNs);
             s != samples_.end() && s->startNs < out.endNs; ++s)
            if (s->endNs > out.startNs) {
                used.push_back(*s);
                from = std::min(from, s->startNs);
                to = std::max(to, s->endNs);
            }
        core::Attribution a =
            core::attributeSamples(used, spansFor(p.kernels, laterKernels(to, out.endNs), from, to),
                                   config_.counters, config_.periodNs, config_.clock);
        out.between = a.between;
        for (std::size_t i = 0; i < p.kernels.size(); ++i) {
            Kernel& k = p.kernels[i];
            core::SampledKernel& r = a.kernels[i];
            for (std::size_t m = 0; m < config_.counters; ++m)
                out.values[m] += r.values[m];
            out.kernelNs += k.activity.endNs - k.activity.startNs;
            out.coveredNs += r.coveredNs;
            out.estimatedKernels += r.estimated ? 1 : 0;
            launches.push_back({out.index, std::move(k.activity.name), scopeName(k.scope),
                                k.activity.startNs, k.activity.endNs, std::move(r.values),
                                r.coveredNs, r.estimated});
            addToSignature(launches.back());
            recentKernels_.push_back({k.activity.startNs, k.activity.endNs});
        }
        releaseUpTo(out.endNs);
    }
    out.kernels = launches.size();
    if (p.expected > p.kernels.size())
        tally_.missing += p.expected - p.kernels.size();
    tally_.steps += steps;
    ++tally_.rows;
    tally_.launches += launches.size();
    if (const double distance =
            launches.empty()
                ? 0.0
                : strays(static_cast<double>(out.endNs - out.startNs) / static_cast<double>(steps));
        distance > 0) {
        ++tally_.strays;
        keepStray(distance, launches);
    }
    batch_.steps.push_back(std::move(out));
    ++stepsSinceWrite_;
    ring_.push_back(std::move(launches));
    while (ring_.size() > config_.ringSteps)
        ring_.pop_front();
}

// Samples that end within a row ending at `endNs` serve no later one, nor do kernels over before
// the first sample held.
void StepSeries::releaseUpTo(std::uint64_t endNs) {
    while (!samples_.empty() && samples_.front().endNs <= endNs)
        samples_.pop_front();
    const std::uint64_t keepFrom = samples_.empty() ? endNs : samples_.front().startNs;
    recentKernels_.erase(
        std::remove_if(recentKernels_.begin(), recentKernels_.end(),
                       [&](const core::KernelSpan& k) { return k.endNs <= keepFrom; }),
        recentKernels_.end());
}

// Looked up by the launch's own strings: a key is built only for a signature new to the write.
void StepSeries::addToSignature(const core::SampledLaunch& l) {
    auto it = signatures_.find(SignatureView{l.name, l.scope});
    if (it == signatures_.end()) {
        if (signatures_.size() >= config_.maxSignatures)
            it = signatures_.try_emplace({"(other kernels)", ""}).first;
        else
            it = signatures_.try_emplace({l.name, l.scope}).first;
    }
    core::addTo(it->second, it->first.first, it->first.second, config_.counters, 1,
                l.endNs - std::min(l.startNs, l.endNs), l.values, l.estimated ? 1 : 0, l.coveredNs);
}

core::SampledBatch StepSeries::due(std::uint64_t nowUnixNs, bool force) {
    if (lastWriteNs_ == 0)
        lastWriteNs_ = nowUnixNs;
    const bool time = nowUnixNs - lastWriteNs_ >= config_.writeEveryNs;
    if (batch_.steps.empty() || !(force || time || stepsSinceWrite_ >= config_.writeEverySteps))
        return {};
    // The strays kept, in step order, then the last step's launches unless it is one of them.
    std::sort(strayLaunches_.begin(), strayLaunches_.end(), [](const auto& a, const auto& b) {
        return a.second.front().step < b.second.front().step;
    });
    for (auto& [distance, launches] : strayLaunches_)
        batch_.launches.insert(batch_.launches.end(), launches.begin(), launches.end());
    strayLaunches_.clear();
    const bool lastIn = !ring_.empty() && !ring_.back().empty() && !batch_.launches.empty() &&
                        batch_.launches.back().step == ring_.back().front().step;
    if (!lastIn && !ring_.empty())
        batch_.launches.insert(batch_.launches.end(), ring_.back().begin(), ring_.back().end());
    core::SampledBatch out = std::move(batch_);
    batch_ = {};
    for (auto& [key, s] : signatures_)
        out.signatures.push_back(std::move(s));
    signatures_.clear();
    std::sort(out.signatures.begin(), out.signatures.end(),
              [](const core::SampledSignature& a, const core::SampledSignature& b) {
                  return a.ns > b.ns;
              });
    out.writtenUnixNs = nowUnixNs;
    lastWriteNs_ = nowUnixNs;
    stepsSinceWrite_ = 0;
    ++tally_.batches;
    return out;
}

void StepSeries::handOver(core::SampledBatch batch) {
    if (batch.steps.empty() || !write_)
        return;
    try {
        write_(batch); // outside the lock: the program's launches never wait on the file
    } catch (...) {
        ++tally_.writeFailures; // the reader's lock is held
    }
}

// The first pending step, once it is ready, taken out; false when none is ready.
bool StepSeries::takeReady(bool finishing, std::int64_t& step, Pending& p) {
    if (pending_.empty() || !ready(pending_.begin()->first, finishing))
        return false;
    step = pending_.begin()->first;
    if (!pending_.begin()->second.records) // its span needs the next step: taken before it goes
        unrecordedSpan(pending_.begin(), finishing, pending_.begin()->second.spanFrom,
                       pending_.begin()->second.spanTo);
    p = std::move(pending_.begin()->second);
    pending_.erase(pending_.begin());
    processed_ = step;
    for (std::uint64_t id : p.ids)
        awaiting_.erase(id);
    trimAwaitingOrder();
    return true;
}

// The kernels of the steps not yet turned into values that begin before `to` (the end of the
// samples a step uses): they may share its last samples. The steps are looked at in order up to
// the first whose kernels are in and all begin at `to` or later -- those after it begin later
// still -- so that a step costs what its neighbourhood holds, not every step pending.
std::vector<core::KernelSpan> StepSeries::laterKernels(std::uint64_t to,
                                                       std::uint64_t after) const {
    std::vector<core::KernelSpan> later;
    const std::uint64_t lagNs = lag();
    for (const auto& [s, q] : pending_) {
        if (!q.records) { // its estimated span, from `after` on, stands for its kernels
            if (q.hostBeginNs > 0) {
                const std::uint64_t from = std::max(q.hostBeginNs + lagNs, after);
                if (from < to)
                    later.push_back({from, std::max(from, to)});
            }
            continue;
        }
        bool before = false;
        for (const Kernel& k : q.kernels)
            if (k.activity.startNs < to) {
                later.push_back({k.activity.startNs, k.activity.endNs});
                before = true;
            }
        if (!before && complete(q) && !q.kernels.empty())
            break;
    }
    return later;
}

// The host's log applied, then the steps divided and written, on the reading thread: the
// program's launches and step ends, which take the log's lock only, never wait on it.
void StepSeries::drain(std::uint64_t nowUnixNs, bool finishing) {
    std::lock_guard<std::mutex> reader(readerMutex_);
    applyLog();
    std::int64_t step = 0;
    Pending p;
    while (takeReady(finishing, step, p))
        gather(step, std::move(p));
    if (finishing)
        flushRow();
    handOver(due(nowUnixNs, finishing));
}

void StepSeries::advance(std::uint64_t nowUnixNs) {
    drain(nowUnixNs, false);
}

void StepSeries::finish(std::uint64_t nowUnixNs) {
    drain(nowUnixNs, true);
}

StepSeriesTally StepSeries::tally() const {
    std::lock_guard<std::mutex> reader(readerMutex_);
    std::lock_guard<std::mutex> lock(logMutex_);
    StepSeriesTally t = tally_;
    t.trials = policy_.trials();
    t.lastTrial = policy_.lastTrial();
    t.lagNs = static_cast<double>(lag());
    t.switches = switches_;
    t.switchNs = switchNs_;
    t.droppedAwaiting += logDropped_;
    t.lost += logLost_;
    return t;
}

std::size_t StepSeries::launchesHeld() const {
    std::lock_guard<std::mutex> reader(readerMutex_);
    std::lock_guard<std::mutex> lock(logMutex_);
    // Every launch awaiting its record has its id in the order of arrival, and ids that left
    // may linger there: the order's size bounds both.
    std::size_t n = log_.size() + std::max(awaiting_.size(), awaitingOrder_.size()) +
                    batch_.launches.size() + row_.pending.kernels.size();
    for (const auto& [distance, launches] : strayLaunches_)
        n += launches.size();
    for (const auto& r : ring_)
        n += r.size();
    for (const auto& [step, p] : pending_)
        n += p.kernels.size();
    return n;
}

} // namespace roofline::sampling
