// SEER's model on the CPU: the regression recovers known coefficients, the per-engine
// model reproduces a synthetic data set whose metrics and times follow known formulas, the
// evaluations count what they should, and the data set and model files round-trip.
#include "seer/cases.hpp"
#include "seer/evaluate.hpp"
#include "seer/selection.hpp"
#include "seer/splits.hpp"
#include "workloads/conv_case.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

namespace roofline::seer {
namespace {

const Roofs kRoofs{60e12, 400e12, 3e12, 132};

// A synthetic engine: FLOPs, bytes and blocks follow the convolution's algebra with per-engine
// factors; time = overhead + compute-time factor + memory-time factor (no noise).
struct SyntheticEngine {
    std::string name;
    double flopsPerMac, tensorShare, bytesFactor, overhead, computeFactor, memoryFactor;
};

SeerRow row(const SyntheticEngine& e, const ConvParams& c) {
    SeerRow r;
    r.conv = c;
    r.engine = e.name;
    r.flops = e.flopsPerMac * c.macs() + 3 * termValue(Term::Output, c);
    r.tensorFlops = e.tensorShare * r.flops;
    r.dramBytes =
        e.bytesFactor * 4 *
        (termValue(Term::Input, c) + termValue(Term::Output, c) + termValue(Term::Filter, c));
    r.blocks = std::ceil(termValue(Term::Output, c) / 4096) + c.batch;
    const double compute = (r.flops - r.tensorFlops) / kRoofs.cudaFlopsPerSecond +
                           r.tensorFlops / kRoofs.tensorFlopsPerSecond;
    const double memory = r.dramBytes / kRoofs.dramBytesPerSecond;
    r.timeSeconds = e.overhead + e.computeFactor * compute + e.memoryFactor * memory;
    return r;
}

std::vector<ConvParams> sweep() {
    std::vector<ConvParams> out;
    for (double n : {1, 8, 32})
        for (double c : {16, 64, 256})
            for (double w : {14, 28, 56})
                for (double k : {32, 128})
                    for (double r : {1, 3})
                        out.push_back({n, c, w, k, w, r, 1, std::floor(r / 2)});
    return out;
}

const std::vector<SyntheticEngine> kEngines = {
    {"eng0 (implicit gemm)", 2.0, 0.0, 1.0, 4e-6, 1.6, 1.1},
    {"eng1 (tensor_core)", 2.1, 0.95, 1.3, 9e-6, 2.5, 1.4},
    {"eng6 (winograd), knob 7", 1.1, 0.0, 2.0, 6e-6, 1.9, 1.2},
};

std::vector<SeerRow> dataset() {
    std::vector<SeerRow> rows;
    for (const auto& c : sweep())
        for (const auto& e : kEngines)
            rows.push_back(row(e, c));
    return rows;
}

TEST(SeerRegression, RecoversKnownCoefficientsAndDropsNegativeOnes) {
    std::vector<std::vector<double>> x;
    std::vector<double> y, z;
    for (double a = 1; a <= 6; ++a)
        for (double b = 1; b <= 4; ++b) {
            x.push_back({a * 1e9, b, 1.0});
            y.push_back(2 * a * 1e9 + 5 * b + 7);
            z.push_back(2 * a * 1e9 - 5 * b + 1e3); // a negative true coefficient
        }
    const auto beta = relativeLeastSquares(x, y, true);
    ASSERT_EQ(beta.size(), 3u);
    EXPECT_NEAR(beta[0], 2.0, 1e-9);
    EXPECT_NEAR(beta[1], 5.0, 1e-6);
    EXPECT_NEAR(beta[2], 7.0, 1e-6);
    const auto nonNegative = relativeLeastSquares(x, z, true);
    EXPECT_EQ(nonNegative[1], 0.0);
    EXPECT_GT(nonNegative[0], 0.0);
}

TEST(SeerModel, ReproducesAFormulaDataSetAndPicksTheBestEngine) {
    const auto rows = dataset();
    std::vector<SeerRow> train, test;
    for (const auto& r : rows)
        (isTestConfig(r.conv) ? test : train).push_back(r);
    ASSERT_GE(train.size(), 3 * Model::kMinimumRows);
    ASSERT_FALSE(test.empty());
    const Model m = Model::fit(train, kRoofs);
    ASSERT_EQ(m.engines.size(), 3u);
    const RowEvaluation rowsEval = evaluateRows(m, test);
    ASSERT_EQ(rowsEval.engines.size(), 3u);
    for (const auto& e : rowsEval.engines) {
        EXPECT_LT(e.medianApe, 1e-6) << e.engine;
        EXPECT_EQ(e.within10, 1.0) << e.engine;
    }
    // The static and dynamic metrics themselves.
    const ConvParams c{16, 64, 28, 128, 28, 3, 1, 1};
    const SeerRow truth = row(kEngines[2], c);
    const Prediction p = m.engines.at(kEngines[2].name).predict(c, kRoofs);
    EXPECT_NEAR(p.flops / truth.flops, 1.0, 1e-9);
    EXPECT_NEAR(p.dramBytes / truth.dramBytes, 1.0, 1e-9);
    EXPECT_NEAR(p.seconds / truth.timeSeconds, 1.0, 1e-6);
    const ChoiceEvaluation choices = evaluateChoices(m, test);
    EXPECT_EQ(choices.top1, 1.0);
    EXPECT_EQ(choices.within10, 1.0);
    EXPECT_NEAR(choices.meanLost, 0.0, 1e-12);
}

// A GEMM engine that computes its output in 128 x 64 tiles does the MACs of the padded output:
// the fit finds the tile among its candidates and predicts the padded work exactly.
TEST(SeerModel, FindsTheTileAGemmEnginePadsItsOutputTo) {
    std::vector<SeerRow> rows;
    for (const auto& c : sweep()) {
        SeerRow r;
        r.conv = c;
        r.engine = "eng1";
        r.flops = 2 * termValue(Term::PaddedMacs, c, {128, 64});
        r.blocks = termValue(Term::Tiles, c, {128, 64});
        r.timeSeconds = 1e-6 + r.flops / kRoofs.cudaFlopsPerSecond;
        rows.push_back(r);
    }
    // K = 32 is padded to 64: twice the direct algorithm's work.
    const ConvParams c{8, 64, 14, 32, 14, 3, 1, 1};
    EXPECT_DOUBLE_EQ(termValue(Term::PaddedMacs, c, {128, 64}),
                     std::ceil(8 * 14 * 14 / 128.0) * 128 * 64 * 64 * 9);
    const Model m = Model::fit(rows, kRoofs);
    const EngineModel& e = m.engines.at("eng1");
    EXPECT_EQ(e.flops.tiling.pixels, 128);
    EXPECT_EQ(e.flops.tiling.channels, 64);
    EXPECT_NEAR(e.flops.predict(c) / (2 * termValue(Term::PaddedMacs, c, {128, 64})), 1.0, 1e-9);
    EXPECT_NEAR(e.blocks.predict(c) / termValue(Term::Tiles, c, {128, 64}), 1.0, 1e-9);
    // And the tiling survives the model file.
    const Model back = Model::fromJson(m.toJson(), "model.json");
    EXPECT_EQ(back.engines.at("eng1").flops.tiling.channels, 64);
    EXPECT_NEAR(back.engines.at("eng1").predict(c, kRoofs).seconds / e.predict(c, kRoofs).seconds,
                1.0, 1e-12);
}

// The data set recorded on the H100 (test/fixtures/README.md): 84 configurations, every engine
// that verified. What the model does on it is the figure docs/seer.md reports; these bounds keep
// it from getting worse unnoticed.
TEST(SeerH100, FitsAndEvaluatesTheRecordedSweep) {
    std::ifstream in(ROOFLINE_FIXTURE_DIR "/h100_seer_sweep.csv");
    ASSERT_TRUE(in) << "fixture missing";
    const auto rows = readDataset(in, "h100_seer_sweep.csv");
    ASSERT_EQ(rows.size(), 608u);
    std::set<std::string> configs;
    for (const auto& r : rows) {
        configs.insert(r.conv.key());
        EXPECT_GT(r.timeSeconds, 0) << r.engine;
        EXPECT_GT(r.residentBlocks, 0) << r.engine << " @ " << r.conv.key();
        EXPECT_GE(r.waves, 1) << r.engine << " @ " << r.conv.key();
        EXPECT_NEAR(r.dramReadBytes + r.dramWriteBytes, r.dramBytes, 1e-3 * r.dramBytes + 64);
    }
    EXPECT_EQ(configs.size(), 84u);
    std::vector<SeerRow> train, test;
    for (const auto& r : rows)
        (isTestConfig(r.conv) ? test : train).push_back(r);
    // H100 roofs: FP32 and TF32 tensor, DRAM and L2
    // (libroofline/data/ceilings/NVIDIA_H100_80GB_HBM3.json).
    const Roofs roofs{6.61e13, 4.70e14, 3.13e12, 132, 7.67e12};
    const Model m = Model::fit(train, roofs);
    EXPECT_EQ(m.engines.size(), 9u);
    const RowEvaluation e = evaluateRows(m, test);
    std::map<std::string, EngineError> byEngine;
    for (const auto& x : e.engines)
        byEngine[x.engine] = x;
    // GEMM engines: FLOPs of the padded output within 3% (median); the best two within 10%.
    for (const char* gemm : {"eng0", "eng1", "eng2", "eng28", "eng70"}) {
        ASSERT_TRUE(byEngine.count(gemm)) << gemm;
        EXPECT_LT(byEngine[gemm].flopsApe, 0.03) << gemm;
    }
    EXPECT_LT(byEngine["eng28"].medianApe, 0.10);
    EXPECT_LT(byEngine["eng70"].medianApe, 0.10);
    const ChoiceEvaluation choices = evaluateChoices(m, test);
    EXPECT_EQ(choices.configs.size(), 29u);
    EXPECT_GE(choices.within10, 0.85);
    EXPECT_LT(choices.meanLost, choices.heuristicMeanLost);
    EXPECT_LT(choices.totalPredicted, choices.totalHeuristic);
}

TEST(SeerModel, EnginesWithTooFewRowsAreSkippedAndSaid) {
    auto rows = dataset();
    SeerRow lone = rows[0];
    lone.engine = "eng9 (rare)";
    rows.push_back(lone);
    const Model m = Model::fit(rows, kRoofs);
    EXPECT_EQ(m.engines.count("eng9 (rare)"), 0u);
    EXPECT_EQ(m.skipped.at("eng9 (rare)"), 1u);
    const RowEvaluation e = evaluateRows(m, {lone});
    EXPECT_EQ(e.unmodelledRows, 1u);
}

TEST(SeerChoices, CountsTheModelAgainstTheMeasuredBestAndTheHeuristic) {
    // Two configurations, two engines whose model times are known: eng A predicted faster.
    Model m;
    m.roofs = kRoofs;
    EngineModel fast, slow;
    fast.time = {1e-6};
    slow.time = {2e-6};
    m.engines["A"] = fast;
    m.engines["B"] = slow;
    auto make = [](double n, const char* engine, double seconds, int rank) {
        SeerRow r;
        r.conv = {n, 8, 8, 8, 8, 1, 1, 0};
        r.engine = engine;
        r.timeSeconds = seconds;
        r.heuristicRank = rank;
        return r;
    };
    // Config 1: A is the best (model right, heuristic B wrong by 50%).
    // Config 2: B is the best by 20% (model wrong, heuristic right).
    const std::vector<SeerRow> test = {make(1, "A", 10e-6, 1), make(1, "B", 15e-6, 0),
                                       make(2, "A", 12e-6, 1), make(2, "B", 10e-6, 0)};
    const ChoiceEvaluation e = evaluateChoices(m, test);
    ASSERT_EQ(e.configs.size(), 2u);
    EXPECT_EQ(e.top1, 0.5);
    EXPECT_EQ(e.within10, 0.5);
    EXPECT_NEAR(e.meanLost, (0.0 + 0.2) / 2, 1e-12);
    EXPECT_EQ(e.withHeuristic, 2u);
    EXPECT_EQ(e.heuristicTop1, 0.5);
    EXPECT_NEAR(e.heuristicMeanLost, (0.5 + 0.0) / 2, 1e-12);
    EXPECT_NEAR(e.totalPredicted, 22e-6, 1e-15);
    EXPECT_NEAR(e.totalHeuristic, 25e-6, 1e-15);
    EXPECT_NEAR(e.totalBest, 20e-6, 1e-15);
}

TEST(SeerModel, ThePredictedBoundClassIsComparedWithTheMeasuredOne) {
    EXPECT_EQ(boundClass("DRAM 71%"), "memory");
    EXPECT_EQ(boundClass("L2 40%"), "memory");
    EXPECT_EQ(boundClass("fp32 73%"), "compute");
    EXPECT_EQ(boundClass("tensor_bf16 12%"), "compute");
    EXPECT_EQ(boundClass("unknown"), "");
    EXPECT_EQ(boundClass(""), "");
    // A compute-dominated engine: its predicted class is "compute" on every row.
    const auto rows = dataset();
    const Model m = Model::fit(rows, kRoofs);
    std::vector<SeerRow> test;
    for (const auto& r : rows)
        if (r.engine == kEngines[0].name && r.conv.kernelWidth == 3 && r.conv.inChannels == 256)
            test.push_back(r);
    ASSERT_GE(test.size(), 4u);
    for (std::size_t i = 0; i < test.size(); ++i)
        test[i].bound = i % 2 ? "DRAM 80%" : "fp32 70%";
    ASSERT_EQ(m.engines.at(kEngines[0].name).predict(test[0].conv, kRoofs).bound, "compute");
    const RowEvaluation e = evaluateRows(m, test);
    ASSERT_EQ(e.engines.size(), 1u);
    EXPECT_NEAR(e.engines[0].boundAgreement, 0.5, 0.5 / static_cast<double>(test.size()));
    EXPECT_EQ(evaluateRows(m, {rows[0]}).engines[0].boundAgreement, -1.0); // no measured bound
}

TEST(SeerData, RoundTripsWithQuotedEnginesAndNamesBadInput) {
    auto rows = dataset();
    rows.resize(4);
    rows[1].engine = "eng3 (knobs: a=1, b=2)";
    rows[1].bound = "DRAM 71%";
    rows[1].heuristicRank = 0;
    rows[1].kernel = "sm90_xmma_fprop_implicit_gemm_f32f32_tf32f32_f32_nchwkcrs, \"x\"";
    std::ostringstream out;
    writeDataset(rows, out);
    std::istringstream in(out.str());
    const auto back = readDataset(in, "d.csv");
    ASSERT_EQ(back.size(), 4u);
    EXPECT_EQ(back[1].engine, "eng3 (knobs: a=1, b=2)");
    EXPECT_EQ(back[1].bound, "DRAM 71%");
    EXPECT_EQ(back[1].heuristicRank, 0);
    EXPECT_EQ(back[1].kernel, rows[1].kernel);
    EXPECT_EQ(back[2].conv.key(), rows[2].conv.key());
    EXPECT_DOUBLE_EQ(back[3].timeSeconds, rows[3].timeSeconds);

    std::istringstream noEngine("batch,in_channels,in_width,out_channels,out_width,kernel_width,"
                                "stride,padding,time_s\n1,2,3,4,5,6,1,0,1e-3\n");
    try {
        readDataset(noEngine, "x.csv");
        FAIL() << "a data set without an engine column was read";
    } catch (const SeerError& e) {
        EXPECT_NE(std::string(e.what()).find("x.csv: no column 'engine'"), std::string::npos);
    }
    std::istringstream badCell("batch,in_channels,in_width,out_channels,out_width,kernel_width,"
                               "stride,padding,engine,time_s\n1,2,three,4,5,6,1,0,e,1e-3\n");
    try {
        readDataset(badCell, "y.csv");
        FAIL() << "a non-number was read";
    } catch (const SeerError& e) {
        EXPECT_NE(std::string(e.what()).find("y.csv:2: column 'in_width': 'three'"),
                  std::string::npos)
            << e.what();
    }
}

TEST(SeerData, ReadsSeersOneLineFormat) {
    std::istringstream in("# batch in_c in_w out_c out_w k stride pad\n"
                          "32 64 56 64 56 3 1 1\n\n16 3 224 64 112 7 2 3  # stem\n");
    const auto configs = readSeerConfigs(in, "layers.txt");
    ASSERT_EQ(configs.size(), 2u);
    EXPECT_EQ(configs[1].key(), "16 3 224 64 112 7 2 3");
    EXPECT_DOUBLE_EQ(configs[0].macs(), 32.0 * 64 * 56 * 56 * 64 * 9);
    EXPECT_THROW(parseSeerLine("1 2 3", "l:1"), SeerError);
    EXPECT_THROW(parseSeerLine("1 2 3 4 5 6 0 0", "l:1"), SeerError); // stride 0
}

TEST(SeerData, TheSplitIsDeterministicAndNearSeventyThirty) {
    std::size_t test = 0;
    const auto configs = sweep();
    for (const auto& c : configs)
        test += isTestConfig(c) ? 1 : 0;
    const double share = static_cast<double>(test) / static_cast<double>(configs.size());
    EXPECT_GT(share, 0.15);
    EXPECT_LT(share, 0.45);
    EXPECT_EQ(isTestConfig(configs[5]), isTestConfig(configs[5]));
}

TEST(SeerModel, TheModelFileRoundTrips) {
    const Model m = Model::fit(dataset(), kRoofs);
    const Model back = Model::fromJson(m.toJson(), "model.json");
    ASSERT_EQ(back.engines.size(), m.engines.size());
    const ConvParams c{4, 32, 14, 64, 14, 3, 1, 1};
    for (const auto& [name, e] : m.engines)
        EXPECT_DOUBLE_EQ(back.engines.at(name).predict(c, back.roofs).seconds,
                         e.predict(c, m.roofs).seconds)
            << name;
    EXPECT_THROW(Model::fromJson("{\"format\": \"other\"}", "x.json"), SeerError);
}

TEST(SeerData, RooflineConvCasesBecomeRowsOnlyWhenVerifiedAndDescribable) {
    using workloads::CaseResult;
    using workloads::CaseStatus;
    auto kernel = [](double fp32, double tensor, double dram, std::uint32_t blocks) {
        KernelRecord k;
        k.measured = true;
        k.flops[static_cast<std::size_t>(FlopKind::FP32)] = fp32;
        k.flops[static_cast<std::size_t>(FlopKind::TensorTF32)] = tensor;
        k.bytes[static_cast<std::size_t>(MemoryLevel::DRAM)] = dram;
        k.grid = {blocks, 2, 1};
        k.timeSeconds = blocks * 1e-7;
        k.residentBlocksPerSm = blocks > 50 ? 4 : 8;
        k.waves = blocks > 50 ? 2 : 1;
        return k;
    };
    CaseResult good;
    good.status = CaseStatus::Passed;
    good.verified = true;
    good.seerConfig = "32 64 56 64 56 3 1 1";
    good.precision = "tf32";
    good.pass = "fwd";
    good.algorithm = "eng1 (tensor_core)";
    good.eventMedianSeconds = 2e-4;
    good.heuristicRank = 0;
    good.records = {kernel(1e6, 3e9, 5e7, 100), kernel(2e5, 0, 1e6, 10)};
    good.records[0].name = "sm90_xmma_fprop_implicit_gemm";
    good.records[1].name = "cask_cudnn::computeOffsetsKernel";
    CaseResult unverified = good;
    unverified.verified = false;
    CaseResult threeD = good;
    threeD.seerConfig.clear();
    CaseResult failed = good;
    failed.status = CaseStatus::VerifyFailed;
    std::map<std::string, std::size_t> skipped;
    const auto rows = rowsFromCases({good, unverified, threeD, failed}, &skipped);
    ASSERT_EQ(rows.size(), 1u);
    const SeerRow& r = rows[0];
    EXPECT_EQ(r.conv.key(), "32 64 56 64 56 3 1 1");
    EXPECT_EQ(r.engine, "eng1 (tensor_core)");
    EXPECT_EQ(r.precision, "tf32");
    EXPECT_DOUBLE_EQ(r.timeSeconds, 2e-4);
    EXPECT_DOUBLE_EQ(r.flops, 1e6 + 3e9 + 2e5);
    EXPECT_DOUBLE_EQ(r.tensorFlops, 3e9);
    EXPECT_DOUBLE_EQ(r.dramBytes, 5e7 + 1e6);
    EXPECT_DOUBLE_EQ(r.blocks, 200 + 20);
    EXPECT_DOUBLE_EQ(r.waves, 2 + 1);
    EXPECT_DOUBLE_EQ(r.residentBlocks, 4); // the dominant (longest) kernel's
    EXPECT_EQ(r.kernel, "sm90_xmma_fprop_implicit_gemm");
    EXPECT_EQ(r.heuristicRank, 0);
    EXPECT_EQ(skipped.at("not verified"), 1u);
    EXPECT_EQ(skipped.size(), 3u);
}

TEST(SeerData, ConvCasesSayTheirSeerFormWhenTheyHaveOne) {
    const auto square = workloads::parseConvSpec("n=32 c=64 size=56 k=64 kernel=3 pad=1", {});
    ASSERT_FALSE(square.empty()); // one case per pass
    EXPECT_EQ(square[0].seerLine(), "32 64 56 64 56 3 1 1");
    const auto strided =
        workloads::parseConvSpec("n=16 c=3 size=224 k=64 kernel=7 stride=2 pad=3", {});
    EXPECT_EQ(strided[0].seerLine(), "16 3 224 64 112 7 2 3");
    const auto grouped = workloads::parseConvSpec("n=1 c=8 size=8 k=8 kernel=3 pad=1 groups=2", {});
    EXPECT_EQ(grouped[0].seerLine(), "");
}

} // namespace
} // namespace roofline::seer

