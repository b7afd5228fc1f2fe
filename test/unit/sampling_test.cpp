// PM sampling's pure parts (docs/design/0029): the counter set per family, checked against
// CUPTI's host API, the attribution of samples to kernels, and the periods a device lost.
#include "core/sample_attribution.hpp"
#include "core/sample_gaps.hpp"
#include "core/sampling_set.hpp"
#include "cupti/host.hpp"
#include "cupti_host_guard.hpp"

#include <roofline/error.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <numeric>
#include <random>
#include <vector>

using namespace roofline;
using core::CounterSample;
using core::KernelSpan;

// Every family's set is what the sampler configures: CUPTI's PM sampling host object knows each
// counter and takes them all in one pass (PM sampling refuses more) on every chip it names.
TEST(SamplingSet, FitsOnePassOnItsChips) {
    ROOFLINE_NEEDS_CUPTI_HOST();
    for (const core::SamplingSet& s : core::samplingSets()) {
        ASSERT_FALSE(s.chips.empty()) << s.family;
        const std::vector<std::string> metrics = s.metrics();
        EXPECT_GE(metrics.size(), 10u) << s.family;
        for (const std::string& chip : s.chips) {
            const cupti::Host host(chip, cupti::Instrument::PmSampling);
            EXPECT_EQ(host.configImage(metrics).passes, 1u) << s.family << " on " << chip;
        }
    }
}

// The replay profile's SASS counters are not PM sampling's: its host object refuses them, which
// is why the set counts pipes.
TEST(SamplingSet, TheReplayProfilesSassCountersAreNotSampled) {
    ROOFLINE_NEEDS_CUPTI_HOST();
    const cupti::Host sampling("GH100", cupti::Instrument::PmSampling);
    EXPECT_THROW(sampling.properties("sm__sass_thread_inst_executed_op_ffma_pred_on.sum"), Error);
    const cupti::Host replay("GH100");
    EXPECT_NO_THROW(replay.properties("sm__sass_thread_inst_executed_op_ffma_pred_on.sum"));
    EXPECT_EQ(sampling.instrument(), cupti::Instrument::PmSampling);
}

