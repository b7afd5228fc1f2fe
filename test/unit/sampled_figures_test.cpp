// A sampled job's steps in figures and for people (core/sampled_figures, report/sampled_steps).
#include "core/sampled_figures.hpp"
#include "report/sampled_ranks.hpp"
#include "report/sampled_steps.hpp"

#include <roofline/error.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>
#include <string>

using namespace roofline;
using namespace roofline::core;

namespace {

// Steps of GH100's counters: `ms` long, covered all along, with the values given by name.
SampledRecording recording(const std::vector<double>& stepMs) {
    const SamplingSet& set = samplingSetForChip("GH100");
    SampledRecording rec;
    rec.header.device.name = "NVIDIA H100 80GB HBM3";
    rec.header.device.chip = "GH100";
    rec.header.device.smCount = 100;
    rec.header.counters = set.metrics();
    rec.header.periodNs = 50000;
    SampledBatch b;
    std::uint64_t clock = 0;
    for (std::size_t i = 0; i < stepMs.size(); ++i) {
        SampledStep s;
        s.index = i;
        const auto ns = static_cast<std::uint64_t>(stepMs[i] * 1e6);
        s.startNs = clock;
        s.endNs = clock + ns;
        s.kernels = 4;
        s.kernelNs = ns / 2;
        s.coveredNs = ns / 4; // a quarter of the kernel time covered
        s.estimatedKernels = 1;
        for (const std::string& m : rec.header.counters) {
            double v = 0;
            if (m == set.cyclesMetric)
                v = 2e9 * static_cast<double>(s.coveredNs) * 1e-9; // 2 GHz
            else if (m == set.fmaInstructions)
                v = 1000;
            else if (m == set.warpInstructions)
                v = 4000;
            else if (m == set.threadInstructions)
                v = 4000 * 16; // half the threads on
            else if (m == set.fp64PipeCycles)
                v = 10;
            else if (m == set.tensorPipeCycles)
                v = 0.25 * 2e9 * static_cast<double>(ns) * 1e-9 * 100; // a quarter of the step
            else if (m == set.bytes[2])
                v = 3e9 * stepMs[0] * 1e-3; // 3 GB/s over the first step's time
            s.values.push_back(v);
        }
        s.between.assign(s.values.size(), 0);
        b.steps.push_back(s);
        clock += ns;
    }
    rec.batches.push_back(b);
    return rec;
}

// Where `metric` sits in the recording's values.
std::size_t columnOf(const SampledRecording& rec, const std::string& metric) {
    const auto& c = rec.header.counters;
    return static_cast<std::size_t>(std::find(c.begin(), c.end(), metric) - c.begin());
}

Ceilings roofs() {
    Ceilings c;
    c.flopsPerSecond[static_cast<std::size_t>(FlopKind::FP32)] = 1e8;
    c.flopsPerSecond[static_cast<std::size_t>(FlopKind::FP64)] = 1e9;
    c.bytesPerSecond[static_cast<std::size_t>(MemoryLevel::DRAM)] = 1e10;
    return c;
}

} // namespace

// Each figure from its counters: the clock is cycles over the covered time, FP32 FLOPs the FMA
// pipe's warp instructions times the threads on per warp times 2, FP64 32 per pipe cycle, the
// tensor pipe's share of the SMs' cycles over the step at that clock; the nearest roof and the
// median's strays.
TEST(SampledFigures, EachStepsFiguresComeFromItsCounters) {
    const SampledFigures f = figuresOf(recording({10, 10, 10, 10, 10, 20}), roofs());
    ASSERT_EQ(f.steps.size(), 6u);
    const StepFigures& s = f.steps[0];
    EXPECT_DOUBLE_EQ(s.seconds, 0.010);
    EXPECT_DOUBLE_EQ(s.kernelSeconds, 0.005);
    EXPECT_NEAR(s.clockHz, 2e9, 1);
    EXPECT_DOUBLE_EQ(s.fp32Flops, 2 * 1000 * 16);
    EXPECT_DOUBLE_EQ(s.fp64Flops, 320);
    EXPECT_NEAR(s.tensorPipeShare, 0.25, 1e-12);
    EXPECT_NEAR(s.dramBytesPerSecond, 3e9, 1);
    EXPECT_EQ(s.nearest, "DRAM"); // 30 % of its roof; FP32 3.2 %, tensor pipe 25 %
    EXPECT_NEAR(s.nearestShare, 0.3, 1e-12);
    EXPECT_DOUBLE_EQ(s.covered, 0.5);
    EXPECT_DOUBLE_EQ(s.estimated, 0.25);
    EXPECT_DOUBLE_EQ(f.medianSeconds, 0.010);
    EXPECT_EQ(f.strays, 1u);
    EXPECT_TRUE(f.steps[5].strays);
    EXPECT_DOUBLE_EQ(f.steps[5].fromMedian, 1.0);
    EXPECT_EQ(f.steps[5].nearest, "tensor pipe"); // DRAM at 15 % now
}

