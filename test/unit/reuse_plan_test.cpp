// Repeated launches measured less often: the windows ReusePlan chooses.
#include "replay/reuse/reuse_plan.hpp"

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

// Two data-parallel ranks share the layered iteration: one rank alone measures it in two windows,
// [0, 7) (the embedding and two layers) and [19, 20) (the head); each rank takes one, and owns
// the signatures it measures: the other's count as measured.
TEST(ReusePlan, RanksSharingAnIterationEachMeasureTheSignaturesFirstLaunchedInTheirBlock) {
    ReusePlan zero(2, 2), one(2, 2);
    const auto it = layeredIteration(zero);
    layeredIteration(one);
    zero.share(it, 0, 2, 96);
    one.share(it, 1, 2, 96);
    auto w = zero.next(it, 0, 96);
    ASSERT_TRUE(w);
    EXPECT_EQ(w->begin, 0u);
    EXPECT_EQ(w->end, 7u);
    for (std::size_t p = w->begin; p < w->end; ++p)
        zero.addSample(it[p], p);
    EXPECT_FALSE(zero.next(it, 7, 96)) << "the head is rank 1's";
    EXPECT_EQ(zero.foreignOwner(4), 1);
    EXPECT_TRUE(zero.familyMeasured(4)) << "measured elsewhere: no cycle waits for it";
    for (std::uint32_t id = 0; id < 4; ++id) {
        EXPECT_EQ(zero.foreignOwner(id), -1) << id;
        EXPECT_EQ(one.foreignOwner(id), 0) << id;
    }
    w = one.next(it, 0, 96);
    ASSERT_TRUE(w);
    EXPECT_EQ(w->begin, 19u);
    EXPECT_EQ(w->end, 20u);
    EXPECT_EQ(one.foreignOwner(4), -1);
    // Unshared, the same iteration takes both windows on one rank.
    ReusePlan alone(2, 2);
    layeredIteration(alone);
    alone.share(it, 0, 1, 96); // one rank: nothing shared
    EXPECT_EQ(alone.foreignOwner(4), -1);
    EXPECT_EQ(alone.longestWindow(it, 96), 7u);
    ASSERT_TRUE(alone.next(it, 7, 96));
}

// An owner, once chosen, stays: a later iteration whose launches moved does not move it, and a
// signature already measured here stays here.
TEST(ReusePlan, SharedOwnersStayAndMeasuredSignaturesStayHere) {
    ReusePlan plan(2, 0);
    plan.id("a");
    plan.id("b");
    plan.id("c");
    plan.addSample(2, 0);
    // a and b, one window: fewer windows than ranks, so rank 0 measures both (in as many
    // iterations as one rank alone) and this rank neither.
    plan.share({0, 1, 2, 2}, 1, 2, 2);
    EXPECT_EQ(plan.foreignOwner(0), 0);
    EXPECT_EQ(plan.foreignOwner(1), 0);
    EXPECT_EQ(plan.foreignOwner(2), -1) << "measured here";
    plan.share({2, 2, 1, 0}, 1, 2, 2); // a and b moved: their owners stay
    EXPECT_EQ(plan.foreignOwner(0), 0);
    EXPECT_EQ(plan.foreignOwner(1), 0);
    // Windows of one launch: a window each, and the second rank's is b's.
    ReusePlan two(2, 0);
    two.id("a");
    two.id("b");
    two.share({0, 1}, 1, 2, 1);
    EXPECT_EQ(two.foreignOwner(0), 0);
    EXPECT_EQ(two.foreignOwner(1), -1);
}

// A launch whose grid follows the data has a new signature in every iteration: one of a family
// another rank measures is that rank's too, before and after share() sees it, so no cycle here
// waits for it.
TEST(ReusePlan, ANewGridOfAFamilyAnotherRankMeasuresIsThatRanks) {
    ReusePlan plan(2, 2);
    plan.id("gemm|64", "gemm");
    plan.id("embedding_bwd|3042", "embedding_bwd");
    plan.share({0, 1}, 0, 2, 1); // windows of one launch: embedding_bwd's is rank 1's
    EXPECT_EQ(plan.foreignOwner(1), 1);
    const std::uint32_t next = plan.id("embedding_bwd|3045", "embedding_bwd");
    EXPECT_EQ(plan.foreignOwner(next), 1) << "before share() sees it";
    EXPECT_TRUE(plan.familyMeasured(next));
    plan.share({next, 0}, 0, 2, 1); // now in the first window: still rank 1's
    EXPECT_EQ(plan.foreignOwner(next), 1);
    EXPECT_FALSE(plan.next({next, 0}, 0, 96) && plan.next({next, 0}, 0, 96)->begin == 0);
}

} // namespace
} // namespace roofline::collect
