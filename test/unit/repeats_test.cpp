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

// A PyTorch step with no NVTX range is one scope instance: its forward's layers repeat, then its
// backward's. Each block is found, and each layer's launches share their phase's label.
TEST(Repeats, AStepWithNoScopeRepeatsItsForwardAndItsBackward) {
    std::string launches = "ES";                  // embedding, a set-up launch
    for (int layer = 0; layer < 12; ++layer)
        launches += "abcd";                       // forward layer (4 launches)
    launches += "LL";                             // loss and its gradient
    for (int layer = 0; layer < 12; ++layer)
        launches += "wxyzv";                      // backward layer (5 launches)
    launches += "OP";                             // optimizer
    const std::vector<std::uint32_t> t = seq(launches);
    const std::vector<Repeat> r = findRepeats(t);
    ASSERT_EQ(r.size(), 2u);
    EXPECT_EQ(r[0].start, 2u);
    EXPECT_EQ(r[0].period, 4u);
    EXPECT_EQ(r[0].count, 12u);
    EXPECT_EQ(r[1].start, 2u + 48u + 2u);
    EXPECT_EQ(r[1].period, 5u);
    EXPECT_EQ(r[1].count, 12u);
    EXPECT_EQ(phaseLabel(r, 1), "1");
    EXPECT_EQ(phaseLabel(r, 2), "~4:0");
    EXPECT_EQ(phaseLabel(r, 2 + 4 * 7 + 1), "~4:1"); // layer 7's second forward launch
    EXPECT_EQ(phaseLabel(r, 50), "+0");              // the loss, after the forward
    EXPECT_EQ(phaseLabel(r, 52), "#1~5:0");
    EXPECT_EQ(phaseLabel(r, 52 + 5 * 11 + 4), "#1~5:4");
    EXPECT_EQ(phaseLabel(r, t.size() - 1), "#1+1"); // the optimizer's second launch
    // The labels name each block by its order: one more set-up launch changes none of them
    // inside the blocks.
    const std::vector<Repeat> shifted = findRepeats(seq("X" + launches));
    ASSERT_EQ(shifted.size(), 2u);
    EXPECT_EQ(phaseLabel(shifted, 53), "#1~5:0");
}

TEST(Repeats, OneBlockOrNoneLabelsAsPhaseLabelDoes) {
    std::string launches = "HG";
    for (int layer = 0; layer < 12; ++layer)
        launches += "abcdefgh";
    launches += "E";
    const std::vector<Repeat> r = findRepeats(seq(launches));
    ASSERT_EQ(r.size(), 1u);
    for (std::size_t i = 0; i < launches.size(); ++i)
        EXPECT_EQ(phaseLabel(r, i), phaseLabel(r[0], i));
    EXPECT_TRUE(findRepeats(seq("abcdefg")).empty());
    EXPECT_EQ(phaseLabel(std::vector<Repeat>{}, 5), "5");
}

TEST(Repeats, ManyBlocksStayBounded) {
    // 40 distinct blocks, each repeated 3 times: at most 16 found, the search bounded.
    std::vector<std::uint32_t> t;
    for (std::uint32_t b = 0; b < 40; ++b)
        for (int k = 0; k < 3; ++k)
            for (std::uint32_t i = 0; i < 3; ++i)
                t.push_back(b * 10 + i);
    const std::vector<Repeat> r = findRepeats(t);
    EXPECT_EQ(r.size(), 16u);
    for (std::size_t i = 1; i < r.size(); ++i)
        EXPECT_GE(r[i].start, r[i - 1].end()); // by start, none overlapping
    std::vector<std::uint32_t> longSeq;
    for (int i = 0; i < 200000; ++i)
        longSeq.push_back(static_cast<std::uint32_t>(i % 7));
    EXPECT_EQ(findRepeats(longSeq).size(), 1u);
}

} // namespace
} // namespace roofline::collect
