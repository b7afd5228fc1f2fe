#pragma once
/// \file networks.hpp
/// A real network's convolution time per training iteration, predicted against measured
/// (Test-set-II of real networks, docs/seer.md): for each layer shape of the network (a
/// roofline-conv workload file whose `count` column says how many layers have it), each batch and
/// each pass measured, the engine the model picks; the network's time is the sum over its layers of
/// the pick's predicted and measured times, beside the measured best's and cuDNN's heuristic's.
/// Pure C++.
#include "seer/model.hpp"

#include <iosfwd>
#include <set>
#include <string>
#include <vector>

namespace roofline::seer {

struct NetworkLayer {
    std::string name;
    ConvParams conv;     ///< at the file's batch; evaluated at every batch the data has
    long long count = 1; ///< layers of the network with this shape
};

struct NetworkLayers {
    std::string network; ///< the file's stem ("resnet50")
    std::vector<NetworkLayer> layers;
    long long undescribed = 0; ///< layers SEER's parameters cannot describe (grouped, 3D, ...)
};

/// The layers of a roofline-conv workload file (its text and its name, for errors and the
/// network's name). Throws SeerError naming the file on a bad workload.
NetworkLayers readNetworkLayers(const std::string& text, const std::string& name);

struct NetworkFigures {
    std::string network;
    double batch = 0;
    std::set<std::string> passes;     ///< passes measured for every described layer: summed
    std::set<std::string> incomplete; ///< passes some described layer lacks: left out
    long long layers = 0;             ///< layer-passes summed (layers counted with their counts)
    long long missing = 0;            ///< layers without rows in the incomplete passes
    long long undescribed = 0;        ///< the file's layers outside SEER's parameters
    double predicted = 0;             ///< seconds per iteration: the picks' predicted times
    double picked = 0;                ///< ... the picks' measured times
    double best = 0;                  ///< ... the measured best engines'
    double heuristic = 0;             ///< ... cuDNN's heuristic picks' (0: not recorded)
    bool heuristicComplete = true;    ///< every layer's heuristic pick was measured
};

/// One entry per batch the rows hold for the network's layers, by batch.
std::vector<NetworkFigures> evaluateNetwork(const Model& model, const NetworkLayers& network,
                                            const std::vector<SeerRow>& rows);

void printNetworkFigures(const std::vector<NetworkFigures>& figures, std::ostream& out);

} // namespace roofline::seer
