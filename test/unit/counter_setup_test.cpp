// The session's counter set-up on a fake platform: which devices it opens, which metrics it
// collects from the start, the passes, aligned passes and tensor counters by detection, per
// collection mode -- what a session on a GPU decides, decided on the CPU.
#include "session/counter_setup.hpp"
#include "session/sampled_sources.hpp"
#include "session/session_state.hpp"
#include "collector_harness.hpp"
#include "core/metric_catalog.hpp"
#include "core/sampled_recording.hpp"
#include "core/sampling_set.hpp"

#include <roofline/error.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>

namespace roofline::collect {
namespace {

using testing::FakeBackend;

class FakePlatform final : public CounterPlatform {
public:
    int devices = 1;
    std::map<int, std::string> chips;             // per ordinal; "GH100" when not named
    std::size_t aligned = 2;                      // single-pass configurations a backend can build
    std::vector<std::vector<std::string>> images; // metric sets config images were built for
    std::vector<BackendSpec> specs;
    std::vector<FakeBackend*> backends;
    bool profilerInitialized = false, subscribed = false;

    int deviceCount() override { return devices; }
    void open(int ordinal, SessionDevice& d) override {
        if (ordinal >= devices)
            throw Error(ErrorCode::NoDevice, "no device " + std::to_string(ordinal));
        d.info.ordinal = ordinal;
        d.info.name = "NVIDIA H100 80GB HBM3";
        d.info.l2Bytes = 50u << 20;
    }
    void initializeProfiler(SessionDevices&) override { profilerInitialized = true; }
    std::string chipName(int ordinal) override {
        const auto it = chips.find(ordinal);
        return it == chips.end() ? "GH100" : it->second;
    }
    // The full set with every tensor counter (src_fp16 among them) needs 7 passes on GH100, the
    // detection set 3.
    cupti::ConfigImage configImage(const std::string&,
                                   const std::vector<std::string>& metrics) override {
        images.push_back(metrics);
        const bool fp16Sources = std::find(metrics.begin(), metrics.end(),
                                           "sm__ops_path_tensor_src_fp16.sum") != metrics.end();
        return cupti::ConfigImage{{1, 2, 3}, fp16Sources ? 7u : 3u};
    }
    bool flushes = true; // the devices can flush their L2 before each kernel
    std::size_t flushesPrepared = 0;
    bool prepareKernelFlush(SessionDevice&) override {
        ++flushesPrepared;
        return flushes;
    }
    void subscribe(SessionDevices&, cupti::LaunchSink, void*) override { subscribed = true; }
    std::unique_ptr<CounterBackend> backend(SessionDevice&, const BackendSpec& spec) override {
        specs.push_back(spec);
        auto b = std::make_unique<FakeBackend>(3, spec.rangesPerImage, false, false, aligned);
        backends.push_back(b.get());
        return b;
    }
    // Sampling: the sources asked for, started or not; a refusal when `samplerRefused` is set.
    struct Sources final : SampleSources {
        bool* started;
        explicit Sources(bool* s) : started(s) {}
        void start() override { *started = true; }
        void stop() noexcept override {}
        SourceRead read(bool) noexcept override { return {}; }
    };
    std::vector<std::string> sampled; // the metrics the sampler was asked for
    std::uint64_t samplePeriodNs = 0;
    bool samplerRefused = false, sourcesStarted = false, activityOnly = false;
    std::unique_ptr<SampleSources> sampleSources(SessionDevice&, const std::string&,
                                                 const std::vector<std::string>& metrics,
                                                 std::uint64_t periodNs) override {
        if (samplerRefused)
            throw Error(ErrorCode::InsufficientPrivileges, "ERR_NVGPUCTRPERM");
        sampled = metrics;
        samplePeriodNs = periodNs;
        return std::make_unique<Sources>(&sourcesStarted);
    }
    std::unique_ptr<SampleSources> activitySources() override {
        activityOnly = true;
        return std::make_unique<Sources>(&sourcesStarted);
    }
};

struct Setting {
    SessionState s;
    Options options;
    CollectorConfig config;
    FakePlatform platform;
    explicit Setting(Options o) : options(std::move(o)) {}
    void run() { setUpCounters(s, options, config, platform); }
};

TEST(CounterSetUp, IterationReplayDetectsTensorWorkAndCanAlignItsPasses) {
    Setting u(Options{});
    u.run();
    ASSERT_EQ(u.s.devices.size(), 1u);
    EXPECT_EQ(u.s.devices[0].info.chip, "GH100");
    EXPECT_TRUE(u.platform.profilerInitialized);
    EXPECT_TRUE(u.platform.subscribed);
    EXPECT_TRUE(u.s.tensorDetection); // the per-type tensor counters wait for MMA work
    ASSERT_EQ(u.platform.images.size(), 1u);
    EXPECT_LT(u.platform.images[0].size(), u.s.metrics.size());
    EXPECT_EQ(u.s.passes, 3u);
    EXPECT_EQ(u.config.passes, 3u);
    EXPECT_EQ(u.config.metricNames, u.s.metrics);
    EXPECT_TRUE(static_cast<bool>(u.config.infer));
    EXPECT_TRUE(u.config.alignAvailable);
    EXPECT_FALSE(u.config.alignFromStart);
    ASSERT_EQ(u.platform.specs.size(), 1u);
    const BackendSpec& spec = u.platform.specs[0];
    EXPECT_EQ(spec.mode, cupti::RangeMode::AutoUserReplay);
    EXPECT_EQ(spec.levels, 1u);
    EXPECT_FALSE(spec.fallback.empty()); // a grown set that needs too many passes falls back
    EXPECT_TRUE(spec.released);          // reuse observes first: no profiler until the first pass
    EXPECT_EQ(spec.rangesPerImage, u.s.settings.rangesPerImage);
}

// `+instructions` (design 0023): the instruction roofline's counters collected from the first
// pass, beside the set -- in every mode, and in the full set a grown one falls back to.
TEST(CounterSetUp, TheInstructionGroupIsCollectedFromTheStart) {
    for (CollectionMode mode : {CollectionMode::IterationReplay, CollectionMode::KernelReplay}) {
        Options o;
        o.mode = mode;
        o.instructionMetrics = true;
        Setting u(o);
        u.run();
        const auto group = core::instructionMetrics(core::profileForChip("GH100"));
        ASSERT_EQ(group.size(), 23u);
        for (const auto& m : group) {
            EXPECT_EQ(std::count(u.s.metrics.begin(), u.s.metrics.end(), m), 1) << m;
            EXPECT_EQ(std::count(u.platform.images[0].begin(), u.platform.images[0].end(), m), 1)
                << m;
            if (!u.platform.specs[0].fallback.empty()) {
                EXPECT_EQ(std::count(u.platform.specs[0].fallback.begin(),
                                     u.platform.specs[0].fallback.end(), m),
                          1)
                    << m;
            }
        }
        EXPECT_EQ(u.config.metricNames, u.s.metrics);
        EXPECT_EQ(u.s.tensorDetection, mode == CollectionMode::IterationReplay);
    }
    Setting plain(Options{});
    plain.run();
    EXPECT_EQ(std::count(plain.s.metrics.begin(), plain.s.metrics.end(), "smsp__inst_executed.sum"),
              0); // off by default
}

TEST(CounterSetUp, AlignedPassesFromTheStartSelectTheFirstSinglePassConfiguration) {
    Options o;
    o.alignPasses = AlignPasses::On;
    Setting u(o);
    u.run();
    EXPECT_TRUE(u.config.alignFromStart);
    EXPECT_EQ(u.config.alignedPasses, 2u);
    EXPECT_EQ(u.s.passes, 2u);
    EXPECT_EQ(u.s.configurations, 2u);
    EXPECT_EQ(u.platform.backends[0]->configuration(), 1u);
}

TEST(CounterSetUp, KernelReplayCollectsEveryMetricFromTheStart) {
    Options o;
    o.mode = CollectionMode::KernelReplay;
    Setting u(o);
    u.run();
    EXPECT_FALSE(u.s.tensorDetection);
    EXPECT_EQ(u.platform.images[0], u.s.metrics);
    EXPECT_EQ(u.s.passes, 7u);
    EXPECT_FALSE(u.config.alignAvailable);
    EXPECT_EQ(u.platform.specs[0].mode, cupti::RangeMode::AutoKernelReplay);
    EXPECT_FALSE(u.platform.specs[0].released);
}

TEST(CounterSetUp, ScopeReplayRangesEveryLevelInEachPass) {
    Options o;
    o.mode = CollectionMode::ScopeReplay;
    o.scopeLevels = 2;
    o.reuseSamples = 2;
    Setting u(o);
    u.run();
    EXPECT_EQ(u.s.passes, 7u * 2);
    EXPECT_EQ(u.platform.specs[0].mode, cupti::RangeMode::UserUserReplay);
    EXPECT_EQ(u.platform.specs[0].levels, 2u);
    EXPECT_EQ(u.config.reuseSamples, 0u); // reuse is iteration replay's
}

TEST(CounterSetUp, EveryDeviceOfOneChipOrAnErrorThatSaysWhatToDo) {
    Options o;
    o.device = -1;
    Setting all(o);
    all.platform.devices = 3;
    all.run();
    EXPECT_EQ(all.s.devices.size(), 3u);
    EXPECT_EQ(all.platform.backends.size(), 3u);
    EXPECT_EQ(all.s.devices[2].info.ordinal, 2);

    Setting mixed(o);
    mixed.platform.devices = 2;
    mixed.platform.chips[1] = "AD102";
    try {
        mixed.run();
        FAIL() << "devices of different chips were accepted";
    } catch (const Error& e) {
        EXPECT_EQ(e.code(), ErrorCode::UnsupportedChip);
        EXPECT_NE(std::string(e.what()).find("ROOFLINE_DEVICE"), std::string::npos);
    }

    Setting none(o);
    none.platform.devices = 0;
    try {
        none.run();
        FAIL() << "no device was accepted";
    } catch (const Error& e) {
        EXPECT_EQ(e.code(), ErrorCode::NoDevice);
    }
}

} // namespace
} // namespace roofline::collect

