// Per-rank recordings of one job merged into one: each launch keeps its values and gets
// its rank; the report shows each rank's time and the kernels the slowest rank holds up. Real
// data: the H100 training-step fixture, given as two ranks.
#include "core/merge.hpp"
#include "cupti/evaluate.hpp"
#include "report/ranks.hpp"

#include <roofline/error.hpp>

#include <gtest/gtest.h>

#include <sstream>

using namespace roofline;
using namespace roofline::core;

namespace {

Recording trainStep(int rank) {
    static const Recording loaded = [] {
        Recording r = loadRecording(ROOFLINE_FIXTURE_DIR "/h100_train_step.rfl");
        r.counterData.clear(); // its raw image (a merge drops it) is large to copy
        return r;
    }();
    Recording r = loaded;
    r.process.host = "node" + std::to_string(rank / 4);
    r.process.pid = 1000 + rank;
    r.process.rank = rank;
    r.process.worldSize = 2;
    r.process.rankVariable = "RANK";
    return r;
}

std::string mergeError(std::vector<MergeInput> inputs) {
    try {
        mergeRecordings(std::move(inputs));
    } catch (const Error& e) {
        EXPECT_EQ(e.code(), ErrorCode::InvalidArgument);
        return e.what();
    }
    return "no error";
}

KernelRecord timed(const char* name, int rank, double seconds) {
    KernelRecord r;
    r.name = name;
    r.scopePath = "step";
    r.rank = rank;
    r.measured = true;
    r.timeSeconds = seconds;
    return r;
}

} // namespace

TEST(Merge, LaunchesOfEveryRankInRankOrderWithTheirValues) {
    const Recording one = trainStep(0);
    std::vector<MergeInput> inputs{{"rank1.rfl", trainStep(1)}, {"rank0.rfl", trainStep(0)}};
    // Rank 0 recorded before the device's peaks were stored, rank 1 after: the merge keeps them.
    inputs[0].recording.devicePeaks = {{"dram__bytes.sum.peak_sustained", 1280}};
    const Recording merged = mergeRecordings(std::move(inputs));
    ASSERT_EQ(merged.launches.size(), 2 * one.launches.size());
    for (std::size_t i = 0; i < merged.launches.size(); ++i) {
        const LaunchInfo& l = merged.launches[i];
        const LaunchInfo& original = one.launches[i % one.launches.size()];
        EXPECT_EQ(l.rank, i < one.launches.size() ? 0 : 1) << i;
        EXPECT_EQ(l.name, original.name);
        EXPECT_EQ(l.values, original.values) << i;
        EXPECT_EQ(l.chunk, -1); // raw images are not carried over
    }
    EXPECT_EQ(merged.chip, one.chip);
    EXPECT_EQ(merged.metrics, one.metrics);
    EXPECT_TRUE(merged.counterData.empty());
    EXPECT_FALSE(merged.coverage.known);
    EXPECT_EQ(merged.process.pid, 0); // no one process
    EXPECT_EQ(merged.devicePeaks.size(), 1u);

    // It is a recording like any other: saved, read back and evaluated on the CPU.
    std::stringstream bytes;
    writeRecording(merged, bytes);
    const Recording back = readRecording(bytes, "merged");
    const auto records = cupti::evaluateRecording(back, Ceilings{});
    const auto single = cupti::evaluateRecording(one, Ceilings{});
    ASSERT_EQ(records.size(), 2 * single.size());
    for (std::size_t i = 0; i < records.size(); ++i) {
        EXPECT_EQ(records[i].rank, i < single.size() ? 0 : 1);
        EXPECT_EQ(records[i].timeSeconds, single[i % single.size()].timeSeconds) << i;
        EXPECT_EQ(records[i].totalFlops(), single[i % single.size()].totalFlops()) << i;
    }
    EXPECT_EQ(report::ranksOf(records), (std::vector<int>{0, 1}));
}

