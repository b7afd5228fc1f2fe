#include "seer/selection.hpp"

#include <Eigen/Dense>

#include <algorithm>
#include <cmath>
#include <limits>

namespace roofline::seer {
namespace {

double logOf(double v) {
    return std::log(std::max(v, 1.0));
}

} // namespace

std::vector<double> logFeatures(const ConvParams& c, const Prediction& m) {
    return {1.0,
            logOf(c.macs()),
            logOf(m.flops),
            logOf(termValue(Term::Input, c)),
            logOf(termValue(Term::Output, c)),
            logOf(termValue(Term::Filter, c)),
            logOf(m.blocks),
            std::log(std::max(m.waves, 1.0))};
}

double logLinearSeconds(const std::vector<double>& beta, double floorSeconds, const ConvParams& c,
                        const Prediction& metrics) {
    const auto f = logFeatures(c, metrics);
    double v = 0;
    for (std::size_t i = 0; i < beta.size() && i < f.size(); ++i)
        v += beta[i] * f[i];
    return std::max(floorSeconds, std::exp(std::clamp(v, -60.0, 60.0)));
}

std::vector<double> fitLogLinear(const EngineModel& engine, const std::vector<const SeerRow*>& rows,
                                 const Roofs& roofs) {
    const auto n = static_cast<Eigen::Index>(rows.size());
    const auto k = static_cast<Eigen::Index>(kLogFeatures);
    Eigen::MatrixXd x(n + k, k);
    Eigen::VectorXd y(n + k);
    for (Eigen::Index i = 0; i < n; ++i) {
        const SeerRow& r = *rows[static_cast<std::size_t>(i)];
        const auto f = logFeatures(r.conv, engine.predict(r.conv, roofs));
        for (Eigen::Index j = 0; j < k; ++j)
            x(i, j) = f[static_cast<std::size_t>(j)];
        y(i) = std::log(r.timeSeconds);
    }
    // ridge rows (not on the intercept): a feature the rows do not vary is held near 0
    constexpr double kRidge = 1e-3;
    for (Eigen::Index j = 0; j < k; ++j) {
        x.row(n + j).setZero();
        x(n + j, j) = j == 0 ? 0.0 : std::sqrt(kRidge * static_cast<double>(n));
        y(n + j) = 0;
    }
    const Eigen::VectorXd beta = x.colPivHouseholderQr().solve(y);
    return std::vector<double>(beta.data(), beta.data() + beta.size());
}

BoostedTrees fitBoosted(const std::vector<const SeerRow*>& rows, const EngineModel* corrected,
                        const Roofs& roofs) {
    std::vector<std::vector<double>> x;
    std::vector<double> y;
    for (const SeerRow* r : rows) {
        if (corrected) {
            const double structural = std::max(corrected->predict(r->conv, roofs).seconds, 1e-9);
            x.push_back(correctionFeatures(r->conv, structural));
            y.push_back(std::log(r->timeSeconds / structural));
        } else {
            x.push_back(configFeatures(r->conv));
            y.push_back(boostedTarget(r->conv, r->timeSeconds));
        }
    }
    return BoostedTrees::fit(x, y);
}

void chooseTimeModel(EngineModel& engine, const std::vector<const SeerRow*>& rows,
                     const Roofs& roofs) {
    constexpr std::size_t kFolds = 5;
    if (rows.size() < 2 * kFolds)
        return;
    constexpr std::size_t kFloors = std::size(kFloorFractions);
    // squared log errors over the held-out folds: [0] structural, [1 + f] log-linear,
    // [1 + kFloors] boosted trees, [2 + kFloors] the structural model corrected by boosted trees
    std::vector<double> squared(3 + kFloors, 0.0);
    std::size_t count = 0;
    for (std::size_t fold = 0; fold < kFolds; ++fold) {
        std::vector<const SeerRow*> train, held;
        for (std::size_t i = 0; i < rows.size(); ++i) // rows interleave configurations
            (i % kFolds == fold ? held : train).push_back(rows[i]);
        const EngineModel structural = fitEngine(train, roofs);
        const std::vector<double> beta = fitLogLinear(structural, train, roofs);
        const BoostedTrees trees = fitBoosted(train);
        const BoostedTrees correction = fitBoosted(train, &structural, roofs);
        double fastest = std::numeric_limits<double>::max();
        for (const SeerRow* r : train)
            fastest = std::min(fastest, r->timeSeconds);
        for (const SeerRow* r : held) {
            const Prediction p = structural.predict(r->conv, roofs);
            // Squared log ratio: an engine predicted 2x too fast costs what one predicted 2x too
            // slow does (relative error would bound the first at 100% and favour models that
            // under-predict -- the ones whose engine then gets picked wrongly).
            const auto err = [&](double predicted) {
                const double e = std::log(std::max(predicted, 1e-12) / r->timeSeconds);
                return e * e;
            };
            squared[0] += err(p.seconds);
            for (std::size_t f = 0; f < kFloors; ++f)
                squared[1 + f] +=
                    err(logLinearSeconds(beta, kFloorFractions[f] * fastest, r->conv, p));
            squared[1 + kFloors] += err(boostedSeconds(trees, r->conv));
            squared[2 + kFloors] += err(correctedSeconds(correction, r->conv, p.seconds));
            ++count;
        }
    }
    if (count == 0)
        return;
    const auto best = static_cast<std::size_t>(std::min_element(squared.begin(), squared.end()) -
                                               squared.begin());
    if (best == 0)
        return; // the structural model predicts the held-out folds best
    if (best == 1 + kFloors) {
        engine.boosted = fitBoosted(rows);
        return;
    }
    if (best == 2 + kFloors) {
        engine.boosted = fitBoosted(rows, &engine, roofs);
        engine.boostedCorrects = true;
        return;
    }
    double fastest = std::numeric_limits<double>::max();
    for (const SeerRow* r : rows)
        fastest = std::min(fastest, r->timeSeconds);
    engine.logLinear = fitLogLinear(engine, rows, roofs);
    engine.floorSeconds = kFloorFractions[best - 1] * fastest;
}

} // namespace roofline::seer