namespace roofline::collect {
namespace {

// The sampling mode: no range profiler, the chip's sampling set on a sampler at the asked period,
// the recording opened where the session records (its header says what was sampled), sampling
// started, launches followed, and the collector's step sink the run's series.
TEST(SamplingSetUp, SamplesTheChipsSetIntoItsRecording) {
    Options o;
    o.mode = CollectionMode::Sample;
    o.samplePeriodUs = 250;
    Setting u(o);
    u.s.outputPath = ::testing::TempDir() + "sampling_setup.rfs";
    setUpSampling(u.s, u.options, u.config, u.platform);
    EXPECT_TRUE(u.platform.specs.empty()); // no range profiler
    EXPECT_TRUE(u.platform.images.empty());
    EXPECT_TRUE(u.platform.profilerInitialized);
    EXPECT_TRUE(u.platform.subscribed);
    EXPECT_TRUE(u.platform.sourcesStarted);
    EXPECT_FALSE(u.platform.activityOnly);
    EXPECT_EQ(u.platform.sampled, core::samplingSetForChip("GH100").metrics());
    EXPECT_EQ(u.platform.samplePeriodNs, 250000u);
    EXPECT_EQ(u.s.passes, 1u);
    EXPECT_EQ(u.s.status, "sampled");
    ASSERT_TRUE(u.s.sampled);
    EXPECT_EQ(u.config.steps, &u.s.sampled->series());
    u.s.sampled->finish();
    const core::SampledRecording rec = core::readSampledRecording(u.s.outputPath);
    EXPECT_EQ(rec.header.counters, u.platform.sampled);
    EXPECT_EQ(rec.header.periodNs, 250000u);
    EXPECT_EQ(rec.header.device.chip, "GH100");
    EXPECT_EQ(rec.header.device.name, "NVIDIA H100 80GB HBM3");
    EXPECT_EQ(rec.header.ringSteps, 16u);
    u.s.sampled.reset();
    std::remove(u.s.outputPath.c_str());
}

// CUPTI refuses the sampler (counters restricted to administrators): the steps get their kernels'
// times from the activity records alone, and the status says why -- never a record per launch.
// Every device of the process (device -1) is refused with the advice to name one.
TEST(SamplingSetUp, ARefusedSamplerLeavesTheStepsTheirTimes) {
    Options o;
    o.mode = CollectionMode::Sample;
    Setting u(o);
    u.platform.samplerRefused = true;
    u.s.outputPath = ::testing::TempDir() + "sampling_refused.rfs";
    setUpSampling(u.s, u.options, u.config, u.platform);
    EXPECT_TRUE(u.platform.activityOnly);
    EXPECT_TRUE(u.platform.sourcesStarted);
    EXPECT_NE(u.s.status.find("times only"), std::string::npos) << u.s.status;
    EXPECT_NE(u.s.status.find("ERR_NVGPUCTRPERM"), std::string::npos) << u.s.status;
    u.s.sampled.reset();
    std::remove(u.s.outputPath.c_str());

    Options every = o;
    every.device = -1;
    Setting v(every);
    v.s.outputPath = ::testing::TempDir() + "sampling_every.rfs";
    try {
        setUpSampling(v.s, v.options, v.config, v.platform);
        FAIL() << "expected an error";
    } catch (const Error& e) {
        EXPECT_EQ(e.code(), ErrorCode::InvalidArgument);
        EXPECT_NE(std::string(e.what()).find("ROOFLINE_DEVICE"), std::string::npos) << e.what();
    }
}

} // namespace
} // namespace roofline::collect