TEST(Merge, RecordingsWithoutARankTakeTheirInputOrder) {
    Recording a = trainStep(0), b = trainStep(0);
    a.process = {};
    b.process = {};
    b.createdUtc = "2026-11-23T06:00:00Z"; // another run
    const Recording merged = mergeRecordings({{"a.rfl", a}, {"b.rfl", b}});
    EXPECT_EQ(merged.launches.front().rank, 0);
    EXPECT_EQ(merged.launches.back().rank, 1);
}

TEST(Merge, RefusesWhatCannotBeComparedAndSaysWhy) {
    EXPECT_NE(mergeError({{"a.rfl", trainStep(0)}}).find("at least two"), std::string::npos);
    EXPECT_NE(mergeError({{"a.rfl", trainStep(1)}, {"b.rfl", trainStep(1)}})
                  .find("'a.rfl' and 'b.rfl' are the same recording"),
              std::string::npos);
    Recording rerun = trainStep(1);
    rerun.createdUtc = "2026-11-23T06:00:00Z";
    EXPECT_NE(mergeError({{"a.rfl", trainStep(1)}, {"b.rfl", rerun}})
                  .find("'a.rfl' and 'b.rfl' are both rank 1"),
              std::string::npos);
    Recording other = trainStep(1);
    other.metrics.pop_back();
    EXPECT_NE(mergeError({{"a.rfl", trainStep(0)}, {"b.rfl", other}})
                  .find("'b.rfl' was recorded "
                        "with metrics"),
              std::string::npos);
    Recording flushed = trainStep(1);
    flushed.cacheFlush = flushed.cacheFlush == "on" ? "off" : "on";
    EXPECT_NE(mergeError({{"a.rfl", trainStep(0)}, {"b.rfl", flushed}})
                  .find("'b.rfl' was recorded with cache flush '" + flushed.cacheFlush + "'"),
              std::string::npos);
    Recording hopper = trainStep(1);
    hopper.chip = "GB100";
    EXPECT_NE(mergeError({{"a.rfl", trainStep(0)}, {"b.rfl", hopper}}).find("chip 'GB100'"),
              std::string::npos);
    const Recording merged = mergeRecordings({{"a.rfl", trainStep(0)}, {"b.rfl", trainStep(1)}});
    EXPECT_NE(mergeError({{"m.rfl", merged}, {"c.rfl", trainStep(2)}}).find("already a merged"),
              std::string::npos);
    Recording v1 = loadRecording(ROOFLINE_FIXTURE_DIR "/h100_calibration.rfl");
    EXPECT_NE(mergeError({{"v1.rfl", v1}, {"b.rfl", trainStep(1)}}).find("format v1"),
              std::string::npos);
}

TEST(RankSpread, TheSlowestRankPerKernelLargestExcessFirst) {
    const std::vector<KernelRecord> records{timed("gemm", 0, 2e-3), timed("allreduce", 0, 1e-3),
                                            timed("gemm", 1, 2.1e-3), timed("allreduce", 1, 4e-3),
                                            timed("only_on_rank1", 1, 1e-3)};
    const auto spread = report::rankSpread(records, GroupBy::NameScope);
    ASSERT_EQ(spread.size(), 2u); // only_on_rank1 ran on one rank
    EXPECT_EQ(spread[0].name, "allreduce");
    EXPECT_EQ(spread[0].slowest, 1);
    EXPECT_EQ(spread[0].fastest, 0);
    EXPECT_DOUBLE_EQ(spread[0].excessSeconds(), 3e-3);
    EXPECT_EQ(spread[1].name, "gemm");
    EXPECT_NEAR(spread[1].excessSeconds(), 0.1e-3, 1e-12);

    std::ostringstream out;
    report::printRanks(records, GroupBy::NameScope, out, 10);
    EXPECT_NE(out.str().find("ranks     2 (merged recording)"), std::string::npos) << out.str();
    EXPECT_NE(out.str().find("slowest compute: +"), std::string::npos) << out.str();
    EXPECT_NE(out.str().find("r0 1.000"), std::string::npos) << out.str(); // allreduce, fastest
    EXPECT_NE(out.str().find("allreduce"), std::string::npos) << out.str();

    std::vector<KernelRecord> one = records;
    for (auto& r : one)
        r.rank = -1;
    EXPECT_TRUE(report::rankSpread(one, GroupBy::NameScope).empty());
    std::ostringstream none;
    report::printRanks(one, GroupBy::NameScope, none, 10);
    EXPECT_TRUE(none.str().empty());
}