TEST(SamplingSet, AChipWithoutASetIsRefusedNamingTheChipsThatHaveOne) {
    EXPECT_EQ(core::samplingSetForChip("GH100").family, "Hopper");
    try {
        core::samplingSetForChip("GA102");
        FAIL() << "GA102 has no sampling set";
    } catch (const Error& e) {
        EXPECT_EQ(e.code(), ErrorCode::UnsupportedChip);
        EXPECT_NE(std::string(e.what()).find("GH100"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("GA102"), std::string::npos) << e.what();
    }
}

namespace {

CounterSample sample(std::uint64_t start, std::uint64_t end, std::vector<double> values) {
    return {start, end, std::move(values)};
}

} // namespace

// A kernel alone in a sample takes all of it, though it ran for half of it: the counters grow
// with the kernels' work, not in the gaps between launches. A sample with no kernel is the
// device's between kernels.
TEST(SampleAttribution, AKernelAloneInASampleTakesAllOfIt) {
    const auto a = core::attributeSamples({sample(0, 1000, {100, 40}), sample(1000, 2000, {3, 1})},
                                          {{250, 750}}, 2, 1000);
    ASSERT_EQ(a.kernels.size(), 1u);
    EXPECT_DOUBLE_EQ(a.kernels[0].values[0], 100);
    EXPECT_DOUBLE_EQ(a.kernels[0].values[1], 40);
    EXPECT_DOUBLE_EQ(a.between[0], 3);
    EXPECT_DOUBLE_EQ(a.between[1], 1);
    EXPECT_EQ(a.kernels[0].coveredNs, 500u);
    EXPECT_EQ(a.kernels[0].samples, 1u);
    EXPECT_TRUE(a.kernels[0].estimated); // 500 ns: under three periods of 1000
}

// A kernel over three whole samples takes all three, is covered all along and is not estimated.
TEST(SampleAttribution, AKernelOverWholeSamplesTakesThemAll) {
    const auto a = core::attributeSamples(
        {sample(0, 100, {1}), sample(100, 200, {2}), sample(200, 300, {4}), sample(300, 400, {8})},
        {{0, 300}}, 1, 100);
    EXPECT_DOUBLE_EQ(a.kernels[0].values[0], 7);
    EXPECT_DOUBLE_EQ(a.between[0], 8); // the last sample: no kernel ran in it
    EXPECT_EQ(a.kernels[0].coveredNs, 300u);
    EXPECT_EQ(a.kernels[0].samples, 3u);
    EXPECT_FALSE(a.kernels[0].estimated);
}

// Samples whose timestamps overlap (the trigger's jitter) each give the kernel their values, but
// the kernel is covered no longer than it ran.
TEST(SampleAttribution, OverlappingSamplesCoverAKernelNoLongerThanItRan) {
    const auto a = core::attributeSamples({sample(0, 1000, {1}), sample(990, 2000, {2})},
                                          {{0, 2000}}, 1, 1000);
    EXPECT_DOUBLE_EQ(a.kernels[0].values[0], 3);
    EXPECT_EQ(a.kernels[0].coveredNs, 2000u);
}

// Two kernels running together share the instants they overlap evenly; each keeps what it ran
// alone; a gap inside the sample takes nothing.
TEST(SampleAttribution, ConcurrentKernelsShareTheirOverlapEvenly) {
    // [0,500): A alone [0,100), A and B [100,300), B alone [300,400), nothing [400,500); the 400
    // busy nanoseconds take 1 unit each.
    const auto a = core::attributeSamples({sample(0, 500, {400})}, {{0, 300}, {100, 400}}, 1, 50);
    EXPECT_DOUBLE_EQ(a.kernels[0].values[0], 100 + 100);
    EXPECT_DOUBLE_EQ(a.kernels[1].values[0], 100 + 100);
    EXPECT_DOUBLE_EQ(a.between[0], 0);
    EXPECT_EQ(a.kernels[0].coveredNs, 300u);
    EXPECT_EQ(a.kernels[1].coveredNs, 300u);
}

// The clock grows with time, kernel or not: each kernel gets the cycles of its own time (as a
// replay counts its elapsed cycles, so its clock is the sample's), concurrent ones each theirs,
// and the gaps' cycles are between kernels; the work counters still go to the busy time alone.
TEST(SampleAttribution, TheClockGoesByTimeAndTheWorkByTheKernels) {
    // [0,1000) at 2 cycles a ns: one kernel over [250,750).
    auto a = core::attributeSamples({sample(0, 1000, {100, 2000})}, {{250, 750}}, 2, 1000, 1);
    EXPECT_DOUBLE_EQ(a.kernels[0].values[0], 100);
    EXPECT_DOUBLE_EQ(a.kernels[0].values[1], 1000);
    EXPECT_DOUBLE_EQ(a.between[0], 0);
    EXPECT_DOUBLE_EQ(a.between[1], 1000);
    EXPECT_DOUBLE_EQ(a.kernels[0].values[1] / static_cast<double>(a.kernels[0].coveredNs), 2.0);
    // [0,500): A over [0,300), B over [100,400), nothing over [400,500).
    a = core::attributeSamples({sample(0, 500, {400, 1000})}, {{0, 300}, {100, 400}}, 2, 50, 1);
    EXPECT_DOUBLE_EQ(a.kernels[0].values[0], 200);
    EXPECT_DOUBLE_EQ(a.kernels[1].values[0], 200);
    EXPECT_DOUBLE_EQ(a.kernels[0].values[1], 600);
    EXPECT_DOUBLE_EQ(a.kernels[1].values[1], 600);
    EXPECT_DOUBLE_EQ(a.between[1], 200);
}

// Where no sample covers a kernel (the sampler started late, its buffer overflowed), its
// coverage says so: the missing part is never taken as zero work.
TEST(SampleAttribution, AGapInTheSamplesShowsInTheCoverage) {
    const auto a =
        core::attributeSamples({sample(0, 100, {10}), sample(300, 400, {10})}, {{0, 400}}, 1, 100);
    EXPECT_DOUBLE_EQ(a.kernels[0].values[0], 20);
    EXPECT_EQ(a.kernels[0].coveredNs, 200u);
    EXPECT_EQ(a.kernels[0].samples, 2u);
}

// Samples out of order, without a duration, or with the wrong number of values: the order does not
// matter, the others are skipped and not counted.
TEST(SampleAttribution, SamplesInAnyOrderAndMalformedOnesSkipped) {
    const auto a = core::attributeSamples(
        {sample(100, 200, {3}), sample(0, 100, {5}), sample(200, 200, {99}), sample(200, 300, {1, 2})},
        {{50, 150}}, 1, 10);
    EXPECT_EQ(a.samplesUsed, 2u);
    EXPECT_DOUBLE_EQ(a.kernels[0].values[0], 5 + 3);
    EXPECT_DOUBLE_EQ(a.between[0], 0);
}

// Whatever the kernels and samples, every counter's total is kept: the kernels' shares and what
// grew between them add up to the samples' sum.
TEST(SampleAttribution, EveryCounterIsConservedOverRandomKernelsAndSamples) {
    std::mt19937_64 rng(7);
    for (int round = 0; round < 20; ++round) {
        std::vector<CounterSample> samples;
        std::uint64_t t = 0;
        double total[2] = {0, 0};
        for (int i = 0; i < 200; ++i) {
            const std::uint64_t width = 50 + rng() % 100, gap = rng() % 4 == 0 ? rng() % 80 : 0;
            const double v0 = static_cast<double>(rng() % 1000), v1 = static_cast<double>(rng() % 7);
            samples.push_back(sample(t + gap, t + gap + width, {v0, v1}));
            total[0] += v0;
            total[1] += v1;
            t += gap + width;
        }
        std::vector<KernelSpan> kernels;
        for (int k = 0; k < 150; ++k) {
            const std::uint64_t start = rng() % t, length = rng() % 600;
            kernels.push_back({start, start + length});
        }
        std::shuffle(samples.begin(), samples.end(), rng);
        const auto a = core::attributeSamples(samples, kernels, 2, 100);
        for (int m = 0; m < 2; ++m) {
            double sum = a.between[m];
            for (const auto& k : a.kernels)
                sum += k.values[m];
            EXPECT_NEAR(sum, total[m], 1e-6 * std::max(1.0, total[m])) << "round " << round;
        }
        for (std::size_t k = 0; k < kernels.size(); ++k)
            EXPECT_LE(a.kernels[k].coveredNs, kernels[k].endNs - kernels[k].startNs);
    }
}

// Kernels one after another (a stream): the clock's total is kept too, and every kernel's clock
// is the rate of the samples it ran in.
TEST(SampleAttribution, TheClocksCyclesAreConservedWhereNoKernelsOverlap) {
    std::mt19937_64 rng(11);
    std::vector<CounterSample> samples;
    double total = 0;
    for (std::uint64_t t = 0; t < 100000; t += 100) {
        samples.push_back(sample(t, t + 100, {static_cast<double>(rng() % 50), 180}));
        total += 180;
    }
    std::vector<KernelSpan> kernels;
    for (std::uint64_t t = rng() % 50; t < 100000;) {
        const std::uint64_t length = 1 + rng() % 400;
        kernels.push_back({t, std::min<std::uint64_t>(t + length, 100000)});
        t += length + rng() % 200;
    }
    const auto a = core::attributeSamples(samples, kernels, 2, 100, 1);
    double sum = a.between[1];
    for (const auto& k : a.kernels) {
        sum += k.values[1];
        if (k.coveredNs > 0) {
            EXPECT_NEAR(k.values[1] / static_cast<double>(k.coveredNs), 1.8, 1e-9);
        }
    }
    EXPECT_NEAR(sum, total, 1e-6 * total);
}

// The tensor pipe's rate by the type a kernel's name says, as the GEMMs were measured; a name
// that says none has none.
TEST(SamplingSet, TheTensorRateFollowsTheTypeAKernelsNameSays) {
    const core::SamplingSet& s = core::samplingSetForChip("GH100");
    const auto kindOf = [&](const char* name) {
        const core::TensorRate* r = core::tensorRateFor(s, name);
        return r ? std::make_pair(r->kind, r->flopsPerPipeCycle)
                 : std::make_pair(FlopKind::FP32, 0.0);
    };
    EXPECT_EQ(kindOf("nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT"),
              std::make_pair(FlopKind::TensorBF16, 1024.0));
    EXPECT_EQ(kindOf("nvjet_sm90_tss_96x64_64x10_1x2_h_bz_TNN"),
              std::make_pair(FlopKind::TensorBF16, 1024.0));
    EXPECT_EQ(kindOf("nvjet_sm90_hsh_256x128_64x4_1x2_h_bz_coopA_NNT"),
              std::make_pair(FlopKind::TensorFP16, 1024.0));
    EXPECT_EQ(kindOf("sm90_xmma_gemm_f32f32_tf32f32_f32_nn_n_tilesize128x256x32"),
              std::make_pair(FlopKind::TensorTF32, 512.0));
    EXPECT_EQ(kindOf("sm90_xmma_gemm_f64f64_f64f64_f64_nn_n_tilesize128x64x16"),
              std::make_pair(FlopKind::TensorFP64, 64.0));
    EXPECT_EQ(kindOf("void flash_fwd_kernel<Flash_fwd_kernel_traits<128, 64, 64, 4, cutlass::bfloat16_t>>"),
              std::make_pair(FlopKind::TensorBF16, 1024.0));
    EXPECT_EQ(core::tensorRateFor(s, "ampere_sgemm_128x64_nn"), nullptr);
}

// Samples that follow each other lose nothing, whatever the trigger's jitter (under half a
// period); a gap counts the periods it spans, rounded; a sample that begins before the last one
// ended (decoded out of order) loses nothing and leaves the latest end as it was.
TEST(SampleGaps, CountsThePeriodsBetweenTwoDecodedSamples) {
    core::SampleGaps gaps(1000);
    EXPECT_EQ(gaps.missingBefore(5000, 6000), 0u);  // the first
    EXPECT_EQ(gaps.missingBefore(6000, 7000), 0u);  // back to back
    EXPECT_EQ(gaps.missingBefore(7400, 8400), 0u);  // 0.4 period of jitter
    EXPECT_EQ(gaps.missingBefore(11400, 12400), 3u); // three periods lost
    EXPECT_EQ(gaps.missingBefore(15000, 16000), 3u); // 2.6 periods: three
    EXPECT_EQ(gaps.missingBefore(9000, 10000), 0u);  // an older sample
    EXPECT_EQ(gaps.missingBefore(16000, 17000), 0u); // the latest end is still 16000
    // A sample whose start overlaps the latest end begins at that end; one wholly before it
    // (decoded out of order), or after it, keeps its start.
    EXPECT_EQ(gaps.startAfterLast(16990, 18000), 17000u);
    EXPECT_EQ(gaps.startAfterLast(12000, 13000), 12000u);
    EXPECT_EQ(gaps.startAfterLast(17000, 18000), 17000u);
    EXPECT_EQ(gaps.startAfterLast(17200, 18000), 17200u);
    core::SampleGaps none(0); // a period of 0 is taken as 1 ns, never a division by zero
    EXPECT_EQ(none.missingBefore(1, 2), 0u);
    EXPECT_EQ(none.missingBefore(5, 6), 3u);
}