namespace roofline::seer {

// Many random held-out sets of configurations: deterministic per seed, every engine of a
// configuration on the same side, and on the recorded H100 sweep the spread the docs report.
TEST(SeerSplits, HeldOutSetsAreDeterministicWholeConfigurations) {
    EXPECT_DOUBLE_EQ(percentile({}, 50), 0);
    EXPECT_DOUBLE_EQ(percentile({4, 1, 3, 2}, 50), 2.5);
    EXPECT_DOUBLE_EQ(percentile({1, 2, 3, 4, 5}, 10), 1.4);
    EXPECT_DOUBLE_EQ(percentile({1, 2, 3, 4, 5}, 100), 5);
    std::ifstream in(ROOFLINE_FIXTURE_DIR "/h100_seer_sweep.csv");
    ASSERT_TRUE(in) << "fixture missing";
    const auto rows = readDataset(in, "h100_seer_sweep.csv");
    const auto a = heldOutConfigs(rows, 0.3, 7), b = heldOutConfigs(rows, 0.3, 7);
    EXPECT_EQ(a, b);
    EXPECT_EQ(a.size(), 25u); // 30% of 84
    EXPECT_NE(heldOutConfigs(rows, 0.3, 8), a);
    const Roofs roofs{6.61e13, 4.70e14, 3.13e12, 132, 7.67e12};
    SplitsOptions o;
    o.splits = 20;
    const SplitsSummary s = evaluateSplits(rows, roofs, o);
    ASSERT_EQ(s.splits.size(), 20u);
    std::vector<double> within, heuristic, rmspe;
    for (const auto& f : s.splits) {
        EXPECT_EQ(f.trainConfigs + f.testConfigs, 84u);
        EXPECT_EQ(f.testConfigs, 25u);
        EXPECT_GT(f.testRows, 100u);
        EXPECT_NEAR(f.errorRate, 1 - f.within10, 1e-12);
        within.push_back(f.within10);
        heuristic.push_back(f.heuristicWithin10);
        rmspe.push_back(f.rmspe);
    }
    // The model picks within 10% of the best more often than cuDNN's heuristic, over the splits;
    // its RMSPE over every test row is in the 10-18% band (docs/seer.md, "Many splits").
    EXPECT_GT(percentile(within, 50), percentile(heuristic, 50));
    EXPECT_GT(percentile(rmspe, 50), 0.10);
    EXPECT_LT(percentile(rmspe, 50), 0.18);
    std::ostringstream out;
    printSplitsSummary(s, out);
    EXPECT_NE(out.str().find("20 random splits (seeds 1..20) of 84 configurations, 30% held out"),
              std::string::npos)
        << out.str();
    EXPECT_NE(out.str().find("heuristic within 10% of the best"), std::string::npos);
    EXPECT_NE(out.str().find("eng70"), std::string::npos);
}

// The time model chosen per engine by cross-validation on its training configurations: an
// engine whose time is a power law of its work, floored (a kernel that never runs faster than its
// launch), is the log-linear model's; the formula engines above stay structural.
TEST(SeerSelection, CrossValidationChoosesTheModelThatPredictsHeldOutConfigurations) {
    std::vector<SeerRow> rows;
    for (const auto& c : sweep()) {
        SeerRow r = row(kEngines[0], c);
        r.engine = "eng9 (power law)";
        r.timeSeconds = std::max(12e-6, 3e-10 * std::pow(c.macs(), 0.7));
        rows.push_back(r);
    }
    std::vector<SeerRow> train, test;
    for (const auto& r : rows)
        (isTestConfig(r.conv) ? test : train).push_back(r);
    const Model m = Model::fit(train, kRoofs);
    ASSERT_EQ(m.engines.size(), 1u);
    const EngineModel& e = m.engines.begin()->second;
    ASSERT_EQ(e.logLinear.size(), kLogFeatures);
    EXPECT_GT(e.floorSeconds, 5e-6); // a floor near the fastest training time
    EXPECT_LE(e.floorSeconds, 12e-6);
    const RowEvaluation ev = evaluateRows(m, test);
    ASSERT_EQ(ev.engines.size(), 1u);
    EXPECT_LT(ev.engines[0].medianApe, 0.10);
    EXPECT_EQ(ev.engines[0].timeModel.rfind("log-linear, floor", 0), 0u) << ev.engines[0].timeModel;
    // structural only: the same engine predicted far worse
    const RowEvaluation structural = evaluateRows(Model::fit(train, kRoofs, false), test);
    EXPECT_GT(structural.engines[0].medianApe, 2 * ev.engines[0].medianApe);
    // the formula engines keep the structural model, exact on them
    const Model formulas = Model::fit(dataset(), kRoofs);
    for (const auto& [name, f] : formulas.engines)
        EXPECT_TRUE(f.logLinear.empty()) << name;
    // the choice survives the model file
    const Model back = Model::fromJson(m.toJson(), "m.json");
    const EngineModel& b = back.engines.begin()->second;
    EXPECT_EQ(b.logLinear, e.logLinear);
    EXPECT_EQ(b.floorSeconds, e.floorSeconds);
    const ConvParams c{16, 64, 28, 128, 28, 3, 1, 1};
    EXPECT_DOUBLE_EQ(b.predict(c, kRoofs).seconds, e.predict(c, kRoofs).seconds);
}

// On the H100 sweep, over the same random splits, the cross-validated choice picks engines
// within 10% of the best more often, and loses less time, than the structural model alone.
TEST(SeerSelection, OnTheH100SweepTheChoiceBeatsTheStructuralModelAlone) {
    std::ifstream in(ROOFLINE_FIXTURE_DIR "/h100_seer_sweep.csv");
    ASSERT_TRUE(in) << "fixture missing";
    const auto rows = readDataset(in, "h100_seer_sweep.csv");
    const Roofs roofs{6.61e13, 4.70e14, 3.13e12, 132, 7.67e12};
    SplitsOptions o;
    o.splits = 20;
    const SplitsSummary chosen = evaluateSplits(rows, roofs, o);
    o.select = false;
    const SplitsSummary structural = evaluateSplits(rows, roofs, o);
    const auto median = [](const SplitsSummary& s, double SplitFigures::*f) {
        std::vector<double> v;
        for (const auto& x : s.splits)
            v.push_back(x.*f);
        return percentile(v, 50);
    };
    EXPECT_GT(median(chosen, &SplitFigures::within10), median(structural, &SplitFigures::within10));
    EXPECT_LT(median(chosen, &SplitFigures::meanLost), median(structural, &SplitFigures::meanLost));
    EXPECT_LT(median(chosen, &SplitFigures::rmspe), median(structural, &SplitFigures::rmspe));
}

} // namespace roofline::seer
