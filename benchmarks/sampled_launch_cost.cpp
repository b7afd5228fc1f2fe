// What a sampled session does on each of the program's launches (session/session_state: the
// scopes open, the step found in the launch stream, the collector's sampling strategy, the step
// series' log), CPU only: the launch callbacks' events fed as the driver's callbacks feed them,
// 683 launches a step of PyTorch-length kernel names, with the reading thread's work done between
// steps. Two programs: one that opens no range (its step found in the launch stream) and one
// whose step is an NVTX-like range. CUPTI's own work per launch is not here (it is measured on
// the device: docs/methodology.md, "Sampled values").
//
//   roofline-bench-sampled-launch [STEPS]      (default 300)
//
// Prints the session's time per launch for each program.
#include "sampling/step_series.hpp"
#include "scopes/scope_stacks.hpp"
#include "session/session_state.hpp"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <unistd.h>
#include <vector>

using namespace roofline;
using namespace roofline::collect;

namespace {

double nsPerLaunch(int steps, bool ranges) {
    constexpr int kLaunches = 683, kNames = 40, kWarm = 50;
    SessionState s;
    Options options;
    options.mode = CollectionMode::Sample;
    options.processScopes = true; // as `roofline run` sets it: the step can be found
    options.flushOnExit = false;
    s.process.pid = ::getpid();
    s.generation = nextGeneration();
    s.settings = resolveSettings(options, s.process, Capabilities{});
    CollectorConfig config = collectorConfig(s.settings);
    SessionDevice d;
    d.info.ordinal = 0;
    d.info.chip = "GH100";
    s.devices.push_back(std::move(d));
    sampling::StepSeriesConfig sc;
    sc.counters = 11;
    sampling::StepSeries series(sc, nullptr);
    config.steps = &series;
    s.begin(config, {}, Level::Sampled);
    std::vector<std::string> names;
    for (int i = 0; i < kNames; ++i)
        names.push_back("_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_13BinaryFunctorIfffNS0_"
                        "15binary_internal10MulFunctorIfEEEESt5arrayIPcLm3EEEEviT0_T1_" +
                        std::to_string(i));
    std::uint64_t id = 0;
    double ns = 0;
    for (int step = 0; step < steps; ++step) {
        const std::string range = "step " + std::to_string(step);
        if (ranges)
            trackPush("", range.c_str());
        const auto t0 = std::chrono::steady_clock::now();
        for (int k = 0; k < kLaunches; ++k) {
            cupti::LaunchEvent e;
            e.launch.mangledName = names[(k * 7 + k / kNames) % kNames].c_str();
            e.launch.grid = {64, 1, 1};
            e.launch.block = {128, 1, 1};
            e.launch.correlationId = ++id;
            s.onLaunch(e);
            cupti::LaunchEvent exit;
            exit.exit = true;
            s.onLaunch(exit);
        }
        const auto t1 = std::chrono::steady_clock::now();
        if (ranges)
            trackPop("");
        if (step >= kWarm)
            ns += std::chrono::duration<double, std::nano>(t1 - t0).count();
        series.advance(1); // the reading thread's turn: the log applied (no records come)
    }
    s.finish();
    return ns / (static_cast<double>(steps - kWarm) * kLaunches);
}

} // namespace

int main(int argc, char** argv) {
    const int steps = argc > 1 ? std::max(100, std::atoi(argv[1])) : 300;
    std::printf("roofline-bench-sampled-launch: %d steps of 683 launches\n", steps);
    std::printf("  no range (the step found in the launch stream): %.0f ns a launch\n",
                nsPerLaunch(steps, false));
    std::printf("  a range per step: %.0f ns a launch\n", nsPerLaunch(steps, true));
    return 0;
}