// The table flags the strays and says its values are sampled; the CSV has every step; the chart
// one red mark per stray in each panel.
// A row of several short steps gives its figures per step -- time, FLOPs and bytes over its
// steps, rates as they are -- so that its steps compare with single ones; the report says how
// many rows hold several, the CSV gives each row's steps, and the header counts every step.
TEST(SampledFigures, ARowOfSeveralStepsGivesFiguresPerStep) {
    SampledRecording rec = recording({10, 40});
    rec.batches[0].steps[1].steps = 4;
    const SampledFigures f = figuresOf(rec, roofs());
    ASSERT_EQ(f.steps.size(), 2u);
    const StepFigures &one = f.steps[0], &four = f.steps[1];
    EXPECT_EQ(four.steps, 4u);
    EXPECT_NEAR(four.seconds, 10e-3, 1e-12);
    EXPECT_NEAR(four.kernelSeconds, one.kernelSeconds, 1e-12);
    EXPECT_NEAR(four.fp32Flops, one.fp32Flops / 4, 1e-6);
    EXPECT_NEAR(four.flopsPerSecond, one.flopsPerSecond / 4, 1e-6); // the same work over 4x
    EXPECT_NEAR(f.medianSeconds, 10e-3, 1e-12);
    EXPECT_EQ(f.strays, 0u);
    std::ostringstream text, csv;
    report::printSampledSteps(rec, f, text, 10);
    EXPECT_NE(text.str().find(", 5 steps in 1 writes"), std::string::npos) << text.str();
    EXPECT_NE(text.str().find("1 rows hold 4 steps"), std::string::npos) << text.str();
    report::writeSampledCsv(f, csv);
    EXPECT_NE(csv.str().find(",estimated,steps,kernel_records\n"), std::string::npos) << csv.str();
    EXPECT_NE(csv.str().find(",4,1\n"), std::string::npos) << csv.str();
    const std::vector<KernelRecord> records = sampledRecords(rec, f, roofs());
    ASSERT_FALSE(records.empty());
    EXPECT_NE(records.back().note.find("the median of 2 rows of 5 steps"), std::string::npos)
        << records.back().note;
}

TEST(SampledFigures, TheReportFlagsStraysAndTheChartMarksThem) {
    std::vector<double> ms(100, 10);
    ms[40] = 13;
    ms[70] = 7;
    const SampledRecording rec = recording(ms);
    const SampledFigures f = figuresOf(rec, roofs());
    EXPECT_EQ(f.strays, 2u);
    std::ostringstream table, csv, chart;
    report::printSampledSteps(rec, f, table, 12);
    EXPECT_NE(table.str().find("sampled (PM sampling"), std::string::npos) << table.str();
    EXPECT_NE(table.str().find("+30.0%"), std::string::npos) << table.str();
    EXPECT_NE(table.str().find("-30.0%"), std::string::npos) << table.str();
    EXPECT_NE(table.str().find("92 steps not shown"), std::string::npos) << table.str();
    report::writeSampledCsv(f, csv);
    const std::string lines = csv.str();
    EXPECT_EQ(std::count(lines.begin(), lines.end(), '\n'), 101);
    report::writeSampledChart(rec, f, chart);
    const std::string svg = chart.str();
    std::size_t marks = 0;
    for (std::size_t at = svg.find("<circle"); at != std::string::npos;
         at = svg.find("<circle", at + 1))
        ++marks;
    EXPECT_EQ(marks, 6u); // 2 strays x 3 panels
    EXPECT_EQ(svg.rfind("</svg>\n"), svg.size() - 7);
}

