#include "session/cupti_backend.hpp"

#include "core/device_peaks.hpp"
#include "core/log.hpp"
#include "core/metric_catalog.hpp"
#include "core/stopwatch.hpp"
#include "cupti/driver.hpp"
#include "cupti/trace.hpp"

#include <roofline/error.hpp>

#include <algorithm>
#include <limits>

namespace roofline::collect {
namespace {

using Clock = core::SteadyClock;
using core::msSince;

thread_local int tBackendCalls = 0; // this thread is inside a backend call (ContextGuard)

// The device's context is current for the duration of a call (CUPTI and the driver act on the
// current context; a launch callback may run on a thread where another one is current).
class ContextGuard {
public:
    explicit ContextGuard(void* context) {
        ++tBackendCalls;
        const cupti::DriverApi* d = cupti::driver();
        pushed_ = d && d->ctxPushCurrent(static_cast<CUcontext>(context)) == CUDA_SUCCESS;
    }
    ~ContextGuard() {
        if (pushed_) {
            CUcontext previous = nullptr;
            cupti::driver()->ctxPopCurrent(&previous);
        }
        --tBackendCalls;
    }
    ContextGuard(const ContextGuard&) = delete;
    ContextGuard& operator=(const ContextGuard&) = delete;

private:
    bool pushed_ = false;
};

} // namespace

bool CuptiBackend::insideCall() noexcept {
    return tBackendCalls > 0;
}

CuptiBackend::CuptiBackend(void* context, const BackendSpec& spec, std::uint64_t l2Bytes,
                           std::unique_ptr<cupti::L2Flush> kernelFlush)
    : context_(context), metrics_(spec.metrics), fallback_(spec.fallback), host_(spec.chip),
      l2Bytes_(l2Bytes), kernelFlush_(std::move(kernelFlush)) {
    try {
        peakMetrics_ = core::peakMetrics(core::peakRoofs(core::profileForChip(spec.chip)));
    } catch (const std::exception&) { // a chip the catalog lacks: no device roofs
    }
    ContextGuard g(context_);
    profiler_ = std::make_unique<cupti::RangeProfiler>(
        context, spec.configurations, spec.rangesPerImage, spec.mode, spec.levels, spec.released);
}

CuptiBackend::~CuptiBackend() {
    profiler_->disable();
    if (flushBuffer_)
        if (const cupti::DriverApi* d = cupti::driver()) {
            ContextGuard g(context_);
            d->memFree(static_cast<CUdeviceptr>(flushBuffer_));
        }
}

void CuptiBackend::configure() {
    imagePasses_ = 0; // a fresh image
    ContextGuard g(context_);
    profiler_->configure();
}
void CuptiBackend::selectConfiguration(std::size_t index) {
    imagePasses_ = 0; // a fresh image at pass 0
    const bool recreate = index != profiler_->current() && !profiler_->suspended();
    if (recreate)
        cupti::traceCodeLoad("re-creating the range profiler for the next configuration");
    ContextGuard g(context_);
    const auto t0 = Clock::now();
    profiler_->select(index);
    if (recreate)
        created(t0);
}
void CuptiBackend::start() {
    ContextGuard g(context_);
    const bool fresh = freshObject_ || profiler_->suspended(); // resume() creates one
    const auto t0 = Clock::now();
    profiler_->start();
    passBegan_ = Clock::now();
    const double ms = msSince(t0);
    ++cost_.starts;
    cost_.startMs += ms;
    if (fresh) {
        ++cost_.objectStarts;
        cost_.objectRanges += profiler_->capacity();
        cost_.objectStartMs += ms;
        freshObject_ = false;
    }
}
bool CuptiBackend::stop() {
    ContextGuard g(context_);
    if (profiler_->running())
        cost_.passMs += msSince(passBegan_);
    const auto t0 = Clock::now();
    const bool all = profiler_->stop();
    cost_.stopMs += msSince(t0);
    ++imagePasses_;
    return all;
}
void CuptiBackend::pushRange(const std::string& name) {
    ContextGuard g(context_);
    profiler_->pushRange(name.c_str());
}
void CuptiBackend::popRange() {
    ContextGuard g(context_);
    profiler_->popRange();
}
void CuptiBackend::reenable(std::size_t configuration) {
    imagePasses_ = 0; // a fresh image at pass 0
    const bool recreate = !profiler_->suspended(); // else acquire() creates it
    if (recreate)
        cupti::traceCodeLoad("re-creating the range profiler");
    ContextGuard g(context_);
    const auto t0 = Clock::now();
    profiler_->reenable(configuration);
    if (recreate)
        created(t0);
}
void CuptiBackend::created(core::SteadyClock::time_point since) noexcept {
    freshObject_ = true;
    ++cost_.creations;
    cost_.creationMs += msSince(since);
}
void CuptiBackend::release(std::size_t ranges) {
    imagePasses_ = 0; // the image goes with the object
    cupti::traceCodeLoad("releasing the range profiler");
    ContextGuard g(context_);
    profiler_->suspend(ranges);
}
void CuptiBackend::acquire() {
    if (!profiler_->suspended())
        return;
    cupti::traceCodeLoad("creating the range profiler (%zu ranges)", profiler_->capacity());
    ContextGuard g(context_);
    const auto t0 = Clock::now();
    profiler_->resume();
    created(t0);
}
std::size_t CuptiBackend::decode() {
    ContextGuard g(context_);
    const auto t0 = Clock::now();
    const std::size_t dropped = profiler_->decode();
    cost_.evaluationMs += msSince(t0);
    return dropped;
}

std::vector<RangeValues> CuptiBackend::evaluate() {
    const auto t0 = Clock::now();
    const auto& image = profiler_->counterData();
    const std::vector<std::string>& own = profiler_->metrics();
    // Where each of the configuration's metrics goes in the session's order.
    std::vector<std::size_t> at(own.size());
    for (std::size_t i = 0; i < own.size(); ++i)
        at[i] = static_cast<std::size_t>(std::find(metrics_.begin(), metrics_.end(), own[i]) -
                                         metrics_.begin());
    const std::size_t n = host_.rangeCount(image);
    if (peaks_.empty() && n > 0 && !peakMetrics_.empty()) {
        try { // constants of the chip: CUPTI evaluates them from any range
            peaks_ = host_.evaluateValues(image, 0, peakMetrics_);
        } catch (const std::exception& e) {
            peakMetrics_.clear(); // not again
            core::log().warn("libroofline: the device's peak rates could not be evaluated ({}): "
                             "roofs the measured ceilings lack come from the datasheet",
                             e.what());
        }
    }
    std::vector<RangeValues> out(n);
    for (std::size_t r = 0; r < n; ++r) {
        out[r].name = host_.rangeName(image, r);
        const std::vector<double> values = host_.evaluateValues(image, r, own);
        out[r].values.assign(metrics_.size(), std::numeric_limits<double>::quiet_NaN());
        for (std::size_t i = 0; i < own.size(); ++i)
            if (at[i] < metrics_.size())
                out[r].values[at[i]] = values[i];
    }
    cost_.evaluationMs += msSince(t0);
    cost_.ranges += n;
    cost_.rangePasses += n * std::max<std::size_t>(imagePasses_, 1);
    imagePasses_ = 0;
    return out;
}

std::size_t CuptiBackend::addMetrics(const std::vector<std::string>& more) {
    const auto t0 = Clock::now();
    std::vector<std::string> grown = collected();
    core::addMetrics(grown, more);
    cupti::ConfigImage image = host_.configImage(grown);
    if (!fallback_.empty() && grown.size() > fallback_.size()) {
        cupti::ConfigImage full = host_.configImage(fallback_);
        if (full.passes < image.passes) { // detection no longer pays: collect the full set
            grown = fallback_;
            image = std::move(full);
        }
    }
    const std::size_t passes = image.passes;
    alignedPasses_ = 0;
    ContextGuard g(context_);
    std::vector<cupti::Configuration> one;
    one.push_back({std::move(grown), std::move(image.bytes)});
    const bool live = !profiler_->suspended(); // released: acquire() creates it with these
    profiler_->replaceConfigurations(std::move(one), 0);
    if (live)
        created(t0);
    return passes;
}

std::size_t CuptiBackend::prepareAligned() {
    if (alignedPasses_ > 0 || profiler_->configurations() > 1)
        return alignedPasses_;
    const auto t0 = Clock::now();
    std::vector<cupti::Configuration> single, several; // needing more than one pass: last
    std::size_t passes = 0;
    for (auto& metrics : host_.singlePassGroups(collected())) {
        cupti::ConfigImage one = host_.configImage(metrics);
        passes += one.passes;
        (one.passes > 1 ? several : single).push_back({std::move(metrics), std::move(one.bytes)});
    }
    for (auto& c : several)
        single.push_back(std::move(c));
    profiler_->appendConfigurations(std::move(single));
    alignedPasses_ = passes;
    cost_.creationMs += msSince(t0);
    return passes;
}

const std::vector<std::string>& CuptiBackend::collected() const {
    return profiler_->metricsOf(0);
}

void CuptiBackend::flushBeforeLaunch(std::uint64_t stream) noexcept {
    if (!kernelFlush_)
        return;
    ContextGuard g(context_);
    kernelFlush_->launch(stream);
}

void CuptiBackend::flushCaches() noexcept {
    const cupti::DriverApi* d = cupti::driver();
    if (!d || l2Bytes_ == 0)
        return;
    ContextGuard g(context_);
    const std::size_t bytes = static_cast<std::size_t>(l2Bytes_) * 2;
    if (!flushBuffer_) {
        CUdeviceptr p = 0;
        if (d->memAlloc(&p, bytes) != CUDA_SUCCESS) {
            core::log().warn("cache flush disabled: cannot allocate {} MB on the device",
                             bytes >> 20);
            l2Bytes_ = 0;
            return;
        }
        flushBuffer_ = p;
    }
    // Writing twice the L2 size evicts what the previous pass left there.
    d->memsetD32(static_cast<CUdeviceptr>(flushBuffer_), 0u, bytes / 4);
    d->ctxSynchronize();
}

// ---- window replay ----------------------------------------------------------------------------

bool CuptiBackend::recordLaunch(const core::Launch& l, std::string& why) {
    if (!l.driverParams) {
        why = "its driver call was not seen";
        return false;
    }
    const auto t0 = Clock::now();
    cupti::RecordedLaunch r;
    const bool recorded = r.record(l.driverCall, l.driverParams, why);
    if (recorded)
        recorded_.push_back(std::move(r));
    cost_.recordMs += msSince(t0);
    return recorded;
}

bool CuptiBackend::checkpointsFit(std::string& why) {
    ContextGuard g(context_);
    return cupti::checkpointsFit(why);
}

bool CuptiBackend::launchArguments(const core::Launch& l, std::string& bytes) {
    if (!l.driverParams)
        return false;
    const auto t0 = Clock::now();
    const bool read = cupti::launchArguments(l.driverCall, l.driverParams, bytes);
    cost_.recordMs += msSince(t0);
    return read;
}

void CuptiBackend::synchronize() {
    const auto t0 = Clock::now();
    wait();
    cost_.waitMs += msSince(t0);
}

void CuptiBackend::wait() {
    ContextGuard g(context_);
    const cupti::DriverApi* d = cupti::driver();
    if (!d)
        throw Error(ErrorCode::Cuda, "the CUDA driver is not loaded");
    const CUresult r = d->ctxSynchronize();
    if (r != CUDA_SUCCESS)
        throw Error(ErrorCode::Cuda,
                    "waiting for the device failed (CUDA error " + std::to_string(r) + ")",
                    static_cast<int>(r));
}

void CuptiBackend::saveMemory(bool after) {
    ContextGuard g(context_);
    const auto t0 = Clock::now();
    std::unique_ptr<cupti::Checkpoint>& c = after ? after_ : before_;
    if (!c)
        c = std::make_unique<cupti::Checkpoint>(context_);
    c->save();
    ++cost_.memoryCopies;
    cost_.memoryMs += msSince(t0);
}

void CuptiBackend::restoreMemory(bool after) {
    const auto t0 = Clock::now();
    {
        ContextGuard g(context_);
        std::unique_ptr<cupti::Checkpoint>& c = after ? after_ : before_;
        if (!c)
            throw Error(ErrorCode::InvalidState, "restoring device memory that was not saved");
        c->restore();
    }
    wait();
    ++cost_.memoryCopies;
    cost_.memoryMs += msSince(t0);
}

void CuptiBackend::relaunchRecorded() {
    {
        ContextGuard g(context_);
        for (const cupti::RecordedLaunch& r : recorded_)
            r.relaunch();
    }
    wait(); // inside the pass
}

void CuptiBackend::forgetWindow() noexcept {
    recorded_.clear();
    ContextGuard g(context_);
    if (before_)
        before_->free();
    if (after_)
        after_->free();
}

} // namespace roofline::collect
