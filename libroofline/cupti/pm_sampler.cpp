#include "cupti/pm_sampler.hpp"

#include "cupti/check.hpp"
#include "core/stopwatch.hpp"

#include <roofline/error.hpp>

#include <cupti_pmsampling.h>

namespace roofline::cupti {

struct PmSampler::Impl {
    const Host* host = nullptr;
    std::vector<std::string> metrics;
    std::vector<const char*> names;
    PmSamplerSettings settings;
    ConfigImage config;
    CUpti_PmSampling_Object* object = nullptr;
    std::vector<std::uint8_t> counterData, pristine; // pristine: the image as initialized
    bool running = false;

    void enable(int ordinal) {
        CUpti_PmSampling_Enable_Params p{CUpti_PmSampling_Enable_Params_STRUCT_SIZE};
        p.deviceIndex = static_cast<std::size_t>(ordinal);
        ROOFLINE_CUPTI_CHECK(cuptiPmSamplingEnable(&p));
        object = p.pPmSamplingObject;
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
        pristine = counterData;
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

    PmSample sample(std::size_t index) const {
        CUpti_PmSampling_CounterData_GetSampleInfo_Params p{
            CUpti_PmSampling_CounterData_GetSampleInfo_Params_STRUCT_SIZE};
        p.pPmSamplingObject = object;
        p.pCounterDataImage = counterData.data();
        p.counterDataImageSize = counterData.size();
        p.sampleIndex = index;
        ROOFLINE_CUPTI_CHECK(cuptiPmSamplingCounterDataGetSampleInfo(&p));
        return {p.startTimestamp, p.endTimestamp, host->evaluateValues(counterData, index, metrics)};
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
    s.config = host.configImage(s.metrics);
    if (s.config.passes != 1)
        throw Error(ErrorCode::InvalidArgument,
                    "the sampled counters need " + std::to_string(s.config.passes) +
                        " passes on " + host.chip() + "; PM sampling takes one");
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
    CUpti_PmSampling_Start_Params p{CUpti_PmSampling_Start_Params_STRUCT_SIZE};
    p.pPmSamplingObject = impl_->object;
    ROOFLINE_CUPTI_CHECK(cuptiPmSamplingStart(&p));
    impl_->running = true;
}

void PmSampler::stop() {
    if (!impl_->running)
        return;
    CUpti_PmSampling_Stop_Params p{CUpti_PmSampling_Stop_Params_STRUCT_SIZE};
    p.pPmSamplingObject = impl_->object;
    impl_->running = false;
    ROOFLINE_CUPTI_CHECK(cuptiPmSamplingStop(&p));
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

PmDecode PmSampler::decode() {
    Impl& s = *impl_;
    PmDecode out;
    // The image holds samplesPerDecode samples: decode until the buffer is empty or a round
    // brings nothing (bounded, so that a device that samples faster than this reads cannot hold
    // the caller here).
    for (int round = 0; round < 64 && !out.endOfRecords; ++round) {
        CUpti_PmSampling_DecodeData_Params p{CUpti_PmSampling_DecodeData_Params_STRUCT_SIZE};
        p.pPmSamplingObject = s.object;
        p.pCounterDataImage = s.counterData.data();
        p.counterDataImageSize = s.counterData.size();
        const auto began = core::SteadyClock::now();
        const CUptiResult status = cuptiPmSamplingDecodeData(&p);
        out.decodeMs += core::msSince(began);
        const auto decoded = core::SteadyClock::now();
        if (status == CUPTI_ERROR_OUT_OF_MEMORY) {
            out.overflow = true; // the buffer overflowed: what it lost is lost
            break;
        }
        ROOFLINE_CUPTI_CHECK(status);
        out.overflow = out.overflow || p.overflow != 0;
        out.endOfRecords = p.decodeStopReason == CUPTI_PM_SAMPLING_DECODE_STOP_REASON_END_OF_RECORDS;
        const std::size_t n = s.completedSamples();
        for (std::size_t i = 0; i < n; ++i)
            out.samples.push_back(s.sample(i));
        out.evaluateMs += core::msSince(decoded);
        s.counterData = s.pristine;
        if (n == 0)
            break;
    }
    return out;
}

} // namespace roofline::cupti
