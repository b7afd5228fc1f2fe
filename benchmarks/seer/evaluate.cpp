#include "seer/evaluate.hpp"

#include <roofline/chart.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <map>
#include <ostream>
#include <sstream>

namespace roofline::seer {
namespace {

std::string percent(double fraction) {
    char text[32];
    std::snprintf(text, sizeof text, "%.1f%%", 100 * fraction);
    return text;
}

} // namespace

RowEvaluation evaluateRows(const Model& model, const std::vector<SeerRow>& testRows) {
    RowEvaluation out;
    std::map<std::string, std::vector<double>> errors;
    std::map<std::string, std::pair<std::size_t, std::size_t>> bounds; // agreeing, with a bound
    // Per engine: the time model on measured metrics, then FLOPs, DRAM bytes and blocks.
    std::map<std::string, std::array<std::vector<double>, 4>> parts;
    auto ape = [](double predicted, double measured) {
        return std::abs(predicted - measured) / measured;
    };
    for (const SeerRow& r : testRows) {
        auto it = model.engines.find(modelKey(r));
        if (it == model.engines.end() || r.timeSeconds <= 0) {
            ++out.unmodelledRows;
            continue;
        }
        const Prediction p = it->second.predict(r.conv, model.roofs);
        const double predicted = p.seconds;
        if (const std::string measured = boundClass(r.bound); !measured.empty()) {
            auto& [agree, total] = bounds[modelKey(r)];
            agree += measured == p.bound ? 1 : 0;
            ++total;
        }
        errors[modelKey(r)].push_back(ape(predicted, r.timeSeconds));
        const EngineModel& engine = it->second;
        const Prediction measured = measuredMetrics(r, engine.residentBlocks, model.roofs);
        auto& part = parts[modelKey(r)];
        const double onMeasured = engine.timeOf(measured, model.roofs).seconds;
        part[0].push_back(ape(onMeasured, r.timeSeconds));
        if (r.flops > 0)
            part[1].push_back(ape(p.flops, r.flops));
        if (r.dramBytes > 0)
            part[2].push_back(ape(p.dramBytes, r.dramBytes));
        if (r.blocks > 0)
            part[3].push_back(ape(p.blocks, r.blocks));
        out.points.push_back({modelKey(r), r.conv.key(), r.timeSeconds, predicted, onMeasured});
    }
    for (const auto& [engine, list] : errors) {
        EngineError e;
        e.engine = engine;
        const EngineModel& m = model.engines.at(engine);
        e.trainingRows = m.trainingRows;
        if (!m.boosted.empty()) {
            e.timeModel =
                m.boostedCorrects ? "structural, corrected by boosted trees" : "boosted trees";
        } else if (!m.logLinear.empty()) {
            char floor[48];
            std::snprintf(floor, sizeof floor, "log-linear, floor %.1f us", m.floorSeconds * 1e6);
            e.timeModel = floor;
        }
        e.testRows = list.size();
        e.medianApe = median(list);
        double sum = 0;
        std::size_t within = 0;
        for (double v : list) {
            sum += v;
            within += v <= 0.10 ? 1 : 0;
        }
        e.meanApe = sum / static_cast<double>(list.size());
        e.within10 = static_cast<double>(within) / static_cast<double>(list.size());
        if (auto b = bounds.find(engine); b != bounds.end() && b->second.second > 0)
            e.boundAgreement =
                static_cast<double>(b->second.first) / static_cast<double>(b->second.second);
        const auto& part = parts[engine];
        double* fields[] = {&e.timeOnMeasuredApe, &e.flopsApe, &e.dramApe, &e.blocksApe};
        for (std::size_t i = 0; i < part.size(); ++i)
            if (!part[i].empty())
                *fields[i] = median(part[i]);
        out.engines.push_back(e);
    }
    return out;
}

Pick pickEngine(const Model& model, const std::vector<const SeerRow*>& rows) {
    Pick out;
    for (const SeerRow* r : rows) {
        if (!out.best || r->timeSeconds < out.best->timeSeconds)
            out.best = r;
        if (r->heuristicRank == 0)
            out.heuristic = r;
        auto it = model.engines.find(modelKey(*r));
        if (it == model.engines.end())
            continue;
        ++out.candidates;
        const double p = it->second.predict(r->conv, model.roofs).seconds;
        if (!out.pick || p < out.predicted) {
            out.pick = r;
            out.predicted = p;
        }
    }
    return out;
}

ChoiceEvaluation evaluateChoices(const Model& model, const std::vector<SeerRow>& testRows) {
    std::map<std::string, std::vector<const SeerRow*>> byConfig;
    for (const SeerRow& r : testRows)
        if (r.timeSeconds > 0)
            byConfig[r.pass + " " + r.conv.key()].push_back(&r); // a pass picks its own engine
    ChoiceEvaluation out;
    std::size_t top1 = 0, within = 0, hTop1 = 0, hWithin = 0;
    double lost = 0, hLost = 0;
    for (const auto& [config, rows] : byConfig) {
        const Pick p = pickEngine(model, rows);
        if (!p.pick)
            continue; // no engine of this configuration is modelled
        Choice c;
        c.config = config;
        c.candidates = p.candidates;
        if (p.heuristic) {
            c.heuristic = p.heuristic->engine;
            c.heuristicTime = p.heuristic->timeSeconds;
        }
        c.best = p.best->engine;
        c.bestTime = p.best->timeSeconds;
        c.predicted = p.pick->engine;
        c.predictedTime = p.pick->timeSeconds;
        top1 += c.predicted == c.best ? 1 : 0;
        within += c.predictedTime <= 1.10 * c.bestTime ? 1 : 0;
        lost += c.predictedTime / c.bestTime - 1;
        out.totalPredicted += c.predictedTime;
        out.totalBest += c.bestTime;
        if (!c.heuristic.empty()) {
            ++out.withHeuristic;
            hTop1 += c.heuristic == c.best ? 1 : 0;
            hWithin += c.heuristicTime <= 1.10 * c.bestTime ? 1 : 0;
            hLost += c.heuristicTime / c.bestTime - 1;
            out.totalHeuristic += c.heuristicTime;
        }
        out.configs.push_back(std::move(c));
    }
    const double n = static_cast<double>(out.configs.size());
    if (n > 0) {
        out.top1 = static_cast<double>(top1) / n;
        out.within10 = static_cast<double>(within) / n;
        out.meanLost = lost / n;
    }
    if (out.withHeuristic > 0) {
        const double h = static_cast<double>(out.withHeuristic);
        out.heuristicTop1 = static_cast<double>(hTop1) / h;
        out.heuristicWithin10 = static_cast<double>(hWithin) / h;
        out.heuristicMeanLost = hLost / h;
    }
    return out;
}

void printRowEvaluation(const RowEvaluation& e, std::ostream& out) {
    char line[256];
    std::snprintf(line, sizeof line, "%-20s %6s %6s %10s %10s %10s %12s | %8s %8s %8s %8s | %s\n",
                  "engine (Test-set-I)", "train", "test", "median err", "mean err", "within 10%",
                  "bound agrees", "time|m", "flops", "dram", "blocks", "time model");
    out << line;
    auto optional = [](double v) { return v < 0 ? std::string("-") : percent(v); };
    for (const EngineError& x : e.engines) {
        std::snprintf(line, sizeof line,
                      "%-20.20s %6zu %6zu %10s %10s %10s %12s | %8s %8s %8s %8s | %s\n",
                      x.engine.c_str(), x.trainingRows, x.testRows, percent(x.medianApe).c_str(),
                      percent(x.meanApe).c_str(), percent(x.within10).c_str(),
                      optional(x.boundAgreement).c_str(), optional(x.timeOnMeasuredApe).c_str(),
                      optional(x.flopsApe).c_str(), optional(x.dramApe).c_str(),
                      optional(x.blocksApe).c_str(), x.timeModel.c_str());
        out << line;
    }
    out << "(after |: median errors of the structural time model on the measured metrics, and of "
           "each predicted metric; the time model cross-validation on the training "
           "configurations chose)\n";
    if (e.unmodelledRows > 0)
        out << e.unmodelledRows << " test rows belong to engines with too few training rows\n";
}

void printRows(const RowEvaluation& e, std::ostream& out) {
    char line[256];
    std::snprintf(line, sizeof line, "%-20s %-28s %12s %12s %8s %14s %8s\n", "engine",
                  "configuration", "measured us", "predicted us", "error", "on measured us",
                  "error");
    out << line;
    for (const TimePoint& p : e.points) {
        std::snprintf(line, sizeof line, "%-20.20s %-28s %12.1f %12.1f %+7.1f%% %14.1f %+7.1f%%\n",
                      p.engine.c_str(), p.config.c_str(), p.measured * 1e6, p.predicted * 1e6,
                      100 * (p.predicted / p.measured - 1), p.onMeasuredMetrics * 1e6,
                      100 * (p.onMeasuredMetrics / p.measured - 1));
        out << line;
    }
}

void printChoiceEvaluation(const ChoiceEvaluation& e, std::ostream& out) {
    out << "Test-set-II: " << e.configs.size() << " configurations\n"
        << "  model:     best engine picked " << percent(e.top1) << ", within 10% of the best "
        << percent(e.within10) << ", mean time lost " << percent(e.meanLost) << '\n';
    if (e.withHeuristic > 0)
        out << "  heuristic: best engine picked " << percent(e.heuristicTop1)
            << ", within 10% of the best " << percent(e.heuristicWithin10) << ", mean time lost "
            << percent(e.heuristicMeanLost) << " (" << e.withHeuristic << " configurations)\n";
    if (e.totalBest > 0) {
        out << "  summed measured time of the picks: model "
            << percent(e.totalPredicted / e.totalBest - 1) << " above the best";
        if (e.totalHeuristic > 0)
            out << ", heuristic " << percent(e.totalHeuristic / e.totalBest - 1) << " above";
        out << '\n';
    }
    bool header = false;
    for (const Choice& c : e.configs) {
        if (c.bestTime <= 0 || c.predictedTime <= 1.10 * c.bestTime)
            continue;
        if (!header)
            out << "  the model's picks over 10% slower than the best (measured times):\n";
        header = true;
        char line[320];
        std::snprintf(line, sizeof line, "    %-28s picked %-14s %8.1f us, best %-14s %8.1f us",
                      c.config.c_str(), c.predicted.c_str(), c.predictedTime * 1e6, c.best.c_str(),
                      c.bestTime * 1e6);
        out << line;
        if (!c.heuristic.empty()) {
            std::snprintf(line, sizeof line, ", heuristic %s %.1f us", c.heuristic.c_str(),
                          c.heuristicTime * 1e6);
            out << line;
        }
        out << '\n';
    }
}

std::string scatterOf(const RowEvaluation& rows, const std::string& title) {
    std::map<std::string, ScatterSeries> byEngine;
    for (const TimePoint& p : rows.points) {
        ScatterSeries& s = byEngine[p.engine];
        s.label = p.engine;
        s.points.push_back({p.measured * 1e6, p.predicted * 1e6,
                            p.engine + " @ " + p.config + ": measured " +
                                std::to_string(p.measured * 1e6) + " us, predicted " +
                                std::to_string(p.predicted * 1e6) + " us"});
    }
    std::vector<ScatterSeries> series;
    for (auto& [name, s] : byEngine)
        series.push_back(std::move(s));
    PlotText text;
    text.title = title;
    text.subtitle = std::to_string(rows.points.size()) +
                    " held-out cases (Test-set-I); dashed: +-10% of the measured time";
    text.yLabel = "predicted time (us)";
    return scatterSvg(series, text, "measured time (us)");
}

namespace {
std::string escapeHtml(const std::string& s) {
    std::string out;
    for (char c : s)
        out += c == '<' ? "&lt;" : c == '>' ? "&gt;" : c == '&' ? "&amp;" : std::string(1, c);
    return out;
}
} // namespace

std::string evaluationHtml(const RowEvaluation& rows, const ChoiceEvaluation& choices,
                           const std::string& title) {
    std::ostringstream o;
    o << "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>" << escapeHtml(title)
      << "</title><style>body{font-family:DejaVu Sans,Arial,sans-serif}table{border-collapse:"
         "collapse}td,th{padding:2px 10px;text-align:right}td:first-child,th:first-child{text-"
         "align:left}tr:nth-child(even){background:#f2f2f2}.miss{color:#c00}</style></head><body>\n"
      << "<h1>" << escapeHtml(title) << "</h1>\n<h2>Test-set-I: time error per engine</h2>\n"
      << "<table><tr><th>engine</th><th>training rows</th><th>test rows</th><th>median "
         "error</th><th>mean error</th><th>within 10%</th><th>bound agrees</th></tr>\n";
    for (const EngineError& e : rows.engines)
        o << "<tr" << (e.medianApe > 0.10 ? " class=\"miss\"" : "") << "><td>"
          << escapeHtml(e.engine) << "</td><td>" << e.trainingRows << "</td><td>" << e.testRows
          << "</td><td>" << percent(e.medianApe) << "</td><td>" << percent(e.meanApe) << "</td><td>"
          << percent(e.within10) << "</td><td>"
          << (e.boundAgreement < 0 ? std::string("-") : percent(e.boundAgreement))
          << "</td></tr>\n";
    o << "</table>\n<h2>Test-set-II: the engine picked per configuration</h2>\n<pre>";
    std::ostringstream summary;
    printChoiceEvaluation(choices, summary);
    o << escapeHtml(summary.str()) << "</pre>\n" << scatterOf(rows, title) << "</body></html>\n";
    return o.str();
}

std::vector<std::pair<std::string, Prediction>> rankEngines(const Model& model,
                                                            const ConvParams& conv) {
    std::vector<std::pair<std::string, Prediction>> out;
    for (const auto& [name, e] : model.engines)
        out.emplace_back(name, e.predict(conv, model.roofs));
    std::sort(out.begin(), out.end(),
              [](const auto& a, const auto& b) { return a.second.seconds < b.second.seconds; });
    return out;
}

} // namespace roofline::seer
