#pragma once
/// \file selection.hpp
/// Each engine's time model chosen by cross-validation on its own training configurations:
/// SEER's structural model (metrics through the roofs, model.hpp) or a log-linear model of the
/// configuration -- log(seconds) linear in the logarithms of its work, tensor sizes, predicted
/// blocks and waves -- floored at a fraction of the engine's fastest training time. The
/// structural model extrapolates by its physics; the log-linear one follows engines whose time the
/// roofs explain poorly (FFT, Winograd, small GEMMs). The floor and the choice are made on the
/// training configurations alone (5 folds), so the held-out ones never tune them. Pure C++.
#include "seer/model.hpp"

namespace roofline::seer {

/// Features of the log-linear model: 1, log MACs, log padded MACs (the FLOPs the engine's fit
/// predicts), log input, output and filter sizes, log blocks and log waves (predicted).
inline constexpr std::size_t kLogFeatures = 8;
std::vector<double> logFeatures(const ConvParams& c, const Prediction& metrics);

/// max(floor, exp(beta . logFeatures)).
double logLinearSeconds(const std::vector<double>& beta, double floorSeconds, const ConvParams& c,
                        const Prediction& metrics);

/// Least squares in log space (a small ridge keeps collinear features stable) on `rows`, each
/// with the metrics `engine` predicts for it.
std::vector<double> fitLogLinear(const EngineModel& engine, const std::vector<const SeerRow*>& rows,
                                 const Roofs& roofs);

/// Boosted trees (seer/boosted.hpp, default options) on the rows' log seconds; with `corrected`
/// (a structural model), on the log of the rows' seconds over its prediction instead.
BoostedTrees fitBoosted(const std::vector<const SeerRow*>& rows,
                        const EngineModel* corrected = nullptr, const Roofs& roofs = {});

/// Floors tried, as fractions of the engine's fastest training time.
inline constexpr double kFloorFractions[] = {0.0, 0.5, 0.8, 0.95};

/// Chooses `engine`'s time model (fitted structurally on `rows`) by 5-fold cross-validation on
/// `rows`: the structural model, the log-linear one with each floor, or boosted trees, whichever
/// has the least RMSPE over the held-out folds; fills engine.logLinear and floorSeconds, or
/// engine.boosted, when that one wins. Fewer than 10 rows: the structural model stays.
void chooseTimeModel(EngineModel& engine, const std::vector<const SeerRow*>& rows,
                     const Roofs& roofs);

} // namespace roofline::seer
