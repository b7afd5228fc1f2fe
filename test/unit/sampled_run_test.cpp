// A sampled session's device side (session/sampled_run) on fake sources: its thread reads the
// samples and the kernels' records into the series, which writes batches to the recording as the
// job runs; the stop reads the rest and writes the last batch.
#include "session/sampled_run.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <mutex>
#include <string>
#include <thread>
#include <unistd.h>
#include <utility>
#include <vector>

using namespace roofline;
using collect::SampledRun;
using collect::SampledRunConfig;
using collect::SampleSources;
using collect::SourceRead;

namespace {

// A device that runs steps of 3 kernels of 1000 ns with 100 ns between them; counter 0 grows by
// 1 per ns while a kernel runs. What the job has run so far is handed out at each read.
class FakeSources final : public SampleSources {
public:
    std::mutex mutex;
    std::vector<sampling::KernelActivity> kernels; // not yet read
    std::vector<core::CounterSample> samples;      // not yet read
    std::atomic<int> reads{0};
    bool started = false, stopped = false;
    std::string failure;
    std::uint64_t missing = 0; // periods lost on the device, told by the next read
    std::uint32_t fullImages = 0, restarts = 0;
    std::uint64_t longSamples = 0;
    bool overflow = false;
    // Records on a share of the steps: whether the sources switch them, their state, each turn,
    // and the host's clock (the records' clock).
    bool switches = false;
    std::atomic<bool> on{true};
    std::vector<bool> turned;
    std::atomic<std::uint64_t> host{0};

    bool switchesRecords() const noexcept override { return switches; }
    void kernelRecords(bool value) noexcept override {
        on = value;
        turned.push_back(value);
    }
    std::uint64_t now() const noexcept override { return host.load(); }

    void start() override { started = true; }
    void stop() noexcept override { stopped = true; }
    SourceRead read(bool) noexcept override {
        std::lock_guard<std::mutex> lock(mutex);
        ++reads;
        SourceRead r;
        r.kernels.swap(kernels);
        r.samples.swap(samples);
        r.failure = failure;
        r.missing = std::exchange(missing, 0);
        r.fullImages = std::exchange(fullImages, 0);
        r.restarts = std::exchange(restarts, 0);
        r.longSamples = std::exchange(longSamples, 0);
        r.overflow = std::exchange(overflow, false);
        return r;
    }
};

struct Job {
    std::uint64_t clock = 0, nextId = 1;
    // Step `step` launched (the host's side) and run (the device's side, into the sources).
    void step(SampledRun& run, FakeSources& device, std::int64_t step) {
        std::vector<sampling::KernelActivity> ks;
        const std::uint64_t from = clock;
        for (int k = 0; k < 3; ++k) {
            const std::uint64_t id = nextId++;
            run.series().launched(id, step, run.series().scope("train/step"), 1);
            ks.push_back({id, "gemm" + std::to_string(k), clock, clock + 1000});
            clock += 1100;
        }
        run.series().stepEnded(step);
        std::lock_guard<std::mutex> lock(device.mutex);
        if (device.on) // a step without records leaves none
            device.kernels.insert(device.kernels.end(), ks.begin(), ks.end());
        for (std::uint64_t t = from; t < clock; t += 550) { // a sample per half kernel
            double busy = 0;
            for (const auto& k : ks) {
                const std::uint64_t a = std::max(k.startNs, t), b = std::min(k.endNs, t + 550);
                busy += b > a ? static_cast<double>(b - a) : 0.0;
            }
            device.samples.push_back({t, t + 550, {busy}});
        }
    }
};

std::string tempPath(const char* name) {
    return ::testing::TempDir() + name + std::to_string(::getpid()) + ".rfs";
}

SampledRunConfig configFor(const std::string& path) {
    SampledRunConfig c;
    c.path = path;
    c.readEvery = std::chrono::milliseconds(2);
    c.header.counters = {"sm__cycles_elapsed.avg"};
    c.header.periodNs = 550;
    c.header.device.chip = "GH100";
    c.series.counters = 1;
    c.series.periodNs = 550;
    c.series.writeEverySteps = 2;
    return c;
}

} // namespace

