// The pass checkers alone, fed tables of launches per pass as iteration replay feeds them, on the
// fake backend: which launch keeps its values, which loses them and why, and what a completed
// group gives each member.
#include "replay/pass_checker.hpp"
#include "collector_harness.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace roofline::collect {
namespace {

using testing::all;
using testing::FakeBackend;

LaunchKey key(const char* name, unsigned grid = 1) {
    return LaunchKey{name, Dim3{grid, 1, 1}, Dim3{32, 1, 1}};
}

CollectorConfig keeping() {
    CollectorConfig c;
    c.keepImageBytes = 1000; // the fake's images are 100 bytes
    return c;
}

// Runs the passes of one group: each pass a list of (kernel, grid, work); the backend measures
// what each pass ran. Returns the members' values.
struct Passes {
    FakeBackend backend;
    Shared shared{keeping(), Level::Counters};
    DeviceSlot slot;
    std::unique_ptr<PassChecker> checker;

    Passes(std::size_t passes, std::size_t aligned)
        : backend(passes, 16, false, false, aligned), slot(0, &backend, shared),
          checker(makePassChecker(aligned > 0, slot)) {
        if (aligned > 0)
            backend.selectConfiguration(1);
        else
            backend.configure();
        checker->groupBegins();
    }
    struct Launch {
        const char* name;
        unsigned grid;
        double work;
    };
    std::vector<MemberValues> run(const std::vector<std::vector<Launch>>& passes) {
        std::size_t pass = 0;
        bool done = false;
        for (const auto& launches : passes) {
            backend.start();
            for (std::size_t r = 0; r < launches.size(); ++r) {
                checker->launch(pass, r, key(launches[r].name, launches[r].grid));
                backend.kernel(launches[r].work);
            }
            const bool all = backend.stop();
            done = checker->groupEnds(all);
            checker->passEnded(pass, launches.size());
            checker->advance(slot, pass, all, shared.tally);
            ++pass;
        }
        EXPECT_TRUE(done) << "the group did not end after " << pass << " passes";
        return checker->complete(slot, passes[0].size());
    }
};

TEST(PositionalPasses, EachLaunchAgainstPassZerosAtItsPosition) {
    Passes p(2, 0);
    const auto values =
        p.run({{{"a", 1, 1}, {"b", 1, 2}, {"c", 1, 3}}, {{"a", 2, 1}, {"x", 1, 9}, {"c", 1, 3}}});
    ASSERT_EQ(values.size(), 3u);
    EXPECT_EQ(p.checker->verdict(0), ReplayVerdict::Differs); // another grid: values kept
    EXPECT_NE(p.checker->note(0).find("launch configuration differs"), std::string::npos);
    EXPECT_EQ(p.checker->verdict(1), ReplayVerdict::Unmatched); // another kernel there
    EXPECT_EQ(p.checker->verdict(2), ReplayVerdict::Clean);
    EXPECT_TRUE(p.checker->outOfStep());
    EXPECT_FALSE(p.checker->difference().empty()); // the first finding, for the log
    EXPECT_EQ(values[2].values, (std::vector<double>{3, 3, 3}));
    EXPECT_EQ(values[2].chunk, 0); // its image kept for the recording
}

TEST(PositionalPasses, APassThatEndsEarlyLeavesTheRestWithoutValues) {
    Passes p(2, 0);
    p.run({{{"a", 1, 1}, {"b", 1, 2}}, {{"a", 1, 1}}});
    EXPECT_EQ(p.checker->verdict(0), ReplayVerdict::Clean);
    EXPECT_EQ(p.checker->verdict(1), ReplayVerdict::Unmatched);
    EXPECT_NE(p.checker->note(1).find("ended after 1 launches"), std::string::npos);
}

// Aligned: a launch inserted in pass 1 matches nothing and costs nothing; every pass-0 launch
// gets the metrics its configuration collected from the launch aligned with it.
TEST(AlignedPasses, AnInsertedLaunchCostsOnlyItself) {
    Passes p(2, 2);
    const auto values = p.run({{{"a", 1, 1}, {"b", 1, 2}, {"c", 1, 3}},
                               {{"a", 1, 1}, {"inserted", 1, 50}, {"b", 1, 2}, {"c", 1, 3}}});
    ASSERT_EQ(values.size(), 3u);
    for (std::size_t i = 0; i < 3; ++i) {
        EXPECT_EQ(p.checker->verdict(i), ReplayVerdict::Clean) << p.checker->note(i);
        EXPECT_EQ(values[i].values, all(static_cast<double>(i + 1))) << i;
        EXPECT_EQ(values[i].chunk, -1); // evaluated values, one image per configuration
    }
    EXPECT_TRUE(p.checker->outOfStep()); // positionally, pass 1 went out of step
}

} // namespace
} // namespace roofline::collect