// A rank names its job's size where the launcher said it (torchrun), and only its number where
// the launcher said no size (a rank variable alone, as Lightning's single process sets).
TEST(SampledFigures, TheHeaderNamesTheRankAndTheJobsSizeWhereKnown) {
    SampledRecording rec = recording({10});
    rec.header.rank = 1;
    rec.header.worldSize = 2;
    const SampledFigures f = figuresOf(rec, roofs());
    std::ostringstream two, one;
    report::printSampledSteps(rec, f, two, 10);
    EXPECT_NE(two.str().find(", rank 1 of 2\n"), std::string::npos) << two.str();
    rec.header.rank = 0;
    rec.header.worldSize = -1;
    report::printSampledSteps(rec, f, one, 10);
    EXPECT_NE(one.str().find(", rank 0\n"), std::string::npos) << one.str();
}

// A recording whose counters lack one the family's set needs is refused naming it.
TEST(SampledFigures, ARecordingWithoutACounterOfTheSetIsRefused) {
    SampledRecording rec = recording({10});
    rec.header.counters[0] = "something_else.sum";
    EXPECT_THROW(figuresOf(rec, roofs()), Error);
}

// Ranks' steps aligned by index: steps some rank did not sample are left out and counted; each
// step's slowest rank and excess; a tie names no rank.
TEST(SampledRanks, StepsAreAlignedByIndexAndTheStragglerNamed) {
    const auto figures = [](const std::vector<double>& ms, std::uint64_t first) {
        SampledFigures f;
        for (std::size_t i = 0; i < ms.size(); ++i) {
            StepFigures s;
            s.index = first + i;
            s.seconds = ms[i] * 1e-3;
            f.steps.push_back(s);
        }
        return f;
    };
    const report::AlignedRanks a =
        report::alignRanks({{0, "r0.rfs", figures({10, 10, 10, 10, 10}, 0)},
                            {3, "r3.rfs", figures({10, 15, 10, 11}, 1)}}); // starts a step late
    ASSERT_EQ(a.steps.size(), 4u);
    EXPECT_EQ(a.partial, 1u);
    EXPECT_EQ(a.steps[0].index, 1u);
    EXPECT_EQ(a.steps[0].slowest, -1); // a tie
    EXPECT_EQ(a.steps[1].slowest, 3);
    EXPECT_NEAR(a.steps[1].excess, 0.005, 1e-12);
    EXPECT_TRUE(a.steps[1].straggles);
    EXPECT_FALSE(a.steps[3].straggles); // 1 ms: 10 % of the 10 ms median, not more
    EXPECT_EQ(a.slowestIn[0], 0u);
    EXPECT_EQ(a.slowestIn[1], 2u);
    EXPECT_EQ(a.straggling, 1u);
    std::ostringstream text, csv;
    report::printAlignedRanks(a, text);
    EXPECT_NE(text.str().find("(1 more by some only, left out)"), std::string::npos) << text.str();
    report::writeAlignedCsv(a, csv);
    EXPECT_EQ(csv.str().substr(0, 51), "step,rank0_seconds,rank3_seconds,slowest_rank,exces");
}

// For compare: one record per kernel signature with its time and work per step (every launch
// in every write, over the steps written), and "between kernels", the rest of the median step;
// together one step. Each says it was sampled.
TEST(SampledFigures, RecordsForCompareAddUpToTheMedianStep) {
    SampledRecording rec = recording({10, 10, 10});
    const std::size_t counters = rec.header.counters.size();
    const auto signature = [&](const char* name, std::uint64_t launches, std::uint64_t us) {
        return SampledSignature{name, "s", launches, us * 1000, std::vector<double>(counters, 3.0),
                                0};
    };
    rec.batches[0].signatures = {signature("k", 6, 9000), signature("m", 3, 1500)};
    const std::vector<KernelRecord> r = sampledRecords(rec, roofs());
    ASSERT_EQ(r.size(), 3u);
    EXPECT_EQ(r[0].name, "k");
    EXPECT_DOUBLE_EQ(r[0].timeSeconds, 0.003); // 9 ms over 3 steps
    EXPECT_EQ(r[0].kernels, 2u);
    EXPECT_EQ(r[1].name, "m");
    EXPECT_DOUBLE_EQ(r[1].timeSeconds, 0.0005);
    EXPECT_EQ(r[2].name, "between kernels");
    EXPECT_NEAR(r[2].timeSeconds, 0.010 - 0.0035, 1e-12);
    for (const KernelRecord& k : r)
        EXPECT_NE(k.note.find("sampled"), std::string::npos) << k.note;
}

