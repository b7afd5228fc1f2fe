// roofline::Session: the options checked, the devices opened, CUPTI's profiler and the counter
// configuration set up (or the reason there are no counters), then the session glue
// (session/session_state.cpp) wired to the collector.
#include "session/counter_setup.hpp"
#include "session/fallback.hpp"
#include "collect/mode.hpp"
#include "session/session_state.hpp"

#include "core/log.hpp"
#include "core/output_path.hpp"
#include "core/roofline_model.hpp"
#include "nvtx/listener.hpp"

#include <roofline/error.hpp>
#include <roofline/session.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <optional>

namespace roofline {

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

// The options a session cannot run with; the process and where it records; whether NVTX ranges
// will be heard.
void prepare(collect::SessionState& s, const Options& options) {
    if (options.rangesPerImage == 0)
        throw Error(ErrorCode::InvalidArgument, "Options::rangesPerImage must be at least 1");
    if (options.scopeLevels == 0)
        throw Error(ErrorCode::InvalidArgument, "Options::scopeLevels must be at least 1");
    const core::EnvLookup env = [](const char* name) { return std::getenv(name); };
    s.process = core::currentProcess(env);
    if (!options.outputPath.empty()) // a bad pattern is refused now, not after the run
        s.outputPath = core::expandOutputPattern(options.outputPath, s.process, env);
    if (collect::modeFacts(options.mode).samples)
        s.outputPath = core::sampledOutputPath(s.outputPath, s.process, env);
    if (!options.listenNvtx)
        core::log().info(
            "libroofline: NVTX listening is off (Options::listenNvtx, ROOFLINE_NVTX=0): "
            "only ProfileScopes delimit what is profiled");
    else if (!nvtx::otherInjection().empty())
        core::log().warn("libroofline: NVTX_INJECTION64_PATH points to another tool ({}): "
                         "application NVTX ranges go there, so only ProfileScopes are seen",
                         nvtx::otherInjection());
}

// The process's one active session is `s` from now on, or this throws.
void claimProcess(collect::SessionState& s) {
    s.generation = collect::nextGeneration();
    collect::SessionState* expected = nullptr;
    if (!collect::gActive.compare_exchange_strong(expected, &s))
        throw Error(ErrorCode::ProfilerBusy,
                    collect::injected()
                        ? "`roofline run` already profiles this process: construct no Session "
                          "under it, or run the program without `roofline run`"
                        : "a roofline::Session is already active in this process: stop() it first");
    collect::setProfileState(collect::ProfileState::Collecting);
}

// The session gives the process back (a constructor that throws leaves nothing behind).
void releaseProcess(collect::SessionState& s) {
    collect::gActive.store(nullptr);
    collect::setProfileState(collect::ProfileState::Stopped);
    s.teardown();
}

// What a session starts with: its counters set up on its devices, or the reason it has none.
struct Start {
    collect::CollectorConfig config;
    std::vector<collect::CounterBackend*> backends;
    std::optional<collect::Fallback> fallback;
    std::string cause; // why there are no counters
};

// Counters set up on the devices, or the fallback their failure (or Options::timingOnly) asks
// for; a failure that allows none is rethrown with the process given back.
Start setUpOrFallBack(collect::SessionState& s, const Options& options,
                      collect::CounterPlatform& platform) {
    Start start;
    // The settings of a session without counters: nothing the devices can do changes them.
    const auto resolveWithoutDevices = [&] {
        s.settings = collect::resolveSettings(options, s.process, collect::Capabilities{});
        start.config = collect::collectorConfig(s.settings);
    };
    if (options.timingOnly) {
        resolveWithoutDevices();
        start.cause = "Options::timingOnly, ROOFLINE_TIMING_ONLY=1";
        start.fallback =
            collect::Fallback{collect::Fallback::Action::TimingOnly,
                              "libroofline: timing only, as asked (" + start.cause + ")"};
        core::log().info("{}", start.fallback->message);
        return start;
    }
    try {
        if (collect::modeFacts(options.mode).samples)
            collect::setUpSampling(s, options, start.config, platform);
        else
            collect::setUpCounters(s, options, start.config, platform);
        for (auto& d : s.devices)
            start.backends.push_back(d.backend.get());
    } catch (const Error& e) {
        s.sampled.reset();
        s.tracker.reset();
        for (auto& d : s.devices)
            d.backend.reset();
        if (s.settings.rangesPerImage == 0) // opening a device failed: not resolved yet
            resolveWithoutDevices();
        start.fallback = collect::decideFallback(e.code(), e.what());
        if (start.fallback->action == collect::Fallback::Action::Rethrow) {
            releaseProcess(s);
            throw;
        }
        start.cause = e.what();
        core::log().warn("{}", start.fallback->message);
    } catch (...) {
        releaseProcess(s); // e.g. out of memory: no session, nothing dangling
        throw;
    }
    return start;
}

// A session without counters: its status, and -- where timing is what is left -- a device, the
// launch callbacks and activity timing.
void fallBack(collect::SessionState& s, const Options& options, Start& start,
              collect::CounterPlatform& platform) {
    const collect::Fallback& fb = *start.fallback;
    s.status = fb.action == collect::Fallback::Action::Nothing ? "nothing recorded: no CUDA device"
                                                               : "timing only: " + start.cause;
    start.config.timingReason = s.status;
    if (fb.action != collect::Fallback::Action::TimingOnly)
        return;
    if (s.devices.empty())
        try {
            collect::SessionDevice d;
            platform.open(std::max(0, options.device), d);
            s.devices.push_back(std::move(d));
        } catch (...) {
        }
    try {
        platform.subscribe(s, &collect::launchSink, &s);
    } catch (const std::exception& t) {
        core::log().warn("libroofline: no launch callbacks ({}): records come from "
                         "activity timestamps without scopes",
                         t.what());
    }
    s.startTiming();
    if (!s.devices.empty())
        s.ceilings = collect::deviceCeilings(s.devices[0].info);
}

// What a sampled session says it does.
void announceSampled(const collect::SessionState& s, const Options& options) {
    if (collect::injected()) {
        std::fprintf(stderr,
                     "[roofline] sampling %s, %s: %zu counters every %llu us, no replay; "
                     "recording every step to %s as the job runs\n",
                     core::describe(s.process).c_str(),
                     devicesText(s.devices, options.device).c_str(), s.metrics.size(),
                     static_cast<unsigned long long>(options.samplePeriodUs), s.outputPath.c_str());
        collect::noteRecording(s.outputPath); // listed by `roofline run` even if the job is killed
    }
    core::log().info("libroofline: sampling {} counters on {} ({}) every {} us; a batch every {} "
                     "steps or {} s to {}; {}",
                     s.metrics.size(), s.devices[0].info.name, s.devices[0].info.chip,
                     options.samplePeriodUs, options.sampleWriteSteps, options.sampleWriteSeconds,
                     s.outputPath, s.status);
}

// The lines that say what is profiled and how.
void announce(const collect::SessionState& s, const Options& options, collect::Level level) {
    if (level == collect::Level::Sampled)
        return announceSampled(s, options);
    if (collect::injected())
        std::fprintf(
            stderr, "[roofline] profiling %s, %s: %s; recording to %s at exit\n",
            core::describe(s.process).c_str(), devicesText(s.devices, options.device).c_str(),
            level == collect::Level::Counters ? (std::string(toString(s.settings.mode)) + ", " +
                                                 std::to_string(s.passes) + " passes")
                                                    .c_str()
                                              : s.status.c_str(),
            s.outputPath.c_str());
    if (level == collect::Level::Counters)
        core::log().info(
            "libroofline: {} on {} ({}): {} metrics ({}{}{}), {} passes{}, {} ranges per "
            "image, cache flush {}",
            toString(s.settings.mode), s.devices[0].info.name, s.devices[0].info.chip,
            s.metrics.size(), toString(options.metrics),
            options.instructionMetrics ? " + the instruction roofline's counters" : "",
            s.tensorDetection ? ", tensor counters by detection" : "", s.passes,
            s.configurations > 1 ? " (aligned: " + std::to_string(s.configurations) +
                                       " configurations, one per pass)"
                                 : std::string(),
            s.settings.rangesPerImage, toString(s.settings.cacheFlush));
}

} // namespace

