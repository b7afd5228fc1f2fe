// Repeated launches measured less often: the windows ReusePlan chooses.
#include "collect/reuse_plan.hpp"

#include <gtest/gtest.h>

namespace roofline::collect {
namespace {

constexpr std::uint32_t X = ReusePlan::kNotMeasured;

TEST(ReusePlan, SignaturesTellWorkApart) {
    const Dim3 g{4, 1, 1}, b{128, 1, 1};
    EXPECT_EQ(launchKey("k", g, b, 0), launchKey("k", g, b, 0));
    EXPECT_NE(launchKey("k", g, b, 0), launchKey("k", {5, 1, 1}, b, 0));
    EXPECT_NE(launchKey("k", g, b, 0), launchKey("k", g, b, 1024));
    EXPECT_NE(launchKey("k", g, b, 0), launchKey("j", g, b, 0));
    EXPECT_EQ(familyKey("k", b, 0), launchKey("k", {0, 0, 0}, b, 0));
    ReusePlan plan(2, 4);
    EXPECT_EQ(plan.id("a"), 0u);
    EXPECT_EQ(plan.id("b"), 1u);
    EXPECT_EQ(plan.id("a"), 0u);
}

// embedding (0), 6 identical layers of 3 launches (1, 2, 3), head (4): 20 launches; `plan` gets
// the 5 signatures (ids 0..4).
std::vector<std::uint32_t> layeredIteration(ReusePlan& plan) {
    std::vector<std::uint32_t> it{0};
    for (int layer = 0; layer < 6; ++layer)
        it.insert(it.end(), {1, 2, 3});
    it.push_back(4);
    for (const char* s : {"embedding", "qkv", "attention", "mlp", "head"})
        plan.id(s);
    return it;
}

TEST(ReusePlan, IdenticalLayersAreMeasuredKTimesAndTheRestLeftOut) {
    ReusePlan plan(2, 2);
    const auto it = layeredIteration(plan);
    auto w = plan.next(it, 0, 96);
    ASSERT_TRUE(w);
    EXPECT_EQ(w->begin, 0u);
    EXPECT_EQ(w->end, 7u); // embedding + two layers; four layers left out
    for (std::size_t p = w->begin; p < w->end; ++p)
        plan.addSample(it[p], p);
    w = plan.next(it, 7, 96);
    ASSERT_TRUE(w);
    EXPECT_EQ(w->begin, 19u); // the head alone
    EXPECT_EQ(w->end, 20u);
    plan.addSample(4, 19);
    EXPECT_FALSE(plan.next(it, 20, 96));
    EXPECT_FALSE(plan.next(it, 0, 96)); // a later iteration: nothing left to measure
}

// The image of a cycle need only hold its longest window: [0, 7) here, then the head alone.
TEST(ReusePlan, TheLongestWindowSizesTheCyclesImage) {
    ReusePlan plan(2, 2);
    const auto it = layeredIteration(plan);
    EXPECT_EQ(plan.longestWindow(it, 96), 7u);
    EXPECT_EQ(plan.longestWindow(it, 4), 4u); // capacity-bound windows
    for (std::size_t p = 0; p < 7; ++p)
        plan.addSample(it[p], p);
    EXPECT_EQ(plan.longestWindow(it, 96), 1u); // only the head is left
    plan.addSample(4, 19);
    EXPECT_EQ(plan.longestWindow(it, 96), 0u);
}

TEST(ReusePlan, ShortGapsStayInsideTheWindowAndCapacityCutsIt) {
    std::vector<std::uint32_t> it{0, 1, 1, 1, 1, 2, 3, 4};
    ReusePlan plan(1, 3);
    auto w = plan.next(it, 0, 96);
    ASSERT_TRUE(w);
    EXPECT_EQ(w->begin, 0u);
    EXPECT_EQ(w->end, 8u); // the three repeated 1s are cheaper than a second window
    w = plan.next(it, 0, 4);
    ASSERT_TRUE(w);
    EXPECT_EQ(w->end, 2u); // capacity 4: 0,1 needed; 1,1 gap; cut before the next needed one
}

TEST(ReusePlan, RefusedPositionsAreNeverNeededAndZeroSamplesMeasuresNothing) {
    std::vector<std::uint32_t> it{X, X, 0, X};
    ReusePlan plan(2, 0);
    auto w = plan.next(it, 0, 96);
    ASSERT_TRUE(w);
    EXPECT_EQ(w->begin, 2u);
    EXPECT_EQ(w->end, 3u);
    EXPECT_FALSE(ReusePlan(0, 4).next(it, 0, 96));
}

} // namespace
} // namespace roofline::collect