// A signature's clock is its cycles over the time the samples covered, and its note says how much
// of its time that was where they missed some; a recording that does not keep it gives no clock.
TEST(SampledFigures, ASignaturesClockIsItsCyclesOverItsCoveredTime) {
    SampledRecording rec = recording({10, 10});
    const SamplingSet& set = samplingSetForChip("GH100");
    const std::size_t cycles = columnOf(rec, set.cyclesMetric);
    std::vector<double> values(rec.header.counters.size(), 0.0);
    values[cycles] = 1.8e9 * 0.004; // 1.8 GHz over the 4 ms covered
    rec.batches[0].signatures = {{"k", "s", 2, 5000000, values, 0, 4000000},
                                 {"old", "s", 2, 5000000, values, 0, 0}};
    const std::vector<KernelRecord> r = sampledRecords(rec, roofs());
    ASSERT_EQ(r.size(), 3u);
    EXPECT_EQ(r[0].name, "k");
    EXPECT_NEAR(r[0].smClockHz, 1.8e9, 1);
    EXPECT_NE(r[0].note.find("samples covered 80.0 % of its time"), std::string::npos) << r[0].note;
    EXPECT_EQ(r[1].name, "old");
    EXPECT_EQ(r[1].smClockHz, 0);
    EXPECT_EQ(r[1].note.find("covered"), std::string::npos) << r[1].note;
}

// A kernel whose name says its tensor type gets its tensor FLOPs at that type's rate; one whose
// name does not keeps none and says so.
TEST(SampledFigures, TensorFlopsAtTheRateTheKernelsNameSays) {
    SampledRecording rec = recording({10, 10});
    const SamplingSet& set = samplingSetForChip("GH100");
    std::vector<double> values(rec.header.counters.size(), 0.0);
    const std::size_t tensor = columnOf(rec, set.tensorPipeCycles);
    values[tensor] = 200; // 100 per step
    rec.batches[0].signatures = {{"nvjet_sm90_tst_128x128", "s", 2, 1000000, values, 0},
                                 {"mystery_mma_kernel", "s", 2, 1000000, values, 0}};
    const std::vector<KernelRecord> r = sampledRecords(rec, roofs());
    ASSERT_EQ(r.size(), 3u);
    EXPECT_DOUBLE_EQ(r[1].flopsOf(FlopKind::TensorBF16), 100 * 1024.0);
    EXPECT_NE(r[1].note.find("tensor type from the kernel's name"), std::string::npos);
    EXPECT_DOUBLE_EQ(r[0].tensorFlops(), 0);
    EXPECT_NE(r[0].note.find("does not say the type"), std::string::npos) << r[0].note;
}

// A row whose kernels were not recorded: its covered share is of its span, the table marks it
// (~) and says how many steps kept records, the CSV says which, and the signatures are per
// recorded step (their note says over how many of all).
TEST(SampledFigures, AStepWithoutKernelRecordsIsMarkedAndLeftOutOfTheSignatures) {
    SampledRecording rec = recording({10, 10, 10});
    SampledStep& off = rec.batches[0].steps[1];
    off.kernelRecords = false;
    off.kernelNs = 0;
    off.coveredNs = 8000000; // 8 of its 10 ms
    rec.batches[0].signatures.push_back(
        {"gemm", "", 4, 2000000, std::vector<double>(rec.header.counters.size(), 2.0), 0, 2000000});
    const SampledFigures f = figuresOf(rec, roofs());
    ASSERT_EQ(f.steps.size(), 3u);
    EXPECT_TRUE(f.steps[0].kernelRecords);
    EXPECT_FALSE(f.steps[1].kernelRecords);
    EXPECT_DOUBLE_EQ(f.steps[1].covered, 0.8);
    EXPECT_DOUBLE_EQ(f.steps[0].covered, 0.5); // a quarter of the step: half its kernels' time
    std::ostringstream text, csv;
    report::printSampledSteps(rec, f, text, 10);
    EXPECT_NE(text.str().find("kernel records on 2 of 3 steps"), std::string::npos) << text.str();
    EXPECT_NE(text.str().find("~"), std::string::npos) << text.str();
    report::writeSampledCsv(f, csv);
    EXPECT_NE(csv.str().find(",1,0\n"), std::string::npos) << csv.str();
    const std::vector<KernelRecord> records = sampledRecords(rec, f, roofs());
    ASSERT_GE(records.size(), 2u);
    EXPECT_EQ(records[0].name, "gemm");
    EXPECT_EQ(records[0].kernels, 2u); // 4 launches over the 2 recorded steps
    EXPECT_NEAR(records[0].timeSeconds, 1e-3, 1e-12);
    EXPECT_NE(records[0].note.find("(kernel records on 2 of 3 steps)"), std::string::npos)
        << records[0].note;
}
