// Tensor counters by detection (docs/design/0008) through the collector on the fake backend: a
// launch whose MMA work needs counters the set lacks grows the set and its window is measured
// again; a stop first keeps the partial records; a window measured again takes in split launches.
#include "unit/collector_harness.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <set>
#include <string>

using namespace roofline;
using namespace roofline::collect;
using namespace roofline::collect::testing;

// Tensor counters by detection (design 0008): a launch whose MMA kind needs counters the set lacks
// has its window measured again with them; the first measurement's records are superseded.
TEST(CollectorIterationReplay, DetectedMmaWorkGrowsTheSetAndMeasuresTheWindowAgain) {
    CollectorConfig c;
    int calls = 0;
    bool grown = false;
    c.infer = [&](std::vector<double>& values) {
        ++calls;
        // A launch with work 5 "ran MMA": unknown until the set grew.
        if (!grown && values[0] == 5.0)
            return std::vector<std::string>{"tensor"};
        return std::vector<std::string>{};
    };
    Harness h(CollectionMode::IterationReplay, 2, 8, c);
    auto step = [&] {
        h.push("step");
        h.launch("plain", 1);
        h.launch("gemm", 5);
        h.pop();
    };
    step();
    step(); // the group completes: "gemm" needs "tensor"
    EXPECT_EQ(h.backend.added, std::vector<std::string>{"tensor"});
    EXPECT_EQ(h.collector.metricExpansions(), 1u);
    grown = true;
    step();
    step(); // measured again
    auto& l = h.finish();
    ASSERT_EQ(l.size(), 2u); // the first group's records were superseded
    EXPECT_EQ(l[0].values, all(1.0));
    EXPECT_EQ(l[1].values, all(5.0));
    EXPECT_EQ(h.collector.groupsCompleted(), 2u);
    EXPECT_EQ(calls, 4);
}

// A job that stops before a window found to run MMA work is measured again with the tensor
// counters it needs keeps the first measurement: every counter but those, partial, and saying so
// (before, a 12-step job could end with none of its launches covered).
TEST(CollectorIterationReplay, AStopBeforeTheTensorCountersWereMeasuredKeepsTheRest) {
    CollectorConfig c;
    c.infer = [](std::vector<double>& values) {
        if (values[0] == 5.0) { // "gemm" ran MMA: its tensor metric (the last) stays unknown
            values[2] = std::numeric_limits<double>::quiet_NaN();
            return std::vector<std::string>{"tensor"};
        }
        return std::vector<std::string>{};
    };
    Harness h(CollectionMode::IterationReplay, 2, 8, c);
    for (int i = 0; i < 3; ++i) { // the group completes after two; the third is the redo's pass 0
        h.push("step");
        h.launch("plain", 1);
        h.launch("gemm", 5);
        h.pop();
    }
    EXPECT_EQ(h.collector.metricExpansions(), 1u);
    auto& l = h.finish();
    ASSERT_EQ(l.size(), 2u);
    EXPECT_EQ(l[0].values, all(1.0));
    ASSERT_EQ(l[1].values.size(), kMetrics);
    EXPECT_EQ(l[1].values[0], 5.0);
    EXPECT_TRUE(std::isnan(l[1].values[2]));
    EXPECT_NE(l[1].note.find("partial"), std::string::npos) << l[1].note;
    EXPECT_EQ(h.collector.mismatchedGroups(), 0u);
}