// The reading thread writes batches while the job runs: the recording reads back mid-run with
// the steps written so far, each step's counter its kernels' busy nanoseconds.
TEST(SampledRun, WritesBatchesWhileTheJobRuns) {
    const std::string path = tempPath("sampled_run_");
    auto sources = std::make_unique<FakeSources>();
    FakeSources& device = *sources;
    SampledRun run(configFor(path), std::move(sources));
    run.start();
    EXPECT_TRUE(device.started);
    Job job;
    for (std::int64_t step = 0; step < 6; ++step)
        job.step(run, device, step);
    // Steps 0-4 are complete (step 5 waits for the next one or the stop): two batches are due.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    std::size_t stepsOnDisk = 0;
    while (std::chrono::steady_clock::now() < deadline) {
        const core::SampledRecording mid = core::readSampledRecording(path);
        stepsOnDisk = 0;
        for (const auto& b : mid.batches)
            stepsOnDisk += b.steps.size();
        if (stepsOnDisk >= 4)
            break;
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    EXPECT_GE(stepsOnDisk, 4u) << "batches written before the stop";
    const collect::SampledRunSummary summary = run.finish();
    EXPECT_TRUE(device.stopped);
    EXPECT_EQ(summary.series.steps, 6u);
    EXPECT_EQ(summary.series.launches, 18u);
    EXPECT_GE(summary.reads, 2u);
    EXPECT_EQ(summary.samples, 36u);
    EXPECT_EQ(summary.readFailures, 0u);
    const core::SampledRecording rec = core::readSampledRecording(path);
    EXPECT_TRUE(rec.cut.empty());
    EXPECT_EQ(rec.header.device.chip, "GH100");
    EXPECT_EQ(rec.batches.size(), summary.batchesWritten);
    std::size_t steps = 0;
    for (const auto& b : rec.batches)
        for (const auto& s : b.steps) {
            EXPECT_EQ(s.index, steps);
            EXPECT_EQ(s.kernels, 3u);
            ASSERT_EQ(s.values.size(), 1u);
            EXPECT_NEAR(s.values[0], 3000.0, 1e-6) << "step " << s.index;
            ++steps;
        }
    EXPECT_EQ(steps, 6u);
    std::remove(path.c_str());
}

// The stop is idempotent, a run never started writes only its header, and a failed read is
// counted with its reason, never thrown.
TEST(SampledRun, StopsOnceAndCountsFailedReads) {
    const std::string path = tempPath("sampled_run_stop_");
    {
        SampledRun idle(configFor(path), std::make_unique<FakeSources>());
        const auto s = idle.finish();
        EXPECT_EQ(s.reads, 0u);
        EXPECT_EQ(idle.finish().reads, 0u);
    }
    EXPECT_TRUE(core::readSampledRecording(path).batches.empty());
    auto sources = std::make_unique<FakeSources>();
    sources->failure = "CUPTI_ERROR_UNKNOWN";
    SampledRun run(configFor(path), std::move(sources));
    run.start();
    const auto s = run.finish();
    EXPECT_GE(s.readFailures, 1u);
    EXPECT_EQ(s.firstFailure, "CUPTI_ERROR_UNKNOWN");
    std::remove(path.c_str());
}

// What the device lost is counted across reads for the exit line: the periods with no sample, the
// decodes that filled their image, the overflows and the restarts after them, the samples over
// several periods.
TEST(SampledRun, CountsThePeriodsTheDeviceLost) {
    const std::string path = tempPath("sampled_run_lost_");
    auto owned = std::make_unique<FakeSources>();
    FakeSources& device = *owned;
    SampledRun run(configFor(path), std::move(owned));
    run.start();
    Job job;
    for (std::int64_t step = 0; step < 3; ++step) {
        {
            std::lock_guard<std::mutex> lock(device.mutex);
            device.missing += 7;
            device.fullImages += 1;
            device.longSamples += 2;
        }
        job.step(run, device, step);
    }
    {
        std::lock_guard<std::mutex> lock(device.mutex);
        device.overflow = true;
        device.restarts = 1;
    }
    const auto s = run.finish();
    EXPECT_EQ(s.missingSamples, 21u);
    EXPECT_EQ(s.fullImages, 3u);
    EXPECT_EQ(s.overflows, 1u);
    EXPECT_EQ(s.restarts, 1u);
    EXPECT_EQ(s.longSamples, 6u);
    std::remove(path.c_str());
}

// A recording that cannot be opened is refused when the run is made, naming the path.
TEST(SampledRun, AnUnwritablePathIsRefusedAtOnce) {
    try {
        SampledRun run(configFor("/nonexistent-dir/x.rfs"), std::make_unique<FakeSources>());
        FAIL() << "expected an error";
    } catch (const std::exception& e) {
        EXPECT_NE(std::string(e.what()).find("/nonexistent-dir/x.rfs"), std::string::npos)
            << e.what();
    }
}

// Sources that switch the kernels' records: the series turns them off for one step in two once
// a recorded step shows the host pacing the GPU (its first kernel 100 ns after its launch call,
// of 3,300 ns steps); a step without records still gets its work from the samples over its span.
TEST(SampledRun, SourcesThatSwitchRecordsLeaveStepsWithoutThem) {
    const std::string path = tempPath("sampled_run_switch_");
    auto sources = std::make_unique<FakeSources>();
    FakeSources& device = *sources;
    device.switches = true;
    SampledRunConfig config = configFor(path);
    config.series.records.oneIn = 2;
    config.series.shortestRowPeriods = 0;
    SampledRun run(config, std::move(sources));
    run.start();
    Job job;
    for (std::int64_t step = 0; step < 10; ++step) {
        device.host = job.clock - 100;
        run.series().stepBegins(step);
        job.step(run, device, step);
        // Each step waits for the one before it to be read: the next begins knowing the lag.
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
        while (run.series().tally().steps < static_cast<std::uint64_t>(step) &&
               std::chrono::steady_clock::now() < deadline)
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    const collect::SampledRunSummary summary = run.finish();
    EXPECT_FALSE(device.turned.empty());
    EXPECT_EQ(device.turned.front(), false);
    EXPECT_EQ(summary.series.steps, 10u);
    EXPECT_GE(summary.series.withoutRecords, 3u);
    EXPECT_DOUBLE_EQ(summary.series.lagNs, 100.0);
    const core::SampledRecording rec = core::readSampledRecording(path);
    std::size_t without = 0;
    for (const auto& b : rec.batches)
        for (const auto& st : b.steps) {
            if (st.index == 9)
                continue; // the last: its span ends at its end call, not at a next step
            ASSERT_EQ(st.values.size(), 1u);
            // Without records the span's last sample is shared by time: within 5 %.
            EXPECT_NEAR(st.values[0], 3000.0, st.kernelRecords ? 1e-6 : 150.0) << st.index;
            without += st.kernelRecords ? 0 : 1;
        }
    EXPECT_GE(without, 3u);
    std::remove(path.c_str());
}
