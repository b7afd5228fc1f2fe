// A sampled job's steps (sampling/step_series): host launches, activity records, samples and
// step ends in, SampledSteps and batches out, memory bounded.
#include "sampling/step_series.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <set>
#include <stdexcept>
#include <vector>

using namespace roofline;
using sampling::HostLaunch;
using sampling::KernelActivity;
using sampling::StepSeries;
using sampling::StepSeriesConfig;

namespace {

// A job of steps of `kernels` kernels each, `kernelNs` long with `gapNs` between them; counter 0
// grows by 1 per nanosecond while a kernel runs, counter 1 by 2. Samples every `periodNs`.
struct Job {
    std::uint64_t kernelNs = 1000, gapNs = 100, periodNs = 500;
    std::size_t kernels = 4;
    std::uint64_t nextId = 1, clock = 0;
    std::vector<KernelActivity> all; ///< every kernel so far

    // Step `step`, `stretch` times as long per kernel; returns its activity records.
    std::vector<KernelActivity> step(StepSeries& s, std::int64_t step, double stretch = 1) {
        std::vector<KernelActivity> out;
        for (std::size_t k = 0; k < kernels; ++k) {
            const std::uint64_t id = nextId++;
            s.launched({id, step, s.scope("step/layer"), 1});
            const auto length = static_cast<std::uint64_t>(static_cast<double>(kernelNs) * stretch);
            out.push_back({id, "kernel" + std::to_string(k), clock, clock + length});
            clock += length + gapNs;
        }
        s.stepEnded(step);
        all.insert(all.end(), out.begin(), out.end());
        return out;
    }

    // Samples over [from, to): each counter's growth from the kernels running in it.
    std::vector<core::CounterSample> samples(std::uint64_t from, std::uint64_t to) const {
        std::vector<core::CounterSample> out;
        for (std::uint64_t t = from; t < to; t += periodNs) {
            double busy = 0;
            for (const auto& k : all) {
                const std::uint64_t a = std::max(k.startNs, t), b = std::min(k.endNs, t + periodNs);
                if (b > a)
                    busy += static_cast<double>(b - a);
            }
            out.push_back({t, t + periodNs, {busy, 2 * busy}});
        }
        return out;
    }
};

StepSeriesConfig config() {
    StepSeriesConfig c;
    c.counters = 2;
    c.periodNs = 500;
    c.ringSteps = 4;
    c.writeEverySteps = 1000;
    c.shortestRowPeriods = 0; // every step its own row (merging short ones: tests of their own)
    return c;
}

} // namespace

// Each step's kernels take the samples of their time: its counters are its kernels' work; a step
// waits for the next one (their boundary's samples), and the stop writes the rest.
TEST(StepSeries, EachStepTakesItsKernelsSamples) {
    std::vector<core::SampledBatch> written;
    StepSeries s(config(), [&](const core::SampledBatch& b) { written.push_back(b); });
    Job job;
    for (std::int64_t i = 0; i < 5; ++i)
        s.kernels(job.step(s, i));
    s.samples(job.samples(0, job.clock + 1000));
    s.advance(1);
    EXPECT_EQ(s.tally().steps, 4u); // the last waits for a next step or the stop
    s.finish(2);
    ASSERT_EQ(written.size(), 1u);
    const core::SampledBatch& b = written[0];
    ASSERT_EQ(b.steps.size(), 5u);
    for (std::size_t i = 0; i < 5; ++i) {
        EXPECT_EQ(b.steps[i].index, i);
        EXPECT_EQ(b.steps[i].kernels, 4u);
        EXPECT_EQ(b.steps[i].kernelNs, 4000u);
        EXPECT_NEAR(b.steps[i].values[0], 4000, 1e-6) << "step " << i;
        EXPECT_NEAR(b.steps[i].values[1], 8000, 1e-6) << "step " << i;
        EXPECT_EQ(b.steps[i].coveredNs, 4000u);
    }
    ASSERT_EQ(b.signatures.size(), 4u); // every launch of every step, by kernel and scope
    for (const core::SampledSignature& sig : b.signatures) {
        EXPECT_EQ(sig.scope, "step/layer");
        EXPECT_EQ(sig.launches, 5u);
        EXPECT_EQ(sig.ns, 5000u);
        EXPECT_EQ(sig.coveredNs, 5000u);
        EXPECT_NEAR(sig.values[0], 5000, 1e-6) << sig.name;
    }
    ASSERT_EQ(b.launches.size(), 4u); // the ring's last step
    EXPECT_EQ(b.launches[0].step, 4u);
    EXPECT_EQ(b.launches[0].scope, "step/layer");
    EXPECT_NEAR(b.launches[0].values[0], 1000, 1e-6);
    EXPECT_EQ(b.writtenUnixNs, 2u);
}

