#include "cupti/target.hpp"

#include "cupti/check.hpp"
#include "cupti/trace.hpp"

#include <roofline/error.hpp>

#include <cuda.h>
#include <cupti_range_profiler.h>

// ROOFLINE_CUPTI_CHECK(fn(params)), timed by a TraceCall named after `fn`
// (ROOFLINE_TRACE_CODE_LOADS).
#define ROOFLINE_CUPTI_TRACED_CHECK(fn, params)                                                    \
    do {                                                                                           \
        const ::roofline::cupti::TraceCall roofline_traced_(#fn);                                  \
        ROOFLINE_CUPTI_CHECK(fn(params));                                                          \
    } while (0)

namespace roofline::cupti {

RangeProfiler::RangeProfiler(void* context, std::vector<Configuration> configurations,
                             std::size_t maxRanges, RangeMode mode, std::uint16_t nestingLevels,
                             bool suspended)
    : context_(context), configs_(std::move(configurations)), maxRanges_(maxRanges), mode_(mode),
      levels_(mode == RangeMode::UserUserReplay ? nestingLevels : 1) {
    if (configs_.empty())
        throw Error(ErrorCode::InvalidArgument, "RangeProfiler: no configuration");
    counterData_.resize(configs_.size());
    enable(!suspended);
    if (suspended)
        disable();
}

void RangeProfiler::enable(bool configureIt) {
    CUpti_RangeProfiler_Enable_Params enable{CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE};
    enable.ctx = static_cast<CUcontext>(context_);
    ROOFLINE_CUPTI_TRACED_CHECK(cuptiRangeProfilerEnable, &enable);
    object_ = enable.pRangeProfilerObject;
    sized_ = false;
    if (!configureIt)
        return;
    try {
        configure();
    } catch (...) {
        disable();
        throw;
    }
}

// The object must go before a fresh one can take its place.
void RangeProfiler::disableOrThrow(const char* what) {
    disable();
    if (object_)
        throw Error(ErrorCode::Cupti, std::string("cuptiRangeProfilerDisable failed: cannot ") +
                                          what + " the range profiler");
}

void RangeProfiler::appendConfigurations(std::vector<Configuration> more) {
    // Moving the vectors moves their buffers' ownership, not the buffers: what SetConfig was
    // given stays where it is.
    for (auto& c : more)
        configs_.push_back(std::move(c));
    counterData_.resize(configs_.size());
}

void RangeProfiler::replaceConfigurations(std::vector<Configuration> configurations,
                                          std::size_t index) {
    if (configurations.empty())
        throw Error(ErrorCode::InvalidArgument, "RangeProfiler: no configuration");
    const bool wasSuspended = suspended();
    disableOrThrow("re-create"); // the old object held the old buffers; a fresh one gets the new
    configs_ = std::move(configurations);
    counterData_.resize(configs_.size());
    current_ = index < configs_.size() ? index : 0;
    if (!wasSuspended) // else resume() or start() create the object with these
        enable();
}

void RangeProfiler::reenable(std::size_t configuration) {
    recreate(configuration < configs_.size() ? configuration : 0);
}

void RangeProfiler::recreate(std::size_t index) {
    if (!object_) { // suspended: the fresh object comes with resume() or start()
        current_ = index;
        return;
    }
    disableOrThrow("re-create");
    current_ = index;
    enable();
}

void RangeProfiler::suspend(std::size_t maxRanges) {
    disableOrThrow("release");
    for (auto& data : counterData_)
        std::vector<std::uint8_t>().swap(data);
    if (maxRanges > 0)
        maxRanges_ = maxRanges;
}

RangeProfiler::~RangeProfiler() {
    disable();
}

std::size_t RangeProfiler::counterDataSize(std::size_t config) {
    std::vector<const char*> names;
    for (const auto& m : configs_[config].metrics)
        names.push_back(m.c_str());
    CUpti_RangeProfiler_GetCounterDataSize_Params size{
        CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE};
    size.pRangeProfilerObject = object_;
    size.pMetricNames = names.data();
    size.numMetrics = names.size();
    size.maxNumOfRanges = maxRanges_;
    // User ranges form a tree (a node per range name path).
    size.maxNumRangeTreeNodes = static_cast<uint32_t>(maxRanges_ * (levels_ + 1));
    ROOFLINE_CUPTI_TRACED_CHECK(cuptiRangeProfilerGetCounterDataSize, &size);
    traceCodeLoad("counter-data image of %zu ranges: %zu bytes", maxRanges_, size.counterDataSize);
    return size.counterDataSize;
}

void RangeProfiler::select(std::size_t index) {
    if (index >= configs_.size())
        throw Error(ErrorCode::InvalidArgument, "RangeProfiler: configuration " +
                                                    std::to_string(index) + " of " +
                                                    std::to_string(configs_.size()));
    if (index == current_) {
        configure();
        return;
    }
    // Measured on the H100 (CUPTI 2025.3): SetConfig with another config image on an object
    // that already ran one keeps the first one's pass schedule -- a 2-pass configuration reported
    // all passes in after one, and the new metrics evaluated to NaN. Only a fresh object applies
    // it.
    recreate(index);
}

void RangeProfiler::resume() {
    if (!object_)
        enable();
}

void RangeProfiler::configure() {
    if (!object_) // suspended: resume() or start() configure the fresh object
        return;
    std::vector<std::uint8_t>& data = counterData_[current_];
    std::vector<std::uint8_t>& image = configs_[current_].image;
    if (!sized_) { // once per object, before its first SetConfig; the buffer is kept after
        const std::size_t size = counterDataSize(current_);
        if (data.size() != size)
            data.assign(size, 0);
        sized_ = true;
    }
    CUpti_RangeProfiler_CounterDataImage_Initialize_Params init{
        CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE};
    init.pRangeProfilerObject = object_;
    init.counterDataSize = data.size();
    init.pCounterData = data.data();
    ROOFLINE_CUPTI_TRACED_CHECK(cuptiRangeProfilerCounterDataImageInitialize, &init);
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
    ROOFLINE_CUPTI_TRACED_CHECK(cuptiRangeProfilerSetConfig, &config);
}

void RangeProfiler::start() {
    resume(); // suspended: a fresh object at pass 0
    CUpti_RangeProfiler_Start_Params p{CUpti_RangeProfiler_Start_Params_STRUCT_SIZE};
    p.pRangeProfilerObject = object_;
    ROOFLINE_CUPTI_TRACED_CHECK(cuptiRangeProfilerStart, &p);
    running_ = true;
}

bool RangeProfiler::stop() {
    if (!running_)
        return false;
    running_ = false;
    CUpti_RangeProfiler_Stop_Params p{CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE};
    p.pRangeProfilerObject = object_;
    ROOFLINE_CUPTI_TRACED_CHECK(cuptiRangeProfilerStop, &p);
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
    ROOFLINE_CUPTI_TRACED_CHECK(cuptiRangeProfilerDecodeData, &p);
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
    const TraceCall traced("cuptiRangeProfilerDisable");
    if (ROOFLINE_CUPTI_LOG(cuptiRangeProfilerDisable(&p)) == CUPTI_SUCCESS)
        object_ = nullptr;
}

} // namespace roofline::cupti
