// Window replay's signatures (replay/window_signatures) through the collector on the fake
// backend: a benchmark loop's repeats take the mean of their signature's two samples instead of
// windows of their own, samples that did different work make every launch measured, and the
// program's memory is its own whatever is measured.
#include "replay/window_replay.hpp"
#include "replay/window_signatures.hpp"
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

long windows(const Harness& h) {
    const auto& log = h.backend.windowLog;
    return std::count(log.begin(), log.end(), "forget");
}

} // namespace

constexpr std::size_t kRun = Windows::kShareableInWindow;

// A benchmark script: two operations, each launched 40 times. Each signature's first two
// launches are samples; the open window goes on measuring the launches after them while that
// costs less than a window (kShareableInWindow of them), then closes, finds the samples agree,
// and the remaining launches run outside every window and take the samples' mean, marked so.
TEST(WindowSignatures, ABenchmarksRepeatsTakeTheirSignaturesSamples) {
    Harness h(CollectionMode::WindowReplay, 3, 64, sampled(2));
    std::vector<double> works;
    for (int i = 0; i < 40; ++i) {
        works.push_back(5);
        h.launch("gemm", 5);
    }
    for (int i = 0; i < 40; ++i) {
        works.push_back(2);
        h.launch("softmax", 2, {4, 1, 1});
    }
    auto& l = h.finish();
    ASSERT_EQ(l.size(), 80u);
    for (std::size_t i = 0; i < l.size(); ++i) {
        EXPECT_EQ(l[i].values, all(works[i])) << i << ": " << l[i].note;
        const bool measured = i % 40 < 2 + kRun;
        EXPECT_EQ(l[i].reusedSamples, measured ? 0u : 2u) << i;
        if (!measured) {
            const std::size_t first = i < 40 ? 0 : 40;
            EXPECT_NE(l[i].note.find("reused: mean of 2 measured launches of the same signature "
                                     "(launches " +
                                     std::to_string(first) + ", " + std::to_string(first + 1) +
                                     ")"),
                      std::string::npos)
                << l[i].note;
        }
    }
    EXPECT_EQ(windows(h), 2) << "one window per operation";
    EXPECT_EQ(h.backend.memory, unprofiled(works)) << "the program's memory is its own";
}

// Launches of one kernel and grid with other arguments (a random fill of tensors of other sizes,
// whose grid is capped): other signatures, each with its samples -- never another's mean.
TEST(WindowSignatures, OtherArgumentsAreAnotherSignature) {
    Harness h(CollectionMode::WindowReplay, 2, 64, sampled(2));
    std::vector<double> works;
    for (int size = 1; size <= 2; ++size) {
        h.backend.arguments = "numel=" + std::to_string(size * 1000);
        for (int i = 0; i < 30; ++i) {
            works.push_back(size);
            h.launch("normal_fill", size);
        }
    }
    auto& l = h.finish();
    ASSERT_EQ(l.size(), 60u);
    for (std::size_t i = 0; i < l.size(); ++i)
        EXPECT_EQ(l[i].values, all(works[i])) << i << ": " << l[i].note;
    EXPECT_EQ(l[59].reusedSamples, 2u);
    EXPECT_NE(l[59].note.find("(launches 30, 31)"), std::string::npos) << l[59].note;
}

// Launches of one kernel with one grid and arguments that do different work (a scan whose
// length is in device memory): their samples disagree, so every launch of the signature is
// measured on its own and none takes a mean.
TEST(WindowSignatures, SamplesThatDidDifferentWorkMeasureEveryLaunch) {
    Harness h(CollectionMode::WindowReplay, 2, 64, sampled(2));
    std::vector<double> works;
    for (int i = 0; i < 40; ++i) {
        works.push_back(1 + i % 3);
        h.launch("scan", works.back());
    }
    auto& l = h.finish();
    ASSERT_EQ(l.size(), works.size());
    for (std::size_t i = 0; i < l.size(); ++i) {
        EXPECT_EQ(l[i].values, all(works[i])) << i << ": " << l[i].note;
        EXPECT_EQ(l[i].reusedSamples, 0u) << i;
    }
    EXPECT_EQ(windows(h), 2) << "the first window closes to share; its samples differ, so the "
                                "launches go on in a second";
    EXPECT_EQ(h.backend.memory, unprofiled(works));
}

// A GELU's backward: the same arguments, and FLOP counts its data decides that differ by a few
// in a hundred thousand -- within the work counters' tolerance, yet each launch's own count is
// what ncu gives. Every launch is measured on its own, none takes a mean.
TEST(WindowSignatures, FlopCountsThatDifferAtAllMeasureEveryLaunch) {
    Harness h(CollectionMode::WindowReplay, 2, 64, sampled(2));
    std::vector<double> works;
    for (int i = 0; i < 40; ++i) {
        works.push_back(214000000.0 + 1000.0 * (i % 5));
        h.launch("gelu_backward", works.back());
    }
    auto& l = h.finish();
    ASSERT_EQ(l.size(), works.size());
    for (std::size_t i = 0; i < l.size(); ++i) {
        EXPECT_EQ(l[i].values, all(works[i])) << i << ": " << l[i].note;
        EXPECT_EQ(l[i].reusedSamples, 0u) << i;
    }
    EXPECT_EQ(h.backend.memory, unprofiled(works));
}

// The grid is part of the signature.
TEST(WindowSignatures, TheSignatureIsKernelGridBlockAndSharedMemory) {
    core::Launch a;
    a.mangledName = "attention";
    a.grid = {4, 1, 1};
    core::Launch b = a;
    EXPECT_EQ(WindowSignatures::of(a), WindowSignatures::of(b));
    b.grid = {5, 1, 1};
    EXPECT_NE(WindowSignatures::of(a), WindowSignatures::of(b));
    b = a;
    b.block = {128, 1, 1};
    EXPECT_NE(WindowSignatures::of(a), WindowSignatures::of(b));
    b = a;
    b.dynamicSharedBytes = 1024;
    EXPECT_NE(WindowSignatures::of(a), WindowSignatures::of(b));
    b = a;
    b.mangledName = "attention2";
    EXPECT_NE(WindowSignatures::of(a), WindowSignatures::of(b));
}

// Samples 0 (ROOFLINE_REUSE=0): every launch measured, as before signatures.
TEST(WindowSignatures, NoSamplesMeasuresEveryLaunch) {
    Harness h(CollectionMode::WindowReplay, 2, 64, sampled(0));
    for (int i = 0; i < 40; ++i)
        h.launch("gemm", 5);
    auto& l = h.finish();
    ASSERT_EQ(l.size(), 40u);
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