// A batch every N steps, and every T seconds of wall clock, each with the launches of the last
// step it holds.
TEST(StepSeries, ABatchIsWrittenEveryNStepsAndEveryTSeconds) {
    StepSeriesConfig c = config();
    c.writeEverySteps = 3;
    c.writeEveryNs = 1000;
    std::vector<core::SampledBatch> written;
    StepSeries s(c, [&](const core::SampledBatch& b) { written.push_back(b); });
    Job job;
    for (std::int64_t i = 0; i < 4; ++i) {
        s.kernels(job.step(s, i));
        s.samples(job.samples(i == 0 ? 0 : job.clock - 4400 - 500, job.clock));
        s.advance(10);
    }
    ASSERT_EQ(written.size(), 1u); // steps 0, 1, 2
    EXPECT_EQ(written[0].steps.size(), 3u);
    EXPECT_EQ(written[0].launches.size(), 4u);
    EXPECT_EQ(written[0].launches[0].step, 2u);
    s.kernels(job.step(s, 4));
    s.samples(job.samples(job.clock - 4400 - 500, job.clock + 500));
    s.advance(2000); // one step since, but a wall-clock period gone
    ASSERT_EQ(written.size(), 2u);
    EXPECT_EQ(written[1].steps.size(), 1u);
    EXPECT_EQ(written[1].steps[0].index, 3u);
}

// A step far from the running median keeps its launches in the batch, beside the last step's.
TEST(StepSeries, AStepThatStraysKeepsItsLaunches) {
    std::vector<core::SampledBatch> written;
    StepSeries s(config(), [&](const core::SampledBatch& b) { written.push_back(b); });
    Job job;
    for (std::int64_t i = 0; i < 12; ++i)
        s.kernels(job.step(s, i, i == 8 ? 2.0 : 1.0));
    s.samples(job.samples(0, job.clock + 500));
    s.finish(5);
    EXPECT_EQ(s.tally().strays, 1u);
    ASSERT_EQ(written.size(), 1u);
    std::size_t ofStray = 0, ofLast = 0;
    for (const auto& l : written[0].launches) {
        ofStray += l.step == 8 ? 1 : 0;
        ofLast += l.step == 11 ? 1 : 0;
    }
    EXPECT_EQ(ofStray, 4u);
    EXPECT_EQ(ofLast, 4u);
}

// A kernel whose activity record never comes (CUPTI lost it) holds its step up only until the
// two steps after it are complete and sampled: it then goes with what it has, the kernel counted.
TEST(StepSeries, AKernelRecordThatNeverComesHoldsNothingUp) {
    std::vector<core::SampledBatch> written;
    StepSeries s(config(), [&](const core::SampledBatch& b) { written.push_back(b); });
    Job job;
    for (std::int64_t i = 0; i < 6; ++i) {
        std::vector<KernelActivity> records = job.step(s, i);
        if (i == 1)
            records.pop_back(); // lost
        s.kernels(records);
    }
    s.samples(job.samples(0, job.clock + 1000));
    s.advance(1);
    EXPECT_EQ(s.tally().steps, 5u); // the last waits for a next step or the stop
    EXPECT_EQ(s.tally().missing, 1u);
}

