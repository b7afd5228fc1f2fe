// Launches outside every step that no window measured (replay/outside_records): each a record,
// which takes the counters of its signature's launches measured in the step where they did the
// same work, and otherwise says why it has none.
#include "replay/outside_records.hpp"
#include "core/merge.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

using namespace roofline;
using roofline::collect::OutsideRecords;
using roofline::collect::RecordStore;

namespace {

const std::vector<std::string> kMetrics = {"sm__sass_thread_inst_executed_op_ffma_pred_on.sum",
                                           "dram__bytes.sum"};

// A record of the step (iteration >= 0, with values) or outside it (iteration -1, none).
core::LaunchInfo recordOf(const std::string& name, std::int64_t iteration, std::int64_t position,
                          std::vector<double> values = {}, std::uint32_t gridX = 4,
                          std::uint64_t shared = 0) {
    core::LaunchInfo r;
    r.mangledName = name;
    r.name = name;
    r.grid = {gridX, 1, 1};
    r.block = {128, 1, 1};
    r.sharedMemBytes = shared;
    r.iteration = iteration;
    r.position = position;
    r.values = std::move(values);
    return r;
}

} // namespace

TEST(OutsideRecords, ARecordTakesTheMeanOfItsSignaturesLaunchesInTheStep) {
    RecordStore records;
    OutsideRecords outside;
    records.add(recordOf("gemm", 1, 3, {100, 10}));
    records.add(recordOf("gemm", 2, 3, {100, 30}));
    records.add(recordOf("gemm", 2, 7, {100, 20}));
    const std::int64_t o = records.add(recordOf("gemm", -1, -1));
    outside.add(records, o, "between steps");
    EXPECT_EQ(records[o].note,
              "no counters: ran outside every step (between steps), where no window measured it");
    EXPECT_EQ(outside.lend(records, kMetrics).lent, 1u);
    EXPECT_EQ(records[o].values, (std::vector<double>{100, 20}));
    EXPECT_EQ(records[o].reusedSamples, 3u);
    EXPECT_EQ(records[o].note,
              "reused: mean of 3 measured launches of the same signature (the step's, at "
              "positions 3, 7); they spread by up to 100.0% (dram__bytes.sum); ran outside every "
              "step (between steps)");
}

TEST(OutsideRecords, LaunchesOfTheStepThatDidDifferentWorkLendNothing) {
    RecordStore records;
    OutsideRecords outside;
    records.add(recordOf("gelu_backward", 1, 3, {100, 10}));
    records.add(recordOf("gelu_backward", 1, 9, {180, 10})); // its work depends on the data
    const std::int64_t o = records.add(recordOf("gelu_backward", -1, -1));
    outside.add(records, o, "after the process allocated pinned, mapped or managed memory");
    EXPECT_EQ(outside.lend(records, kMetrics).lent, 0u);
    EXPECT_TRUE(records[o].values.empty());
    EXPECT_EQ(records[o].note,
              "no counters: ran outside every step (after the process allocated pinned, mapped "
              "or managed memory), and its signature's launches in the step did different work, "
              "and none ran where it ran (the same launches around it), so none lends it its "
              "counters");
}

// The first iteration, before the step was found, runs the step's launches in the step's order:
// a fill whose signature's launches differ in size takes the counters of the one at its place.
TEST(OutsideRecords, ALaunchWhoseSignatureDiffersInTheStepTakesTheOneAtItsPlace) {
    RecordStore records;
    OutsideRecords outside;
    const std::vector<std::string> step = {"a", "b", "fill", "c", "d", "e", "fill", "f", "g", "h"};
    for (int i = 0; i < 2; ++i) // two iterations: the second's fill at 6 is measured again
        for (std::size_t p = 0; p < step.size(); ++p)
            records.add(recordOf(step[p], i, static_cast<std::int64_t>(p),
                                 {static_cast<double>(step[p] == "fill" ? 10 * p : 1), 1}));
    std::vector<std::int64_t> outsideAt;
    for (const char* name : {"x", "c", "d", "e", "fill", "f", "g", "h", "a", "b", "fill", "c"}) {
        outsideAt.push_back(records.add(recordOf(name, -1, -1)));
        outside.add(records, outsideAt.back(), "after the process allocated pinned memory");
    }
    const OutsideRecords::Lent lent = outside.lend(records, kMetrics);
    const core::LaunchInfo& atSix = records[outsideAt[4]];
    const core::LaunchInfo& atTwo = records[outsideAt[10]];
    EXPECT_EQ(atSix.values, (std::vector<double>{60, 1}));
    EXPECT_EQ(atSix.reusedSamples, 1u);
    EXPECT_EQ(atSix.note,
              "reused: mean of 1 measured launches of the same signature (the step's, at "
              "position 6, where the launches around it ran as around this one); ran outside "
              "every step (after the process allocated pinned memory)");
    EXPECT_EQ(atTwo.values, (std::vector<double>{20, 1}));
    EXPECT_TRUE(records[outsideAt[0]].values.empty()); // the step never runs x
    EXPECT_EQ(lent.lent, 11u);
}

