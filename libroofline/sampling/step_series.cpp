#include "sampling/step_series.hpp"

#include "core/sampled_figures.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

namespace roofline::sampling {

StepSeries::StepSeries(const StepSeriesConfig& config, Write write)
    : config_(config), write_(std::move(write)) {}

std::uint32_t StepSeries::scope(const std::string& path) noexcept {
    std::lock_guard<std::mutex> lock(scopesMutex_);
    try {
        if (scopeNames_.empty()) { // 0: the unnamed scope, also what a failure below gives
            scopeNames_.emplace_back();
            scopeNumbers_.emplace(std::string(), 0);
        }
        const auto [it, added] =
            scopeNumbers_.emplace(path, static_cast<std::uint32_t>(scopeNames_.size()));
        if (added)
            scopeNames_.push_back(path);
        return it->second;
    } catch (...) {
        return 0;
    }
}

// A scope's path on the reader's side, its copy of the names brought up to date when a number
// is new to it.
const std::string& StepSeries::scopeName(std::uint32_t scope) {
    if (scope >= readerScopes_.size()) {
        std::lock_guard<std::mutex> lock(scopesMutex_);
        for (std::size_t i = readerScopes_.size(); i < scopeNames_.size(); ++i)
            readerScopes_.push_back(scopeNames_[i]);
    }
    static const std::string kUnnamed;
    return scope < readerScopes_.size() ? readerScopes_[scope] : kUnnamed;
}

// The program's threads: one push_back under the log's lock. Launches beyond the bound (a reader
// far behind) are dropped and counted; step ends never are (at most one per step launched).
void StepSeries::log(const HostEvent& event) noexcept {
    std::lock_guard<std::mutex> lock(logMutex_);
    if (!event.ended && log_.size() >= config_.maxAwaiting) {
        ++logDropped_;
        return;
    }
    try {
        log_.push_back(event);
    } catch (...) {
        ++logLost_;
    }
}

void StepSeries::launched(const HostLaunch& launch) {
    log({launch.correlationId, launch.step, launch.scope, launch.kernels, false});
}

void StepSeries::launched(std::uint64_t correlationId, std::int64_t step, std::uint32_t scope,
                          std::uint32_t kernels) noexcept {
    log({correlationId, step, scope, kernels, false});
}

void StepSeries::stepEnded(std::int64_t step) noexcept {
    log({0, step, 0, 0, true});
}

// The reader's lock held: the log swapped out under its own lock, then applied in order.
void StepSeries::applyLog() {
    taken_.clear();
    {
        std::lock_guard<std::mutex> lock(logMutex_);
        taken_.swap(log_);
    }
    for (const HostEvent& e : taken_)
        apply(e);
}

void StepSeries::apply(const HostEvent& e) {
    if (e.ended) {
        if (e.step > processed_)
            pending_[e.step].ended = true;
        return;
    }
    if (e.step >= 0 && e.step <= processed_) {
        ++tally_.late; // its step is written: the launch is counted, not placed
        return;
    }
    // A graph launch's kernel nodes come one by one with its correlation id: they add up.
    if (const auto [it, added] = awaiting_.emplace(
            e.correlationId, HostLaunch{e.correlationId, e.step, e.scope, e.kernels});
        added)
        awaitingOrder_.push_back(e.correlationId);
    else
        it->second.kernels += e.kernels;
    if (e.step >= 0) {
        Pending& p = pending_[e.step];
        p.expected += e.kernels;
        p.ids.push_back(e.correlationId);
    }
    while (awaiting_.size() > config_.maxAwaiting)
        dropOldestAwaiting();
}

void StepSeries::dropOldestAwaiting() {
    const std::uint64_t id = awaitingOrder_.front();
    awaitingOrder_.pop_front();
    const auto it = awaiting_.find(id);
    if (it == awaiting_.end())
        return;
    if (const auto p = pending_.find(it->second.step); p != pending_.end())
        p->second.expected -= std::min<std::uint64_t>(p->second.expected, it->second.kernels);
    awaiting_.erase(it);
    ++tally_.droppedAwaiting;
}

// The order of arrival keeps only ids still awaiting their records: those that left from the
// front, and -- where one that never leaves holds the front (a record lost outside every step) --
// all of them once the order is twice what awaits.
void StepSeries::trimAwaitingOrder() {
    while (!awaitingOrder_.empty() && awaiting_.count(awaitingOrder_.front()) == 0)
        awaitingOrder_.pop_front();
    if (awaitingOrder_.size() <= 2 * awaiting_.size() + 1024)
        return;
    std::deque<std::uint64_t> kept;
    for (std::uint64_t id : awaitingOrder_)
        if (awaiting_.count(id) != 0)
            kept.push_back(id);
    awaitingOrder_.swap(kept);
}

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
    for (const core::CounterSample& s : samples) {
        samples_.push_back(s);
        samplesEnd_ = std::max(samplesEnd_, s.endNs);
    }
    while (samples_.size() > config_.maxSamples) {
        samples_.pop_front();
        ++tally_.droppedSamples;
    }
}

