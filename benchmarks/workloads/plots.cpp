#include "workloads/plots.hpp"

#include <roofline/chart.hpp>

#include <algorithm>
#include <map>
#include <set>

namespace roofline::workloads {
namespace {

bool timed(const CaseResult& c) {
    return (c.status == CaseStatus::Passed) && c.eventMedianSeconds > 0.0;
}

/// The layer label: row name, with precision/batch (shape) when the run mixes them.
std::vector<std::string> layerLabels(const std::vector<CaseResult>& cases) {
    std::set<std::string> precisions, layouts;
    std::map<std::string, std::set<std::string>> shapesPerName;
    for (const auto& c : cases) {
        precisions.insert(c.precision);
        layouts.insert(c.layout);
        shapesPerName[c.name].insert(c.shape);
    }
    std::vector<std::string> labels;
    for (const auto& c : cases) {
        std::string label = c.name;
        if (shapesPerName[c.name].size() > 1)
            label += " " + c.shape;
        if (precisions.size() > 1)
            label += " " + c.precision;
        if (layouts.size() > 1)
            label += " " + c.layout;
        labels.push_back(label);
    }
    return labels;
}

} // namespace

std::string layerTimeSvg(const std::vector<CaseResult>& cases, const std::string& title) {
    const auto labels = layerLabels(cases);
    std::vector<std::string> passes, layers;
    std::map<std::pair<std::string, std::string>, double> best; // (layer, pass) -> fastest median
    std::size_t counted = 0;
    for (std::size_t i = 0; i < cases.size(); ++i) {
        const CaseResult& c = cases[i];
        if (!timed(c))
            continue;
        ++counted;
        if (std::find(passes.begin(), passes.end(), c.pass) == passes.end())
            passes.push_back(c.pass);
        if (std::find(layers.begin(), layers.end(), labels[i]) == layers.end())
            layers.push_back(labels[i]);
        const auto key = std::make_pair(labels[i], c.pass);
        const double ms = c.eventMedianSeconds * 1e3;
        auto [it, added] = best.emplace(key, ms);
        if (!added)
            it->second = std::min(it->second, ms);
    }
    std::vector<StackedBar> bars;
    for (const auto& layer : layers) {
        StackedBar bar{layer, {}};
        for (const auto& pass : passes) {
            const auto it = best.find({layer, pass});
            bar.values.push_back(it == best.end() ? 0.0 : it->second);
        }
        bars.push_back(std::move(bar));
    }
    PlotText text;
    text.title = title;
    text.subtitle = std::to_string(counted) + " timed cases; bar: median CUDA-event time per " +
                    "pass (fastest algorithm where several ran)";
    text.yLabel = "time (ms)";
    return stackedBarsSvg(passes, bars, text);
}

std::string timingViolinSvg(const std::vector<CaseResult>& cases, const std::string& title,
                            std::size_t limit) {
    const auto labels = layerLabels(cases);
    std::vector<Distribution> violins;
    std::size_t timedCases = 0;
    for (std::size_t i = 0; i < cases.size(); ++i) {
        const CaseResult& c = cases[i];
        if (!timed(c) || c.eventSeconds.empty())
            continue;
        ++timedCases;
        if (violins.size() >= limit)
            continue;
        Distribution d;
        d.label = labels[i] + "/" + c.pass + " " + c.algorithm.substr(0, c.algorithm.find(' '));
        for (double s : c.eventSeconds)
            d.samples.push_back(s * 1e3);
        violins.push_back(std::move(d));
    }
    PlotText text;
    text.title = title;
    text.subtitle =
        "CUDA-event time of each timed run, per case and algorithm" +
        std::string(timedCases > violins.size() ? " (first " + std::to_string(violins.size()) +
                                                      " of " + std::to_string(timedCases) + ")"
                                                : "");
    text.yLabel = "time (ms)";
    return violinSvg(violins, text);
}

std::vector<std::string> writePlots(const std::vector<CaseResult>& cases, const std::string& tool,
                                    const std::string& prefix) {
    const std::string layers = prefix + "-layers.svg", timings = prefix + "-timings.svg";
    saveChart(layers, layerTimeSvg(cases, tool + ": time per layer and pass"));
    saveChart(timings, timingViolinSvg(cases, tool + ": repeated timings per algorithm"));
    return {layers, timings};
}

} // namespace roofline::workloads
