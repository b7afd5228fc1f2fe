#pragma once
// Iterations the collector tests drive through the fake backend (collector_harness.hpp): the
// reuse settings they ask for and a small layered training step.
#include "unit/collector_harness.hpp"

#include <cstddef>
#include <string>

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

// The work layeredTrainStep gives the launches of kernel `mangledName`.
inline double layeredWork(const std::string& mangledName) {
    return mangledName == "embedding" ? 1
           : mangledName == "matmul"  ? 10
           : mangledName == "gelu"    ? 2
                                      : 7;
}

} // namespace roofline::collect::testing
