#include "seer/model.hpp"
#include "seer/selection.hpp"

#include <Eigen/Dense>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>

namespace roofline::seer {
namespace {

// Static metrics: GEMM-like engines do their MACs on a padded output, transform engines
// pointwise products and transforms of the input; plus per-output work.
const std::vector<Term> kFlopTerms = {Term::PaddedMacs, Term::SpectralMacs, Term::Transforms,
                                      Term::PaddedOutput, Term::One};
// Dynamic metrics: the tensors' sizes (compulsory traffic) and the padded MACs (re-reads).
const std::vector<Term> kByteTerms = {Term::Input, Term::Output, Term::Filter, Term::PaddedMacs,
                                      Term::One};
const std::vector<Term> kBlockTerms = {Term::Tiles, Term::Output, Term::Planes, Term::Batch,
                                       Term::One};
// The tiles searched: 1 (no padding) and the sizes GEMM kernels use.
constexpr double kPixelTiles[] = {1, 32, 64, 128, 256};
constexpr double kChannelTiles[] = {1, 16, 32, 64, 128, 256};

bool padded(const std::vector<Term>& terms) {
    return std::any_of(terms.begin(), terms.end(), [](Term t) {
        return t == Term::PaddedMacs || t == Term::PaddedOutput || t == Term::Tiles;
    });
}

// Fits `terms` to `metric` on the rows that measured it, for each candidate tiling when a term is
// padded, keeping the tiling with the least squared relative error.
MetricFit fitMetric(const std::vector<const SeerRow*>& rows, const std::vector<Term>& terms,
                    double SeerRow::*metric) {
    MetricFit best;
    best.terms = terms;
    double bestError = 0;
    std::vector<Tiling> tilings;
    for (double p : kPixelTiles)
        for (double k : kChannelTiles)
            if (padded(terms) || (p == 1 && k == 1))
                tilings.push_back({p, k});
    for (const Tiling& tiling : tilings) {
        std::vector<std::vector<double>> x;
        std::vector<double> y;
        for (const SeerRow* r : rows)
            if (r->*metric > 0) {
                std::vector<double> features;
                for (Term t : terms)
                    features.push_back(termValue(t, r->conv, tiling));
                x.push_back(std::move(features));
                y.push_back(r->*metric);
            }
        if (y.size() < terms.size())
            return best;
        MetricFit fit;
        fit.terms = terms;
        fit.tiling = tiling;
        fit.coefficients = relativeLeastSquares(x, y, true);
        double error = 0;
        for (std::size_t i = 0; i < y.size(); ++i) {
            double v = 0;
            for (std::size_t j = 0; j < terms.size(); ++j)
                v += fit.coefficients[j] * x[i][j];
            error += (v - y[i]) * (v - y[i]) / (y[i] * y[i]);
        }
        if (best.coefficients.empty() || error < bestError) {
            best = std::move(fit);
            bestError = error;
        }
    }
    return best;
}

// The time model's features (EngineModel::time), from the metrics: measured when fitting,
// predicted when predicting.
std::vector<double> timeFeatures(const Prediction& m, const Roofs& roofs) {
    const double cuda = std::max(0.0, m.flops - m.tensorFlops);
    const double compute =
        (roofs.cudaFlopsPerSecond > 0 ? cuda / roofs.cudaFlopsPerSecond : 0) +
        (roofs.tensorFlopsPerSecond > 0 ? m.tensorFlops / roofs.tensorFlopsPerSecond : 0);
    // The SM with the most blocks: ceil(blocks / SMs) blocks of the average block's work.
    const double busiest =
        m.blocks >= 1 && roofs.smCount > 0
            ? compute * roofs.smCount * std::ceil(m.blocks / roofs.smCount) / m.blocks
            : compute;
    // Waves in sequence, each as long as one block's work at one SM's share of the roofs: the
    // latency-bound time of kernels with few blocks and long loops.
    const double serial =
        m.blocks >= 1 && roofs.smCount > 0 ? compute * roofs.smCount * m.waves / m.blocks : 0;
    const double dram = roofs.dramBytesPerSecond > 0 ? m.dramBytes / roofs.dramBytesPerSecond : 0;
    const double l2 = roofs.l2BytesPerSecond > 0 ? m.l2Bytes / roofs.l2BytesPerSecond : 0;
    return {1.0, compute, busiest, serial, dram, l2, m.waves};
}

// timeFeatures' byte terms.
constexpr std::size_t kDramFeature = 4, kL2Feature = 5;
// The median relative error over which a byte metric counts as unpredictable.
constexpr double kUnpredictable = 0.25;

// The median relative error of `fit` on the rows that measured `metric` (1: none did).
double trainingError(const std::vector<const SeerRow*>& rows, const MetricFit& fit,
                     double SeerRow::*metric) {
    std::vector<double> errors;
    for (const SeerRow* r : rows)
        if (r->*metric > 0)
            errors.push_back(std::abs(fit.predict(r->conv) - r->*metric) / (r->*metric));
    return errors.empty() || fit.coefficients.empty() ? 1.0 : median(errors);
}

double wavesOf(double blocks, double residentBlocks, const Roofs& roofs) {
    if (residentBlocks <= 0 || roofs.smCount <= 0 || blocks <= 0)
        return 0;
    return std::ceil(blocks / (residentBlocks * roofs.smCount));
}

} // namespace

Prediction measuredMetrics(const SeerRow& r, double residentBlocks, const Roofs& roofs) {
    Prediction m;
    m.flops = r.flops;
    m.tensorFlops = r.tensorFlops;
    m.dramBytes = r.dramBytes;
    m.l2Bytes = r.l2Bytes;
    m.blocks = r.blocks;
    m.waves = r.waves > 0 ? r.waves : wavesOf(r.blocks, residentBlocks, roofs);
    return m;
}

namespace {} // namespace

double median(std::vector<double> v) {
    if (v.empty())
        return 0;
    std::sort(v.begin(), v.end());
    return v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
}

const char* toString(Term t) {
    switch (t) {
    case Term::One:
        return "1";
    case Term::Macs:
        return "N*K*Q^2*C*R^2";
    case Term::Output:
        return "N*K*Q^2";
    case Term::Input:
        return "N*C*W^2";
    case Term::Filter:
        return "K*C*R^2";
    case Term::Batch:
        return "N";
    case Term::PaddedMacs:
        return "pad(N*Q^2)*pad(K)*C*R^2";
    case Term::PaddedOutput:
        return "pad(N*Q^2)*pad(K)";
    case Term::Tiles:
        return "tiles(N*Q^2)*tiles(K)";
    case Term::SpectralMacs:
        return "N*K*C*F^2";
    case Term::Planes:
        return "N*C+N*K+K*C";
    case Term::Transforms:
        return "(N*C+N*K+K*C)*F^2*log2(F)";
    }
    return "?";
}

namespace {
// The transform size of FFT engines: the padded input rounded up to a power of two.
double transformSize(const ConvParams& c) {
    return std::exp2(std::ceil(std::log2(std::max(2.0, c.inWidth + 2 * c.padding))));
}
} // namespace

double termValue(Term t, const ConvParams& c, const Tiling& tiling) {
    const double pixels = c.batch * c.outWidth * c.outWidth;
    const double pixelTiles = std::ceil(pixels / tiling.pixels);
    const double channelTiles = std::ceil(c.outChannels / tiling.channels);
    const double paddedOutput = pixelTiles * tiling.pixels * channelTiles * tiling.channels;
    switch (t) {
    case Term::One:
        return 1.0;
    case Term::Macs:
        return c.macs();
    case Term::Output:
        return c.batch * c.outChannels * c.outWidth * c.outWidth;
    case Term::Input:
        return c.batch * c.inChannels * c.inWidth * c.inWidth;
    case Term::Filter:
        return c.outChannels * c.inChannels * c.kernelWidth * c.kernelWidth;
    case Term::Batch:
        return c.batch;
    case Term::PaddedMacs:
        return paddedOutput * c.inChannels * c.kernelWidth * c.kernelWidth;
    case Term::PaddedOutput:
        return paddedOutput;
    case Term::Tiles:
        return pixelTiles * channelTiles;
    case Term::SpectralMacs:
        return c.batch * c.outChannels * c.inChannels * transformSize(c) * transformSize(c);
    case Term::Planes:
        return c.batch * c.inChannels + c.batch * c.outChannels + c.outChannels * c.inChannels;
    case Term::Transforms: {
        const double f = transformSize(c);
        return (c.batch * c.inChannels + c.batch * c.outChannels + c.outChannels * c.inChannels) *
               f * f * std::log2(f);
    }
    }
    return 0;
}

double MetricFit::predict(const ConvParams& c) const {
    double v = 0;
    for (std::size_t i = 0; i < coefficients.size() && i < terms.size(); ++i)
        v += coefficients[i] * termValue(terms[i], c, tiling);
    return std::max(0.0, v);
}

Prediction EngineModel::predict(const ConvParams& c, const Roofs& roofs) const {
    Prediction p;
    p.flops = flops.predict(c);
    p.tensorFlops = std::min(p.flops, tensorFlops.predict(c));
    p.dramBytes = dramBytes.predict(c);
    p.l2Bytes = l2Bytes.predict(c);
    p.blocks = blocks.predict(c);
    p.waves = wavesOf(p.blocks, residentBlocks, roofs);
    p = timeOf(p, roofs);
    if (!boosted.empty() && boostedCorrects)
        p.seconds = correctedSeconds(boosted, c, p.seconds);
    else if (!boosted.empty())
        p.seconds = boostedSeconds(boosted, c);
    else if (!logLinear.empty())
        p.seconds = logLinearSeconds(logLinear, floorSeconds, c, p);
    return p;
}

Prediction EngineModel::timeOf(Prediction p, const Roofs& roofs) const {
    const auto f = timeFeatures(p, roofs);
    p.computeSeconds = f[1];
    p.memorySeconds = f[4] + f[5];
    p.seconds = 0;
    std::vector<double> term(f.size(), 0.0);
    for (std::size_t i = 0; i < time.size() && i < f.size(); ++i) {
        term[i] = time[i] * f[i];
        p.seconds += term[i];
    }
    p.bound = term[1] + term[2] + term[3] >= term[4] + term[5] ? "compute" : "memory";
    return p;
}

std::vector<double> relativeLeastSquares(const std::vector<std::vector<double>>& x,
                                         const std::vector<double>& y, bool nonNegative) {
    const std::size_t terms = x.empty() ? 0 : x[0].size();
    std::vector<bool> active(terms, true);
    std::vector<double> beta(terms, 0.0);
    for (std::size_t round = 0; round <= terms; ++round) {
        std::vector<std::size_t> columns;
        for (std::size_t j = 0; j < terms; ++j)
            if (active[j])
                columns.push_back(j);
        if (columns.empty())
            break;
        Eigen::MatrixXd a(static_cast<Eigen::Index>(y.size()),
                          static_cast<Eigen::Index>(columns.size()));
        Eigen::VectorXd b = Eigen::VectorXd::Ones(static_cast<Eigen::Index>(y.size()));
        for (std::size_t i = 0; i < y.size(); ++i)
            for (std::size_t k = 0; k < columns.size(); ++k)
                a(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(k)) =
                    x[i][columns[k]] / y[i];
        // Columns scaled to unit norm: the terms span ~15 orders of magnitude.
        Eigen::VectorXd scale = a.colwise().norm().transpose();
        for (Eigen::Index k = 0; k < scale.size(); ++k)
            if (scale(k) > 0)
                a.col(k) /= scale(k);
        const Eigen::VectorXd solution = a.colPivHouseholderQr().solve(b);
        std::fill(beta.begin(), beta.end(), 0.0);
        bool negative = false;
        std::size_t worst = 0;
        double worstValue = 0;
        for (std::size_t k = 0; k < columns.size(); ++k) {
            const double v =
                scale(static_cast<Eigen::Index>(k)) > 0
                    ? solution(static_cast<Eigen::Index>(k)) / scale(static_cast<Eigen::Index>(k))
                    : 0.0;
            beta[columns[k]] = std::isfinite(v) ? v : 0.0;
            if (nonNegative && v < 0 && v * scale(static_cast<Eigen::Index>(k)) < worstValue) {
                negative = true;
                worstValue = v * scale(static_cast<Eigen::Index>(k));
                worst = columns[k];
            }
        }
        if (!negative)
            return beta;
        active[worst] = false; // the most negative term goes; fit the rest again
    }
    std::fill(beta.begin(), beta.end(), 0.0);
    return beta;
}

Model Model::fit(const std::vector<SeerRow>& rows, const Roofs& roofs, bool select) {
    Model m;
    m.roofs = roofs;
    std::map<std::string, std::vector<const SeerRow*>> byEngine;
    for (const SeerRow& r : rows)
        if (r.timeSeconds > 0)
            byEngine[modelKey(r)].push_back(&r);
    for (const auto& [engine, list] : byEngine) {
        if (list.size() < kMinimumRows) {
            m.skipped[engine] = list.size();
            continue;
        }
        EngineModel e = fitEngine(list, roofs);
        if (select)
            chooseTimeModel(e, list, roofs);
        m.engines[engine] = std::move(e);
    }
    return m;
}

EngineModel fitEngine(const std::vector<const SeerRow*>& list, const Roofs& roofs) {
    EngineModel e;
    e.trainingRows = list.size();
    e.flops = fitMetric(list, kFlopTerms, &SeerRow::flops);
    e.tensorFlops = fitMetric(list, kFlopTerms, &SeerRow::tensorFlops);
    e.dramBytes = fitMetric(list, kByteTerms, &SeerRow::dramBytes);
    e.l2Bytes = fitMetric(list, kByteTerms, &SeerRow::l2Bytes);
    e.blocks = fitMetric(list, kBlockTerms, &SeerRow::blocks);
    std::vector<double> resident;
    for (const SeerRow* r : list)
        if (r->residentBlocks > 0)
            resident.push_back(r->residentBlocks);
    e.residentBlocks = median(resident);
    // The time model on the measured metrics (what the static and dynamic fits predict),
    // without the byte terms whose metric the fit cannot predict: fed a prediction that is
    // off by more than kUnpredictable, a term fitted on the measured value only adds error.
    const bool dram = trainingError(list, e.dramBytes, &SeerRow::dramBytes) <= kUnpredictable;
    const bool l2 = trainingError(list, e.l2Bytes, &SeerRow::l2Bytes) <= kUnpredictable;
    std::vector<std::vector<double>> x;
    std::vector<double> y;
    for (const SeerRow* r : list) {
        auto f = timeFeatures(measuredMetrics(*r, e.residentBlocks, roofs), roofs);
        f[kDramFeature] = dram ? f[kDramFeature] : 0.0;
        f[kL2Feature] = l2 ? f[kL2Feature] : 0.0;
        x.push_back(std::move(f));
        y.push_back(r->timeSeconds);
    }
    e.time = relativeLeastSquares(x, y, true);
    return e;
}

namespace {

constexpr const char* kFormat = "roofline-seer-model 3";

nlohmann::json toJson(const MetricFit& f) {
    nlohmann::json terms = nlohmann::json::array();
    for (std::size_t i = 0; i < f.coefficients.size() && i < f.terms.size(); ++i)
        terms.push_back({{"term", toString(f.terms[i])}, {"coefficient", f.coefficients[i]}});
    return {
        {"tile_pixels", f.tiling.pixels}, {"tile_channels", f.tiling.channels}, {"terms", terms}};
}

MetricFit fromJson(const nlohmann::json& j, const std::vector<Term>& terms) {
    MetricFit f;
    f.terms = terms;
    f.tiling = {j.at("tile_pixels").get<double>(), j.at("tile_channels").get<double>()};
    if (f.tiling.pixels < 1 || f.tiling.channels < 1)
        throw SeerError("a tile size below 1");
    for (const auto& t : j.at("terms")) {
        const std::string name = t.at("term").get<std::string>();
        bool found = false;
        for (std::size_t i = 0; i < terms.size(); ++i)
            if (name == toString(terms[i])) {
                f.coefficients.resize(terms.size(), 0.0);
                f.coefficients[i] = t.at("coefficient").get<double>();
                found = true;
            }
        if (!found)
            throw SeerError("unknown model term '" + name + "'");
    }
    return f;
}

} // namespace

std::string Model::toJson() const {
    nlohmann::json j;
    j["format"] = kFormat;
    j["roofs"] = {{"cuda_flops_per_s", roofs.cudaFlopsPerSecond},
                  {"tensor_flops_per_s", roofs.tensorFlopsPerSecond},
                  {"dram_bytes_per_s", roofs.dramBytesPerSecond},
                  {"l2_bytes_per_s", roofs.l2BytesPerSecond},
                  {"sm_count", roofs.smCount}};
    for (const auto& [name, e] : engines) {
        j["engines"][name] = {{"training_rows", e.trainingRows},
                              {"flops", seer::toJson(e.flops)},
                              {"tensor_flops", seer::toJson(e.tensorFlops)},
                              {"dram_bytes", seer::toJson(e.dramBytes)},
                              {"l2_bytes", seer::toJson(e.l2Bytes)},
                              {"blocks", seer::toJson(e.blocks)},
                              {"resident_blocks", e.residentBlocks},
                              {"time", e.time},
                              {"log_linear", e.logLinear},
                              {"floor_s", e.floorSeconds}};
        if (!e.boosted.empty()) {
            j["engines"][name]["boosted"] = nlohmann::json::parse(e.boosted.toJson());
            j["engines"][name]["boosted_corrects"] = e.boostedCorrects;
        }
    }
    for (const auto& [name, n] : skipped)
        j["skipped"][name] = n;
    return j.dump(); // compact: the boosted trees are most of it (1.6 MB rather than 5.4 indented)
}

Model Model::fromJson(const std::string& text, const std::string& name) {
    try {
        const nlohmann::json j = nlohmann::json::parse(text);
        if (j.value("format", "") != kFormat)
            throw SeerError("not a model of this roofline-seer (format '" + j.value("format", "") +
                            "', expected '" + kFormat + "'): fit it again with roofline-seer fit");
        Model m;
        const auto& r = j.at("roofs");
        m.roofs.cudaFlopsPerSecond = r.at("cuda_flops_per_s").get<double>();
        m.roofs.tensorFlopsPerSecond = r.at("tensor_flops_per_s").get<double>();
        m.roofs.dramBytesPerSecond = r.at("dram_bytes_per_s").get<double>();
        m.roofs.l2BytesPerSecond = r.at("l2_bytes_per_s").get<double>();
        m.roofs.smCount = r.at("sm_count").get<double>();
        if (j.contains("engines"))
            for (const auto& [engine, e] : j.at("engines").items()) {
                EngineModel em;
                em.trainingRows = e.at("training_rows").get<std::size_t>();
                em.flops = seer::fromJson(e.at("flops"), kFlopTerms);
                em.tensorFlops = seer::fromJson(e.at("tensor_flops"), kFlopTerms);
                em.dramBytes = seer::fromJson(e.at("dram_bytes"), kByteTerms);
                em.l2Bytes = seer::fromJson(e.at("l2_bytes"), kByteTerms);
                em.blocks = seer::fromJson(e.at("blocks"), kBlockTerms);
                em.residentBlocks = e.at("resident_blocks").get<double>();
                em.time = e.at("time").get<std::vector<double>>();
                em.logLinear = e.value("log_linear", std::vector<double>{});
                em.floorSeconds = e.value("floor_s", 0.0);
                if (!em.logLinear.empty() && em.logLinear.size() != kLogFeatures)
                    throw SeerError("engine '" + engine +
                                    "': " + std::to_string(em.logLinear.size()) +
                                    " log-linear coefficients for " + std::to_string(kLogFeatures) +
                                    " features");
                if (e.contains("boosted"))
                    try {
                        em.boostedCorrects = e.value("boosted_corrects", false);
                        em.boosted = BoostedTrees::fromJson(
                            e.at("boosted").dump(), kConfigFeatures + (em.boostedCorrects ? 1 : 0));
                    } catch (const SeerError& bad) {
                        throw SeerError("engine '" + engine + "': " + bad.what());
                    }
                m.engines[engine] = std::move(em);
            }
        return m;
    } catch (const SeerError& e) {
        throw SeerError(name + ": " + e.what());
    } catch (const std::exception& e) {
        throw SeerError(name + ": not a readable model (" + e.what() +
                        "); write one with roofline-seer fit");
    }
}

} // namespace roofline::seer
