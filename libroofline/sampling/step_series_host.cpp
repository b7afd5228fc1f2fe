// The step series' side the program's threads call (sampling/step_series.hpp): scope numbers,
// the log of launches and step ends, and -- on the reading thread -- the log applied to the
// launches awaiting their records and the steps pending.
#include "sampling/step_series.hpp"

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
    log({launch, false});
}

void StepSeries::launched(std::uint64_t correlationId, std::int64_t step, std::uint32_t scope,
                          std::uint32_t kernels) noexcept {
    log({HostLaunch{correlationId, step, scope, kernels}, false});
}

void StepSeries::stepEnded(std::int64_t step) noexcept {
    log({HostLaunch{0, step, 0, 0}, true});
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
    if (e.ended) {
        if (l.step > processed_)
            pending_[l.step].ended = true;
        return;
    }
    if (l.step >= 0 && l.step <= processed_) {
        ++tally_.late; // its step is written: the launch is counted, not placed
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
