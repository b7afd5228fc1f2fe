#include "cupti/target.hpp"

#include "cupti/check.hpp"

#include <roofline/error.hpp>

#include <cuda.h>
#include <cupti_range_profiler.h>

namespace roofline::cupti {

RangeProfiler::RangeProfiler(void* context, std::vector<Configuration> configurations,
                             std::size_t maxRanges, RangeMode mode, std::uint16_t nestingLevels)
    : context_(context), configs_(std::move(configurations)), maxRanges_(maxRanges), mode_(mode),
      levels_(mode == RangeMode::UserUserReplay ? nestingLevels : 1) {
    if (configs_.empty())
        throw Error(ErrorCode::InvalidArgument, "RangeProfiler: no configuration");
    counterData_.resize(configs_.size());
    enable();
}

void RangeProfiler::enable() {
    CUpti_RangeProfiler_Enable_Params enable{CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE};
    enable.ctx = static_cast<CUcontext>(context_);
    ROOFLINE_CUPTI_CHECK(cuptiRangeProfilerEnable(&enable));
    object_ = enable.pRangeProfilerObject;
    try {
        // Sized before any SetConfig on this object; a buffer is allocated once and kept (the
        // object that held it is disabled before a differently sized one could replace it).
        for (std::size_t c = 0; c < configs_.size(); ++c) {
            std::vector<const char*> names;
            for (const auto& m : configs_[c].metrics)
                names.push_back(m.c_str());
            CUpti_RangeProfiler_GetCounterDataSize_Params size{
                CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE};
            size.pRangeProfilerObject = object_;
            size.pMetricNames = names.data();
            size.numMetrics = names.size();
            size.maxNumOfRanges = maxRanges_;
            // User ranges form a tree (a node per range name path).
            size.maxNumRangeTreeNodes = static_cast<uint32_t>(maxRanges_ * (levels_ + 1));
            ROOFLINE_CUPTI_CHECK(cuptiRangeProfilerGetCounterDataSize(&size));
            if (counterData_[c].size() != size.counterDataSize)
                counterData_[c].assign(size.counterDataSize, 0);
        }
        current_ = 0;
        configure();
    } catch (...) {
        disable();
        throw;
    }
}

void RangeProfiler::reenable() {
    disable();
    if (object_)
        throw Error(ErrorCode::Cupti, "cuptiRangeProfilerDisable failed: cannot re-enable the "
                                      "range profiler after new code was loaded");
    enable();
}

RangeProfiler::~RangeProfiler() {
    disable();
}

void RangeProfiler::select(std::size_t index) {
    if (index >= configs_.size())
        throw Error(ErrorCode::InvalidArgument, "RangeProfiler: configuration " +
                                                    std::to_string(index) + " of " +
                                                    std::to_string(configs_.size()));
    current_ = index;
    configure();
}

void RangeProfiler::configure() {
    std::vector<std::uint8_t>& data = counterData_[current_];
    std::vector<std::uint8_t>& image = configs_[current_].image;
    CUpti_RangeProfiler_CounterDataImage_Initialize_Params init{
        CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE};
    init.pRangeProfilerObject = object_;
    init.counterDataSize = data.size();
    init.pCounterData = data.data();
    ROOFLINE_CUPTI_CHECK(cuptiRangeProfilerCounterDataImageInitialize(&init));
    CUpti_RangeProfiler_SetConfig_Params config{CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE};
    config.pRangeProfilerObject = object_;
    config.configSize = image.size();
    config.pConfig = image.data();
    config.counterDataImageSize = data.size();
    config.pCounterDataImage = data.data();
    config.range = mode_ == RangeMode::UserUserReplay ? CUPTI_UserRange : CUPTI_AutoRange;
    config.replayMode =
        mode_ == RangeMode::AutoKernelReplay ? CUPTI_KernelReplay : CUPTI_UserReplay;
    config.maxRangesPerPass = maxRanges_;
    config.numNestingLevels = levels_;
    config.minNestingLevel = 1;
    config.passIndex = 0;
    config.targetNestingLevel = 1;
    ROOFLINE_CUPTI_CHECK(cuptiRangeProfilerSetConfig(&config));
}

void RangeProfiler::start() {
    CUpti_RangeProfiler_Start_Params p{CUpti_RangeProfiler_Start_Params_STRUCT_SIZE};
    p.pRangeProfilerObject = object_;
    ROOFLINE_CUPTI_CHECK(cuptiRangeProfilerStart(&p));
    running_ = true;
}

bool RangeProfiler::stop() {
    if (!running_)
        return false;
    running_ = false;
    CUpti_RangeProfiler_Stop_Params p{CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE};
    p.pRangeProfilerObject = object_;
    ROOFLINE_CUPTI_CHECK(cuptiRangeProfilerStop(&p));
    return mode_ == RangeMode::AutoKernelReplay || p.isAllPassSubmitted != 0;
}

void RangeProfiler::pushRange(const char* name) {
    CUpti_RangeProfiler_PushRange_Params p{CUpti_RangeProfiler_PushRange_Params_STRUCT_SIZE};
    p.pRangeProfilerObject = object_;
    p.pRangeName = name;
    ROOFLINE_CUPTI_CHECK(cuptiRangeProfilerPushRange(&p));
}

void RangeProfiler::popRange() {
    CUpti_RangeProfiler_PopRange_Params p{CUpti_RangeProfiler_PopRange_Params_STRUCT_SIZE};
    p.pRangeProfilerObject = object_;
    ROOFLINE_CUPTI_CHECK(cuptiRangeProfilerPopRange(&p));
}

std::size_t RangeProfiler::decode() {
    CUpti_RangeProfiler_DecodeData_Params p{CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE};
    p.pRangeProfilerObject = object_;
    ROOFLINE_CUPTI_CHECK(cuptiRangeProfilerDecodeData(&p));
    return p.numOfRangeDropped;
}

void RangeProfiler::disable() noexcept {
    if (!object_)
        return;
    if (running_) {
        running_ = false;
        CUpti_RangeProfiler_Stop_Params p{CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE};
        p.pRangeProfilerObject = object_;
        ROOFLINE_CUPTI_LOG(cuptiRangeProfilerStop(&p));
    }
    CUpti_RangeProfiler_Disable_Params p{CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE};
    p.pRangeProfilerObject = object_;
    if (ROOFLINE_CUPTI_LOG(cuptiRangeProfilerDisable(&p)) == CUPTI_SUCCESS)
        object_ = nullptr;
}

} // namespace roofline::cupti