// A loop whose steps jitter strays often: a write keeps the launches of the strays farthest from
// the median only (strayStepsKept), and counts every one.
TEST(StepSeries, AWriteKeepsTheFarthestStraysOnly) {
    std::vector<core::SampledBatch> written;
    StepSeriesConfig c = config();
    c.strayStepsKept = 2;
    StepSeries s(c, [&](const core::SampledBatch& b) { written.push_back(b); });
    Job job;
    const std::vector<double> stretch = {1, 1, 1, 1, 1, 1, 1.5, 1, 3, 1, 2, 1, 1.3, 1};
    for (std::size_t i = 0; i < stretch.size(); ++i)
        s.kernels(job.step(s, static_cast<std::int64_t>(i), stretch[i]));
    s.samples(job.samples(0, job.clock + 500));
    s.finish(5);
    EXPECT_EQ(s.tally().strays, 4u);
    ASSERT_EQ(written.size(), 1u);
    std::set<std::uint64_t> kept;
    for (const auto& l : written[0].launches)
        kept.insert(l.step);
    EXPECT_EQ(kept, (std::set<std::uint64_t>{8, 10, 13})); // the two farthest, then the last step
}

// Thousands of steps: what is held stays within the ring and the steps in flight.
TEST(StepSeries, MemoryStaysBoundedOverManySteps) {
    StepSeriesConfig c = config();
    c.writeEverySteps = 50;
    std::uint64_t steps = 0;
    StepSeries s(c, [&](const core::SampledBatch& b) { steps += b.steps.size(); });
    Job job;
    job.kernels = 20;
    std::size_t most = 0;
    for (std::int64_t i = 0; i < 3000; ++i) {
        const std::uint64_t from = job.clock;
        s.kernels(job.step(s, i));
        s.samples(job.samples(from - from % job.periodNs, job.clock));
        s.advance(static_cast<std::uint64_t>(i));
        most = std::max(most, s.launchesHeld());
        if (job.all.size() > 200) // the fake job's own memory
            job.all.erase(job.all.begin(), job.all.end() - 100);
    }
    s.finish(1u << 30);
    EXPECT_EQ(steps, 3000u);
    EXPECT_EQ(s.tally().steps, 3000u);
    EXPECT_LE(most, (c.ringSteps + 3) * job.kernels + 2 * job.kernels);
}

// A graph launch's kernels share its correlation id: the step is complete once all of them came.
TEST(StepSeries, AGraphLaunchsKernelsShareItsCorrelationId) {
    std::vector<core::SampledBatch> written;
    StepSeries s(config(), [&](const core::SampledBatch& b) { written.push_back(b); });
    s.launched({7, 0, 0, 3});
    s.stepEnded(0);
    s.kernels({{7, "a", 0, 100}, {7, "b", 100, 200}});
    s.launched({8, 1, 0, 1});
    s.stepEnded(1);
    s.kernels({{8, "c", 300, 400}});
    s.samples({{0, 500, {400, 0}}});
    s.advance(1);
    EXPECT_EQ(s.tally().steps, 0u); // step 0 waits for its third kernel
    s.kernels({{7, "c", 200, 300}});
    s.advance(2);
    EXPECT_EQ(s.tally().steps, 1u);
    s.finish(3);
    ASSERT_EQ(written.size(), 1u);
    EXPECT_EQ(written[0].steps[0].kernels, 3u);
    EXPECT_NEAR(written[0].steps[0].values[0], 300, 1e-9);
}

// The collector announces a graph's kernel nodes one by one, each with the graph launch's
// correlation id: they add up, inside a step and outside every step.
TEST(StepSeries, AGraphsNodesAnnouncedOneByOneAddUp) {
    std::vector<core::SampledBatch> written;
    StepSeries s(config(), [&](const core::SampledBatch& b) { written.push_back(b); });
    for (int node = 0; node < 3; ++node)
        s.launched({5, -1, 0, 1}); // a graph outside every step
    for (int node = 0; node < 2; ++node)
        s.launched({7, 0, 0, 1});
    s.stepEnded(0);
    s.kernels({{5, "x", 0, 10}, {5, "y", 10, 20}, {5, "z", 20, 30}});
    s.kernels({{7, "a", 100, 200}, {7, "b", 200, 300}});
    s.samples({{0, 500, {200, 0}}});
    s.finish(1);
    EXPECT_EQ(s.tally().outsideSteps, 3u);
    EXPECT_EQ(s.tally().unmatched, 0u);
    ASSERT_EQ(written.size(), 1u);
    EXPECT_EQ(written[0].steps[0].kernels, 2u);
}

