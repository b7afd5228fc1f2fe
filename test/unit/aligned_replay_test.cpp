// Aligned iteration replay: alignLaunches, AlignedGroup, and the collector driving a backend with
// one single-pass configuration per pass (docs/design/0006-per-launch-replay-check.md).
#include "replay/aligned_replay.hpp"
#include "collector_harness.hpp"

#include <gtest/gtest.h>

#include <cmath>

using namespace roofline;
using namespace roofline::collect;
using namespace roofline::collect::testing;
using V = AlignedGroup::Verdict;

namespace {

LaunchKey key(const std::string& name, unsigned grid = 1) {
    return LaunchKey{name, {grid, 1, 1}, {128, 1, 1}};
}

std::vector<LaunchKey> keys(const std::string& names) { // one letter per launch
    std::vector<LaunchKey> out;
    for (char c : names)
        out.push_back(key(std::string(1, c)));
    return out;
}

using Match = std::vector<std::int64_t>;

} // namespace

TEST(AlignLaunches, IdenticalSequencesMatchOneToOne) {
    EXPECT_EQ(alignLaunches(keys("abcd"), keys("abcd")), (Match{0, 1, 2, 3}));
}

TEST(AlignLaunches, AnInsertedLaunchMatchesNothingAndShiftsNothing) {
    EXPECT_EQ(alignLaunches(keys("abcde"), keys("abXcde")), (Match{0, 1, 3, 4, 5}));
    EXPECT_EQ(alignLaunches(keys("abc"), keys("XYabc")), (Match{2, 3, 4})); // at the start
}

TEST(AlignLaunches, AMissingLaunchCostsOnlyItself) {
    EXPECT_EQ(alignLaunches(keys("abcde"), keys("abde")), (Match{0, 1, -1, 2, 3}));
    EXPECT_EQ(alignLaunches(keys("abcde"), keys("abcd")), (Match{0, 1, 2, 3, -1})); // at the end
}

TEST(AlignLaunches, AReplacedLaunchCostsOnlyItself) {
    EXPECT_EQ(alignLaunches(keys("abcde"), keys("abXde")), (Match{0, 1, -1, 3, 4}));
}

TEST(AlignLaunches, RepeatedLayersAlignOnTheRightCopy) {
    // Four identical layers (q, k, v, o); pass inserts an extra kernel 'q' in front of layer 2:
    // greedy name matching alone would take it for layer 2's q.
    const auto ref = keys("qkvoqkvoqkvoqkvo");
    const auto pass = keys("qkvoqkvoqqkvoqkvo");
    const Match m = alignLaunches(ref, pass);
    int unmatched = 0;
    for (std::size_t i = 0; i < ref.size(); ++i) {
        unmatched += m[i] < 0;
        if (m[i] >= 0) {
            EXPECT_EQ(pass[static_cast<std::size_t>(m[i])].name, ref[i].name) << i;
        }
    }
    EXPECT_EQ(unmatched, 0);
    EXPECT_EQ(m.back(), 16);
}

TEST(AlignLaunches, GridsDoNotDecideTheMatch) {
    EXPECT_EQ(alignLaunches({key("emb", 3042), key("adam")}, {key("emb", 3045), key("adam")}),
              (Match{0, 1}));
}

TEST(AlignedGroup, EachConfigurationsMetricsComeFromTheLaunchAlignedWithPassZero) {
    const double nan = std::nan("");
    AlignedGroup g;
    g.reset();
    for (const char* n : {"a", "b", "c"})
        g.launch(key(n));
    g.endPass(0, true);
    g.addConfiguration(0, {{"0", {1, nan}}, {"1", {2, nan}}, {"2", {3, nan}}});
    for (const char* n : {"a", "X", "b", "c"}) // pass 1 inserted X
        g.launch(key(n));
    g.endPass(1, true);
    g.addConfiguration(1, {{"0", {nan, 10}}, {"1", {nan, 99}}, {"2", {nan, 20}}, {"3", {nan, 30}}});
    EXPECT_FALSE(g.anyIssue()) << g.firstIssue();
    EXPECT_EQ(g.takeValues(0), (std::vector<double>{1, 10}));
    EXPECT_EQ(g.takeValues(1), (std::vector<double>{2, 20}));
    EXPECT_EQ(g.takeValues(2), (std::vector<double>{3, 30}));
}

