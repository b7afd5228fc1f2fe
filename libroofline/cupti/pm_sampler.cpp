#include "cupti/pm_sampler.hpp"

#include "core/log.hpp"
#include "core/sample_gaps.hpp"
#include "core/stopwatch.hpp"
#include "cupti/check.hpp"

#include <roofline/error.hpp>

#include <cupti_pmsampling.h>

#include <algorithm>
#include <chrono>
#include <utility>

namespace roofline::cupti {

namespace {
// A sample longer than this many periods is not taken (the trigger keeps them a period long).
constexpr std::uint64_t kLongestSample = 4;
} // namespace

struct PmSampler::Impl {
    const Host* host = nullptr;
    std::vector<std::string> metrics;
    std::vector<const char*> names;
    PmSamplerSettings settings;
    ConfigImage config;
    CUpti_PmSampling_Object* object = nullptr;
    // The image, and a copy of it as initialized that resets it after each round: on the H200 the
    // copy took half the time CUPTI's initialization took (1.25 against 2.5 ms for 9.8 MB, 11
    // against 23 ms for 71 MB).
    std::vector<std::uint8_t> counterData, initialized;
    bool running = false;
    bool fresh = true; // no sample with timestamps since sampling (re)started
    int ordinal = 0;
    core::SampleGaps gaps{1}; // set with the period at construction

    void enable(int device) {
        CUpti_PmSampling_Enable_Params p{CUpti_PmSampling_Enable_Params_STRUCT_SIZE};
        p.deviceIndex = static_cast<std::size_t>(device);
        ROOFLINE_CUPTI_CHECK(cuptiPmSamplingEnable(&p));
        object = p.pPmSamplingObject;
        ordinal = device;
    }

    void configure() {
        CUpti_PmSampling_SetConfig_Params p{CUpti_PmSampling_SetConfig_Params_STRUCT_SIZE};
        p.pPmSamplingObject = object;
        p.configSize = config.bytes.size();
        p.pConfig = config.bytes.data();
        p.hardwareBufferSize = settings.hardwareBufferBytes;
        p.samplingInterval = settings.periodNs;
        p.triggerMode = CUPTI_PM_SAMPLING_TRIGGER_MODE_GPU_TIME_INTERVAL;
        p.hwBufferAppendMode = CUPTI_PM_SAMPLING_HARDWARE_BUFFER_APPEND_MODE_KEEP_OLDEST;
        ROOFLINE_CUPTI_CHECK(cuptiPmSamplingSetConfig(&p));
    }

    void sizeImage() {
        CUpti_PmSampling_GetCounterDataSize_Params s{
            CUpti_PmSampling_GetCounterDataSize_Params_STRUCT_SIZE};
        s.pPmSamplingObject = object;
        s.pMetricNames = names.data();
        s.numMetrics = names.size();
        s.maxSamples = settings.samplesPerDecode;
        ROOFLINE_CUPTI_CHECK(cuptiPmSamplingGetCounterDataSize(&s));
        counterData.assign(s.counterDataSize, 0);
        CUpti_PmSampling_CounterDataImage_Initialize_Params i{
            CUpti_PmSampling_CounterDataImage_Initialize_Params_STRUCT_SIZE};
        i.pPmSamplingObject = object;
        i.counterDataSize = counterData.size();
        i.pCounterData = counterData.data();
        ROOFLINE_CUPTI_CHECK(cuptiPmSamplingCounterDataImageInitialize(&i));
        initialized = counterData;
    }

    std::size_t completedSamples() const {
        CUpti_PmSampling_GetCounterDataInfo_Params p{
            CUpti_PmSampling_GetCounterDataInfo_Params_STRUCT_SIZE};
        p.pCounterDataImage = counterData.data();
        p.counterDataImageSize = counterData.size();
        ROOFLINE_CUPTI_CHECK(cuptiPmSamplingGetCounterDataInfo(&p));
        return p.numCompletedSamples;
    }

