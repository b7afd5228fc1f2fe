// The instruction roofline's model (docs/design/0023) on counts worked out by hand: a warp of 32
// threads, 4-byte accesses unless said otherwise, GH100's instruction counters.
#include "core/instruction_model.hpp"
#include "core/roofline_model.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace roofline::core {
namespace {

struct Kernel {
    const ChipProfile& hopper = profileForChip("GH100");
    const InstructionCounters& c = hopper.instructions;
    MetricValues v;
    Kernel() {
        for (const auto& m : instructionMetrics(hopper))
            v[m] = 0;
    }
    // `requests` warp-level loads of `bytesPerThread` by `threads` threads, touching `sectors`.
    Kernel& loads(double requests, double sectors, double bytesPerThread = 4, int threads = 32) {
        v[c.globalLoadRequests] = requests;
        v[c.globalLoadSectors] = sectors;
        v[c.globalLoadBytes] = requests * threads * bytesPerThread;
        return *this;
    }
    Kernel& shared(double requests, double wavefronts, double bytesPerThread = 4) {
        v[c.sharedLoadRequests] = requests;
        v[c.sharedLoadConflicts] = wavefronts - requests; // beyond one per request
        v[c.sharedLoadBytes] = requests * 32 * bytesPerThread;
        return *this;
    }
    Kernel& instructions(double warp, double activeShare = 1.0) {
        v[c.warpInstructions] = warp;
        v[c.threadInstructionsPredicated] = 32 * warp * activeShare;
        return *this;
    }
    InstructionModel model(double time = 1e-3) const { return instructionModel(hopper, v, time); }
    std::vector<std::string> verdicts(double ceiling = std::nan("")) const {
        return instructionVerdicts(model(), ceiling);
    }
};

TEST(InstructionModel, StridedLoadsShowTheirSectorsPerRequestAgainstTheIdeal) {
    // Stride 1: a warp's 128 bytes are 4 sectors -- the ideal, no verdict.
    Kernel one;
    one.instructions(1e4).loads(1000, 4000);
    EXPECT_DOUBLE_EQ(one.model().loadSectorsPerRequest, 4.0);
    EXPECT_DOUBLE_EQ(one.model().loadIdealSectors, 4.0);
    EXPECT_TRUE(one.verdicts().empty());
    // Stride 2, 8 and 32 (in floats): 8, 32 and 32 sectors for the same 128 bytes.
    const struct {
        double sectors;
        const char* verdict;
    } strided[] = {{8000, "uncoalesced loads: 8.0 sectors per request (ideal 4.0)"},
                   {32000, "uncoalesced loads: 32.0 sectors per request (ideal 4.0)"}};
    for (const auto& s : strided) {
        Kernel k;
        k.instructions(1e4).loads(1000, s.sectors);
        ASSERT_EQ(k.verdicts().size(), 1u);
        EXPECT_EQ(k.verdicts()[0], s.verdict);
    }
    // 16-byte loads, stride 1: 512 bytes are 16 sectors, and that is their ideal.
    Kernel wide;
    wide.instructions(1e4).loads(1000, 16000, 16);
    EXPECT_DOUBLE_EQ(wide.model().loadIdealSectors, 16.0);
    EXPECT_TRUE(wide.verdicts().empty());
    // One thread's 4 bytes still take a sector: the ideal is never below one.
    Kernel lone;
    lone.instructions(1e4).loads(1000, 1000, 4, 1);
    EXPECT_DOUBLE_EQ(lone.model().loadIdealSectors, 1.0);
    EXPECT_TRUE(lone.verdicts().empty());
}

TEST(InstructionModel, BankConflictsAreWavefrontsBeyondWhatTheBytesNeed) {
    for (int way : {1, 2, 8, 32}) {
        Kernel k;
        k.instructions(1e4).shared(100, 100.0 * way);
        EXPECT_DOUBLE_EQ(k.model().sharedLoadWavefrontsPerRequest, way);
        if (way == 1) {
            EXPECT_TRUE(k.verdicts().empty());
            continue;
        }
        ASSERT_EQ(k.verdicts().size(), 1u) << way;
        EXPECT_EQ(k.verdicts()[0], std::to_string(way) +
                                       "-way shared-memory bank conflicts on loads (" +
                                       std::to_string(way) +
                                       ".0 wavefronts per request, ideal "
                                       "1.0)");
    }
    // 16-byte accesses need 4 wavefronts without any conflict.
    Kernel wide;
    wide.instructions(1e4).shared(100, 400, 16);
    EXPECT_DOUBLE_EQ(wide.model().sharedLoadIdealWavefronts, 4.0);
    EXPECT_TRUE(wide.verdicts().empty());
}

TEST(InstructionModel, DivergenceShowsAsThreadsActive) {
    Kernel k;
    k.instructions(1e4, 0.41);
    EXPECT_NEAR(k.model().threadEfficiency, 0.41, 1e-12);
    ASSERT_EQ(k.verdicts().size(), 1u);
    EXPECT_EQ(k.verdicts()[0], "predicated: 41% of threads active");
    Kernel all;
    all.instructions(1e4, 1.0);
    EXPECT_TRUE(all.verdicts().empty());
}

TEST(InstructionModel, IssueBoundAgainstTheWarpIssueCeiling) {
    // H100 SXM: 132 SMs x 4 schedulers x 1.98 GHz.
    const double ceiling = warpIssuePerSecond(132, 1.98e9);
    EXPECT_DOUBLE_EQ(ceiling, 132 * 4 * 1.98e9);
    EXPECT_EQ(warpIssuePerSecond(0, 1.98e9), 0.0);
    Kernel k;
    k.instructions(0.83 * ceiling * 1e-3); // 1 ms at 83% of the ceiling
    EXPECT_NEAR(k.model().rate, 0.83 * ceiling, 1e-3 * ceiling);
    ASSERT_EQ(k.verdicts(ceiling).size(), 1u);
    EXPECT_EQ(k.verdicts(ceiling)[0], "issue-bound at 83% of the warp-issue ceiling");
    EXPECT_TRUE(k.verdicts().empty()) << "no ceiling, no issue verdict";
    Kernel idle;
    idle.instructions(0.2 * ceiling * 1e-3);
    EXPECT_TRUE(idle.verdicts(ceiling).empty());
}

TEST(InstructionModel, IntensityPerLevelIsWarpInstructionsPerTransaction) {
    Kernel k;
    k.instructions(8000).loads(1000, 4000).shared(1000, 1000);
    k.v[k.c.l2Sectors] = 2000;
    k.v[k.c.dramSectors] = 1000;
    const InstructionModel m = k.model();
    EXPECT_DOUBLE_EQ(m.intensity[0], 8000.0 / 5000.0); // global sectors + shared wavefronts
    EXPECT_DOUBLE_EQ(m.intensity[1], 4.0);
    EXPECT_DOUBLE_EQ(m.intensity[2], 8.0);
    EXPECT_DOUBLE_EQ(m.rate, 8000 / 1e-3);
}

TEST(InstructionModel, WithoutTheCountersNothingIsClaimed) {
    const ChipProfile& hopper = profileForChip("GH100");
    const InstructionModel m = instructionModel(hopper, {{"sm__cycles_elapsed.avg", 1.0}}, 1e-3);
    EXPECT_TRUE(std::isnan(m.rate));
    EXPECT_TRUE(std::isnan(m.loadSectorsPerRequest));
    EXPECT_TRUE(std::isnan(m.sharedLoadWavefrontsPerRequest));
    EXPECT_TRUE(std::isnan(m.threadEfficiency));
    EXPECT_TRUE(instructionVerdicts(m, warpIssuePerSecond(132, 1.98e9)).empty());
    // A kernel with no global loads: no load verdict, no division by zero.
    Kernel none;
    none.instructions(100);
    EXPECT_TRUE(std::isnan(none.model().loadSectorsPerRequest));
    EXPECT_TRUE(none.verdicts().empty());
}

} // namespace
} // namespace roofline::core