Session::Session(Options options) : impl_(std::make_unique<Impl>()) {
    collect::SessionState& s = *impl_;
    prepare(s, options);
    claimProcess(s);
    const std::unique_ptr<collect::CounterPlatform> platform = collect::cuptiPlatform();
    Start start = setUpOrFallBack(s, options, *platform);
    const collect::Level level = start.fallback ? collect::Level::TimingOnly
                                 : s.sampled      ? collect::Level::Sampled
                                                  : collect::Level::Counters;
    if (start.fallback)
        fallBack(s, options, start, *platform);
    start.config.options.reenableOnCodeLoad = options.reenableOnCodeLoad; // false only reproduces a crash
    s.begin(start.config, start.backends, level);
    if (level == collect::Level::Sampled) // a framework hook then reports the steps' ends only
        collect::setProfileState(collect::ProfileState::Sampling);
    announce(s, options, level);
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
    if (impl_->collector && impl_->collector->level() == collect::Level::Sampled)
        throw Error(ErrorCode::InvalidState,
                    "a sampling session wrote its recording as it ran, to '" + impl_->outputPath +
                        "': read it with `roofline report`; Session::save() writes a replay "
                        "recording, which a sampling session has none of");
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
    if (impl_->collector && impl_->collector->level() == collect::Level::Counters)
        return impl_->collector->passes(); // aligned passes or detected MMA work may add some
    return impl_->passes;
}
CollectionMode Session::mode() const noexcept {
    return impl_->settings.mode;
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