    // Sampling stopped if it runs, and the object disabled (the constructor's failure and the
    // destructor). Never throws.
    void release() noexcept {
        if (!object)
            return;
        if (running) {
            CUpti_PmSampling_Stop_Params p{CUpti_PmSampling_Stop_Params_STRUCT_SIZE};
            p.pPmSamplingObject = object;
            ROOFLINE_CUPTI_LOG(cuptiPmSamplingStop(&p));
            running = false;
        }
        CUpti_PmSampling_Disable_Params d{CUpti_PmSampling_Disable_Params_STRUCT_SIZE};
        d.pPmSamplingObject = object;
        ROOFLINE_CUPTI_LOG(cuptiPmSamplingDisable(&d));
        object = nullptr;
    }

    // Sample `index` of the image into `out`, with the periods missing before it counted. A
    // sample without timestamps is counted missing; one of no length (after a stop, stamped at
    // the start) covers nothing and is left out, and so is one longer than kLongestSample
    // periods (PmDecode::longSamples): the kernels in its time show it in their coverage.
    void take(std::size_t index, PmDecode& out) {
        CUpti_PmSampling_CounterData_GetSampleInfo_Params p{
            CUpti_PmSampling_CounterData_GetSampleInfo_Params_STRUCT_SIZE};
        p.pPmSamplingObject = object;
        p.pCounterDataImage = counterData.data();
        p.counterDataImageSize = counterData.size();
        p.sampleIndex = index;
        ROOFLINE_CUPTI_CHECK(cuptiPmSamplingCounterDataGetSampleInfo(&p));
        if (p.startTimestamp == 0 && p.endTimestamp == 0) {
            ++out.missing;
            return;
        }
        if (p.endTimestamp <= p.startTimestamp)
            return;
        const std::uint64_t start = gaps.startAfterLast(p.startTimestamp, p.endTimestamp);
        if (start != p.startTimestamp) {
            ++out.trimmed;
            out.trimmedMostNs = std::max(out.trimmedMostNs, start - p.startTimestamp);
        }
        out.missing += gaps.missingBefore(start, p.endTimestamp);
        const bool first = std::exchange(fresh, false);
        const std::uint64_t length = p.endTimestamp - start;
        if (length > kLongestSample * settings.periodNs) {
            ++(first ? out.startSpans : out.longSamples);
            return;
        }
        out.samples.push_back(
            {start, p.endTimestamp, host->evaluateValues(counterData, index, metrics)});
    }

    void startSampling() {
        CUpti_PmSampling_Start_Params p{CUpti_PmSampling_Start_Params_STRUCT_SIZE};
        p.pPmSamplingObject = object;
        ROOFLINE_CUPTI_CHECK(cuptiPmSamplingStart(&p));
        running = fresh = true;
    }

    void stopSampling() {
        CUpti_PmSampling_Stop_Params p{CUpti_PmSampling_Stop_Params_STRUCT_SIZE};
        p.pPmSamplingObject = object;
        running = false;
        ROOFLINE_CUPTI_CHECK(cuptiPmSamplingStop(&p));
    }

    // After an overflow the device's buffer takes no sample until sampling restarts. The lightest
    // restart first: stop and start; where CUPTI refuses the start, the configuration is set
    // again before it; failing that, the object is disabled and enabled again, with its image
    // initialized anew. Throws when none takes.
    void restart() {
        stopSampling();
        if (tryStart())
            return;
        configure();
        if (tryStart())
            return;
        release();
        enable(ordinal);
        configure();
        sizeImage(); // the image is initialized for the object it is decoded with
        startSampling();
        core::log().debug("libroofline: sampling: restarted after an overflow, enabled again");
    }

