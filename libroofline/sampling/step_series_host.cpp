// The step series' side the program's threads call (sampling/step_series.hpp): scope numbers,
// the log of launches and step ends, and -- on the reading thread -- the log applied to the
// launches awaiting their records and the steps pending.
#include "sampling/step_series.hpp"

#include "core/stopwatch.hpp"

#include <algorithm>

namespace roofline::sampling {

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
// far behind) are dropped and counted; step begins and ends never are (one each per step).
void StepSeries::log(HostEvent event) noexcept {
    std::lock_guard<std::mutex> lock(logMutex_);
    const bool launch = !event.ended && !event.begun;
    if (launch)
        event.records = recordsOn_; // the state its kernel was launched in
    if (launch && log_.size() >= config_.maxAwaiting) {
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
    log(HostEvent{launch});
}

void StepSeries::launched(std::uint64_t correlationId, std::int64_t step, std::uint32_t scope,
                          std::uint32_t kernels) noexcept {
    launched(HostLaunch{correlationId, step, scope, kernels});
}

void StepSeries::stepEnded(std::int64_t step) noexcept {
    HostEvent e{HostLaunch{0, step, 0, 0}};
    e.ended = true;
    e.hostNs = now_ ? now_() : 0;
    log(e);
}

void StepSeries::recordsSwitch(std::function<void(bool)> turn, std::function<std::uint64_t()> now) {
    std::lock_guard<std::mutex> lock(logMutex_);
    turn_ = std::move(turn);
    now_ = std::move(now);
}

// The policy asked under the log's lock; the records turned on or off outside it (a CUPTI call
// of ~10 us, made on the program's thread inside the step's first launch call, so that this
// launch's kernel is recorded or not as its step is). The collector's lock, held by the caller,
// keeps the switch and the policy in step across the program's threads.
void StepSeries::stepBegins(std::int64_t step) noexcept {
    HostEvent e{HostLaunch{0, step, 0, 0}};
    e.begun = true;
    bool change = false;
    {
        std::lock_guard<std::mutex> lock(logMutex_);
        e.hostNs = now_ ? now_() : 0;
        bool on = true;
        try {
            // Where the host does not pace the GPU, every step keeps its records.
            on = turn_ ? policy_.stepBegins(e.hostNs) || !hostPaces_ : true;
        } catch (...) {
        }
        change = on != recordsOn_;
        recordsOn_ = on;
        e.records = on;
    }
    if (change) {
        const std::int64_t t0 = core::steadyNowNs();
        turn_(e.records);
        const auto took =
            static_cast<std::uint64_t>(std::max<std::int64_t>(0, core::steadyNowNs() - t0));
        std::lock_guard<std::mutex> lock(logMutex_);
        ++switches_;
        switchNs_ += took;
    }
    log(e);
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
    const HostLaunch& l = e.launch;
    if (e.ended || e.begun) {
        if (l.step <= processed_)
            return;
        Pending& p = pending_[l.step];
        if (e.ended) {
            p.ended = true;
            p.hostEndNs = e.hostNs;
        } else {
            p.records = e.records;
            p.hostBeginNs = e.hostNs;
        }
        return;
    }
    if (l.step >= 0 && l.step <= processed_) {
        ++tally_.late; // its step is written: the launch is counted, not placed
        return;
    }
    if (!e.records) { // no record comes: counted in its step, not awaited
        if (l.step < 0) {
            tally_.outsideSteps += l.kernels;
        } else if (Pending& p = pending_[l.step]; !p.records) {
            p.expected += l.kernels;
        } else {
            tally_.unrecordedLaunches += l.kernels;
        }
        return;
    }
    // A graph launch's kernel nodes come one by one with its correlation id: they add up.
    if (const auto [it, added] = awaiting_.emplace(l.correlationId, l); added)
        awaitingOrder_.push_back(l.correlationId);
    else
        it->second.kernels += l.kernels;
    if (l.step >= 0) {
        Pending& p = pending_[l.step];
        p.expected += l.kernels;
        p.ids.push_back(l.correlationId);
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

} // namespace roofline::sampling