// Launches whose activity never comes are held up to a bound, then dropped oldest first and
// counted; the host's log of launches not yet read holds as many (a reader far behind: further
// launches are dropped there, counted, and the program never waits); a launch reported for a step
// already written is counted, and holds nothing up.
TEST(StepSeries, WhatNeverArrivesIsBoundedAndCounted) {
    StepSeriesConfig c = config();
    c.maxAwaiting = 100;
    StepSeries s(c, nullptr);
    for (std::uint64_t id = 1; id <= 1000; ++id)
        s.launched({id, -1, 0, 1});
    EXPECT_EQ(s.tally().droppedAwaiting, 900u); // the log's bound, before any read
    EXPECT_LE(s.launchesHeld(), 100u);
    s.advance(1);
    for (std::uint64_t id = 1001; id <= 1050; ++id)
        s.launched({id, -1, 0, 1});
    s.advance(1);
    EXPECT_EQ(s.tally().droppedAwaiting, 950u); // and the oldest awaiting, once read
    EXPECT_LE(s.launchesHeld(), 100u);
    s.launched({5000, 0, 0, 1});
    s.stepEnded(0);
    s.kernels({{5000, "k", 0, 10}, {424242, "foreign", 0, 5}});
    s.finish(1);
    EXPECT_EQ(s.tally().unmatched, 1u);
    s.launched({5001, 0, 0, 1});
    s.advance(2);
    EXPECT_EQ(s.tally().late, 1u);
}

// A writer that throws (disk full) is counted; the job goes on.
TEST(StepSeries, AFailingWriterIsCountedAndTheJobGoesOn) {
    StepSeries s(config(), [](const core::SampledBatch&) { throw std::runtime_error("disk full"); });
    Job job;
    s.kernels(job.step(s, 0));
    s.samples(job.samples(0, job.clock));
    EXPECT_NO_THROW(s.finish(1));
    EXPECT_EQ(s.tally().writeFailures, 1u);
}

// A write sums a bounded number of signatures apart; the launches of further ones are added up
// under "(other kernels)", and none is lost.
TEST(StepSeries, SignaturesBeyondTheBoundAreAddedUpTogether) {
    StepSeriesConfig c = config();
    c.maxSignatures = 2;
    std::vector<core::SampledBatch> written;
    StepSeries s(c, [&](const core::SampledBatch& b) { written.push_back(b); });
    Job job;
    for (std::int64_t i = 0; i < 3; ++i)
        s.kernels(job.step(s, i));
    s.samples(job.samples(0, job.clock + 500));
    s.finish(1);
    ASSERT_EQ(written.size(), 1u);
    ASSERT_EQ(written[0].signatures.size(), 3u);
    std::uint64_t launches = 0;
    bool other = false;
    for (const auto& sig : written[0].signatures) {
        launches += sig.launches;
        other = other || (sig.name == "(other kernels)" && sig.launches == 6);
    }
    EXPECT_EQ(launches, 12u);
    EXPECT_TRUE(other);
}

namespace {

// Short steps merged into rows of three 1000 ns periods, and a job of one kernel a step.
StepSeriesConfig mergingConfig() {
    StepSeriesConfig c = config();
    c.shortestRowPeriods = 3;
    c.periodNs = 1000;
    return c;
}

Job oneKernelSteps(std::uint64_t kernelNs) {
    Job job;
    job.kernels = 1;
    job.kernelNs = kernelNs;
    job.periodNs = 1000;
    return job;
}

} // namespace

