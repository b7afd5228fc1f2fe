#include "cupti/host.hpp"

#include "core/string_distance.hpp"
#include "cupti/check.hpp"

#include <roofline/error.hpp>

#include <cupti_profiler_host.h>
#include <cupti_range_profiler.h>

#include <algorithm>

namespace roofline::cupti {
namespace {

CUpti_Profiler_Host_Object* createHostObject(const std::string& chip, Instrument instrument) {
    CUpti_Profiler_Host_Initialize_Params p{CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE};
    p.profilerType = instrument == Instrument::PmSampling ? CUPTI_PROFILER_TYPE_PM_SAMPLING
                                                          : CUPTI_PROFILER_TYPE_RANGE_PROFILER;
    p.pChipName = chip.c_str();
    ROOFLINE_CUPTI_CHECK(cuptiProfilerHostInitialize(&p));
    return p.pHostObject;
}

void destroyHostObject(CUpti_Profiler_Host_Object* object) noexcept {
    if (!object)
        return;
    CUpti_Profiler_Host_Deinitialize_Params p{CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE};
    p.pHostObject = object;
    ROOFLINE_CUPTI_LOG(cuptiProfilerHostDeinitialize(&p));
}

struct HostObject {
    HostObject(const std::string& chip, Instrument instrument)
        : object(createHostObject(chip, instrument)) {}
    ~HostObject() { destroyHostObject(object); }
    HostObject(const HostObject&) = delete;
    HostObject& operator=(const HostObject&) = delete;
    CUpti_Profiler_Host_Object* object;
};

const char* typeName(CUpti_MetricType t) {
    switch (t) {
    case CUPTI_METRIC_TYPE_COUNTER:
        return "counter";
    case CUPTI_METRIC_TYPE_RATIO:
        return "ratio";
    case CUPTI_METRIC_TYPE_THROUGHPUT:
        return "throughput";
    default:
        return "unknown";
    }
}

} // namespace

struct Host::Impl {
    std::string chip;
    Instrument instrument;
    HostObject host;
    Impl(const std::string& c, Instrument i) : chip(c), instrument(i), host(c, i) {}
};

std::vector<std::string> Host::supportedChips() {
    CUpti_Profiler_Host_GetSupportedChips_Params p{
        CUpti_Profiler_Host_GetSupportedChips_Params_STRUCT_SIZE};
    ROOFLINE_CUPTI_CHECK(cuptiProfilerHostGetSupportedChips(&p));
    return {p.ppChipNames, p.ppChipNames + p.numChips};
}

Host::Host(const std::string& chip, Instrument instrument) {
    const auto chips = supportedChips();
    if (std::find(chips.begin(), chips.end(), chip) == chips.end()) {
        std::string list;
        for (const auto& c : chips)
            list += (list.empty() ? "" : ", ") + c;
        throw Error(ErrorCode::UnsupportedChip,
                    "chip '" + chip + "' is not supported by this CUPTI (supported: " + list +
                        "). Chip names are CUPTI's, e.g. GH100 for H100.");
    }
    impl_ = std::make_unique<Impl>(chip, instrument);
}

Host::~Host() = default;
Host::Host(Host&&) noexcept = default;
Host& Host::operator=(Host&&) noexcept = default;

const std::string& Host::chip() const noexcept {
    return impl_->chip;
}

Instrument Host::instrument() const noexcept {
    return impl_->instrument;
}

std::vector<std::string> Host::baseMetrics() const {
    std::vector<std::string> names;
    for (auto type :
         {CUPTI_METRIC_TYPE_COUNTER, CUPTI_METRIC_TYPE_RATIO, CUPTI_METRIC_TYPE_THROUGHPUT}) {
        CUpti_Profiler_Host_GetBaseMetrics_Params p{
            CUpti_Profiler_Host_GetBaseMetrics_Params_STRUCT_SIZE};
        p.pHostObject = impl_->host.object;
        p.metricType = type;
        ROOFLINE_CUPTI_CHECK(cuptiProfilerHostGetBaseMetrics(&p));
        for (std::size_t i = 0; i < p.numMetrics; ++i)
            names.emplace_back(p.ppMetricNames[i]);
    }
    std::sort(names.begin(), names.end());
    return names;
}

MetricProperties Host::properties(const std::string& metric) const {
    CUpti_Profiler_Host_GetMetricProperties_Params p{
        CUpti_Profiler_Host_GetMetricProperties_Params_STRUCT_SIZE};
    p.pHostObject = impl_->host.object;
    p.pMetricName = metric.c_str();
    const CUptiResult status = cuptiProfilerHostGetMetricProperties(&p);
    if (status == CUPTI_ERROR_INVALID_METRIC_NAME || status == CUPTI_ERROR_INVALID_PARAMETER) {
        const auto dot = metric.find('.');
        const std::string base = metric.substr(0, dot);
        const std::string suffix = dot == std::string::npos ? "" : metric.substr(dot);
        std::string close;
        for (const auto& c : core::closestNames(base, baseMetrics(), 3))
            close += (close.empty() ? "" : ", ") + c + suffix;
        throw Error(ErrorCode::UnknownMetric,
                    "metric '" + metric + "' does not exist on chip " + impl_->chip +
                        " (closest valid names: " + close + ")",
                    static_cast<int>(status));
    }
    ROOFLINE_CUPTI_CHECK(status);
    return {p.pDescription ? p.pDescription : "", p.pHwUnit ? p.pHwUnit : "",
            p.pDimUnit ? p.pDimUnit : "", typeName(p.metricType)};
}

ConfigImage Host::configImage(const std::vector<std::string>& metrics) const {
    if (metrics.empty())
        throw Error(ErrorCode::InvalidArgument, "no metrics to configure");
    for (const auto& m : metrics)
        properties(m); // precise error for the first bad name
    HostObject fresh(impl_->chip, impl_->instrument);
    std::vector<const char*> names;
    for (const auto& m : metrics)
        names.push_back(m.c_str());
    CUpti_Profiler_Host_ConfigAddMetrics_Params add{
        CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE};
    add.pHostObject = fresh.object;
    add.ppMetricNames = names.data();
    add.numMetrics = names.size();
    ROOFLINE_CUPTI_CHECK(cuptiProfilerHostConfigAddMetrics(&add));
    CUpti_Profiler_Host_GetConfigImageSize_Params size{
        CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE};
    size.pHostObject = fresh.object;
    ROOFLINE_CUPTI_CHECK(cuptiProfilerHostGetConfigImageSize(&size));
    ConfigImage image;
    image.bytes.resize(size.configImageSize);
    CUpti_Profiler_Host_GetConfigImage_Params get{
        CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE};
    get.pHostObject = fresh.object;
    get.configImageSize = image.bytes.size();
    get.pConfigImage = image.bytes.data();
    ROOFLINE_CUPTI_CHECK(cuptiProfilerHostGetConfigImage(&get));
    CUpti_Profiler_Host_GetNumOfPasses_Params passes{
        CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE};
    passes.configImageSize = image.bytes.size();
    passes.pConfigImage = image.bytes.data();
    ROOFLINE_CUPTI_CHECK(cuptiProfilerHostGetNumOfPasses(&passes));
    image.passes = passes.numOfPasses;
    return image;
}

std::vector<std::vector<std::string>>
Host::singlePassGroups(const std::vector<std::string>& metrics) const {
    std::vector<std::vector<std::string>> groups;
    for (const auto& m : metrics) {
        bool placed = false;
        for (auto& g : groups) {
            g.push_back(m);
            if (configImage(g).passes <= 1) {
                placed = true;
                break;
            }
            g.pop_back();
        }
        if (!placed)
            groups.push_back({m});
    }
    return groups;
}

std::size_t Host::rangeCount(const std::vector<std::uint8_t>& counterData) const {
    CUpti_RangeProfiler_GetCounterDataInfo_Params p{
        CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE};
    p.pCounterDataImage = counterData.data();
    p.counterDataImageSize = counterData.size();
    const CUptiResult status = cuptiRangeProfilerGetCounterDataInfo(&p);
    if (status != CUPTI_SUCCESS)
        throw Error(ErrorCode::CorruptRecording,
                    "CUPTI cannot read the counter-data image (" + std::to_string(status) +
                        "): it is damaged or from an incompatible CUPTI",
                    static_cast<int>(status));
    return p.numTotalRanges;
}

std::string Host::rangeName(const std::vector<std::uint8_t>& counterData, std::size_t range) const {
    CUpti_RangeProfiler_CounterData_GetRangeInfo_Params p{
        CUpti_RangeProfiler_CounterData_GetRangeInfo_Params_STRUCT_SIZE};
    p.pCounterDataImage = counterData.data();
    p.counterDataImageSize = counterData.size();
    p.rangeIndex = range;
    p.rangeDelimiter = "/";
    ROOFLINE_CUPTI_CHECK(cuptiRangeProfilerCounterDataGetRangeInfo(&p));
    return p.rangeName ? p.rangeName : "";
}

std::vector<double> Host::evaluateValues(const std::vector<std::uint8_t>& counterData,
                                         std::size_t range,
                                         const std::vector<std::string>& metrics) const {
    std::vector<const char*> names;
    for (const auto& m : metrics)
        names.push_back(m.c_str());
    std::vector<double> values(metrics.size());
    CUpti_Profiler_Host_EvaluateToGpuValues_Params p{
        CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE};
    p.pHostObject = impl_->host.object;
    p.pCounterDataImage = counterData.data();
    p.counterDataImageSize = counterData.size();
    p.rangeIndex = range;
    p.ppMetricNames = names.data();
    p.numMetrics = names.size();
    p.pMetricValues = values.data();
    ROOFLINE_CUPTI_CHECK(cuptiProfilerHostEvaluateToGpuValues(&p));
    return values;
}

core::MetricValues Host::evaluate(const std::vector<std::uint8_t>& counterData, std::size_t range,
                                  const std::vector<std::string>& metrics) const {
    const std::vector<double> values = evaluateValues(counterData, range, metrics);
    core::MetricValues out;
    for (std::size_t i = 0; i < metrics.size(); ++i)
        out[metrics[i]] = values[i];
    return out;
}

} // namespace roofline::cupti