// A window measured again for the tensor counters its MMA work needs already shows, in its other
// counters, launches that look alike but work differently: the window it is measured again over
// takes in every launch of the split signature, not a window of its own later.
TEST(CollectorIterationReplay, AWindowMeasuredAgainForTensorCountersTakesInTheSplitLaunches) {
    for (const bool detection : {false, true}) {
        SCOPED_TRACE(detection ? "tensor counters by detection" : "every counter from the start");
        CollectorConfig c;
        c.reuseSamples = 2;
        c.options.idleWhenComplete = true;
        c.metricNames = {"sm__sass_thread_inst_executed_op_ffma_pred_on.sum", "dram__bytes.sum",
                         "sm__ops_path_tensor_src_bf16_dst_fp32.sum"};
        bool grown = false;
        if (detection)
            c.infer = [&grown](std::vector<double>& values) {
                if (!grown && (values[0] == 1.0 || values[0] == 4.0)) { // a GEMM: MMA work
                    values[2] = std::numeric_limits<double>::quiet_NaN();
                    return std::vector<std::string>{"sm__ops_path_tensor_src_bf16_dst_fp32.sum"};
                }
                return std::vector<std::string>{};
            };
        Harness h(CollectionMode::IterationReplay, 2, 96, c);
        int n = 0;
        while (!h.collector.takeCompletion() && n < 30) {
            if (h.collector.metricExpansions() > 0)
                grown = true;
            h.push(("Train step " + std::to_string(n++)).c_str());
            for (int layer = 0; layer < 6; ++layer) {
                h.push(("Layer " + std::to_string(layer)).c_str());
                h.push("matmul");
                h.launch("gemm", 1);
                h.pop();
                h.launch("gelu", 7);
                h.push("matmul");
                h.launch("gemm", 4);
                h.pop();
                h.pop();
            }
            h.pop();
        }
        // Two steps observed, then a window of two passes, then one more window of two passes:
        // for the split launches, or (with detection) the same window measured again with its
        // tensor counters -- and the split launches in it.
        EXPECT_EQ(n, 2 + 2 + 2);
        auto& l = h.finish();
        ASSERT_EQ(l.size(), 18u);
        for (std::size_t i = 0; i < l.size(); ++i)
            EXPECT_EQ(l[i].values[0], i % 3 == 1 ? 7 : i % 3 == 0 ? 1 : 4) << i << l[i].note;
    }
}

// An expansion may add part of what is unknown (one warp MMA type, guessed: design 0022): a
// launch the part does not account for stays unknown, its window is measured again once more,
// and the next expansion adds the rest -- told what was added before.
TEST(CollectorIterationReplay, AnExpansionOfPartOfTheUnknownMetricsIsFollowedByTheRest) {
    CollectorConfig c;
    std::set<std::string> added;
    c.infer = [&added](std::vector<double>& values) {
        if (values[0] == 5.0 && !added.count("tf32"))
            return std::vector<std::string>{"tf32", "bf16"};
        if (values[0] == 6.0 && !added.count("bf16"))
            return std::vector<std::string>{"tf32", "bf16"};
        return std::vector<std::string>{};
    };
    std::vector<std::set<std::string>> told;
    c.chooseTensorMetrics = [&](const std::set<std::string>& unknown,
                                const std::vector<const core::LaunchInfo*>& launches,
                                const std::set<std::string>& before) {
        told.push_back(before);
        EXPECT_EQ(launches.size(), before.empty() ? 2u : 1u);
        std::vector<std::string> more =
            before.empty() ? std::vector<std::string>{"tf32"}
                           : std::vector<std::string>(unknown.begin(), unknown.end());
        added.insert(more.begin(), more.end());
        return more;
    };
    Harness h(CollectionMode::IterationReplay, 2, 8, c);
    for (int step = 0; step < 6; ++step) { // two passes, measured again twice
        h.push("step");
        h.launch("conv", 5);  // TF32: the guess accounts for it
        h.launch("flash", 6); // BF16: it does not
        h.launch("relu", 1);
        h.pop();
    }
    EXPECT_EQ(h.collector.metricExpansions(), 2u);
    ASSERT_EQ(told.size(), 2u);
    EXPECT_EQ(told[1], std::set<std::string>{"tf32"});
    EXPECT_EQ(h.backend.added, (std::vector<std::string>{"tf32", "bf16", "tf32"}));
    auto& l = h.finish();
    ASSERT_EQ(l.size(), 3u); // the earlier attempts' records were superseded
    EXPECT_EQ(l[0].values, all(5.0));
    EXPECT_EQ(l[1].values, all(6.0));
    EXPECT_EQ(l[2].values, all(1.0));
}

