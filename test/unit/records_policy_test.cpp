// Which steps of a sampled job keep their kernels' records (sampling/records_policy): fixed
// shares, and the trial that measures the records' cost on the program's own steps.
#include "sampling/records_policy.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

using roofline::sampling::RecordsPolicy;
using roofline::sampling::RecordsPolicyConfig;

namespace {

// `steps` steps begun one after the other, each `withNs` long when its records are on and
// `withoutNs` when off; the records' state of each.
std::vector<bool> run(RecordsPolicy& policy, std::size_t steps, std::uint64_t withNs,
                      std::uint64_t withoutNs) {
    std::vector<bool> on;
    std::uint64_t now = 1000;
    for (std::size_t i = 0; i < steps; ++i) {
        on.push_back(policy.stepBegins(now));
        now += on.back() ? withNs : withoutNs;
    }
    return on;
}

} // namespace

TEST(RecordsPolicy, EveryStepByDefaultAndOneInNWhenAsked) {
    RecordsPolicy every{RecordsPolicyConfig{}};
    for (bool on : run(every, 50, 100, 100))
        EXPECT_TRUE(on);
    RecordsPolicyConfig c;
    c.oneIn = 3;
    RecordsPolicy third(c);
    const std::vector<bool> on = run(third, 9, 100, 100);
    EXPECT_EQ(on, (std::vector<bool>{true, false, false, true, false, false, true, false, false}));
    EXPECT_EQ(third.trials(), 0u);
}

// Records that make the host's steps 5 % longer are costly: after the settling steps (on) and
// the trial (on and off in turn), they are on for one step in ten, from the decision on.
TEST(RecordsPolicy, ATrialFindingRecordsCostlyKeepsThemForOneStepInTen) {
    RecordsPolicyConfig c;
    c.oneIn = 0;
    RecordsPolicy policy(c);
    const std::vector<bool> on = run(policy, 60, 1050000, 1000000);
    for (std::size_t i = 0; i < 5; ++i)
        EXPECT_TRUE(on[i]) << i;
    for (std::size_t i = 5; i < 25; ++i)
        EXPECT_EQ(on[i], (i - 5) % 2 == 0) << i;
    for (std::size_t i = 25; i < 60; ++i)
        EXPECT_EQ(on[i], (i - 25) % 10 == 0) << i;
    ASSERT_EQ(policy.trials(), 1u);
    EXPECT_EQ(policy.oneIn(), 10u);
    EXPECT_EQ(policy.lastTrial().atStep, 25u);
    EXPECT_DOUBLE_EQ(policy.lastTrial().withNs, 1050000.0);
    EXPECT_DOUBLE_EQ(policy.lastTrial().withoutNs, 1000000.0);
    EXPECT_NEAR(policy.lastTrial().cost, 0.05, 1e-12);
}

// Records within 0.5 % of a step stay on for every step; the trial is made again 1000 steps on
// (here 30), and a program whose records became costly is then thinned.
TEST(RecordsPolicy, CheapRecordsStayOnAndTheTrialIsMadeAgain) {
    RecordsPolicyConfig c;
    c.oneIn = 0;
    c.retrialEvery = 30;
    RecordsPolicy policy(c);
    const std::vector<bool> first = run(policy, 55, 1002000, 1000000);
    for (std::size_t i = 25; i < 55; ++i)
        EXPECT_TRUE(first[i]) << i;
    EXPECT_EQ(policy.oneIn(), 1u);
    EXPECT_NEAR(policy.lastTrial().cost, 0.002, 1e-12);
    // The second trial: steps 55-74 alternate, and records now cost 10 %.
    const std::vector<bool> second = run(policy, 30, 1100000, 1000000);
    for (std::size_t i = 0; i < 20; ++i)
        EXPECT_EQ(second[i], i % 2 == 0) << i;
    EXPECT_EQ(policy.trials(), 2u);
    EXPECT_EQ(policy.oneIn(), 10u);
    EXPECT_TRUE(second[20]);
    EXPECT_FALSE(second[21]);
}