TEST(AlignedGroup, AMultiPassConfigurationCombinesItsOwnPassesByPosition) {
    const double nan = std::nan("");
    AlignedGroup g;
    g.reset();
    for (const char* n : {"a", "b", "c"})
        g.launch(key(n));
    g.endPass(0, true);
    g.addConfiguration(0, {{"0", {1, nan}}, {"1", {2, nan}}, {"2", {3, nan}}});
    for (const char* n : {"a", "b", "c"}) // configuration 1, its first pass
        g.launch(key(n));
    g.endPass(1, true);
    for (const char* n : {"a", "X", "b", "c"}) // its second pass: out of step from launch 1
        g.launch(key(n));
    g.endPass(2, false);
    g.addConfiguration(1, {{"0", {nan, 10}}, {"1", {nan, 20}}, {"2", {nan, 30}}});
    EXPECT_EQ(g.verdict(0), V::Clean);
    EXPECT_EQ(g.verdict(1), V::Unmatched);
    EXPECT_NE(g.note(1).find("pass 2 ran X"), std::string::npos) << g.note(1);
    EXPECT_EQ(g.verdict(2), V::Unmatched);
}

// ---- the collector on a backend with three single-pass configurations ----------------------

namespace {

// Aligned from the first group on (ROOFLINE_ALIGN_PASSES=on).
CollectorConfig alignedFromStart() {
    CollectorConfig c;
    c.alignFromStart = true;
    return c;
}

CollectorConfig measureFirst(bool fromStart = true) {
    CollectorConfig c;
    c.alignFromStart = fromStart;
    c.options.firstIteration = FirstIteration::Measure; // pass 0 is the first iteration here
    return c;
}

} // namespace

TEST(CollectorAlignedReplay, EachPassRunsItsOwnConfiguration) {
    Harness h(CollectionMode::IterationReplay, 2, 8, alignedFromStart(), 3);
    for (int it = 0; it < 6; ++it) {
        h.push("step");
        h.launch("a", 1);
        h.launch("b", 10);
        h.pop();
    }
    auto& l = h.finish();
    ASSERT_EQ(l.size(), 4u); // two groups of three passes
    EXPECT_EQ(l[0].values, all(1));
    EXPECT_EQ(l[1].values, all(10));
    EXPECT_EQ(l[3].values, all(10));
    EXPECT_EQ(l[0].chunk, -1); // evaluated values only: each image holds one configuration
    EXPECT_EQ(h.collector.groupsCompleted(), 2u);
    EXPECT_EQ(h.collector.mismatchedGroups(), 0u);
    EXPECT_EQ(h.backend.selects, 1 + 6); // at the start; then 2, 3, and 1 again, per group
    EXPECT_EQ(h.backend.configuration(), 1u);
}

TEST(CollectorAlignedReplay, AnInsertedLaunchCostsNothing) {
    Harness h(CollectionMode::IterationReplay, 2, 8, measureFirst(), 3);
    for (int pass = 0; pass < 3; ++pass) {
        h.push("step");
        for (int k = 0; k < 5; ++k) {
            if (pass == 1 && k == 2)
                h.launch("extra", 99); // inserted in pass 1 only
            h.launch(("k" + std::to_string(k)).c_str(), k + 1.0);
        }
        h.pop();
    }
    auto& l = h.finish();
    ASSERT_EQ(l.size(), 5u);
    for (int k = 0; k < 5; ++k) {
        EXPECT_EQ(l[k].values, all(k + 1.0)) << k << ": " << l[k].note;
        EXPECT_EQ(l[k].replay, ReplayStatus::Clean) << k;
    }
    EXPECT_EQ(h.collector.unmatchedLaunches(), 0u);
}