namespace {
// A rank's share of the training-step fixture: launches in the other rank's half keep no values
// and name it, as a rank sharing the profile records them.
Recording shareOf(int rank, int ranks = 2) {
    Recording r = trainStep(rank);
    r.shareIndex = static_cast<std::uint32_t>(rank);
    r.shareCount = static_cast<std::uint32_t>(ranks);
    const auto n = static_cast<std::int64_t>(r.launches.size());
    for (std::int64_t i = 0; i < n; ++i) {
        LaunchInfo& l = r.launches[static_cast<std::size_t>(i)];
        l.position = i;
        const int owner = static_cast<int>(i * ranks / n);
        if (owner != rank) {
            l.values.clear();
            l.countersRank = owner;
            l.note = awaitingCountersNote(owner);
        }
    }
    return r;
}
} // namespace

// Every launch of each rank gets its values from the rank that measured its place: the fixture's
// own values, launch by launch.
TEST(Merge, RanksThatSharedTheProfileGiveEachOtherTheirCounters) {
    const Recording whole = trainStep(0);
    const Recording merged = mergeRecordings({{"r0.rfl", shareOf(0)}, {"r1.rfl", shareOf(1)}});
    ASSERT_EQ(merged.launches.size(), 2 * whole.launches.size());
    EXPECT_EQ(merged.shareCount, 1u) << "the merged profile is whole";
    std::size_t filled = 0;
    for (std::size_t i = 0; i < merged.launches.size(); ++i) {
        const LaunchInfo& l = merged.launches[i];
        const LaunchInfo& truth = whole.launches[i % whole.launches.size()];
        EXPECT_EQ(l.values, truth.values) << i << ": " << l.note;
        if (l.countersRank >= 0) {
            ++filled;
            EXPECT_EQ(l.note, "counters from rank " + std::to_string(l.countersRank) +
                                  "'s launch at the same place (the ranks shared the profile)");
        }
    }
    EXPECT_EQ(filled, whole.launches.size()) << "each rank measured half of its launches";

    // The report does not compare kernel times between ranks: they came from one rank or the
    // other.
    const std::vector<KernelRecord> records = cupti::evaluateRecording(merged, Ceilings{});
    std::ostringstream out;
    report::printRanks(records, GroupBy::NameScope, out, 10);
    EXPECT_NE(out.str().find("the ranks shared the profile"), std::string::npos) << out.str();
    EXPECT_EQ(out.str().find("slowest"), std::string::npos) << out.str();
}