namespace {
std::uint64_t lastEnd(const std::vector<StepSeries::Kernel>& kernels) {
    std::uint64_t last = 0;
    for (const auto& k : kernels)
        last = std::max(last, k.activity.endNs);
    return last;
}
} // namespace

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
    if (p.kernels.empty() && p.expected == 0)
        return true; // a step that launched nothing
    const auto settled = [this](const Pending& q) {
        return complete(q) && !q.kernels.empty() && samplesEnd_ >= lastEnd(q.kernels);
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
    if (!p.kernels.empty() && samplesEnd_ < lastEnd(p.kernels))
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
                                                   const std::vector<KernelActivity>& later,
                                                   std::uint64_t from, std::uint64_t to) const {
    std::vector<core::KernelSpan> spans;
    for (const Kernel& k : own)
        spans.push_back({k.activity.startNs, k.activity.endNs});
    const auto add = [&](const KernelActivity& k) {
        if (k.endNs > from && k.startNs < to)
            spans.push_back({k.startNs, k.endNs});
    };
    for (const KernelActivity& k : recentKernels_)
        add(k);
    for (const KernelActivity& k : later)
        add(k);
    return spans;
}

void StepSeries::process(std::int64_t step, Pending p) {
    core::SampledStep out;
    out.index = static_cast<std::uint64_t>(step);
    out.values.assign(config_.counters, 0.0);
    out.between.assign(config_.counters, 0.0);
    std::vector<core::SampledLaunch> launches;
    if (!p.kernels.empty()) {
        std::sort(p.kernels.begin(), p.kernels.end(), [](const Kernel& a, const Kernel& b) {
            return a.activity.startNs < b.activity.startNs;
        });
        out.startNs = p.kernels.front().activity.startNs;
        for (const Kernel& k : p.kernels)
            out.endNs = std::max(out.endNs, k.activity.endNs);
        // The samples come in time order: those over the step are found by a binary search.
        std::vector<core::CounterSample> used;
        std::uint64_t from = out.startNs, to = out.endNs;
        for (auto s = std::partition_point(
                 samples_.begin(), samples_.end(),
                 [&](const core::CounterSample& c) { return c.endNs <= out.startNs; });
             s != samples_.end() && s->startNs < out.endNs; ++s)
            if (s->endNs > out.startNs) {
                used.push_back(*s);
                from = std::min(from, s->startNs);
                to = std::max(to, s->endNs);
            }
        const core::Attribution a =
            core::attributeSamples(used, spansFor(p.kernels, laterKernels(to), from, to),
                                   config_.counters, config_.periodNs);
        out.between = a.between;
        for (std::size_t i = 0; i < p.kernels.size(); ++i) {
            const Kernel& k = p.kernels[i];
            const core::SampledKernel& r = a.kernels[i];
            for (std::size_t m = 0; m < config_.counters; ++m)
                out.values[m] += r.values[m];
            out.kernelNs += k.activity.endNs - k.activity.startNs;
            out.coveredNs += r.coveredNs;
            out.estimatedKernels += r.estimated ? 1 : 0;
            launches.push_back({out.index, k.activity.name, scopeName(k.scope), k.activity.startNs,
                                k.activity.endNs, r.values, r.coveredNs, r.estimated});
            addToSignature(launches.back());
            recentKernels_.push_back(k.activity);
        }
        // Samples that end within this step serve no later one, nor do kernels over before the
        // first sample held.
        while (!samples_.empty() && samples_.front().endNs <= out.endNs)
            samples_.pop_front();
        const std::uint64_t keepFrom = samples_.empty() ? out.endNs : samples_.front().startNs;
        recentKernels_.erase(std::remove_if(recentKernels_.begin(), recentKernels_.end(),
                                            [&](const KernelActivity& k) {
                                                return k.endNs <= keepFrom;
                                            }),
                             recentKernels_.end());
    }
    out.kernels = launches.size();
    if (p.expected > p.kernels.size())
        tally_.missing += p.expected - p.kernels.size();
    ++tally_.steps;
    tally_.launches += launches.size();
    if (const double distance =
            launches.empty() ? 0.0 : strays(static_cast<double>(out.endNs - out.startNs));
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

void StepSeries::addToSignature(const core::SampledLaunch& l) {
    auto key = std::make_pair(l.name, l.scope);
    if (signatures_.size() >= config_.maxSignatures && signatures_.count(key) == 0)
        key = {"(other kernels)", ""};
    core::addTo(signatures_[key], key.first, key.second, config_.counters, 1,
                l.endNs - std::min(l.startNs, l.endNs), l.values, l.estimated ? 1 : 0);
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
std::vector<KernelActivity> StepSeries::laterKernels(std::uint64_t to) const {
    std::vector<KernelActivity> later;
    for (const auto& [s, q] : pending_) {
        bool before = false;
        for (const Kernel& k : q.kernels)
            if (k.activity.startNs < to) {
                later.push_back(k.activity);
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
        process(step, std::move(p));
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
                    batch_.launches.size();
    for (const auto& [distance, launches] : strayLaunches_)
        n += launches.size();
    for (const auto& r : ring_)
        n += r.size();
    for (const auto& [step, p] : pending_)
        n += p.kernels.size();
    return n;
}

} // namespace roofline::sampling
