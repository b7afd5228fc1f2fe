#include "seer/networks.hpp"

#include "seer/evaluate.hpp"
#include "workloads/conv_case.hpp"

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <ostream>

namespace roofline::seer {

NetworkLayers readNetworkLayers(const std::string& text, const std::string& name) {
    NetworkLayers n;
    n.network = std::filesystem::path(name).stem().string();
    workloads::ConvDefaults d;
    d.passes = {workloads::ConvPass::Forward};
    std::vector<workloads::ConvCase> cases;
    try {
        cases = workloads::parseConvWorkload(text, name, d);
    } catch (const std::exception& e) {
        throw SeerError(e.what());
    }
    for (const auto& c : cases) {
        const std::string line = c.seerLine();
        if (line.empty()) {
            n.undescribed += c.count;
            continue;
        }
        n.layers.push_back({c.name, parseSeerLine(line, c.source), c.count});
    }
    return n;
}

std::vector<NetworkFigures> evaluateNetwork(const Model& model, const NetworkLayers& network,
                                            const std::vector<SeerRow>& rows) {
    // The rows by (pass, configuration), and the batches and passes of the network's layers.
    std::map<std::string, std::vector<const SeerRow*>> byCase;
    std::set<double> batches;
    std::set<std::string> passes;
    auto keyAt = [](ConvParams c, double batch) {
        c.batch = batch;
        return c.key();
    };
    for (const SeerRow& r : rows) {
        byCase[r.pass + " " + r.conv.key()].push_back(&r);
        for (const auto& l : network.layers)
            if (keyAt(l.conv, r.conv.batch) == r.conv.key()) {
                batches.insert(r.conv.batch);
                passes.insert(r.pass);
            }
    }
    std::vector<NetworkFigures> out;
    for (double batch : batches) {
        NetworkFigures f;
        f.network = network.network;
        f.batch = batch;
        f.undescribed = network.undescribed;
        for (const std::string& pass : passes) {
            // A pass counts only when every described layer has it: a partial sum would read as
            // a network that is faster than it is.
            NetworkFigures sum;
            for (const auto& layer : network.layers) {
                const auto it = byCase.find(pass + " " + keyAt(layer.conv, batch));
                const Pick p = it == byCase.end() ? Pick{} : pickEngine(model, it->second);
                if (!p.pick) {
                    sum.missing += layer.count;
                    continue;
                }
                const auto count = static_cast<double>(layer.count);
                sum.layers += layer.count;
                sum.predicted += count * p.predicted;
                sum.picked += count * p.pick->timeSeconds;
                sum.best += count * p.best->timeSeconds;
                if (p.heuristic)
                    sum.heuristic += count * p.heuristic->timeSeconds;
                else
                    sum.heuristicComplete = false;
            }
            if (sum.missing > 0) {
                f.missing += sum.missing;
                f.incomplete.insert(pass);
                continue;
            }
            f.passes.insert(pass);
            f.layers += sum.layers;
            f.predicted += sum.predicted;
            f.picked += sum.picked;
            f.best += sum.best;
            f.heuristic += sum.heuristic;
            f.heuristicComplete = f.heuristicComplete && sum.heuristicComplete;
        }
        out.push_back(std::move(f));
    }
    return out;
}

void printNetworkFigures(const std::vector<NetworkFigures>& figures, std::ostream& out) {
    out << "network        batch  passes                   layers   predicted    measured   error"
           "        best   heuristic\n";
    for (const auto& f : figures) {
        std::string passes;
        for (const auto& p : f.passes)
            passes += (passes.empty() ? "" : ",") + p;
        char line[320];
        const double error = f.picked > 0 ? (f.predicted - f.picked) / f.picked : 0.0;
        std::snprintf(
            line, sizeof line,
            "%-14.14s %5.0f  %-24.24s %6lld %8.3f ms %8.3f ms %6.1f%% %8.3f ms %8.3f ms%s\n",
            f.network.c_str(), f.batch, passes.c_str(), f.layers, f.predicted * 1e3, f.picked * 1e3,
            100 * error, f.best * 1e3, f.heuristic * 1e3,
            f.heuristicComplete ? "" : " (incomplete)");
        out << line;
        if (f.missing > 0) {
            std::string left;
            for (const auto& p : f.incomplete)
                left += (left.empty() ? "" : ", ") + p;
            out << "    left out: " << left << " (" << f.missing
                << " layers without a measured row in it)\n";
        }
        if (f.undescribed > 0)
            out << "    " << f.undescribed
                << " layers are outside SEER's parameters (grouped, 3D, dilated or not square) "
                   "and not counted\n";
    }
    out << "(seconds per training iteration summed over the layers and passes measured: the "
           "model's picks predicted and measured, the measured best engines', and cuDNN's "
           "heuristic picks')\n";
}

} // namespace roofline::seer
