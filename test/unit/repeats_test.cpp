// Repeats inside one scope instance (docs/design/0009): a backward pass of identical layers in
// one NVTX range is found as one block of launches repeated, and its launches labelled by phase.
#include "replay/reuse/repeats.hpp"

#include <gtest/gtest.h>

namespace roofline::collect {
namespace {

std::vector<std::uint32_t> seq(const std::string& s) {
    return std::vector<std::uint32_t>(s.begin(), s.end());
}

TEST(Repeats, TheTrainingStepsBackwardIsEightLaunchesTwelveTimes) {
    // Two head GEMMs, 12 layers of 8 launches (the last layer's final launch differs), the
    // embedding's backward.
    std::string launches = "HG";
    for (int layer = 0; layer < 12; ++layer)
        launches += layer == 11 ? "abcdefgX" : "abcdefgh";
    launches += "E";
    const Repeat r = findRepeat(seq(launches));
    EXPECT_EQ(r.start, 2u);
    EXPECT_EQ(r.period, 8u);
    EXPECT_EQ(r.count, 11u); // the 12th differs at its end: outside the repeat
    EXPECT_EQ(phaseLabel(r, 0), "0");
    EXPECT_EQ(phaseLabel(r, 2), "~8:0");
    EXPECT_EQ(phaseLabel(r, 2 + 8 * 5 + 3), "~8:3");
    EXPECT_EQ(phaseLabel(r, r.end()), "+0"); // the 12th layer's first launch
}

TEST(Repeats, TheShortestPeriodOfEqualCoverageAndNoneWithoutRepetition) {
    const Repeat r = findRepeat(seq("abababab"));
    EXPECT_EQ(r.period, 2u);
    EXPECT_EQ(r.count, 4u);
    EXPECT_EQ(findRepeat(seq("abcdefg")).period, 0u);
    EXPECT_EQ(findRepeat(seq("")).period, 0u);
    EXPECT_EQ(findRepeat(seq("a")).period, 0u);
    const Repeat none;
    EXPECT_EQ(phaseLabel(none, 7), "7");
}

// Launches that merely look alike are not a loop: one kernel launched twice with one grid may be
// two GEMMs of different depth, and a block seen twice may be two different layers.
TEST(Repeats, OneKernelOverAndOverOrABlockSeenTwiceIsNoRepeat) {
    EXPECT_EQ(findRepeat(seq("xaaaaaay")).period, 0u);
    EXPECT_EQ(findRepeat(seq("xababy")).period, 0u);
    EXPECT_EQ(findRepeat(seq("xabababy")).period, 2u);
    const Repeat r = findRepeat(seq("xaaaaaay"), 1, 2); // when asked for
    EXPECT_EQ(r.start, 1u);
    EXPECT_EQ(r.period, 1u);
    EXPECT_EQ(r.count, 6u);
    EXPECT_EQ(phaseLabel(r, 3), "~1:0");
    EXPECT_EQ(phaseLabel(r, 7), "+0");
}

TEST(Repeats, TheLongestCoverageWins) {
    // "ab" three times (6 launches) against "cde" three times (9).
    const Repeat r = findRepeat(seq("abababcdecdecde"));
    EXPECT_EQ(r.start, 6u);
    EXPECT_EQ(r.period, 3u);
    EXPECT_EQ(r.count, 3u);
}

TEST(Repeats, LongSequencesStayBounded) {
    std::vector<std::uint32_t> t;
    for (int i = 0; i < 200000; ++i)
        t.push_back(static_cast<std::uint32_t>(i % 7));
    const Repeat r = findRepeat(t);
    EXPECT_EQ(r.period, 7u);
    EXPECT_EQ(r.start, 0u);
    EXPECT_EQ(r.end(), 200000u - 200000u % 7);
}

} // namespace
} // namespace roofline::collect
