// CUDA graph launches in the collector (design 0011), on the fake backend: the profiler never
// collects while a graph runs, the graph's kernels get records without counters, and the direct
// launches around them keep exact values.
#include "collector_harness.hpp"

#include <string>

namespace roofline::collect::testing {
namespace {

bool fromGraph(const core::LaunchInfo& l) {
    return l.note.find("CUDA graph") != std::string::npos;
}

TEST(CollectorGraphs, KernelReplayStopsForTheGraphAndMeasuresAroundIt) {
    Harness h(CollectionMode::KernelReplay, 2, 8);
    h.push("step");
    h.launch("a", 1);
    h.push("graph");
    h.graphLaunch({"g1", "g2"});
    h.pop();
    h.launch("b", 2);
    h.pop();
    auto& l = h.finish();
    ASSERT_EQ(l.size(), 4u);
    EXPECT_EQ(l[0].values, all(1));
    EXPECT_EQ(l[1].mangledName, "g1");
    EXPECT_EQ(l[2].mangledName, "g2");
    for (int i : {1, 2}) {
        EXPECT_TRUE(l[i].values.empty());
        EXPECT_TRUE(fromGraph(l[i])) << l[i].note;
        EXPECT_EQ(l[i].scopePath, "step/graph");
        EXPECT_EQ(l[i].stream, 5u);
    }
    EXPECT_EQ(l[3].values, all(2));
    EXPECT_EQ(h.collector.graphLaunches(), 1u);
    EXPECT_EQ(h.collector.graphInterruptions(), 0u);
}

TEST(CollectorGraphs, IterationReplayMeasuresAGroupAgainAfterAGraphInterruptedIt) {
    Harness h(CollectionMode::IterationReplay, 3, 8);
    for (int it = 0; it < 10 && (it < 2 || h.collector.needsPass()); ++it) {
        h.push("step");
        h.launch("a", 1);
        if (it == 1) // an occasional graph (an evaluation step): that group starts again
            h.graphLaunch({"g"});
        h.launch("b", 10);
        h.pop();
    }
    auto& l = h.finish();
    std::size_t a = 0, b = 0, g = 0;
    for (const auto& r : l) {
        if (fromGraph(r)) {
            ++g;
            EXPECT_TRUE(r.values.empty());
            continue;
        }
        ASSERT_FALSE(r.values.empty()) << r.mangledName << ": " << r.note;
        (r.mangledName == "a" ? a : b) += 1;
        EXPECT_EQ(r.values, all(r.mangledName == "a" ? 1 : 10));
    }
    EXPECT_EQ(g, 1u);
    EXPECT_GE(a, 1u);
    EXPECT_EQ(a, b);
    EXPECT_EQ(h.collector.graphInterruptions(), 1u);
    EXPECT_FALSE(h.collector.graphsStoppedReplay());
}

TEST(CollectorGraphs, AGraphInEveryIterationEndsReplayAfterTheLimit) {
    for (CollectionMode mode : {CollectionMode::IterationReplay, CollectionMode::ScopeReplay}) {
        Harness h(mode, 3, 8);
        int iterations = 0;
        while (iterations < 50 && (iterations < 1 || h.collector.needsPass())) {
            h.push("step");
            h.launch("a", 1);
            h.graphLaunch({"g1", "g2"});
            h.launch("b", 10);
            h.pop();
            ++iterations;
        }
        auto& l = h.finish();
        EXPECT_TRUE(h.collector.graphsStoppedReplay()) << toString(mode);
        EXPECT_EQ(h.collector.graphInterruptions(), Collector::kGraphInterruptionLimit);
        EXPECT_LT(iterations, 10) << toString(mode) << ": needsPass() must end the loop";
        for (const auto& r : l)
            EXPECT_TRUE(r.values.empty()) << r.mangledName;
        std::size_t graphRecords = 0;
        for (const auto& r : l)
            graphRecords += fromGraph(r) ? 1 : 0;
        EXPECT_EQ(graphRecords, 2u * static_cast<std::size_t>(iterations)) << toString(mode);
    }
}

} // namespace
} // namespace roofline::collect::testing

namespace roofline::collect::testing {
namespace {

TEST(CollectorGraphs, ScopeReplayMeasuresAgainAroundAnOccasionalGraph) {
    {
        Harness h(CollectionMode::ScopeReplay, 3, 8);
        int it = 0;
        for (; it < 40 && (it < 4 || h.collector.needsPass()); ++it) {
            h.push("step");
            h.launch("a", 1);
            if (it == 2) {
                h.push("graph");
                h.graphLaunch({"g"});
                h.pop();
            }
            h.pop();
        }
        auto& l = h.finish();
        std::size_t measured = 0;
        for (const auto& r : l)
            if (!r.values.empty()) {
                ++measured;
                EXPECT_EQ(r.values, all(1)) << r.scopePath;
            }
        EXPECT_GE(measured, 1u) << it << " steps";
        EXPECT_LT(it, 40);
        EXPECT_EQ(h.collector.graphInterruptions(), 1u);
    }
}

} // namespace
} // namespace roofline::collect::testing
