#pragma once
// PM sampling on one device (docs/design/0029): CUPTI reads a one-pass counter set on a fixed
// period of GPU time into a hardware buffer, with no replay and no serialization; decode() moves
// what the buffer holds into a counter-data image and gives each complete sample's start, end and
// counter values (evaluated with a PM-sampling Host).
//
// Lifecycle: (1) construct: Enable on the device, SetConfig (throws Error naming what CUPTI
// refused: more than one pass, a period the device cannot keep); (2) start(); (3) decode() as often
// as the buffer needs (from one thread at a time); (4) stop(), then decode() again for the rest;
// (5) the destructor stops and disables (noexcept). Disabling is left to the end of a session:
// the first CUPTI to carry this API finalized more than the sampler when it was disabled.
#include "cupti/host.hpp"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace roofline::cupti {

struct PmSample {
    std::uint64_t startNs = 0, endNs = 0;
    std::vector<double> values; ///< in the order of the sampler's metrics
};

struct PmDecode {
    std::vector<PmSample> samples; ///< each with a start before its end, oldest first
    bool overflow = false;     ///< the hardware buffer overflowed: samples were lost before these
    bool endOfRecords = false; ///< everything the buffer held was decoded
    /// Periods with no sample between the last one decoded before and these (the buffer lost
    /// them: it overflowed, or an image filled up -- CUPTI drops the samples that follow a full
    /// image), and samples that came without timestamps.
    std::uint64_t missing = 0;
    std::uint32_t rounds = 0;     ///< decode calls, each into the image reset
    std::uint32_t fullImages = 0; ///< of which: stopped with the image full
    std::uint32_t restarts = 0;   ///< sampling stopped and started again after an overflow
    /// Samples left out for lasting more than a few periods, which hold no count of the time
    /// they claim: the first after a start or restart (over the idle time before the device's
    /// first work, or the time an overflow lost, counted with it) in `startSpans`; any other in
    /// `longSamples`, its time lost.
    std::uint32_t startSpans = 0, longSamples = 0;
    /// Samples whose start overlapped the end of the one before, begun at that end instead
    /// (core::SampleGaps::startAfterLast), and the largest such overlap: for the debug log.
    std::uint32_t trimmed = 0;
    std::uint64_t trimmedMostNs = 0;
    double decodeMs = 0;   ///< moving the buffer's records into the image
    double evaluateMs = 0; ///< evaluating each sample's metric values (CUPTI's host API)
    double resetMs = 0;    ///< the image set back to its initialized state after each round
};

struct PmSamplerSettings {
    std::uint64_t periodNs = 100000;                ///< GPU-time trigger (GA10x and newer)
    std::size_t hardwareBufferBytes = 512ull << 20; ///< the device's buffer of raw records
    std::uint32_t samplesPerDecode = 4096;          ///< the counter-data image's capacity
};

class PmSampler {
public:
    /// `host` must be a PM-sampling host for the device's chip; it evaluates every sample.
    PmSampler(int deviceOrdinal, const Host& host, std::vector<std::string> metrics,
              const PmSamplerSettings& settings);
    ~PmSampler();
    PmSampler(const PmSampler&) = delete;
    PmSampler& operator=(const PmSampler&) = delete;

    void start();
    void stop();
    bool running() const noexcept;
    /// The complete samples the buffer holds so far, oldest first: one round of the image's
    /// capacity, another while a round fills the image, and with `untilEmpty` every round until
    /// the buffer is empty; at most `maxRounds`. After an overflow (which CUPTI keeps reporting
    /// until sampling restarts) sampling is stopped and started again: the periods in between
    /// are `missing`.
    PmDecode decode(int maxRounds = 64, bool untilEmpty = true);
    const std::vector<std::string>& metrics() const noexcept;
    /// The host's counter-data image: its bytes, for samplesPerDecode samples.
    std::size_t imageBytes() const noexcept;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

} // namespace roofline::cupti
