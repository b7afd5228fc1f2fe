// A device's sampling sources on a GPU: CUPTI's PM sampler (cupti/pm_sampler) and the kernels'
// activity records (cupti/activity), read together by the sampled run's thread.
#include "session/sampled_sources.hpp"

#include "session/sample_drain.hpp"

#include "core/demangle.hpp"
#include "core/log.hpp"
#include "core/stopwatch.hpp"
#include "cupti/activity.hpp"
#include "cupti/host.hpp"
#include "cupti/pm_sampler.hpp"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <unordered_map>

namespace roofline::collect {
namespace {

// The kernels' records, names demangled once per distinct name.
class KernelRecords {
public:
    void start() { timer_ = std::make_unique<cupti::KernelTimer>(); }
    /// The records CUPTI completed (`last`: every one it holds); `incomplete` counts those left
    /// out for want of a start or an end.
    std::vector<sampling::KernelActivity> take(bool last, std::uint64_t& incomplete) noexcept {
        std::vector<sampling::KernelActivity> out;
        if (!timer_)
            return out;
        try {
            std::vector<cupti::KernelTiming> timings = timer_->take(last);
            out.reserve(timings.size());
            for (cupti::KernelTiming& t : timings) {
                if (t.startNs == 0 || t.endNs < t.startNs) {
                    ++incomplete;
                    continue;
                }
                std::string& name = demangled_[t.mangledName];
                if (name.empty())
                    name = core::demangle(t.mangledName);
                out.push_back({t.correlationId, name, t.startNs, t.endNs});
            }
            if (demangled_.size() > kNamesKept)
                demangled_.clear();
        } catch (...) {
            // out of memory: these records are lost, and their launches wait until dropped
        }
        return out;
    }
    /// take() into a read, timed.
    void readInto(SourceRead& r, bool last) noexcept {
        const auto began = core::SteadyClock::now();
        r.kernels = take(last, r.incomplete);
        r.recordsMs = core::msSince(began);
    }
    std::uint64_t dropped() const noexcept { return timer_ ? timer_->dropped() : 0; }
    /// On the program's thread: the records on or off (started before any step begins, stopped
    /// after the last).
    void record(bool on) noexcept {
        if (timer_)
            timer_->record(on);
    }
    /// The records' buffers flushed and kernel activity off, while CUPTI is attached.
    void stop() noexcept { timer_.reset(); }

private:
    static constexpr std::size_t kNamesKept = 65536;
    std::unique_ptr<cupti::KernelTimer> timer_;
    std::unordered_map<std::string, std::string> demangled_;
};

class ActivitySources final : public SampleSources {
public:
    void start() override { kernels_.start(); }
    void stop() noexcept override {}
    SourceRead read(bool last) noexcept override {
        SourceRead r;
        kernels_.readInto(r, last);
        return r;
    }
    std::uint64_t droppedKernels() const noexcept override { return kernels_.dropped(); }
    bool switchesRecords() const noexcept override { return true; }
    void kernelRecords(bool on) noexcept override { kernels_.record(on); }
    std::uint64_t now() const noexcept override { return cupti::timestampNs(); }
    ~ActivitySources() override { kernels_.stop(); }

private:
    KernelRecords kernels_;
};

class PmSources final : public SampleSources {
public:
    PmSources(int ordinal, const std::string& chip, const std::vector<std::string>& metrics,
              const cupti::PmSamplerSettings& settings)
        : host_(chip, cupti::Instrument::PmSampling), sampler_(ordinal, host_, metrics, settings),
          drain_(
              [this](int rounds, bool untilEmpty) { return sampler_.decode(rounds, untilEmpty); },
              decodeEvery()) {
        core::log().debug("libroofline: sampling: device buffer {} MiB, image {} bytes for {} "
                          "samples",
                          settings.hardwareBufferBytes >> 20, sampler_.imageBytes(),
                          settings.samplesPerDecode);
    }

    void start() override {
        kernels_.start();
        sampler_.start();
        drain_.start();
    }

    // The drain's thread first: the sampler is then this thread's alone.
    void stop() noexcept override {
        drain_.stop();
        try {
            sampler_.stop();
        } catch (...) {
        }
    }

    SourceRead read(bool last) noexcept override {
        SourceRead r = drain_.take(last);
        kernels_.readInto(r, last);
        return r;
    }

    std::uint64_t droppedKernels() const noexcept override { return kernels_.dropped(); }
    bool switchesRecords() const noexcept override { return true; }
    void kernelRecords(bool on) noexcept override { kernels_.record(on); }
    std::uint64_t now() const noexcept override { return cupti::timestampNs(); }

    // The kernel records go first; the sampler is stopped and disabled by its destructor.
    ~PmSources() override { kernels_.stop(); }

private:
    cupti::Host host_;
    cupti::PmSampler sampler_;
    SampleDrain drain_; // stopped before the sampler goes
    KernelRecords kernels_;
};

// A diagnostic setting's number, when `variable` is set to one in [low, high]; else 0 (unset
// or out of range: the default stands).
std::uint64_t diagnosticNumber(const char* variable, std::uint64_t low, std::uint64_t high) {
    const char* text = std::getenv(variable);
    const unsigned long long v = text ? std::strtoull(text, nullptr, 10) : 0;
    return v >= low && v <= high ? v : 0;
}

} // namespace

std::chrono::milliseconds decodeEvery() noexcept {
    if (const std::uint64_t ms = diagnosticNumber("ROOFLINE_SAMPLE_DECODE_MS", 10, 600000))
        return std::chrono::milliseconds(ms);
    return kDecodeEvery;
}

cupti::PmSamplerSettings samplerSettings(std::uint64_t periodNs) {
    cupti::PmSamplerSettings settings;
    settings.periodNs = std::max<std::uint64_t>(periodNs, 1);
    // 64 MiB holds several reads of samples at periods from 500 us (it overflowed at 100 us),
    // 512 MiB below.
    settings.hardwareBufferBytes = periodNs >= 500000 ? (64ull << 20) : (512ull << 20);
    // Diagnostic: the buffer's size in MiB, to tell its part in the decode's cost.
    if (const std::uint64_t mb = diagnosticNumber("ROOFLINE_SAMPLE_BUFFER_MB", 1, 4096))
        settings.hardwareBufferBytes = mb << 20;
    // The image holds three decodes' samples: a decode late by two periods of the drain still
    // fits (a full image loses the samples after it).
    const std::uint64_t perDecode =
        static_cast<std::uint64_t>(std::chrono::nanoseconds(decodeEvery()).count()) /
        settings.periodNs;
    settings.samplesPerDecode =
        static_cast<std::uint32_t>(std::clamp<std::uint64_t>(3 * perDecode + 64, 128, 8192));
    return settings;
}

std::unique_ptr<SampleSources> pmSampleSources(int ordinal, const std::string& chip,
                                               const std::vector<std::string>& metrics,
                                               std::uint64_t periodNs) {
    return std::make_unique<PmSources>(ordinal, chip, metrics, samplerSettings(periodNs));
}

std::unique_ptr<SampleSources> activitySources() {
    return std::make_unique<ActivitySources>();
}

} // namespace roofline::collect
