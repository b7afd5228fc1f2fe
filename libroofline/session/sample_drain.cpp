#include "session/sample_drain.hpp"

#include "core/log.hpp"
#include "core/stopwatch.hpp"

#include <algorithm>
#include <exception>
#include <utility>

namespace roofline::collect {

SampleDrain::SampleDrain(Decode decode, std::chrono::milliseconds every) noexcept
    : decode_(std::move(decode)), every_(every) {}

SampleDrain::~SampleDrain() {
    stop();
}

bool SampleDrain::start() noexcept {
    try {
        thread_ = std::thread([this] { loop(); });
        return true;
    } catch (...) {
        core::log().warn("libroofline: sampling: no thread could be started to decode the "
                         "device's buffer; the reading thread decodes it (samples may be lost "
                         "when it falls behind: the exit line counts them)");
        return false;
    }
}

void SampleDrain::stop() noexcept {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        stopping_ = true;
    }
    wake_.notify_all();
    if (thread_.joinable())
        thread_.join();
}

void SampleDrain::loop() noexcept {
    auto next = core::SteadyClock::now() + every_;
    std::unique_lock<std::mutex> lock(mutex_);
    while (!stopping_) {
        wake_.wait_until(lock, next, [this] { return stopping_; });
        if (stopping_)
            break;
        lock.unlock();
        decodeOnce(false);
        lock.lock();
        // A fixed cadence; a decode that ran past the next one starts the one after at once.
        next = std::max(next + every_, core::SteadyClock::now());
    }
}

void SampleDrain::decodeOnce(bool last) noexcept {
    cupti::PmDecode d;
    std::string failure;
    try {
        d = last ? decode_(kRoundsAtLast, true) : decode_(kRoundsOnThread, false);
    } catch (const std::exception& e) {
        failure = e.what();
    } catch (...) {
        failure = "unknown failure";
    }
    if (d.rounds > 0)
        core::log().debug("libroofline: sampling: decoded {} samples in {} round(s) ({} full, "
                          "{} missing, {}+{} too long, {} overlapping the one before by up to "
                          "{} ns, {}{} restart(s)): {:.1f} ms decoding, {:.1f} ms evaluating, "
                          "{:.1f} ms resetting the image",
                          d.samples.size(), d.rounds, d.fullImages, d.missing, d.startSpans,
                          d.longSamples, d.trimmed, d.trimmedMostNs,
                          d.overflow ? "overflowed, " : "", d.restarts, d.decodeMs, d.evaluateMs,
                          d.resetMs);
    std::lock_guard<std::mutex> lock(mutex_);
    SourceRead& r = pending_;
    try {
        for (cupti::PmSample& s : d.samples) {
            if (r.samples.size() >= kPendingMost) {
                ++r.missing;
                continue;
            }
            r.samples.push_back({s.startNs, s.endNs, std::move(s.values)});
        }
    } catch (...) {
        r.missing += d.samples.size(); // out of memory: counted, not kept
    }
    r.overflow = r.overflow || d.overflow;
    r.missing += d.missing;
    r.fullImages += d.fullImages;
    r.restarts += d.restarts;
    r.longSamples += d.longSamples;
    r.decodeMs += d.decodeMs;
    r.evaluateMs += d.evaluateMs + d.resetMs;
    if (!failure.empty() && r.failure.empty())
        r.failure = failure;
}

SourceRead SampleDrain::take(bool last) noexcept {
    if (last || !thread_.joinable())
        decodeOnce(last);
    std::lock_guard<std::mutex> lock(mutex_);
    return std::exchange(pending_, SourceRead{});
}

} // namespace roofline::collect
