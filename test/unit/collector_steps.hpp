#pragma once
// Iterations the collector tests drive through the fake backend (collector_harness.hpp): the
// reuse settings they ask for, a small layered training step, an evaluation after it, and MMA
// work found in its matmul.
#include "unit/collector_harness.hpp"

#include <cstddef>
#include <limits>
#include <string>
#include <vector>

namespace roofline::collect::testing {

// Repeated-launch reuse with `samples` per signature, gaps up to `maxGap` inside a window.
inline CollectorConfig reuseConfig(std::size_t samples, std::size_t maxGap) {
    CollectorConfig c;
    c.reuseSamples = samples;
    c.reuseMaxGap = maxGap;
    return c;
}

// An embedding (work 1), six identical layers of matmul (10) and gelu (2), a head (7): 14
// launches. `firstLoad`: the embedding's module is loaded lazily at its launch; `extra`: a
// kernel launched last (work 4).
inline void layeredTrainStep(Harness& h, bool firstLoad = false, const char* extra = nullptr) {
    h.push("Train step");
    if (firstLoad)
        h.firstLaunch("embedding", 1);
    else
        h.launch("embedding", 1);
    for (int layer = 0; layer < 6; ++layer) {
        const std::string name = "Layer " + std::to_string(layer);
        h.push(name.c_str());
        h.launch("matmul", 10);
        h.launch("gelu", 2);
        h.pop();
    }
    h.launch("head", 7);
    if (extra)
        h.launch(extra, 4);
    h.pop();
}

// An evaluation after the steps: an outermost scope of 3 launches (work 3), none of a step's.
inline void evaluation(Harness& h) {
    h.push("Evaluation");
    for (int k = 0; k < 3; ++k)
        h.launch("evaluate", 3);
    h.pop();
}

// Tensor counters by detection for layeredTrainStep: its matmul (work 10) shows MMA work of an
// unknown type -- the third metric unknown, "tensor" to add -- until `grown` (the set grew).
inline void matmulNeedsTensorCounters(CollectorConfig& c, const bool& grown) {
    c.infer = [&grown](std::vector<double>& values) {
        if (!grown && values[0] == 10.0) {
            values[2] = std::numeric_limits<double>::quiet_NaN();
            return std::vector<std::string>{"tensor"};
        }
        return std::vector<std::string>{};
    };
}

// The work layeredTrainStep gives the launches of kernel `mangledName`.
inline double layeredWork(const std::string& mangledName) {
    return mangledName == "embedding" ? 1
           : mangledName == "matmul"  ? 10
           : mangledName == "gelu"    ? 2
                                      : 7;
}

} // namespace roofline::collect::testing