TEST(CollectorAlignedReplay, AMissingLaunchCostsOnlyItself) {
    Harness h(CollectionMode::IterationReplay, 2, 8, measureFirst(), 3);
    for (int pass = 0; pass < 3; ++pass) {
        h.push("step");
        for (int k = 0; k < 5; ++k)
            if (!(pass == 2 && k == 1)) // pass 2 leaves k1 out
                h.launch(("k" + std::to_string(k)).c_str(), k + 1.0);
        h.pop();
    }
    auto& l = h.finish();
    ASSERT_EQ(l.size(), 5u);
    for (int k = 0; k < 5; ++k) {
        if (k == 1)
            continue;
        EXPECT_EQ(l[k].values, all(k + 1.0)) << k << ": " << l[k].note;
    }
    EXPECT_TRUE(l[1].values.empty());
    EXPECT_EQ(l[1].replay, ReplayStatus::Unmatched);
    EXPECT_NE(l[1].note.find("pass 2 did not run k1"), std::string::npos) << l[1].note;
    EXPECT_EQ(h.collector.unmatchedLaunches(), 1u);
    EXPECT_EQ(h.collector.mismatchedGroups(), 1u);
}

TEST(CollectorAlignedReplay, ADataDependentGridKeepsItsValuesWithANote) {
    Harness h(CollectionMode::IterationReplay, 2, 8, alignedFromStart(), 3);
    for (int pass = 0; pass < 3; ++pass) {
        h.push("step");
        h.launch("gemm", 1);
        h.launch("embedding_backward", 2, {pass == 1 ? 3045u : 3042u, 1, 1});
        h.launch("adamw", 3);
        h.pop();
    }
    auto& l = h.finish();
    ASSERT_EQ(l.size(), 3u);
    for (int k = 0; k < 3; ++k)
        EXPECT_EQ(l[k].values, all(k + 1.0)) << k << ": " << l[k].note;
    EXPECT_EQ(l[1].replay, ReplayStatus::Differs);
    EXPECT_NE(l[1].note.find("pass 1 ran it as embedding_backward <<<3045x1x1"), std::string::npos)
        << l[1].note;
    EXPECT_EQ(h.collector.differingLaunches(), 1u);
}

TEST(CollectorAlignedReplay, AnInsertionPushesOnlyTheWindowsLastLaunchOut) {
    // 4 ranges per image, 6 launches per step: the first group covers launches 0-3. Pass 1
    // inserts one launch, so its window ends one launch early: only launch 3 misses a pass.
    Harness h(CollectionMode::IterationReplay, 2, 4, measureFirst(), 3);
    for (int pass = 0; pass < 3; ++pass) {
        h.push("step");
        for (int k = 0; k < 6; ++k) {
            if (pass == 1 && k == 1)
                h.launch("extra", 99);
            h.launch(("k" + std::to_string(k)).c_str(), k + 1.0);
        }
        h.pop();
    }
    auto& l = h.finish();
    ASSERT_GE(l.size(), 4u);
    for (int k = 0; k < 3; ++k)
        EXPECT_EQ(l[k].values, all(k + 1.0)) << k << ": " << l[k].note;
    EXPECT_TRUE(l[3].values.empty());
    EXPECT_NE(l[3].note.find("pass 1 did not run k3"), std::string::npos) << l[3].note;
}

