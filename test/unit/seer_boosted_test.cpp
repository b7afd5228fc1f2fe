// SEER's boosted-tree time models on the CPU: the trees recover known piecewise functions, the
// forest round-trips and malformed ones are refused by name, and cross-validation gives an engine
// whose time has a regime the roofline terms miss the trees that correct them.
#include "seer/boosted.hpp"
#include "seer/evaluate.hpp"
#include "seer/model.hpp"
#include "seer/sample.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace roofline::seer {
namespace {

const Roofs kRoofs{60e12, 400e12, 3e12, 132};

TEST(SeerBoosted, TreesRecoverAStepAndASlope) {
    // y = 2 for x0 <= 0.5 else 5, plus 0.5 x1 (x1 in 0..1), x2 is noise the trees must ignore
    std::vector<std::vector<double>> x;
    std::vector<double> y;
    for (int i = 0; i < 400; ++i) {
        const double a = (i % 20) / 20.0, b = (i / 20) / 20.0, junk = ((i * 7919) % 101) / 101.0;
        x.push_back({a, b, junk});
        y.push_back((a <= 0.5 ? 2.0 : 5.0) + 0.5 * b);
    }
    const BoostedTrees t = BoostedTrees::fit(x, y);
    ASSERT_EQ(t.trees.size(), 300u);
    double worst = 0;
    for (std::size_t i = 0; i < x.size(); ++i)
        worst = std::max(worst, std::abs(t.predict(x[i]) - y[i]));
    EXPECT_LT(worst, 0.1);
    EXPECT_NEAR(t.predict({0.2, 0.5, 0.3}), 2.25, 0.1);
    EXPECT_NEAR(t.predict({0.8, 0.5, 0.9}), 5.25, 0.1);
    // The first split is the step: feature 0, threshold between its two sides.
    ASSERT_GE(t.trees[0][0].feature, 0);
    EXPECT_EQ(t.trees[0][0].feature, 0);
    EXPECT_GE(t.trees[0][0].threshold, 0.5);
    EXPECT_LT(t.trees[0][0].threshold, 0.55);
    // The same data and seed grow the same forest.
    EXPECT_EQ(BoostedTrees::fit(x, y).toJson(), t.toJson());
}

TEST(SeerBoosted, TheForestRoundTripsAndMalformedOnesAreRefused) {
    std::vector<std::vector<double>> x;
    std::vector<double> y;
    SampleOptions o;
    o.count = 120;
    for (const auto& c : sampleConfigs(o)) {
        x.push_back(configFeatures(c));
        y.push_back(std::log(1e-6 + 1e-12 * c.macs()));
    }
    const BoostedTrees t = BoostedTrees::fit(x, y);
    const BoostedTrees back = BoostedTrees::fromJson(t.toJson(), kConfigFeatures);
    ASSERT_EQ(back.trees.size(), t.trees.size());
    for (const auto& row : x)
        EXPECT_DOUBLE_EQ(back.predict(row), t.predict(row));
    const auto refused = [](const std::string& json, const std::string& says) {
        try {
            BoostedTrees::fromJson(json, 3);
            ADD_FAILURE() << json << " was read";
        } catch (const SeerError& e) {
            EXPECT_NE(std::string(e.what()).find(says), std::string::npos) << e.what();
        }
    };
    refused(R"({"base":0,"trees":[[[0,1.0,0,2],[1.0],[2.0]]]})", "node 0"); // child is itself
    refused(R"({"base":0,"trees":[[[3,1.0,1,2],[1.0],[2.0]]]})", "node 0"); // feature 3 of 3
    refused(R"({"base":0,"trees":[[[0,1.0,1,5],[1.0],[2.0]]]})", "node 0"); // child past the end
    refused(R"({"base":0,"trees":[[]]})", "1 to 65,536 nodes");
    refused(R"({"base":0,"trees":[[["a"]]]})", "neither [value]");
    refused(R"({"trees":[]})", "base");
    EXPECT_DOUBLE_EQ(BoostedTrees::fromJson(R"({"base":1,"trees":[[[0,0.5,1,2],[1.0],[2.0]]]})", 3)
                         .predict({0.7, 0, 0}),
                     3.0);
}

// An engine whose time the roofline terms follow except in one regime: 1x1 filters run 3x
// slower (another kernel). Cross-validation gives it boosted trees -- alone or correcting the
// structural model -- and the held-out configurations are predicted within a few percent.
TEST(SeerBoosted, CrossValidationGivesARegimeTheTermsMissToTheTrees) {
    SampleOptions o;
    o.count = 300;
    o.seed = 3;
    std::vector<SeerRow> train, test;
    for (const auto& c : sampleConfigs(o)) {
        SeerRow r;
        r.conv = c;
        r.engine = "eng5";
        r.flops = 2 * c.macs();
        r.dramBytes = 4 * (c.batch * c.inChannels * c.inWidth * c.inWidth +
                           c.batch * c.outChannels * c.outWidth * c.outWidth);
        r.blocks =
            std::ceil(c.batch * c.outWidth * c.outWidth / 128) * std::ceil(c.outChannels / 64);
        r.timeSeconds =
            (5e-6 + r.flops / 30e12 + r.dramBytes / 2e12) * (c.kernelWidth == 1 ? 3 : 1);
        (isTestConfig(c) ? test : train).push_back(r);
    }
    const Model m = Model::fit(train, kRoofs);
    const EngineModel& e = m.engines.at("eng5");
    EXPECT_FALSE(e.boosted.empty());
    const RowEvaluation chosen = evaluateRows(m, test);
    const RowEvaluation structural = evaluateRows(Model::fit(train, kRoofs, false), test);
    ASSERT_EQ(chosen.engines.size(), 1u);
    EXPECT_LT(chosen.engines[0].medianApe, 0.05);
    EXPECT_GT(structural.engines[0].medianApe, 2 * chosen.engines[0].medianApe);
    EXPECT_NE(chosen.engines[0].timeModel.find("boosted trees"), std::string::npos)
        << chosen.engines[0].timeModel;
    // The choice survives the model file, predictions included.
    const Model back = Model::fromJson(m.toJson(), "m.json");
    const EngineModel& b = back.engines.at("eng5");
    EXPECT_EQ(b.boostedCorrects, e.boostedCorrects);
    for (const auto& r : test)
        EXPECT_DOUBLE_EQ(b.predict(r.conv, kRoofs).seconds, e.predict(r.conv, kRoofs).seconds);
}

} // namespace
} // namespace roofline::seer
