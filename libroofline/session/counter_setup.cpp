// The counter set-up's decisions (which devices, metrics, passes, aligned passes, detection) and
// the platform that carries them out on a GPU.
#include "session/counter_setup.hpp"
#include "collect/mode.hpp"
#include "session/sampled_sources.hpp"
#include "session/session_state.hpp"

#include "core/ceilings_file.hpp"
#include "core/log.hpp"
#include "core/platform.hpp"
#include "core/sampling_set.hpp"
#include "core/stopwatch.hpp"
#include "core/tensor_inference.hpp"
#include "cupti/device.hpp"
#include "cupti/host.hpp"
#include "cupti/relaunch.hpp"

#include <roofline/error.hpp>
#include <roofline/version.hpp>

#include <algorithm>
#include <cstdlib>

namespace roofline::collect {
namespace {

cupti::RangeMode rangeMode(const ModeFacts& facts) {
    if (facts.replaysKernels)
        return cupti::RangeMode::AutoKernelReplay;
    return facts.rangePerLaunch ? cupti::RangeMode::AutoUserReplay
                                : cupti::RangeMode::UserUserReplay;
}

class CuptiPlatform final : public CounterPlatform {
public:
    int deviceCount() override { return cupti::deviceCount(); }
    void open(int ordinal, SessionDevice& d) override {
        d.context = cupti::PrimaryContext(ordinal, d.info);
    }
    void initializeProfiler(SessionDevices& s) override {
        s.profiler.emplace(); // attaches CUPTI again where a session before this one detached it
    }
    std::string chipName(int ordinal) override { return cupti::chipName(ordinal); }
    bool relaunchesWindows() override { return cupti::windowReplayAvailable(nullptr); }
    bool prepareKernelFlush(SessionDevice& d) override {
        try {
            d.kernelFlush = std::make_unique<cupti::L2Flush>(d.info.l2Bytes);
            return true;
        } catch (const std::exception& e) {
            core::log().warn("libroofline: caches cannot be flushed before each kernel ({}): "
                             "they are flushed before each pass instead",
                             e.what());
            return false;
        }
    }
    cupti::ConfigImage configImage(const std::string& chip,
                                   const std::vector<std::string>& metrics) override {
        return cupti::Host(chip).configImage(metrics);
    }
    void subscribe(SessionDevices& s, cupti::LaunchSink sink, void* user) override {
        s.tracker = std::make_unique<cupti::LaunchTracker>(sink, user);
    }
    std::unique_ptr<CounterBackend> backend(SessionDevice& d, const BackendSpec& spec) override {
        return std::make_unique<CuptiBackend>(d.context.get(), spec, d.info.l2Bytes,
                                              std::move(d.kernelFlush));
    }
    std::unique_ptr<SampleSources> sampleSources(SessionDevice& d, const std::string& chip,
                                                 const std::vector<std::string>& metrics,
                                                 std::uint64_t periodNs) override {
        return pmSampleSources(d.info.ordinal, chip, metrics, periodNs);
    }
    std::unique_ptr<SampleSources> activitySources() override { return collect::activitySources(); }
};

} // namespace

std::unique_ptr<SampleSources> CounterPlatform::sampleSources(SessionDevice&, const std::string&,
                                                              const std::vector<std::string>&,
                                                              std::uint64_t) {
    throw Error(ErrorCode::UnsupportedChip, "this platform cannot sample counters");
}

std::unique_ptr<SampleSources> CounterPlatform::activitySources() {
    throw Error(ErrorCode::Cupti, "this platform has no kernel activity records");
}

void launchSink(const cupti::LaunchEvent& event, void* s) noexcept {
    static_cast<SessionState*>(s)->onLaunch(event);
}

std::unique_ptr<CounterPlatform> cuptiPlatform() {
    return std::make_unique<CuptiPlatform>();
}

namespace {

// The devices the options name (every visible one for device -1), opened.
void openDevices(SessionState& s, const Options& options, CounterPlatform& platform) {
    std::vector<int> ordinals;
    if (options.device < 0)
        for (int i = 0, n = platform.deviceCount(); i < n; ++i)
            ordinals.push_back(i);
    else
        ordinals.push_back(options.device);
    if (ordinals.empty())
        throw Error(ErrorCode::NoDevice, "no CUDA device is visible");
    for (int ordinal : ordinals) {
        SessionDevice d;
        platform.open(ordinal, d);
        s.devices.push_back(std::move(d));
    }
}

// The settings, once: what the options ask, as far as these devices can do it.
void resolveOnDevices(SessionState& s, const Options& options, CounterPlatform& platform) {
    Capabilities can;
    can.memoryAvailable = core::readMemoryAvailable();
    can.seesEveryAllocation = injected(); // started at the process's first CUDA call
    if (asksWindowsOutsideSteps(options, can.seesEveryAllocation))
        can.relaunchesWindows = platform.relaunchesWindows();
    if (needsKernelFlush(options, s.process))
        for (auto& d : s.devices)
            can.flushEachKernel = platform.prepareKernelFlush(d) && can.flushEachKernel;
    s.settings = resolveSettings(options, s.process, can);
}

// The profiler initialized and the devices' chip, which must be one.
std::string sessionChip(SessionState& s, CounterPlatform& platform) {
    const auto initStart = core::SteadyClock::now();
    platform.initializeProfiler(s);
    s.cuptiInitMs = core::msSince(initStart);
    for (auto& d : s.devices)
        d.info.chip = platform.chipName(d.info.ordinal);
    const std::string& chip = s.devices[0].info.chip;
    for (const auto& d : s.devices)
        if (d.info.chip != chip)
            throw Error(ErrorCode::UnsupportedChip,
                        "devices of different chips (" + chip + ", " + d.info.chip +
                            ") in one session: profile them with ROOFLINE_DEVICE one at a time");
    return chip;
}

// The metrics collected from the first pass, and the instruction roofline's group among them.
struct FirstMetrics {
    std::vector<std::string> initial, group;
    bool detecting = false; ///< fewer than the session's metrics: tensor counters by detection
};

FirstMetrics chooseMetrics(SessionState& s, const core::ChipProfile& profile,
                           const ModeFacts& facts) {
    const Options& options = s.settings.options;
    // Tensor counters by detection (design 0008): only where a launch whose MMA kind needs more
    // counters can be measured again in a later iteration.
    const bool detect = facts.measuresAgain && options.tensorCounters == TensorCounters::Detect;
    s.metrics = core::sessionMetrics(profile, options.metrics, detect);
    FirstMetrics m;
    m.initial = core::initialMetrics(profile, options.metrics, detect);
    // The instruction roofline's group, when asked for: collected from the start (design 0023).
    if (options.instructionMetrics)
        m.group = core::instructionMetrics(profile);
    core::addMetrics(s.metrics, m.group);
    core::addMetrics(m.initial, m.group);
    m.detecting = m.initial != s.metrics;
    return m;
}

// The collector's hooks for tensor counters by detection.
void detectTensorCounters(CollectorConfig& config, const core::ChipProfile& profile,
                          const std::vector<std::string>& metrics) {
    config.infer = [profile, metrics](std::vector<double>& values) {
        return core::inferTensorMetrics(profile, metrics, values);
    };
    config.chooseTensorMetrics = [profile,
                                  metrics](const std::set<std::string>& unknown,
                                           const std::vector<const core::LaunchInfo*>& launches,
                                           const std::set<std::string>& added) {
        std::vector<core::TensorEvidence> evidence;
        for (const core::LaunchInfo* l : launches)
            evidence.push_back({&l->values, l->name});
        return core::tensorMetricsToCollect(profile, metrics, unknown, evidence, added);
    };
    config.anticipateTensorMetrics = [profile](const std::vector<std::string>& kernels,
                                               std::string& why) {
        const core::WarpMmaType* t = core::anticipatedWarpMmaType(profile, kernels, &why);
        return t ? std::vector<std::string>{t->metric} : std::vector<std::string>{};
    };
}

// Each device's backend made from `spec`; aligned passes prepared where they run from the start.
void createBackends(SessionState& s, CollectorConfig& config, const BackendSpec& spec,
                    CounterPlatform& platform) {
    for (auto& d : s.devices) {
        d.backend = platform.backend(d, spec);
        if (config.alignFromStart) {
            config.alignedPasses = d.backend->prepareAligned();
            d.backend->selectConfiguration(1);
            s.configurations = d.backend->configurations() - 1;
        }
    }
    if (config.alignFromStart)
        s.passes = config.alignedPasses;
}

// What every mode's set-up begins with: the devices opened, the settings resolved with what they
// can do, the collector's configuration from them, CUPTI's profiler initialized; the chip.
std::string openOnChip(SessionState& s, const Options& options, CollectorConfig& config,
                       CounterPlatform& platform) {
    const auto start = core::SteadyClock::now();
    openDevices(s, options, platform);
    resolveOnDevices(s, options, platform);
    config = collectorConfig(s.settings);
    s.deviceMs = core::msSince(start);
    return sessionChip(s, platform);
}

// The launch callbacks subscribed, timed.
void subscribeLaunches(SessionState& s, CounterPlatform& platform) {
    const auto start = core::SteadyClock::now();
    platform.subscribe(s, &launchSink, &s);
    s.trackerMs = core::msSince(start);
}

} // namespace

void setUpCounters(SessionState& s, const Options& options, CollectorConfig& config,
                   CounterPlatform& platform) {
    using core::msSince;
    const auto start = core::SteadyClock::now();
    const std::string chip = openOnChip(s, options, config, platform);
    const Settings& settings = s.settings;
    const ModeFacts facts = modeFacts(settings.mode);
    const core::ChipProfile profile =
        core::withBytes(core::profileForChip(chip), settings.options.bytes);
    FirstMetrics first = chooseMetrics(s, profile, facts);
    const auto imagesStart = core::SteadyClock::now();
    cupti::ConfigImage image = platform.configImage(chip, first.initial);
    s.configImage = image.bytes;
    const std::size_t levels = facts.scopeLevels ? settings.options.scopeLevels : 1;
    s.passes = image.passes * levels;
    std::vector<cupti::Configuration> configurations{
        {std::move(first.initial), std::move(image.bytes)}};
    // Aligned passes (docs/design/0006): their single-pass configurations are built when they
    // are switched on (auto) or right away (on).
    config.alignAvailable =
        facts.measuresAgain && settings.options.alignPasses != AlignPasses::Off && image.passes > 1;
    config.alignFromStart =
        config.alignAvailable && settings.options.alignPasses == AlignPasses::On;
    if (first.detecting) {
        detectTensorCounters(config, profile, s.metrics);
        s.tensorDetection = true;
    }
    config.passes = s.passes;
    config.metricNames = s.metrics;
    s.configImagesMs = msSince(imagesStart);
    s.ceilings = deviceCeilings(s.devices[0].info);
    subscribeLaunches(s, platform);
    const auto profilersStart = core::SteadyClock::now();
    BackendSpec spec;
    spec.chip = chip;
    spec.metrics = s.metrics;
    spec.configurations = std::move(configurations);
    spec.rangesPerImage = settings.rangesPerImage;
    spec.mode = rangeMode(facts);
    spec.levels = static_cast<std::uint16_t>(levels);
    if (first.detecting) {
        spec.fallback = core::requiredMetrics(profile, MetricSet::Full);
        core::addMetrics(spec.fallback, first.group);
    }
    // The collector keeps the profiler released until its first pass: created only to check the
    // permission, not configured.
    spec.released = config.profilerReleasedAtStart();
    createBackends(s, config, spec, platform);
    s.profilersMs = msSince(profilersStart);
    s.setupMs = msSince(start);
}

namespace {

// What the sampled recording says of the sampler, first.
core::SampledHeader sampledHeader(const SessionState& s, const std::vector<std::string>& counters) {
    core::SampledHeader h;
    h.libraryVersion = ROOFLINE_VERSION_STRING;
    h.device = s.devices[0].info;
    h.counters = counters;
    h.periodNs = s.settings.options.samplePeriodUs * 1000;
    h.ringSteps = s.settings.options.sampleRingSteps;
    h.pid = s.process.pid;
    h.rank = s.process.rank;
    h.worldSize = s.process.worldSize;
    h.startedUnixNs = core::unixNowNs();
    return h;
}

// The device's sampler, or -- where CUPTI refuses it (permissions, another profiler) -- its
// kernels' activity records alone, said once.
std::unique_ptr<SampleSources> sourcesOf(SessionState& s, CounterPlatform& platform,
                                         const std::string& chip,
                                         const std::vector<std::string>& counters,
                                         std::uint64_t periodNs) {
    // Diagnostic: the kernels' records alone, to tell the sampler's cost from the rest.
    if (const char* only = std::getenv("ROOFLINE_SAMPLE_SOURCES");
        only && std::string(only) == "activity") {
        s.status = "sampled: times only (ROOFLINE_SAMPLE_SOURCES=activity)";
        return platform.activitySources();
    }
    try {
        return platform.sampleSources(s.devices[0], chip, counters, periodNs);
    } catch (const Error& e) {
        if (e.code() == ErrorCode::InvalidArgument || e.code() == ErrorCode::NoDevice)
            throw;
        core::log().warn("libroofline: sampling: the device's counters cannot be sampled ({}): "
                         "each step gets its kernels' times, with no counters",
                         e.what());
        s.status = std::string("sampled: times only: ") + e.what();
        return platform.activitySources();
    }
}

} // namespace

void setUpSampling(SessionState& s, const Options& options, CollectorConfig& config,
                   CounterPlatform& platform) {
    using core::msSince;
    const auto start = core::SteadyClock::now();
    if (options.device < 0)
        throw Error(ErrorCode::InvalidArgument,
                    "the sampling mode samples one device per process: set ROOFLINE_DEVICE (or "
                    "Options::device) to its ordinal, or run one process per device (torchrun)");
    const std::string chip = openOnChip(s, options, config, platform);
    const core::SamplingSet& set = core::samplingSetForChip(chip); // throws for a chip without one
    s.metrics = set.metrics();
    s.passes = 1;
    s.status = "sampled";
    s.ceilings = deviceCeilings(s.devices[0].info);
    SampledRunConfig run;
    run.readEvery = kReadEvery;
    run.path = s.outputPath;
    run.header = sampledHeader(s, s.metrics);
    run.series.counters = s.metrics.size();
    run.series.clock = static_cast<std::size_t>(
        std::find(s.metrics.begin(), s.metrics.end(), set.cyclesMetric) - s.metrics.begin());
    run.series.periodNs = run.header.periodNs;
    run.series.ringSteps = options.sampleRingSteps;
    run.series.writeEverySteps = options.sampleWriteSteps;
    run.series.writeEveryNs = options.sampleWriteSeconds * 1000000000ull;
    run.series.records.oneIn = options.sampleKernelRecords; // 0: measured in the program
    const auto profilersStart = core::SteadyClock::now();
    s.sampled = std::make_unique<SampledRun>(
        run, sourcesOf(s, platform, chip, s.metrics, run.header.periodNs));
    s.sampled->start();
    s.profilersMs = msSince(profilersStart);
    config.steps = &s.sampled->series();
    config.passes = 1;
    config.metricNames = s.metrics;
    subscribeLaunches(s, platform);
    s.setupMs = msSince(start);
}

Ceilings deviceCeilings(const core::DeviceInfo& info) {
    core::CeilingsChoice choice = core::chooseCeilings(info);
    if (!choice.warning.empty())
        core::log().warn("libroofline: {}", choice.warning);
    return choice.used;
}

} // namespace roofline::collect
