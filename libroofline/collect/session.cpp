// roofline::Session: the options checked, the devices opened, CUPTI's profiler and the counter
// configuration set up (or the reason there are no counters), then the session glue
// (collect/session_state.cpp) wired to the collector.
#include "collect/fallback.hpp"
#include "collect/session_impl.hpp"

#include "core/ceilings_file.hpp"
#include "core/log.hpp"
#include "core/roofline_model.hpp"
#include "core/stopwatch.hpp"
#include "core/tensor_inference.hpp"
#include "cupti/device.hpp"
#include "cupti/host.hpp"
#include "nvtx/listener.hpp"

#include <roofline/error.hpp>
#include <roofline/session.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <optional>

namespace roofline {
namespace collect {

namespace {

// Measured roofs when `roofline ceilings` cached them for this device, datasheet roofs otherwise.
Ceilings deviceCeilings(const core::DeviceInfo& info) {
    core::CeilingsChoice choice = core::chooseCeilings(info);
    if (!choice.warning.empty())
        core::log().warn("libroofline: {}", choice.warning);
    return choice.used;
}

void sink(const cupti::LaunchEvent& event, void* user) noexcept {
    static_cast<SessionState*>(user)->onLaunch(event);
}

cupti::RangeMode rangeMode(CollectionMode mode) {
    switch (mode) {
    case CollectionMode::KernelReplay:
        return cupti::RangeMode::AutoKernelReplay;
    case CollectionMode::IterationReplay:
        return cupti::RangeMode::AutoUserReplay;
    case CollectionMode::ScopeReplay:
        return cupti::RangeMode::UserUserReplay;
    }
    return cupti::RangeMode::AutoUserReplay;
}

} // namespace
} // namespace collect

struct Session::Impl : collect::SessionState {};

namespace {

// "device 0 (NVIDIA H100 80GB HBM3)", or "devices 0, 1 (NVIDIA H200)" for one process on several
// ("NVIDIA H200, NVIDIA H100 ..." when they differ).
std::string devicesText(const std::vector<collect::SessionDevice>& devices, int requested) {
    if (devices.empty())
        return "device " + std::to_string(requested) + " (?)";
    std::string ordinals, names;
    for (const auto& d : devices) {
        ordinals += (ordinals.empty() ? "" : ", ") + std::to_string(d.info.ordinal);
        if (names.find(d.info.name) == std::string::npos)
            names += (names.empty() ? "" : ", ") + d.info.name;
    }
    return (devices.size() > 1 ? "devices " : "device ") + ordinals + " (" + names + ")";
}

CacheFlush effectiveFlush(const Options& o) {
    if (o.cacheFlush != CacheFlush::Auto)
        return o.cacheFlush;
    return o.mode == CollectionMode::KernelReplay ? CacheFlush::On : CacheFlush::Off;
}

// Counter collection on every requested device; throws Error on the first failure.
void setUpCounters(collect::SessionState& s, collect::CollectorConfig& config) {
    using core::msSince;
    const auto start = core::SteadyClock::now();
    const int count = cupti::deviceCount();
    std::vector<int> ordinals;
    if (s.options.device < 0)
        for (int i = 0; i < count; ++i)
            ordinals.push_back(i);
    else
        ordinals.push_back(s.options.device);
    if (ordinals.empty())
        throw Error(ErrorCode::NoDevice, "no CUDA device is visible");
    for (int ordinal : ordinals) {
        collect::SessionDevice d;
        d.context = cupti::PrimaryContext(ordinal, d.info);
        s.devices.push_back(std::move(d));
    }
    s.deviceMs = msSince(start);
    const auto initStart = core::SteadyClock::now();
    s.profiler.emplace();
    s.cuptiInitMs = msSince(initStart);
    for (auto& d : s.devices)
        d.info.chip = cupti::chipName(d.info.ordinal);
    const std::string& chip = s.devices[0].info.chip;
    for (const auto& d : s.devices)
        if (d.info.chip != chip)
            throw Error(ErrorCode::UnsupportedChip,
                        "devices of different chips (" + chip + ", " + d.info.chip +
                            ") in one session: profile them with ROOFLINE_DEVICE one at a time");
    const core::ChipProfile profile = core::withBytes(core::profileForChip(chip), s.options.bytes);
    // Tensor counters by detection (design 0008): iteration replay only -- a launch whose MMA
    // kind needs more counters is measured again in a later iteration, which kernel replay and
    // per-scope records cannot do.
    const bool detect = s.options.mode == CollectionMode::IterationReplay &&
                        s.options.tensorCounters == TensorCounters::Detect;
    s.metrics = core::sessionMetrics(profile, s.options.metrics, detect);
    std::vector<std::string> initial = core::initialMetrics(profile, s.options.metrics, detect);
    const bool detecting = initial != s.metrics;
    const auto imagesStart = core::SteadyClock::now();
    const cupti::Host host(chip);
    cupti::ConfigImage image = host.configImage(initial);
    s.configImage = image.bytes;
    const std::size_t levels =
        s.options.mode == CollectionMode::ScopeReplay ? s.options.scopeLevels : 1;
    s.passes = image.passes * levels;
    std::vector<cupti::Configuration> configurations{{std::move(initial), std::move(image.bytes)}};
    // Aligned replay (docs/design/0006): its single-pass configurations are built when it is
    // switched on (auto) or right away (on).
    config.alignAvailable = s.options.mode == CollectionMode::IterationReplay &&
                            s.options.alignPasses != AlignPasses::Off && image.passes > 1;
    config.alignFromStart = config.alignAvailable && s.options.alignPasses == AlignPasses::On;
    if (detecting) {
        config.infer = [profile, metrics = s.metrics](std::vector<double>& values) {
            return core::inferTensorMetrics(profile, metrics, values);
        };
        s.tensorDetection = true;
    }
    config.passes = s.passes;
    s.configImagesMs = msSince(imagesStart);
    s.ceilings = collect::deviceCeilings(s.devices[0].info);
    const auto trackerStart = core::SteadyClock::now();
    s.tracker = std::make_unique<cupti::LaunchTracker>(&collect::sink, &s);
    s.trackerMs = msSince(trackerStart);
    const auto profilersStart = core::SteadyClock::now();
    const std::vector<std::string> fallback =
        detecting ? core::requiredMetrics(profile, MetricSet::Full) : std::vector<std::string>{};
    // The collector keeps the profiler released until its first pass: created only to check the
    // permission, not configured.
    const bool released = config.profilerReleasedAtStart();
    for (auto& d : s.devices) {
        d.backend = std::make_unique<collect::CuptiBackend>(
            d.context.get(), chip, s.metrics, configurations, s.options.rangesPerImage,
            collect::rangeMode(s.options.mode), static_cast<std::uint16_t>(levels), d.info.l2Bytes,
            fallback, released);
        if (config.alignFromStart) {
            config.alignedPasses = d.backend->prepareAligned();
            d.backend->selectConfiguration(1);
            s.configurations = d.backend->configurations() - 1;
        }
    }
    if (config.alignFromStart)
        s.passes = config.alignedPasses;
    s.profilersMs = msSince(profilersStart);
    s.setupMs = msSince(start);
}

} // namespace

Session::Session(Options options) : impl_(std::make_unique<Impl>()) {
    collect::SessionState& s = *impl_;
    s.options = std::move(options);
    if (s.options.rangesPerImage == 0)
        throw Error(ErrorCode::InvalidArgument, "Options::rangesPerImage must be at least 1");
    if (s.options.scopeLevels == 0)
        throw Error(ErrorCode::InvalidArgument, "Options::scopeLevels must be at least 1");
    const core::EnvLookup env = [](const char* name) { return std::getenv(name); };
    s.process = core::currentProcess(env);
    if (!s.options.outputPath.empty()) // a bad pattern is refused now, not after the run
        s.outputPath = core::expandOutputPattern(s.options.outputPath, s.process, env);
    s.options.cacheFlush = effectiveFlush(s.options);
    collect::CollectorConfig config = collect::collectorConfig(s.options);
    collect::shareAcrossRanks(config, s.options, s.process);
    if (!s.options.listenNvtx)
        core::log().info(
            "libroofline: NVTX listening is off (Options::listenNvtx, ROOFLINE_NVTX=0): "
            "only ProfileScopes delimit what is profiled");
    else if (!nvtx::otherInjection().empty())
        core::log().warn("libroofline: NVTX_INJECTION64_PATH points to another tool ({}): "
                         "application NVTX ranges go there, so only ProfileScopes are seen",
                         nvtx::otherInjection());

    s.generation = collect::nextGeneration();
    collect::SessionState* expected = nullptr;
    if (!collect::gActive.compare_exchange_strong(expected, &s))
        throw Error(ErrorCode::ProfilerBusy,
                    collect::injected()
                        ? "`roofline run` already profiles this process: construct no Session "
                          "under it, or run the program without `roofline run`"
                        : "a roofline::Session is already active in this process: stop() it first");

    collect::Level level = collect::Level::Counters;
    std::vector<collect::CounterBackend*> backends;
    std::optional<collect::Fallback> fallback;
    std::string cause; // why there are no counters
    if (const char* v = std::getenv("ROOFLINE_TIMING_ONLY"); v && std::string(v) == "1") {
        cause = "ROOFLINE_TIMING_ONLY=1";
        fallback = collect::Fallback{collect::Fallback::Action::TimingOnly,
                                     "libroofline: timing only, as asked (" + cause + ")"};
        core::log().info("{}", fallback->message);
    } else {
        try {
            setUpCounters(s, config);
            config.metricNames = s.metrics;
            for (auto& d : s.devices)
                backends.push_back(d.backend.get());
        } catch (const Error& e) {
            s.tracker.reset();
            for (auto& d : s.devices)
                d.backend.reset();
            fallback = collect::decideFallback(e.code(), e.what());
            if (fallback->action == collect::Fallback::Action::Rethrow) {
                collect::gActive.store(nullptr);
                s.teardown();
                throw;
            }
            cause = e.what();
            core::log().warn("{}", fallback->message);
        } catch (...) {
            collect::gActive.store(nullptr); // e.g. out of memory: no session, nothing dangling
            s.teardown();
            throw;
        }
    }
    if (fallback) {
        const collect::Fallback& fb = *fallback;
        level = collect::Level::TimingOnly;
        s.status = fb.action == collect::Fallback::Action::Nothing
                       ? "nothing recorded: no CUDA device"
                       : "timing only: " + cause;
        config.timingReason = s.status;
        if (fb.action == collect::Fallback::Action::TimingOnly) {
            if (s.devices.empty())
                try {
                    collect::SessionDevice d;
                    d.context = cupti::PrimaryContext(std::max(0, s.options.device), d.info);
                    s.devices.push_back(std::move(d));
                } catch (...) {
                }
            try {
                s.tracker = std::make_unique<cupti::LaunchTracker>(&collect::sink, &s);
            } catch (const std::exception& t) {
                core::log().warn("libroofline: no launch callbacks ({}): records come from "
                                 "activity timestamps without scopes",
                                 t.what());
            }
            s.startTiming();
            if (!s.devices.empty())
                s.ceilings = collect::deviceCeilings(s.devices[0].info);
        }
    }
    if (const char* v = std::getenv("ROOFLINE_REENABLE_ON_CODE_LOAD"); v && std::string(v) == "0")
        config.reenableOnCodeLoad = false; // only to reproduce the CUPTI crash it prevents
    s.begin(config, backends, level);
    if (collect::injected())
        std::fprintf(
            stderr, "[roofline] profiling %s, %s: %s; recording to %s at exit\n",
            core::describe(s.process).c_str(), devicesText(s.devices, s.options.device).c_str(),
            level == collect::Level::Counters ? (std::string(toString(s.options.mode)) + ", " +
                                                 std::to_string(s.passes) + " passes")
                                                    .c_str()
                                              : s.status.c_str(),
            s.outputPath.c_str());
    if (level == collect::Level::Counters)
        core::log().info(
            "libroofline: {} on {} ({}): {} metrics ({}{}), {} passes{}, {} ranges per "
            "image, cache flush {}",
            toString(s.options.mode), s.devices[0].info.name, s.devices[0].info.chip,
            s.metrics.size(), toString(s.options.metrics),
            s.tensorDetection ? ", tensor counters by detection" : "", s.passes,
            s.configurations > 1 ? " (aligned: " + std::to_string(s.configurations) +
                                       " configurations, one per pass)"
                                 : std::string(),
            s.options.rangesPerImage, toString(s.options.cacheFlush));
}

Session::~Session() {
    impl_->finish();
}

const std::vector<KernelRecord>& Session::stop() {
    impl_->finish();
    return impl_->records;
}

bool Session::needsPass() noexcept {
    return !impl_->stopped && impl_->collector->needsPass();
}

void Session::save(const std::string& path) const {
    if (!impl_->stopped)
        throw Error(ErrorCode::InvalidState, "Session::save() needs stop() first");
    core::saveRecording(impl_->recorded, path);
}

bool Session::stopped() const noexcept {
    return impl_->stopped;
}
bool Session::countersAvailable() const noexcept {
    return impl_->status == "counters" && impl_->collector->level() == collect::Level::Counters;
}
std::string Session::status() const {
    const std::string& failure = impl_->collector->failure(); // set only by a mid-run failure
    return failure.empty() ? impl_->status : "timing only: " + failure;
}
std::size_t Session::droppedKernels() const noexcept {
    std::size_t n = 0;
    for (const auto& r : impl_->records)
        n += r.measured ? 0 : 1;
    return impl_->stopped ? n : 0;
}
std::uint64_t Session::droppedRanges() const noexcept {
    return impl_->collector->droppedRanges();
}
std::uint64_t Session::replayMismatches() const noexcept {
    return impl_->collector->mismatchedGroups();
}
std::uint64_t Session::unbalancedNvtxPops() const noexcept {
    return impl_->stopped ? impl_->unbalancedPops
                          : collect::unbalancedPops() - impl_->unbalancedAtStart;
}
std::size_t Session::passes() const noexcept {
    if (impl_->collector && impl_->collector->level() == collect::Level::Counters &&
        impl_->options.mode == CollectionMode::IterationReplay)
        return impl_->collector->passes(); // aligned replay may have been switched on
    return impl_->passes;
}
CollectionMode Session::mode() const noexcept {
    return impl_->options.mode;
}
std::string Session::chip() const {
    return impl_->devices.empty() ? std::string() : impl_->devices[0].info.chip;
}
std::string Session::deviceName() const {
    return impl_->devices.empty() ? std::string() : impl_->devices[0].info.name;
}
const Ceilings& Session::ceilings() const noexcept {
    return impl_->ceilings;
}
const std::vector<HostScope>& Session::hostScopes() const noexcept {
    return impl_->recorded.hostScopes;
}
double Session::sessionSeconds() const noexcept {
    return impl_->recorded.sessionSeconds;
}
double Session::profilerSeconds() const noexcept {
    return impl_->recorded.profilerSeconds;
}
double Session::hostRunSeconds() const noexcept {
    return impl_->recorded.hostRunSeconds;
}

} // namespace roofline