// Steps shorter than three periods, back to back (a loop of one short kernel, each launch a step):
// merged into rows of at least three periods, in order, every step and every count in one row.
TEST(StepSeries, ShortStepsBackToBackAreMergedIntoRowsOfThreePeriods) {
    const StepSeriesConfig c = mergingConfig();
    std::vector<core::SampledBatch> written;
    StepSeries s(c, [&](const core::SampledBatch& b) { written.push_back(b); });
    Job job = oneKernelSteps(100);
    job.gapNs = 10;
    for (std::int64_t step = 0; step < 100; ++step)
        s.kernels(job.step(s, step));
    s.samples(job.samples(0, job.clock + 1000));
    s.finish(1);
    ASSERT_EQ(written.size(), 1u);
    const std::vector<core::SampledStep>& rows = written[0].steps;
    ASSERT_GE(rows.size(), 3u);
    EXPECT_LE(rows.size(), 5u);
    std::uint64_t next = 0, steps = 0;
    double grown = 0;
    for (std::size_t i = 0; i < rows.size(); ++i) {
        EXPECT_EQ(rows[i].index, next) << "rows follow each other";
        next += rows[i].steps;
        steps += rows[i].steps;
        EXPECT_EQ(rows[i].kernels, rows[i].steps);
        if (i + 1 < rows.size()) {
            EXPECT_GE(rows[i].endNs - rows[i].startNs, 3 * c.periodNs);
        }
        grown += rows[i].values[0];
    }
    EXPECT_EQ(steps, 100u);
    EXPECT_NEAR(grown, 100.0 * 100, 1e-6); // counter 0 grows 1 a nanosecond of kernel time
    EXPECT_EQ(s.tally().steps, 100u);
    EXPECT_EQ(s.tally().rows, rows.size());
}

// A step as long as three periods keeps its own row, and so does a short step that begins more
// than a period after the one before (a request now and then): merging never makes a row's time
// the gap between its steps.
TEST(StepSeries, LongStepsAndSparseShortStepsKeepTheirOwnRows) {
    std::vector<core::SampledBatch> written;
    StepSeries s(mergingConfig(), [&](const core::SampledBatch& b) { written.push_back(b); });
    Job job = oneKernelSteps(5000); // step 0: long
    s.kernels(job.step(s, 0));
    job.kernelNs = 100;
    for (std::int64_t step = 1; step < 6; ++step) { // short, 20 periods apart
        job.clock += 20000;
        s.kernels(job.step(s, step));
    }
    s.samples(job.samples(0, job.clock + 1000));
    s.finish(1);
    ASSERT_EQ(written.size(), 1u);
    ASSERT_EQ(written[0].steps.size(), 6u);
    for (std::size_t i = 0; i < 6; ++i) {
        EXPECT_EQ(written[0].steps[i].index, i);
        EXPECT_EQ(written[0].steps[i].steps, 1u);
    }
    EXPECT_EQ(written[0].steps[3].endNs - written[0].steps[3].startNs, 100u);
}

// Samples that come out of time order give every step the values they give in order: the series
// holds them in order whatever order they come in.
TEST(StepSeries, SamplesOutOfOrderGiveTheSameValues) {
    const auto run = [](bool reversed) {
        std::vector<core::SampledBatch> written;
        StepSeries s(config(), [&](const core::SampledBatch& b) { written.push_back(b); });
        Job job;
        for (std::int64_t step = 0; step < 4; ++step)
            s.kernels(job.step(s, step));
        std::vector<core::CounterSample> samples = job.samples(0, job.clock + 500);
        if (reversed)
            std::reverse(samples.begin(), samples.end());
        s.samples(samples);
        s.finish(1);
        std::vector<double> values;
        for (const core::SampledBatch& b : written)
            for (const core::SampledStep& st : b.steps)
                values.insert(values.end(), st.values.begin(), st.values.end());
        return values;
    };
    const std::vector<double> inOrder = run(false), reversed = run(true);
    ASSERT_EQ(inOrder.size(), 8u);
    ASSERT_EQ(reversed.size(), inOrder.size());
    for (std::size_t i = 0; i < inOrder.size(); ++i)
        EXPECT_NEAR(reversed[i], inOrder[i], 1e-6 * std::max(1.0, inOrder[i])) << i;
}