// A launch outside every step whose signature another rank measured (ranks sharing the profile)
// takes the mean of that rank's step launches of its kernel, grid and block: it has no place in a
// step, and no scope of the step.
TEST(Merge, ALaunchOutsideTheStepsTakesTheOtherRanksStepCounters) {
    Recording zero = shareOf(0), one = shareOf(1);
    const LaunchInfo* model = nullptr;
    for (const LaunchInfo& l : zero.launches)
        if (l.countersRank == 1 && l.iteration >= 0) {
            model = &l;
            break;
        }
    ASSERT_NE(model, nullptr);
    LaunchInfo outside = *model;
    outside.iteration = -1;
    outside.position = -1;
    outside.scopePath.clear();
    outside.note = awaitingCountersNote(1) + "; ran outside every step (between steps)";
    zero.launches.push_back(outside);
    std::vector<const LaunchInfo*> same; // rank 1's step launches of its kernel, grid and block
    for (const LaunchInfo& l : one.launches)
        if (!l.values.empty() && l.iteration >= 0 && l.mangledName == outside.mangledName &&
            l.grid.x == outside.grid.x && l.grid.y == outside.grid.y &&
            l.grid.z == outside.grid.z && l.block.x == outside.block.x &&
            l.block.y == outside.block.y && l.block.z == outside.block.z)
            same.push_back(&l);
    ASSERT_FALSE(same.empty());
    const Recording merged = mergeRecordings({{"r0.rfl", zero}, {"r1.rfl", one}});
    const LaunchInfo* filled = nullptr;
    for (const LaunchInfo& l : merged.launches)
        if (l.rank == 0 && l.iteration < 0)
            filled = &l;
    ASSERT_NE(filled, nullptr);
    ASSERT_EQ(filled->values.size(), same[0]->values.size()) << filled->note;
    for (std::size_t m = 0; m < filled->values.size(); ++m) {
        double mean = 0;
        for (const LaunchInfo* x : same)
            mean += x->values[m] / static_cast<double>(same.size());
        EXPECT_DOUBLE_EQ(filled->values[m], mean) << m;
    }
    EXPECT_EQ(filled->note, "counters: the mean of rank 1's " + std::to_string(same.size()) +
                                " launches of this kernel, grid and block in its step (the ranks "
                                "shared the profile); ran outside every step (between steps)");
}

// A launch with nothing at its place on the measuring rank takes the mean of that rank's launches
// of the same kernel, grid, block and scope; one with nothing like it, or whose rank's recording
// is missing, keeps no values and says why.
TEST(Merge, SharedCountersFallBackToTheKernelsMeanAndSayWhatIsMissing) {
    Recording zero = shareOf(0), one = shareOf(1);
    // rank 1's launches moved by one place: none is at rank 0's positions any more
    for (LaunchInfo& l : one.launches)
        ++l.position;
    const Recording merged = mergeRecordings({{"r0.rfl", zero}, {"r1.rfl", one}});
    std::size_t mean = 0;
    for (const LaunchInfo& l : merged.launches)
        if (l.countersRank == 1 && l.rank == 0) {
            ASSERT_FALSE(l.values.empty()) << l.note;
            EXPECT_NE(l.note.find("the mean of rank 1's"), std::string::npos) << l.note;
            ++mean;
        }
    EXPECT_GT(mean, 0u);

    // A grid that follows the data: the launch at the same place with another grid gives its
    // counters, and the note says the grids.
    Recording grid = shareOf(1);
    for (LaunchInfo& l : grid.launches)
        ++l.grid.x;
    const Recording byPlace = mergeRecordings({{"r0.rfl", shareOf(0)}, {"r1.rfl", grid}});
    for (const LaunchInfo& l : byPlace.launches)
        if (l.countersRank == 1) {
            ASSERT_FALSE(l.values.empty()) << l.note;
            EXPECT_NE(l.note.find("'s launch at the same place (the ranks shared the profile); its "
                                  "grid there was "),
                      std::string::npos)
                << l.note;
        }

    const Recording three = mergeRecordings({{"r0.rfl", shareOf(0, 3)}, {"r1.rfl", shareOf(1, 3)}});
    std::size_t missing = 0;
    for (const LaunchInfo& l : three.launches)
        if (l.countersRank == 2) {
            EXPECT_TRUE(l.values.empty());
            EXPECT_NE(l.note.find("measured on rank 2, whose recording was not merged"),
                      std::string::npos)
                << l.note;
            ++missing;
        }
    EXPECT_GT(missing, 0u);
    EXPECT_NE(mergeError({{"a.rfl", shareOf(0)}, {"b.rfl", trainStep(1)}})
                  .find("ranks sharing the profile '1'"),
              std::string::npos);
}