    bool tryStart() {
        CUpti_PmSampling_Start_Params p{CUpti_PmSampling_Start_Params_STRUCT_SIZE};
        p.pPmSamplingObject = object;
        const CUptiResult status = cuptiPmSamplingStart(&p);
        running = status == CUPTI_SUCCESS;
        fresh = fresh || running;
        core::log().debug("libroofline: sampling: restart after an overflow: {} (CUptiResult {})",
                          running ? "sampling" : "refused", static_cast<int>(status));
        return running;
    }
};

PmSampler::PmSampler(int deviceOrdinal, const Host& host, std::vector<std::string> metrics,
                     const PmSamplerSettings& settings)
    : impl_(std::make_unique<Impl>()) {
    if (host.instrument() != Instrument::PmSampling)
        throw Error(ErrorCode::InvalidArgument,
                    "PM sampling needs a PM-sampling host object (Instrument::PmSampling)");
    Impl& s = *impl_;
    s.host = &host;
    s.metrics = std::move(metrics);
    for (const std::string& m : s.metrics)
        s.names.push_back(m.c_str());
    s.settings = settings;
    s.gaps = core::SampleGaps(settings.periodNs);
    s.config = host.configImage(s.metrics);
    if (s.config.passes != 1)
        throw Error(ErrorCode::InvalidArgument,
                    "the sampled counters need " + std::to_string(s.config.passes) + " passes on " +
                        host.chip() + "; PM sampling takes one");
    s.enable(deviceOrdinal);
    try {
        s.configure();
        s.sizeImage();
    } catch (...) {
        s.release();
        throw;
    }
}

PmSampler::~PmSampler() {
    if (impl_)
        impl_->release();
}

void PmSampler::start() {
    impl_->startSampling();
}

void PmSampler::stop() {
    if (impl_->running)
        impl_->stopSampling();
}

bool PmSampler::running() const noexcept {
    return impl_->running;
}

const std::vector<std::string>& PmSampler::metrics() const noexcept {
    return impl_->metrics;
}

std::size_t PmSampler::imageBytes() const noexcept {
    return impl_->counterData.size();
}

PmDecode PmSampler::decode(int maxRounds, bool untilEmpty) {
    Impl& s = *impl_;
    PmDecode out;
    // The image holds samplesPerDecode samples. A round that filled it is followed by another
    // (the samples after a full image are lost, and the backlog is older than they are); with
    // untilEmpty, every round until the buffer is empty or a round brings nothing. Bounded, so
    // that a device that samples faster than this decodes cannot hold the caller here.
    bool more = true;
    for (int round = 0; round < maxRounds && more; ++round) {
        CUpti_PmSampling_DecodeData_Params p{CUpti_PmSampling_DecodeData_Params_STRUCT_SIZE};
        p.pPmSamplingObject = s.object;
        p.pCounterDataImage = s.counterData.data();
        p.counterDataImageSize = s.counterData.size();
        const auto began = core::SteadyClock::now();
        const CUptiResult status = cuptiPmSamplingDecodeData(&p);
        out.decodeMs += core::msSince(began);
        ++out.rounds;
        // An overflowed buffer (every later decode says so until sampling restarts): the samples
        // the image holds are taken, then sampling restarts.
        const bool overflowed = status == CUPTI_ERROR_OUT_OF_MEMORY;
        if (!overflowed)
            ROOFLINE_CUPTI_CHECK(status);
        out.overflow = out.overflow || overflowed || p.overflow != 0;
        out.endOfRecords = !overflowed && p.decodeStopReason ==
                                              CUPTI_PM_SAMPLING_DECODE_STOP_REASON_END_OF_RECORDS;
        const bool full = !overflowed && p.decodeStopReason ==
                                             CUPTI_PM_SAMPLING_DECODE_STOP_REASON_COUNTER_DATA_FULL;
        out.fullImages += full ? 1 : 0;
        const auto decoded = core::SteadyClock::now();
        const std::size_t n = s.completedSamples();
        for (std::size_t i = 0; i < n; ++i)
            s.take(i, out);
        const auto evaluated = core::SteadyClock::now();
        out.evaluateMs += std::chrono::duration<double, std::milli>(evaluated - decoded).count();
        s.counterData = s.initialized;
        out.resetMs += core::msSince(evaluated);
        if (overflowed) {
            if (s.running) {
                s.restart();
                ++out.restarts;
            }
            break;
        }
        more = n > 0 && (full || (untilEmpty && !out.endOfRecords));
    }
    return out;
}

} // namespace roofline::cupti
