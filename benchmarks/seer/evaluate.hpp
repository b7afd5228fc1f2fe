#pragma once
/// \file evaluate.hpp
/// SEER's two evaluations (docs/design/0012-seer-model.md): per engine, the time error on held-out
/// rows (Test-set-I); per held-out configuration, the engine the model picks against the measured
/// best and against cuDNN's heuristic (Test-set-II). Pure C++.
#include "seer/model.hpp"

#include <iosfwd>
#include <string>
#include <vector>

namespace roofline::seer {

struct EngineError {
    std::string engine;
    std::size_t trainingRows = 0, testRows = 0;
    double medianApe = 0, meanApe = 0; ///< absolute percentage error, as a fraction
    double within10 = 0;               ///< share of test rows within 10%
    /// Share of the test rows with a measured bound whose predicted class (compute or memory)
    /// is the measured one, SEER's classification; -1 when no row has a measured bound.
    double boundAgreement = -1;
    /// Where the error comes from: median absolute percentage errors of the time model fed the
    /// row's measured metrics, and of each predicted metric (-1: none measured).
    double timeOnMeasuredApe = -1, flopsApe = -1, dramApe = -1, blocksApe = -1;
    /// The time model cross-validation chose: "structural", or "log-linear" with its floor.
    std::string timeModel = "structural";
};

struct TimePoint {
    std::string engine, config;
    double measured = 0, predicted = 0;
    double onMeasuredMetrics = 0; ///< the time model fed the row's measured metrics
};

struct RowEvaluation {
    std::vector<EngineError> engines; ///< modelled engines with test rows, by name
    std::vector<TimePoint> points;
    std::size_t unmodelledRows = 0; ///< test rows of engines without a model
};
RowEvaluation evaluateRows(const Model& model, const std::vector<SeerRow>& testRows);

struct Choice {
    std::string config;
    std::string predicted, best, heuristic; ///< engines; heuristic "" when not recorded
    double predictedTime = 0, bestTime = 0, heuristicTime = 0; ///< measured times
    std::size_t candidates = 0; ///< measured engines the model could rank
};

struct ChoiceEvaluation {
    std::vector<Choice> configs;
    double top1 = 0;     ///< share where the predicted engine is the measured best
    double within10 = 0; ///< share where its measured time is within 10% of the best
    double meanLost = 0; ///< mean (predicted engine's time / best - 1)
    double heuristicTop1 = 0, heuristicWithin10 = 0, heuristicMeanLost = 0;
    std::size_t withHeuristic = 0; ///< configurations whose heuristic pick is known
    double totalPredicted = 0, totalBest = 0, totalHeuristic = 0; ///< summed measured times
};
/// One configuration's measured engines (one pass) as the model ranks them: the modelled engine
/// with the least predicted time, the measured best, and cuDNN's heuristic pick (null if absent).
struct Pick {
    const SeerRow* pick = nullptr;
    double predicted = 0; ///< the pick's predicted seconds
    const SeerRow* best = nullptr;
    const SeerRow* heuristic = nullptr;
    std::size_t candidates = 0; ///< measured engines the model could rank
};
Pick pickEngine(const Model& model, const std::vector<const SeerRow*>& rows);

/// Per configuration of `testRows` (every engine measured on it), the modelled engine with the
/// least predicted time against the measured times.
ChoiceEvaluation evaluateChoices(const Model& model, const std::vector<SeerRow>& testRows);

void printRowEvaluation(const RowEvaluation& e, std::ostream& out);
/// Every test row: engine, configuration, measured and predicted time, and the time model's on the
/// row's measured metrics (evaluate --rows).
void printRows(const RowEvaluation& e, std::ostream& out);
void printChoiceEvaluation(const ChoiceEvaluation& e, std::ostream& out);

/// The evaluation page: Test-set-I's per-engine table and Test-set-II's summary as HTML, with the
/// predicted-against-measured scatter (one colour per engine) embedded.
std::string evaluationHtml(const RowEvaluation& rows, const ChoiceEvaluation& choices,
                           const std::string& title);
/// The scatter alone (SVG).
std::string scatterOf(const RowEvaluation& rows, const std::string& title);

/// Predicted time per modelled engine for one configuration, fastest first.
std::vector<std::pair<std::string, Prediction>> rankEngines(const Model& model,
                                                            const ConvParams& conv);

} // namespace roofline::seer