TEST(OutsideRecords, TooFewLaunchesAroundItLikeTheStepsPlaceNothing) {
    RecordStore records;
    OutsideRecords outside;
    const std::vector<std::string> step = {"a", "b", "fill", "c", "d", "e", "fill", "f", "g", "h"};
    for (std::size_t p = 0; p < step.size(); ++p)
        records.add(recordOf(step[p], 0, static_cast<std::int64_t>(p),
                             {static_cast<double>(step[p] == "fill" ? 10 * p : 1), 1}));
    std::vector<std::int64_t> outsideAt;
    for (const char* name : {"c", "d", "e", "fill", "f", "g", "x", "h"}) { // 5 match, not 8
        outsideAt.push_back(records.add(recordOf(name, -1, -1)));
        outside.add(records, outsideAt.back(), "between steps");
    }
    outside.lend(records, kMetrics);
    EXPECT_TRUE(records[outsideAt[3]].values.empty());
    EXPECT_EQ(records[outsideAt[0]].values, (std::vector<double>{1, 1})); // same work: the mean
}

TEST(OutsideRecords, OnlyTheStepsOwnMeasurementsOfTheSameSignatureLend) {
    RecordStore records;
    OutsideRecords outside;
    records.add(recordOf("gemm", -1, -1, {1, 1}));           // measured in a window: not the step
    records.add(recordOf("gemm", 1, 0, {2, 2}, 8));          // another grid
    records.add(recordOf("gemm", 1, 1, {3, 3}, 4, 1024));    // other shared memory
    records.add(recordOf("gemm", 1, 2, {4, 4}));             // reused (below)
    records.add(recordOf("gemm", 1, 3, {5, 5}));             // another rank's (below)
    records.add(recordOf("gemm", 1, 4, {6, 6}));             // superseded (below)
    records.add(recordOf("gemm", 1, 5, {8, 8}));             // on another device (below)
    records[3].reusedSamples = 2;
    records[6].device = 1;
    records[4].countersRank = 1;
    std::vector<std::int64_t> superseded{5};
    records.supersede(superseded);
    const std::int64_t o = records.add(recordOf("gemm", -1, -1));
    outside.add(records, o, "between steps");
    EXPECT_EQ(outside.lend(records, kMetrics).lent, 0u);
    EXPECT_TRUE(records[o].values.empty());
    EXPECT_EQ(records[o].note,
              "no counters: ran outside every step (between steps), where no window measured it");
    // The step's own measurement at its shape lends.
    records.add(recordOf("gemm", 2, 4, {7, 7}));
    EXPECT_EQ(outside.lend(records, kMetrics).lent, 1u);
    EXPECT_EQ(records[o].values, (std::vector<double>{7, 7}));
}

// Ranks sharing the profile: a signature only another rank measures names that rank, and `roofline
// merge` fills the record in from that rank's step.
TEST(OutsideRecords, ASignatureAnotherRankMeasuresNamesThatRank) {
    RecordStore records;
    OutsideRecords outside;
    records.add(recordOf("gemm", 1, 3));
    records[0].countersRank = 1;
    records[0].note = core::awaitingCountersNote(1);
    const std::int64_t o = records.add(recordOf("gemm", -1, -1));
    outside.add(records, o, "between steps");
    const OutsideRecords::Lent lent = outside.lend(records, kMetrics);
    EXPECT_EQ(lent.lent, 0u);
    EXPECT_EQ(lent.awaiting, 1u);
    EXPECT_TRUE(records[o].values.empty());
    EXPECT_EQ(records[o].countersRank, 1);
    EXPECT_EQ(records[o].note,
              core::awaitingCountersNote(1) + "; ran outside every step (between steps)");
}

TEST(OutsideRecords, RecordsAreBoundedAndTheRestCounted) {
    RecordStore records;
    OutsideRecords outside;
    for (std::size_t i = 0; i < OutsideRecords::kMaxRecords; ++i) {
        ASSERT_TRUE(outside.room());
        outside.add(records, records.add(recordOf("k", -1, -1)), "between steps");
    }
    EXPECT_FALSE(outside.room());
    EXPECT_EQ(outside.size(), OutsideRecords::kMaxRecords);
    EXPECT_EQ(outside.lend(records, kMetrics).lent, 0u) << "no step measured it";
}
