// A sampled job's steps with kernel records on a share of them (sampling/step_series_spans): a
// step without records is the span from its launch calls, moved by the lag the recorded steps
// show, and takes the samples over it; the recorded steps next to it share their boundary's
// samples with that span instead of taking them whole.
#include "sampling/step_series.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

using namespace roofline;
using sampling::KernelActivity;
using sampling::StepSeries;
using sampling::StepSeriesConfig;

namespace {

constexpr std::uint64_t kKernelNs = 1100, kKernels = 4, kStepNs = kKernelNs * kKernels;
constexpr std::uint64_t kLagNs = 300, kPeriodNs = 500;

// Steps of four back-to-back kernels; the host calls each step's first launch `lag` before its
// kernel starts. Records reach the series only for the steps the switch left them on in.
struct Job {
    std::uint64_t lag = kLagNs;
    std::uint64_t host = 0, gpu = 1000, nextId = 1;
    bool on = true;
    std::vector<bool> recorded;

    void step(StepSeries& s, std::int64_t step) {
        host = gpu - lag;
        s.stepBegins(step);
        recorded.push_back(on);
        std::vector<KernelActivity> records;
        for (std::uint64_t k = 0; k < kKernels; ++k) {
            const std::uint64_t id = nextId++;
            s.launched({id, step, s.scope("step"), 1});
            records.push_back({id, "kernel", gpu, gpu + kKernelNs});
            gpu += kKernelNs;
        }
        host = gpu - lag;
        s.stepEnded(step);
        if (recorded.back())
            s.kernels(records);
    }
};

// Counter 0 grows 1 a nanosecond from the first kernel on, counter 1 by 2.
std::vector<core::CounterSample> samples(std::uint64_t to) {
    std::vector<core::CounterSample> out;
    for (std::uint64_t t = 0; t < to; t += kPeriodNs) {
        const std::uint64_t a = std::max<std::uint64_t>(t, 1000), b = t + kPeriodNs;
        const double busy = b > a ? static_cast<double>(b - a) : 0.0;
        out.push_back({t, t + kPeriodNs, {busy, 2 * busy}});
    }
    return out;
}

// `steps` steps, each followed by its samples and a read of the series (as the reading thread
// does between the program's steps).
void runSteps(StepSeries& s, Job& job, std::int64_t steps) {
    std::size_t sampled = 0;
    for (std::int64_t i = 0; i < steps; ++i) {
        job.step(s, i);
        const std::vector<core::CounterSample> more = samples(job.gpu + kPeriodNs);
        s.samples({more.begin() + static_cast<std::ptrdiff_t>(sampled), more.end()});
        sampled = more.size();
        s.advance(1);
    }
}

StepSeriesConfig oneInTwo() {
    StepSeriesConfig c;
    c.counters = 2;
    c.periodNs = kPeriodNs;
    c.writeEverySteps = 1000;
    c.shortestRowPeriods = 0;
    c.records.oneIn = 2;
    return c;
}

} // namespace

// Steps 0 and 1 keep their records until a recorded step shows the host pacing the GPU (a lag
// of 300 ns against 4,400 ns steps); then one step in two goes without.
TEST(StepSeriesRecords, AStepWithoutRecordsTakesTheSamplesOverItsSpan) {
    std::vector<core::SampledBatch> written;
    StepSeries s(oneInTwo(), [&](const core::SampledBatch& b) { written.push_back(b); });
    Job job;
    s.recordsSwitch([&](bool on) { job.on = on; }, [&] { return job.host; });
    runSteps(s, job, 6);
    EXPECT_EQ(job.recorded, (std::vector<bool>{true, true, true, false, true, false}));
    EXPECT_EQ(s.tally().steps, 5u); // the last waits for the stop: no step follows it
    s.finish(2);
    ASSERT_EQ(written.size(), 1u);
    const std::vector<core::SampledStep>& steps = written[0].steps;
    ASSERT_EQ(steps.size(), 6u);
    for (std::size_t i = 0; i < steps.size(); ++i) {
        const core::SampledStep& r = steps[i];
        const std::uint64_t start = 1000 + i * kStepNs;
        EXPECT_EQ(r.kernelRecords, i != 3 && i != 5) << i;
        EXPECT_EQ(r.startNs, start) << i;
        EXPECT_EQ(r.endNs, start + kStepNs) << i;
        EXPECT_EQ(r.kernels, kKernels) << i;
        // Every step's work is its own: the boundary's samples split between a recorded step
        // and its neighbours' spans by time, not taken whole by the kernels that have records.
        EXPECT_NEAR(r.values[0], static_cast<double>(kStepNs), 1e-6) << i;
        EXPECT_NEAR(r.values[1], 2.0 * kStepNs, 1e-6) << i;
        EXPECT_EQ(r.kernelNs, r.kernelRecords ? kStepNs : 0u) << i;
        EXPECT_EQ(r.coveredNs, kStepNs) << i;
    }
    const sampling::StepSeriesTally t = s.tally();
    EXPECT_EQ(t.withoutRecords, 2u);
    EXPECT_EQ(t.switches, 3u); // off at step 3, on at 4, off at 5: each switch is counted
    EXPECT_LT(t.switchNs, 1000000000u);
    EXPECT_EQ(t.launches, 16u); // the recorded steps' kernels, one by one
    EXPECT_DOUBLE_EQ(t.lagNs, static_cast<double>(kLagNs));
    EXPECT_EQ(t.missing, 0u);
    EXPECT_EQ(t.droppedAwaiting, 0u);
    // The signatures sum the recorded steps' kernels only.
    ASSERT_EQ(written[0].signatures.size(), 1u);
    EXPECT_EQ(written[0].signatures[0].launches, 16u);
}

// A host ahead of the GPU (each step's first kernel starting 3,000 ns after its launch call, of
// 4,400 ns steps) keeps every step's records: spans taken from launch calls would be misplaced.
TEST(StepSeriesRecords, AHostAheadOfTheGpuKeepsEveryStepsRecords) {
    std::vector<core::SampledBatch> written;
    StepSeries s(oneInTwo(), [&](const core::SampledBatch& b) { written.push_back(b); });
    Job job;
    job.lag = 3000;
    s.recordsSwitch([&](bool on) { job.on = on; }, [&] { return job.host; });
    runSteps(s, job, 6);
    EXPECT_EQ(job.recorded, std::vector<bool>(6, true));
    s.finish(2);
    EXPECT_EQ(s.tally().withoutRecords, 0u);
    EXPECT_EQ(s.tally().switches, 0u);
    EXPECT_DOUBLE_EQ(s.tally().lagNs, 3000.0);
}

// Without a switch (sources that cannot turn records off) every step is recorded, whatever
// the policy.
TEST(StepSeriesRecords, WithoutASwitchEveryStepIsRecorded) {
    StepSeriesConfig c;
    c.counters = 2;
    c.periodNs = kPeriodNs;
    c.shortestRowPeriods = 0;
    c.records.oneIn = 3;
    std::vector<core::SampledBatch> written;
    StepSeries s(c, [&](const core::SampledBatch& b) { written.push_back(b); });
    Job job;
    for (std::int64_t i = 0; i < 4; ++i)
        job.step(s, i);
    EXPECT_EQ(job.recorded, (std::vector<bool>{true, true, true, true}));
    s.samples(samples(job.gpu + 1000));
    s.finish(1);
    ASSERT_EQ(written.size(), 1u);
    for (const core::SampledStep& r : written[0].steps)
        EXPECT_TRUE(r.kernelRecords);
    EXPECT_EQ(s.tally().withoutRecords, 0u);
}
