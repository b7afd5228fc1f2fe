#pragma once
/// \file model.hpp
/// SEER's kernel-time model, per cuDNN engine (docs/design/0012-seer-model.md):
/// - static metrics (FLOPs, tensor FLOPs, launched blocks) as polynomials of the convolution's
///   parameters: linear combinations of the monomials the convolution's algebra produces;
/// - the dynamic metric (DRAM bytes) by regression on the tensors' sizes;
/// - a bound classification and the time from the measured roofs: constant + compute time +
///   memory time + waves, with non-negative coefficients.
/// Fitted by least squares on relative error (Eigen). Pure C++.
#include "seer/dataset.hpp"

#include <map>
#include <string>
#include <vector>

namespace roofline::seer {

/// The roofs the time model divides by (from a ceilings file, or the datasheet).
struct Roofs {
    double cudaFlopsPerSecond = 0;   ///< the precision's CUDA-core FLOP roof
    double tensorFlopsPerSecond = 0; ///< the precision's tensor roof
    double dramBytesPerSecond = 0;
    double smCount = 0;
};

/// The monomials a metric is a combination of.
enum class Term { One, Macs, Output, Input, Filter, Batch };
const char* toString(Term t);
double termValue(Term t, const ConvParams& c);

/// One metric as sum_i coefficients[i] * termValue(terms[i]), fitted on relative error.
struct MetricFit {
    std::vector<Term> terms;
    std::vector<double> coefficients; ///< empty: not fitted (no data for this metric)
    double predict(const ConvParams& c) const;
};

/// What the model says of one configuration and engine.
struct Prediction {
    double flops = 0, tensorFlops = 0, dramBytes = 0, blocks = 0, waves = 0;
    double computeSeconds = 0, memorySeconds = 0; ///< at the roofs
    double seconds = 0;
    std::string bound; ///< "compute" or "memory": the larger of the fitted time terms
};

struct EngineModel {
    std::size_t trainingRows = 0;
    MetricFit flops, tensorFlops, dramBytes, blocks;
    double residentBlocks = 0; ///< median of the training rows' (0: unknown; waves unused)
    /// seconds = time[0] + time[1] * compute s + time[2] * memory s + time[3] * waves
    std::vector<double> time;
    Prediction predict(const ConvParams& c, const Roofs& roofs) const;
};

struct Model {
    Roofs roofs;
    std::map<std::string, EngineModel> engines;
    /// Engines with fewer training rows than this are not modelled (listed in `skipped`).
    static constexpr std::size_t kMinimumRows = 8;
    std::map<std::string, std::size_t> skipped;

    /// Fits one EngineModel per engine on `rows` (all of them: split first).
    static Model fit(const std::vector<SeerRow>& rows, const Roofs& roofs);
    std::string toJson() const;
    static Model fromJson(const std::string& text, const std::string& name);
};

/// The median of `values` (0 when empty).
double median(std::vector<double> values);

/// Least squares on relative error: minimizes sum_i ((x_i . beta - y_i) / y_i)^2 over rows with
/// y_i > 0, with beta >= 0 when `nonNegative` (terms with a negative coefficient are dropped and
/// the rest fitted again). Columns are scaled before a rank-revealing QR. Exposed for tests.
std::vector<double> relativeLeastSquares(const std::vector<std::vector<double>>& x,
                                         const std::vector<double>& y, bool nonNegative);

} // namespace roofline::seer
