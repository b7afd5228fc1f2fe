#include "seer/model.hpp"

#include <Eigen/Dense>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>

namespace roofline::seer {
namespace {

const std::vector<Term> kFlopTerms = {Term::Macs, Term::Output, Term::One};
const std::vector<Term> kDramTerms = {Term::Input, Term::Output, Term::Filter, Term::Macs,
                                      Term::One};
const std::vector<Term> kBlockTerms = {Term::Output, Term::Batch, Term::One};

MetricFit fitMetric(const std::vector<const SeerRow*>& rows, const std::vector<Term>& terms,
                    double SeerRow::*metric) {
    std::vector<std::vector<double>> x;
    std::vector<double> y;
    for (const SeerRow* r : rows)
        if (r->*metric > 0) {
            std::vector<double> features;
            for (Term t : terms)
                features.push_back(termValue(t, r->conv));
            x.push_back(std::move(features));
            y.push_back(r->*metric);
        }
    MetricFit fit;
    fit.terms = terms;
    if (y.size() >= terms.size())
        fit.coefficients = relativeLeastSquares(x, y, true);
    return fit;
}

// The time model's features for one configuration, from the metrics (measured when fitting,
// predicted when predicting): 1, compute seconds, memory seconds, waves.
std::vector<double> timeFeatures(double flops, double tensorFlops, double dramBytes, double waves,
                                 const Roofs& roofs) {
    const double cuda = std::max(0.0, flops - tensorFlops);
    const double compute =
        (roofs.cudaFlopsPerSecond > 0 ? cuda / roofs.cudaFlopsPerSecond : 0) +
        (roofs.tensorFlopsPerSecond > 0 ? tensorFlops / roofs.tensorFlopsPerSecond : 0);
    const double memory = roofs.dramBytesPerSecond > 0 ? dramBytes / roofs.dramBytesPerSecond : 0;
    return {1.0, compute, memory, waves};
}

double wavesOf(double blocks, double residentBlocks, const Roofs& roofs) {
    if (residentBlocks <= 0 || roofs.smCount <= 0 || blocks <= 0)
        return 0;
    return std::ceil(blocks / (residentBlocks * roofs.smCount));
}

} // namespace

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
    }
    return "?";
}

double termValue(Term t, const ConvParams& c) {
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
    }
    return 0;
}

double MetricFit::predict(const ConvParams& c) const {
    double v = 0;
    for (std::size_t i = 0; i < coefficients.size() && i < terms.size(); ++i)
        v += coefficients[i] * termValue(terms[i], c);
    return std::max(0.0, v);
}

Prediction EngineModel::predict(const ConvParams& c, const Roofs& roofs) const {
    Prediction p;
    p.flops = flops.predict(c);
    p.tensorFlops = std::min(p.flops, tensorFlops.predict(c));
    p.dramBytes = dramBytes.predict(c);
    p.blocks = blocks.predict(c);
    p.waves = wavesOf(p.blocks, residentBlocks, roofs);
    const auto f = timeFeatures(p.flops, p.tensorFlops, p.dramBytes, p.waves, roofs);
    p.computeSeconds = f[1];
    p.memorySeconds = f[2];
    for (std::size_t i = 0; i < time.size() && i < f.size(); ++i)
        p.seconds += time[i] * f[i];
    const double computeTerm = time.size() > 1 ? time[1] * f[1] : 0;
    const double memoryTerm = time.size() > 2 ? time[2] * f[2] : 0;
    p.bound = computeTerm >= memoryTerm ? "compute" : "memory";
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

Model Model::fit(const std::vector<SeerRow>& rows, const Roofs& roofs) {
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
        EngineModel e;
        e.trainingRows = list.size();
        e.flops = fitMetric(list, kFlopTerms, &SeerRow::flops);
        e.tensorFlops = fitMetric(list, kFlopTerms, &SeerRow::tensorFlops);
        e.dramBytes = fitMetric(list, kDramTerms, &SeerRow::dramBytes);
        e.blocks = fitMetric(list, kBlockTerms, &SeerRow::blocks);
        std::vector<double> resident;
        for (const SeerRow* r : list)
            if (r->residentBlocks > 0)
                resident.push_back(r->residentBlocks);
        e.residentBlocks = median(resident);
        // The time model on the measured metrics (what the static and dynamic fits predict).
        std::vector<std::vector<double>> x;
        std::vector<double> y;
        for (const SeerRow* r : list) {
            x.push_back(timeFeatures(
                r->flops, r->tensorFlops, r->dramBytes,
                r->waves > 0 ? r->waves : wavesOf(r->blocks, e.residentBlocks, roofs), roofs));
            y.push_back(r->timeSeconds);
        }
        e.time = relativeLeastSquares(x, y, true);
        m.engines[engine] = std::move(e);
    }
    return m;
}

namespace {
nlohmann::json toJson(const MetricFit& f) {
    nlohmann::json j = nlohmann::json::array();
    for (std::size_t i = 0; i < f.coefficients.size() && i < f.terms.size(); ++i)
        j.push_back({{"term", toString(f.terms[i])}, {"coefficient", f.coefficients[i]}});
    return j;
}
MetricFit fromJson(const nlohmann::json& j, const std::vector<Term>& terms) {
    MetricFit f;
    f.terms = terms;
    for (const auto& t : j) {
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
    j["format"] = "roofline-seer-model 1";
    j["roofs"] = {{"cuda_flops_per_s", roofs.cudaFlopsPerSecond},
                  {"tensor_flops_per_s", roofs.tensorFlopsPerSecond},
                  {"dram_bytes_per_s", roofs.dramBytesPerSecond},
                  {"sm_count", roofs.smCount}};
    for (const auto& [name, e] : engines)
        j["engines"][name] = {{"training_rows", e.trainingRows},
                              {"flops", seer::toJson(e.flops)},
                              {"tensor_flops", seer::toJson(e.tensorFlops)},
                              {"dram_bytes", seer::toJson(e.dramBytes)},
                              {"blocks", seer::toJson(e.blocks)},
                              {"resident_blocks", e.residentBlocks},
                              {"time", e.time}};
    for (const auto& [name, n] : skipped)
        j["skipped"][name] = n;
    return j.dump(2);
}

Model Model::fromJson(const std::string& text, const std::string& name) {
    try {
        const nlohmann::json j = nlohmann::json::parse(text);
        if (j.value("format", "") != "roofline-seer-model 1")
            throw SeerError("not a roofline-seer model (format '" + j.value("format", "") + "')");
        Model m;
        const auto& r = j.at("roofs");
        m.roofs = {r.at("cuda_flops_per_s").get<double>(), r.at("tensor_flops_per_s").get<double>(),
                   r.at("dram_bytes_per_s").get<double>(), r.at("sm_count").get<double>()};
        if (j.contains("engines"))
            for (const auto& [engine, e] : j.at("engines").items()) {
                EngineModel em;
                em.trainingRows = e.at("training_rows").get<std::size_t>();
                em.flops = seer::fromJson(e.at("flops"), kFlopTerms);
                em.tensorFlops = seer::fromJson(e.at("tensor_flops"), kFlopTerms);
                em.dramBytes = seer::fromJson(e.at("dram_bytes"), kDramTerms);
                em.blocks = seer::fromJson(e.at("blocks"), kBlockTerms);
                em.residentBlocks = e.at("resident_blocks").get<double>();
                em.time = e.at("time").get<std::vector<double>>();
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