namespace roofline::collect {
namespace {

// The drain decodes every 50 ms into an image of three decodes' samples, with a device buffer of
// 64 MiB from 500 us (512 MiB below); for diagnosis ROOFLINE_SAMPLE_DECODE_MS and
// ROOFLINE_SAMPLE_BUFFER_MB change them, and values out of their range are ignored.
TEST(SamplingSetUp, TheDecodesFrequencyAndTheDeviceBufferCanBeSetForDiagnosis) {
    ::unsetenv("ROOFLINE_SAMPLE_DECODE_MS");
    ::unsetenv("ROOFLINE_SAMPLE_BUFFER_MB");
    EXPECT_EQ(decodeEvery(), kDecodeEvery);
    cupti::PmSamplerSettings s = samplerSettings(1000000);
    EXPECT_EQ(s.hardwareBufferBytes, 64ull << 20);
    EXPECT_EQ(s.samplesPerDecode, 3u * 50 + 64);
    EXPECT_EQ(samplerSettings(100000).samplesPerDecode, 3u * 500 + 64);
    EXPECT_EQ(samplerSettings(100000).hardwareBufferBytes, 512ull << 20);
    ::setenv("ROOFLINE_SAMPLE_DECODE_MS", "1000", 1);
    ::setenv("ROOFLINE_SAMPLE_BUFFER_MB", "8", 1);
    EXPECT_EQ(decodeEvery(), std::chrono::milliseconds(1000));
    s = samplerSettings(1000000);
    EXPECT_EQ(s.hardwareBufferBytes, 8ull << 20);
    EXPECT_EQ(s.samplesPerDecode, 3u * 1000 + 64);
    ::setenv("ROOFLINE_SAMPLE_DECODE_MS", "600000", 1); // no decode while the run lasts
    EXPECT_EQ(decodeEvery(), std::chrono::milliseconds(600000));
    EXPECT_EQ(samplerSettings(1000000).samplesPerDecode, 8192u); // the image's cap
    for (const char* bad : {"5", "600001", "x"}) {
        ::setenv("ROOFLINE_SAMPLE_DECODE_MS", bad, 1);
        ::setenv("ROOFLINE_SAMPLE_BUFFER_MB", bad == std::string("5") ? "0" : bad, 1);
        EXPECT_EQ(decodeEvery(), kDecodeEvery) << bad;
        EXPECT_EQ(samplerSettings(1000000).hardwareBufferBytes, 64ull << 20) << bad;
    }
    ::unsetenv("ROOFLINE_SAMPLE_DECODE_MS");
    ::unsetenv("ROOFLINE_SAMPLE_BUFFER_MB");
}

} // namespace
} // namespace roofline::collect
