#pragma once
/// \file model.hpp
/// SEER's kernel-time model, per cuDNN engine (docs/design/0012-seer-model.md):
/// - static metrics (FLOPs, tensor FLOPs, launched blocks) as polynomials of the convolution's
///   parameters: linear combinations of the monomials the convolution's algebra produces;
/// - the dynamic metric (DRAM bytes) by regression on the tensors' sizes;
/// - a bound classification and the time from the measured roofs: constant + compute time +
///   memory time + waves, with non-negative coefficients.
/// Fitted by least squares on relative error (Eigen). Pure C++.
#include "seer/boosted.hpp"
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
    double l2BytesPerSecond = 0; ///< 0: no L2 term in the time model
};

/// The tile a GEMM-like engine computes its output in: output pixels (N Q^2, the GEMM's rows)
/// and output channels (K, its columns) are each rounded up to a multiple. 1: no rounding.
struct Tiling {
    double pixels = 1, channels = 1;
};

/// The monomials a metric is a combination of. The padded ones round the output to `Tiling`:
/// PaddedMacs = ceil(N Q^2 / tp) tp * ceil(K / tk) tk * C R^2, PaddedOutput = the padded output,
/// Tiles = ceil(N Q^2 / tp) * ceil(K / tk). Transform engines (FFT): with F the padded input's
/// width rounded up to a power of two, SpectralMacs = N K C F^2 (the pointwise products) and
/// Transforms = (N C + N K + K C) F^2 log2 F (the transforms of inputs, outputs and filters);
/// Planes = N C + N K + K C, the planes transformed (a block each, for some kernels).
enum class Term {
    One,
    Macs,
    Output,
    Input,
    Filter,
    Batch,
    PaddedMacs,
    PaddedOutput,
    Tiles,
    SpectralMacs,
    Transforms,
    Planes
};
const char* toString(Term t);
double termValue(Term t, const ConvParams& c, const Tiling& tiling = {});

/// One metric as sum_i coefficients[i] * termValue(terms[i], tiling), fitted on relative error;
/// the tiling is the one of the candidates that fits the training rows best.
struct MetricFit {
    std::vector<Term> terms;
    std::vector<double> coefficients; ///< empty: not fitted (no data for this metric)
    Tiling tiling;
    double predict(const ConvParams& c) const;
};

/// What the model says of one configuration and engine.
struct Prediction {
    double flops = 0, tensorFlops = 0, dramBytes = 0, l2Bytes = 0, blocks = 0, waves = 0;
    double computeSeconds = 0, memorySeconds = 0; ///< at the roofs (memory: DRAM and L2)
    double seconds = 0;
    std::string bound; ///< "compute" or "memory": the larger of the fitted time terms
};

struct EngineModel {
    std::size_t trainingRows = 0;
    MetricFit flops, tensorFlops, dramBytes, l2Bytes, blocks;
    double residentBlocks = 0; ///< median of the training rows' (0: unknown; waves unused)
    /// seconds = time . (1, compute s, busiest-SM s, serial s, DRAM s, L2 s, waves), c >= 0:
    /// compute s is the work at the roofs; busiest-SM s the work of the SM with the most blocks
    /// at one SM's share of the roofs (it grows as blocks fall short of a multiple of the SMs);
    /// serial s one block's work at one SM's share, once per wave (latency-bound kernels with
    /// few blocks and long loops); DRAM s and L2 s the bytes at their roofs.
    std::vector<double> time;
    /// The other time model (seer/selection.hpp): log(seconds) linear in the logarithms of the
    /// configuration's features (logFeatures), floored at `floorSeconds`. Used instead of `time`
    /// when cross-validation on the training configurations chose it; empty: not chosen.
    std::vector<double> logLinear;
    double floorSeconds = 0;
    /// The third time model (seer/boosted.hpp): boosted trees on log seconds of the
    /// configuration's features. Used instead of the others when cross-validation chose it.
    BoostedTrees boosted;
    /// The boosted trees correct the structural model instead: they predict log(seconds /
    /// structural seconds) from the configuration's features and the structural log seconds
    /// (correctionFeatures), so the roofline terms carry the scale and the trees the regimes the
    /// terms miss (one block of a long loop, a variant switch).
    bool boostedCorrects = false;
    Prediction predict(const ConvParams& c, const Roofs& roofs) const;
    /// The time model alone, on given metrics (FLOPs, tensor FLOPs, bytes, blocks, waves of `m`):
    /// `m` with its seconds, compute/memory seconds and bound filled in.
    Prediction timeOf(Prediction m, const Roofs& roofs) const;
};

struct Model {
    Roofs roofs;
    std::map<std::string, EngineModel> engines;
    /// Engines with fewer training rows than this are not modelled (listed in `skipped`).
    static constexpr std::size_t kMinimumRows = 8;
    std::map<std::string, std::size_t> skipped;

    /// Fits one EngineModel per engine on `rows` (all of them: split first). `select`: each
    /// engine's time model chosen by cross-validation on its training configurations between
    /// the structural one and the log-linear one (seer/selection.hpp); false: structural only.
    static Model fit(const std::vector<SeerRow>& rows, const Roofs& roofs, bool select = true);
    std::string toJson() const;
    static Model fromJson(const std::string& text, const std::string& name);
};

/// The structural model of one engine fitted on its rows (Model::fit without the selection).
EngineModel fitEngine(const std::vector<const SeerRow*>& rows, const Roofs& roofs);

/// A row's measured metrics as a Prediction's inputs (waves from the blocks and `residentBlocks`
/// when the row has none), for the time model alone.
Prediction measuredMetrics(const SeerRow& row, double residentBlocks, const Roofs& roofs);

/// The median of `values` (0 when empty).
double median(std::vector<double> values);

/// Least squares on relative error: minimizes sum_i ((x_i . beta - y_i) / y_i)^2 over rows with
/// y_i > 0, with beta >= 0 when `nonNegative` (terms with a negative coefficient are dropped and
/// the rest fitted again). Columns are scaled before a rank-revealing QR. Exposed for tests.
std::vector<double> relativeLeastSquares(const std::vector<std::vector<double>>& x,
                                         const std::vector<double>& y, bool nonNegative);

} // namespace roofline::seer
