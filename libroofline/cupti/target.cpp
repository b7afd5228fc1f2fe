#include "cupti/target.hpp"

#include "cupti/check.hpp"

#include <cuda.h>
#include <cupti_range_profiler.h>

namespace roofline::cupti {

RangeProfiler::RangeProfiler(void* context, const std::vector<std::string>& metrics,
                             std::vector<std::uint8_t> configImage, std::size_t maxRanges)
    : configImage_(std::move(configImage)), maxRanges_(maxRanges) {
    CUpti_RangeProfiler_Enable_Params enable{CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE};
    enable.ctx = static_cast<CUcontext>(context);
    ROOFLINE_CUPTI_CHECK(cuptiRangeProfilerEnable(&enable));
    object_ = enable.pRangeProfilerObject;
    try {
        std::vector<const char*> names;
        for (const auto& m : metrics)
            names.push_back(m.c_str());
        CUpti_RangeProfiler_GetCounterDataSize_Params size{
            CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE};
        size.pRangeProfilerObject = object_;
        size.pMetricNames = names.data();
        size.numMetrics = names.size();
        size.maxNumOfRanges = maxRanges_;
        size.maxNumRangeTreeNodes = static_cast<uint32_t>(maxRanges_);
        ROOFLINE_CUPTI_CHECK(cuptiRangeProfilerGetCounterDataSize(&size));
        counterData_.assign(size.counterDataSize, 0);
        CUpti_RangeProfiler_CounterDataImage_Initialize_Params init{
            CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE};
        init.pRangeProfilerObject = object_;
        init.counterDataSize = counterData_.size();
        init.pCounterData = counterData_.data();
        ROOFLINE_CUPTI_CHECK(cuptiRangeProfilerCounterDataImageInitialize(&init));
        CUpti_RangeProfiler_SetConfig_Params config{
            CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE};
        config.pRangeProfilerObject = object_;
        config.configSize = configImage_.size();
        config.pConfig = configImage_.data();
        config.counterDataImageSize = counterData_.size();
        config.pCounterDataImage = counterData_.data();
        config.range = CUPTI_AutoRange;
        config.replayMode = CUPTI_KernelReplay;
        config.maxRangesPerPass = maxRanges_;
        config.numNestingLevels = 1;
        config.minNestingLevel = 1;
        config.passIndex = 0;
        config.targetNestingLevel = 0;
        ROOFLINE_CUPTI_CHECK(cuptiRangeProfilerSetConfig(&config));
    } catch (...) {
        disable();
        throw;
    }
}

RangeProfiler::~RangeProfiler() {
    disable();
}

void RangeProfiler::start() {
    CUpti_RangeProfiler_Start_Params p{CUpti_RangeProfiler_Start_Params_STRUCT_SIZE};
    p.pRangeProfilerObject = object_;
    ROOFLINE_CUPTI_CHECK(cuptiRangeProfilerStart(&p));
    running_ = true;
}

void RangeProfiler::stop() {
    if (!running_)
        return;
    running_ = false;
    CUpti_RangeProfiler_Stop_Params stopParams{CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE};
    stopParams.pRangeProfilerObject = object_;
    ROOFLINE_CUPTI_CHECK(cuptiRangeProfilerStop(&stopParams));
    CUpti_RangeProfiler_DecodeData_Params decode{CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE};
    decode.pRangeProfilerObject = object_;
    ROOFLINE_CUPTI_CHECK(cuptiRangeProfilerDecodeData(&decode));
    dropped_ += decode.numOfRangeDropped;
}

void RangeProfiler::disable() noexcept {
    if (!object_)
        return;
    if (running_) {
        running_ = false;
        CUpti_RangeProfiler_Stop_Params p{CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE};
        p.pRangeProfilerObject = object_;
        if (ROOFLINE_CUPTI_LOG(cuptiRangeProfilerStop(&p)) == CUPTI_SUCCESS) {
            CUpti_RangeProfiler_DecodeData_Params d{
                CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE};
            d.pRangeProfilerObject = object_;
            if (ROOFLINE_CUPTI_LOG(cuptiRangeProfilerDecodeData(&d)) == CUPTI_SUCCESS)
                dropped_ += d.numOfRangeDropped;
        }
    }
    CUpti_RangeProfiler_Disable_Params p{CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE};
    p.pRangeProfilerObject = object_;
    if (ROOFLINE_CUPTI_LOG(cuptiRangeProfilerDisable(&p)) == CUPTI_SUCCESS)
        object_ = nullptr;
}

} // namespace roofline::cupti
