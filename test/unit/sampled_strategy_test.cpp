// The collector at the sampling level (docs/design/0029): no record, no serialization; each
// launch's correlation id, step and scope, and each step's end, go to the step sink.
#include "collect/collector.hpp"
#include "collect/step_sink.hpp"
#include "sampling/sampled_strategy.hpp"
#include "sampling/step_series.hpp"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

using namespace roofline;
using namespace roofline::collect;

namespace {

struct Heard : StepSink {
    struct Call {
        std::uint64_t id;
        std::int64_t step;
        std::string scope;
    };
    std::vector<Call> launches;
    std::vector<std::int64_t> ends;
    std::vector<std::string> scopes; ///< by number
    std::size_t lookups = 0;         ///< scope() calls
    std::uint32_t scope(const std::string& path) noexcept override {
        ++lookups;
        for (std::size_t i = 0; i < scopes.size(); ++i)
            if (scopes[i] == path)
                return static_cast<std::uint32_t>(i);
        scopes.push_back(path);
        return static_cast<std::uint32_t>(scopes.size() - 1);
    }
    void launched(std::uint64_t id, std::int64_t step, std::uint32_t scope,
                  std::uint32_t) noexcept override {
        launches.push_back({id, step, scopes.at(scope)});
    }
    void stepEnded(std::int64_t step) noexcept override { ends.push_back(step); }
    /// Each begin, as the launch count then: the launch it is told before.
    std::vector<std::pair<std::int64_t, std::size_t>> begins;
    void stepBegins(std::int64_t step) noexcept override {
        begins.emplace_back(step, launches.size());
    }
};

struct Sampled {
    Heard heard;
    Collector collector;
    Stack stack;
    std::uint64_t nextId = 1;
    explicit Sampled(StepSink* sink)
        : collector(config(sink), {}, Level::Sampled, sampling::makeSampledStrategy) {}
    static CollectorConfig config(StepSink* sink) {
        CollectorConfig c;
        c.steps = sink;
        return c;
    }
    void push(const std::string& name) {
        stack.push_back(Frame{"", name, {}});
        collector.onPush(stack, 7);
    }
    void pop() {
        collector.onPop(stack);
        stack.pop_back();
    }
    bool launch(const char* name, bool inGraph = false) {
        Launch l;
        l.mangledName = name;
        l.threadId = 7;
        l.correlationId = nextId++;
        l.inGraph = inGraph;
        return collector.onLaunch(l, stack);
    }
};

} // namespace

// Numbered steps: each launch carries its step's number and its scope; each step's end is
// heard; nothing runs under a profiler and the stop returns no record.
TEST(SampledStrategy, LaunchesAndStepEndsGoToTheSinkAndNoRecordIsKept) {
    Heard heard;
    Sampled s(&heard);
    s.launch("setup");
    for (int step = 3; step < 6; ++step) {
        s.push("Train step " + std::to_string(step));
        EXPECT_FALSE(s.launch("forward"));
        s.push("Layer 0");
        s.launch("gemm");
        s.pop();
        s.launch("graph_node", true);
        s.pop();
    }
    const CollectionResult r = s.collector.finish();
    EXPECT_TRUE(r.launches.empty());
    ASSERT_EQ(heard.launches.size(), 1u + 3 * 3);
    EXPECT_EQ(heard.launches[0].step, -1);
    EXPECT_EQ(heard.launches[1].step, 3);
    EXPECT_EQ(heard.launches[1].id, 2u);
    EXPECT_EQ(heard.launches[2].scope, "Train step #/Layer 0");
    EXPECT_EQ(heard.launches[3].step, 3); // a graph's kernel node, in its step
    EXPECT_EQ(heard.launches[9].step, 5);
    EXPECT_EQ(heard.ends, (std::vector<std::int64_t>{3, 4, 5}));
    // Each step's begin comes once, inside its first launch, before the sink hears that launch.
    using Begin = std::pair<std::int64_t, std::size_t>;
    EXPECT_EQ(heard.begins, (std::vector<Begin>{{3, 1}, {4, 4}, {5, 7}}));
    // The scope is looked up once per scope instance (the launch outside, then each step's and
    // each layer's first launch), not per launch.
    EXPECT_EQ(heard.lookups, 1u + 3 * 2);
}

// Fed to the series of sampled steps: with the kernels' activity records and the samples, each
// step becomes one and is written.
TEST(SampledStrategy, TheSeriesOfSampledStepsListensAsTheSink) {
    std::vector<core::SampledBatch> written;
    sampling::StepSeriesConfig config;
    config.counters = 1;
    config.periodNs = 100;
    config.shortestRowPeriods = 0; // each step its own row
    sampling::StepSeries series(config, [&](const core::SampledBatch& b) { written.push_back(b); });
    Sampled s(&series);
    std::vector<sampling::KernelActivity> activity;
    std::uint64_t clock = 0;
    for (int step = 0; step < 3; ++step) {
        s.push("step " + std::to_string(step));
        for (int k = 0; k < 2; ++k) {
            s.launch("k");
            activity.push_back({s.nextId - 1, "k", clock, clock + 100});
            clock += 100;
        }
        s.pop();
    }
    series.kernels(activity);
    series.samples({{0, clock, {600}}});
    series.finish(1);
    ASSERT_EQ(written.size(), 1u);
    ASSERT_EQ(written[0].steps.size(), 3u);
    EXPECT_DOUBLE_EQ(written[0].steps[0].values[0], 200);
    EXPECT_EQ(written[0].steps[2].kernels, 2u);
    EXPECT_EQ(series.tally().unmatched, 0u);
}

// Step numbers that start again (an epoch's steps numbered from 0 each time) begin again: the
// sink hears every step's begin, as it switches the kernels' records there.
TEST(SampledStrategy, StepNumbersThatStartAgainBeginAgain) {
    Heard heard;
    Sampled s(&heard);
    for (int epoch = 0; epoch < 2; ++epoch)
        for (int step = 0; step < 2; ++step) {
            s.push("step " + std::to_string(step));
            s.launch("forward");
            s.launch("backward");
            s.pop();
        }
    s.collector.finish();
    using Begin = std::pair<std::int64_t, std::size_t>;
    EXPECT_EQ(heard.begins, (std::vector<Begin>{{0, 0}, {1, 2}, {0, 4}, {1, 6}}));
}
