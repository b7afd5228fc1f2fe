// Window replay's signatures (collect/window_signatures) through the collector on the fake
// backend: a benchmark loop's repeats take the mean of their signature's two samples instead of
// windows of their own, samples that did different work make every launch measured, and the
// program's memory is its own whatever is measured.
#include "collect/window_signatures.hpp"
#include "unit/collector_harness.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

using namespace roofline;
using namespace roofline::collect;
using namespace roofline::collect::testing;

namespace {

CollectorConfig sampled(std::size_t samples) {
    CollectorConfig c;
    c.reuseSamples = samples;
    c.metricNames = {"sm__sass_thread_inst_executed_op_ffma_pred_on.sum", "lts__t_bytes.sum"};
    return c;
}

std::uint64_t unprofiled(const std::vector<double>& works) {
    std::uint64_t m = 1;
    for (const double w : works)
        m = m * 3 + static_cast<std::uint64_t>(w);
    return m;
}

long windows(const Harness& h) {
    const auto& log = h.backend.windowLog;
    return std::count(log.begin(), log.end(), "forget");
}

} // namespace

// A benchmark script: two operations, each launched ten times. Each signature's first two
// launches are measured in a window; the third closes it, finds the samples agree, and from then
// on its launches run outside every window and take the samples' mean, marked as such.
TEST(WindowSignatures, ABenchmarksRepeatsTakeTheirSignaturesSamples) {
    Harness h(CollectionMode::WindowReplay, 3, 16, sampled(2));
    std::vector<double> works;
    for (int i = 0; i < 10; ++i) {
        works.push_back(5);
        h.launch("gemm", 5);
    }
    for (int i = 0; i < 10; ++i) {
        works.push_back(2);
        h.launch("softmax", 2, {4, 1, 1});
    }
    auto& l = h.finish();
    ASSERT_EQ(l.size(), 20u);
    for (std::size_t i = 0; i < l.size(); ++i) {
        EXPECT_EQ(l[i].values, all(works[i])) << i << ": " << l[i].note;
        const bool sample = i % 10 < 2;
        EXPECT_EQ(l[i].reusedSamples, sample ? 0u : 2u) << i;
        if (!sample) {
            EXPECT_NE(l[i].note.find("reused: mean of 2 measured launches of the same signature "
                                     "(launches " +
                                     std::to_string(i < 10 ? 0 : 10) + ", " +
                                     std::to_string(i < 10 ? 1 : 11) + ")"),
                      std::string::npos)
                << l[i].note;
        }
    }
    EXPECT_EQ(windows(h), 2) << "one window per signature's samples";
    EXPECT_EQ(h.backend.memory, unprofiled(works)) << "the program's memory is its own";
}

// Launches of one kernel with one grid that do different work (a scan over inputs of other
// lengths): their samples disagree, so every launch of the signature is measured on its own and
// none takes a mean.
TEST(WindowSignatures, SamplesThatDidDifferentWorkMeasureEveryLaunch) {
    Harness h(CollectionMode::WindowReplay, 2, 16, sampled(2));
    const std::vector<double> works = {1, 2, 3, 4, 5, 6};
    for (const double w : works)
        h.launch("scan", w);
    auto& l = h.finish();
    ASSERT_EQ(l.size(), works.size());
    for (std::size_t i = 0; i < l.size(); ++i) {
        EXPECT_EQ(l[i].values, all(works[i])) << i << ": " << l[i].note;
        EXPECT_EQ(l[i].reusedSamples, 0u) << i;
    }
    EXPECT_EQ(h.backend.memory, unprofiled(works));
}

// The grid is part of the signature: a decoding loop's attention kernel whose grid grows with
// the sequence gets samples for each grid; a kernel of a fixed grid is measured twice in all.
TEST(WindowSignatures, EachGridIsASignatureOfItsOwn) {
    Harness h(CollectionMode::WindowReplay, 2, 16, sampled(2));
    std::vector<double> works;
    for (std::uint32_t step = 0; step < 6; ++step) {
        works.push_back(1);
        h.launch("linear", 1);
        works.push_back(3 + step / 2);
        h.launch("attention", 3 + step / 2, {1 + step / 2, 1, 1});
    }
    auto& l = h.finish();
    ASSERT_EQ(l.size(), 12u);
    std::size_t measured = 0;
    for (std::size_t i = 0; i < l.size(); ++i) {
        EXPECT_EQ(l[i].values, all(works[i])) << i << ": " << l[i].note;
        measured += l[i].reusedSamples == 0 ? 1 : 0;
    }
    EXPECT_EQ(measured, 2u + 6u) << "linear twice, each of three attention grids twice";
    EXPECT_EQ(h.backend.memory, unprofiled(works));
}

// Samples 0 (ROOFLINE_REUSE=0): every launch measured, as before signatures.
TEST(WindowSignatures, NoSamplesMeasuresEveryLaunch) {
    Harness h(CollectionMode::WindowReplay, 2, 16, sampled(0));
    for (int i = 0; i < 5; ++i)
        h.launch("gemm", 5);
    auto& l = h.finish();
    ASSERT_EQ(l.size(), 5u);
    for (const auto& r : l) {
        EXPECT_EQ(r.values, all(5));
        EXPECT_EQ(r.reusedSamples, 0u);
    }
    EXPECT_EQ(windows(h), 1);
}

// A window that failed gives its launches no values: they are no samples, and the launches of
// their signature that follow are not given a mean of nothing.
TEST(WindowSignatures, LaunchesWithoutValuesAreNoSamples) {
    WindowSignatures w(2, {"sm__sass_thread_inst_executed_op_ffma_pred_on.sum"});
    RecordStore records;
    core::LaunchInfo info;
    records.add(info);
    records.add(info);
    w.measuring("k", 0);
    w.measuring("k", 1);
    EXPECT_EQ(w.take("k"), WindowSignatures::Take::CloseFirst);
    w.windowClosed(records);
    EXPECT_EQ(w.take("k"), WindowSignatures::Take::Measure) << "no values: measured again";
    info.values = {8};
    records.add(info);
    records.add(info);
    w.measuring("k", 2);
    w.measuring("k", 3);
    w.windowClosed(records);
    EXPECT_EQ(w.take("k"), WindowSignatures::Take::Share);
    records.add(core::LaunchInfo{});
    w.sharing("k", 4);
    EXPECT_EQ(w.fill(records), 1u);
    EXPECT_EQ(records[4].values, std::vector<double>{8});
    EXPECT_EQ(records[4].reusedSamples, 2u);
}
