// collect::ReplayCheck: each launch of a replayed pass against pass 0's at the same position.
#include "replay/replay_check.hpp"

#include <gtest/gtest.h>

using roofline::collect::LaunchKey;
using roofline::collect::LaunchVerdict;
using roofline::collect::ReplayCheck;
using roofline::collect::ReplayVerdict;
using roofline::collect::VerdictTally;
using V = ReplayCheck::Verdict;

namespace {
LaunchKey key(const char* name, unsigned grid = 1) {
    return LaunchKey{name, {grid, 1, 1}, {128, 1, 1}};
}
} // namespace

TEST(ReplayCheck, IdenticalPassesAreClean) {
    ReplayCheck c;
    c.expect(key("a"));
    c.expect(key("b"));
    for (std::size_t pass = 1; pass < 4; ++pass) {
        c.check(pass, 0, key("a"));
        c.check(pass, 1, key("b"));
        c.endPass(pass, 2);
    }
    EXPECT_FALSE(c.anyIssue());
    EXPECT_EQ(c.verdict(0), V::Clean);
    EXPECT_EQ(c.note(1), "");
}

TEST(ReplayCheck, GridDifferencesAccumulateInOneNote) {
    ReplayCheck c;
    c.expect(key("emb", 3042));
    c.check(1, 0, key("emb", 3045));
    c.check(2, 0, key("emb", 3040));
    EXPECT_EQ(c.verdict(0), V::Differs);
    EXPECT_NE(c.note(0).find("pass 1 ran it as emb <<<3045x1x1, 128x1x1>>>"), std::string::npos);
    EXPECT_NE(c.note(0).find("pass 2 ran it as emb <<<3040x1x1"), std::string::npos);
}

TEST(ReplayCheck, AnotherKernelOverridesADifferenceAndNamesWhereThePassShifted) {
    ReplayCheck c;
    for (const char* n : {"a", "b", "c"})
        c.expect(key(n, 2));
    c.check(1, 0, key("a", 3)); // differs
    c.check(2, 0, key("x"));    // another kernel: no values
    c.check(2, 1, key("a", 2)); // shifted by the one before
    c.endPass(2, 2);            // and the pass is one short
    EXPECT_EQ(c.verdict(0), V::Unmatched);
    EXPECT_EQ(c.note(0).find("launch configuration differs"), std::string::npos);
    EXPECT_EQ(c.verdict(1), V::Unmatched);
    EXPECT_NE(c.note(1).find("went out of step at launch 0"), std::string::npos) << c.note(1);
    EXPECT_EQ(c.verdict(2), V::Unmatched);
    EXPECT_NE(c.note(2).find("pass 2 ended after 2 launches"), std::string::npos);
    EXPECT_NE(c.firstIssue().find("pass 1"), std::string::npos); // the first issue, for the log
}

TEST(ReplayCheck, ExtraLaunchesAtTheEndShiftNothing) {
    ReplayCheck c;
    c.expect(key("a"));
    c.check(1, 0, key("a"));
    c.check(1, 1, key("late"));
    EXPECT_EQ(c.verdict(0), V::Clean);
    EXPECT_FALSE(c.anyIssue());
    EXPECT_NE(c.firstIssue().find("pass 0 launched nothing"), std::string::npos);
}

// The rule positional and aligned replay share: differences add up, a loss of values keeps only
// its reason, and the tally counts each launch once.
TEST(VerdictTally, DifferencesAddUpAndALossKeepsOnlyItsReason) {
    VerdictTally tally;
    LaunchVerdict a, b;
    tally.mark(a, ReplayVerdict::Differs, "pass 1 grid 41");
    tally.mark(a, ReplayVerdict::Differs, "pass 2 grid 42");
    EXPECT_EQ(a.verdict, ReplayVerdict::Differs);
    EXPECT_EQ(a.note, "pass 1 grid 41; pass 2 grid 42");
    tally.mark(a, ReplayVerdict::Unmatched, "pass 3 ran another kernel");
    EXPECT_EQ(a.verdict, ReplayVerdict::Unmatched);
    EXPECT_EQ(a.note, "pass 3 ran another kernel");
    tally.mark(a, ReplayVerdict::Differs, "pass 4 grid 43"); // no values: nothing to add
    EXPECT_EQ(a.note, "pass 3 ran another kernel");
    tally.mark(b, ReplayVerdict::Unmatched, "pass 1 ended early");
    EXPECT_EQ(tally.issues(), 2u);
    EXPECT_EQ(tally.unmatched(), 2u);
    EXPECT_EQ(tally.first(), "pass 1 grid 41");
    tally.reset();
    EXPECT_EQ(tally.issues(), 0u);
    EXPECT_TRUE(tally.first().empty());
}