// Kernel names that suggest a warp MMA type get its counter from the first pass (design 0022):
// the window is measured once, in as many steps as a program without MMA, where a name without
// the hint has the window measured again after an expansion. The strategy hears the reference
// iteration's kernels once, as its cycle begins.
TEST(CollectorIterationReplay, AWarpMmaTypeTheKernelNamesSuggestIsCollectedFromTheFirstPass) {
    for (const bool named : {false, true}) {
        SCOPED_TRACE(named ? "named for TF32 warp MMA" : "no name hint");
        CollectorConfig c;
        c.reuseSamples = 2;
        c.options.idleWhenComplete = true;
        std::set<std::string> collected;
        c.infer = [&collected](std::vector<double>& values) {
            if (values[0] == 5.0 && !collected.count("tf32")) // warp MMA of a type not collected
                return std::vector<std::string>{"tf32", "bf16"};
            return std::vector<std::string>{};
        };
        c.chooseTensorMetrics = [&](const std::set<std::string>&,
                                    const std::vector<const core::LaunchInfo*>&,
                                    const std::set<std::string>&) {
            collected.insert("tf32");
            return std::vector<std::string>{"tf32"};
        };
        std::vector<std::vector<std::string>> heard;
        c.anticipateTensorMetrics = [&](const std::vector<std::string>& kernels, std::string& why) {
            heard.push_back(kernels);
            for (const auto& k : kernels)
                if (k.find("sm80_tf32") != std::string::npos) {
                    why = k;
                    collected.insert("tf32");
                    return std::vector<std::string>{"tf32"};
                }
            return std::vector<std::string>{};
        };
        Harness h(CollectionMode::IterationReplay, 2, 8, c);
        const char* conv = named ? "conv_sm80_tf32" : "conv";
        int steps = 0;
        while (!h.collector.takeCompletion() && steps < 20) {
            h.push("step");
            h.launch(conv, 5);
            h.launch("relu", 1);
            h.pop();
            ++steps;
        }
        EXPECT_EQ(h.backend.added, std::vector<std::string>{"tf32"});
        ASSERT_EQ(heard.size(), 1u);
        EXPECT_EQ(heard[0], (std::vector<std::string>{conv, "relu"}));
        // Two steps observed, then two passes; an expansion measures the window again.
        EXPECT_EQ(steps, named ? 2 + 2 : 2 + 2 + 2);
        EXPECT_EQ(h.collector.metricAnticipations(), named ? 1u : 0u);
        EXPECT_EQ(h.collector.metricExpansions(), named ? 0u : 1u);
        auto& l = h.finish();
        ASSERT_EQ(l.size(), 2u);
        EXPECT_EQ(l[0].values, all(5.0));
        EXPECT_EQ(l[1].values, all(1.0));
    }
}

// A guess the launches do not bear out costs what an expansion costs without it: the window is
// measured again, now with every metric still unknown (the expansion is told what was guessed).
TEST(CollectorIterationReplay, AWrongGuessFromKernelNamesIsFollowedByTheUnknownMetrics) {
    CollectorConfig c;
    c.reuseSamples = 2;
    c.options.idleWhenComplete = true;
    std::set<std::string> collected;
    c.infer = [&collected](std::vector<double>& values) {
        if (values[0] == 6.0 && !collected.count("bf16")) // BF16 warp MMA, not the named TF32
            return std::vector<std::string>{"tf32", "bf16"};
        return std::vector<std::string>{};
    };
    std::vector<std::set<std::string>> told;
    c.chooseTensorMetrics = [&](const std::set<std::string>& unknown,
                                const std::vector<const core::LaunchInfo*>&,
                                const std::set<std::string>& before) {
        told.push_back(before);
        collected.insert(unknown.begin(), unknown.end());
        return std::vector<std::string>(unknown.begin(), unknown.end());
    };
    c.anticipateTensorMetrics = [&](const std::vector<std::string>&, std::string& why) {
        why = "flash_sm80_tf32";
        collected.insert("tf32");
        return std::vector<std::string>{"tf32"};
    };
    Harness h(CollectionMode::IterationReplay, 2, 8, c);
    int steps = 0;
    while (!h.collector.takeCompletion() && steps < 20) {
        h.push("step");
        h.launch("flash_sm80_tf32", 6);
        h.launch("relu", 1);
        h.pop();
        ++steps;
    }
    EXPECT_EQ(steps, 2 + 2 + 2);
    EXPECT_EQ(h.collector.metricAnticipations(), 1u);
    EXPECT_EQ(h.collector.metricExpansions(), 1u);
    ASSERT_EQ(told.size(), 1u);
    EXPECT_EQ(told[0], std::set<std::string>{"tf32"});
    EXPECT_EQ(h.backend.added, (std::vector<std::string>{"tf32", "bf16", "tf32"}));
    auto& l = h.finish();
    ASSERT_EQ(l.size(), 2u);
    EXPECT_EQ(l[0].values, all(6.0));
    EXPECT_EQ(l[1].values, all(1.0));
}