TEST(CollectorAlignedReplay, AFirstIterationThatDiffersIsSkippedAndTheGroupStartsAtConfigZero) {
    CollectorConfig c = alignedFromStart();
    c.options.firstIteration = FirstIteration::SkipIfDifferent;
    Harness h(CollectionMode::IterationReplay, 2, 8, c, 3);
    int n = 0;
    h.trainStepWithValidation(n++);
    while (h.collector.needsPass() && n < 12)
        h.trainStepWithValidation(n++);
    EXPECT_EQ(n, 5); // steps 0-1 lost, steps 2-4 are the group's three passes
    EXPECT_TRUE(h.collector.firstIterationSkipped());
    auto& l = h.finish();
    ASSERT_EQ(l.size(), 2u);
    EXPECT_EQ(l[0].values, all(1)) << l[0].note;
    EXPECT_EQ(l[1].values, all(3)) << l[1].note;
    EXPECT_EQ(l[0].iteration, 2);
}

TEST(CollectorAlignedReplay, CodeLoadedMidGroupRestartsAtConfigurationZero) {
    Harness h(CollectionMode::IterationReplay, 2, 8, alignedFromStart(), 3);
    int n = 0;
    while (h.collector.needsPass() && n < 12) {
        h.push("step");
        h.launch("a", 1);
        if (n++ == 1)
            h.loadCode(); // during pass 1 (configuration 1)
        h.launch("b", 2);
        h.pop();
    }
    auto& l = h.finish();
    ASSERT_EQ(l.size(), 2u);
    EXPECT_EQ(l[0].values, all(1)) << l[0].note;
    EXPECT_EQ(l[1].values, all(2)) << l[1].note;
    EXPECT_EQ(h.backend.hazards, 0);
    EXPECT_GE(h.backend.reenables, 1);
}

// ---- auto: positional until a pass goes out of step ----------------------------------------

TEST(CollectorAlignedReplay, AutoStaysPositionalWhileNoPassInsertsOrLeavesOutALaunch) {
    Harness h(CollectionMode::IterationReplay, 2, 8, {}, 3);
    for (int it = 0; it < 4; ++it) {
        h.push("step");
        h.launch("a", 1);
        h.launch("emb", 2, {it % 2 ? 41u : 40u, 1, 1}); // a data-dependent grid does not switch
        h.pop();
    }
    auto& l = h.finish();
    ASSERT_EQ(l.size(), 4u);
    EXPECT_EQ(l[0].values, all(1));
    EXPECT_EQ(l[1].values, all(2));
    EXPECT_EQ(l[1].replay, ReplayStatus::Differs);
    EXPECT_FALSE(h.collector.alignedReplay());
    EXPECT_EQ(h.collector.passes(), 2u);
    EXPECT_EQ(h.backend.selects, 0);
    EXPECT_EQ(h.backend.configuration(), 0u);
}

TEST(CollectorAlignedReplay, AutoSwitchesAtAnInsertionAndMeasuresTheGroupAgain) {
    Harness h(CollectionMode::IterationReplay, 2, 8, measureFirst(false), 3);
    int n = 0;
    while (h.collector.needsPass() && n < 12) {
        h.push("step");
        for (int k = 0; k < 5; ++k) {
            if (n == 1 && k == 2)
                h.launch("extra", 99); // positional pass 1 goes out of step here
            if (n == 4 && k == 3)
                h.launch("extra", 99); // and aligned pass 1 (step 4) inserts it too
            h.launch(("k" + std::to_string(k)).c_str(), k + 1.0);
        }
        h.pop();
        ++n;
    }
    EXPECT_EQ(n, 2 + 3); // the positional group's two steps, then three aligned passes
    EXPECT_TRUE(h.collector.alignedReplay());
    EXPECT_EQ(h.collector.passes(), 3u);
    auto& l = h.finish();
    ASSERT_EQ(l.size(), 5u); // the abandoned group's records are gone
    for (int k = 0; k < 5; ++k) {
        EXPECT_EQ(l[k].values, all(k + 1.0)) << k << ": " << l[k].note;
        EXPECT_EQ(l[k].replay, ReplayStatus::Clean) << k;
        EXPECT_EQ(l[k].iteration, 2) << k;
    }
    EXPECT_EQ(h.collector.supersededLaunches(), 5u);
    EXPECT_EQ(h.backend.hazards, 0);
}
