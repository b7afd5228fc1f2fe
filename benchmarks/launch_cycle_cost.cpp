// roofline-bench-launch-cycle: what the search for a program's step in its launch stream
// (scopes/launch_cycle, design 0024) costs per launch, on streams shaped like real ones. CPU
// only; prints ns per launch for each stream:
//  - a training step: 267 launches of 40 kernels, 4 identical layers (an eager GPT);
//  - a stream that never repeats (a one-shot program, a benchmark timing distinct cases);
//  - a stream where one kernel is every other launch, the rest never repeating (an elementwise
//    kernel between distinct GEMMs);
//  - one kernel launched again and again (a solver's inner loop).
//   roofline-bench-launch-cycle [launches]
#include "scopes/launch_cycle.hpp"

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <vector>

using roofline::collect::LaunchCycle;

namespace {

double nsPerLaunch(const std::vector<std::uint64_t>& stream) {
    LaunchCycle cycle;
    std::uint64_t steps = 0;
    const auto start = std::chrono::steady_clock::now();
    for (const std::uint64_t s : stream)
        steps += cycle.launch(s) == LaunchCycle::Event::Begins;
    const double ns =
        std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start).count();
    std::printf("    (%llu steps begun, cycle %zu)\n", static_cast<unsigned long long>(steps),
                cycle.length());
    return ns / static_cast<double>(stream.size());
}

std::uint64_t mix(std::uint64_t x) {
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    return x ^ (x >> 33);
}

} // namespace

int main(int argc, char** argv) {
    const std::size_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 200000;
    std::vector<std::uint64_t> step;
    for (int k = 0; k < 7; ++k)
        step.push_back(100 + k); // embedding, input projection
    for (int layer = 0; layer < 4; ++layer)
        for (int k = 0; k < 30; ++k)
            step.push_back(200 + k); // forward of a layer
    for (int layer = 0; layer < 4; ++layer)
        for (int k = 0; k < 30; ++k)
            step.push_back(300 + k); // backward of a layer
    while (step.size() < 267)
        step.push_back(400 + step.size() % 5); // the optimizer's tail
    const std::vector<std::pair<const char*, std::function<std::uint64_t(std::size_t)>>> streams = {
        {"training step (267 launches, 4 layers)", [&](std::size_t i) { return step[i % 267]; }},
        {"never repeating", [](std::size_t i) { return mix(i + 1); }},
        {"one kernel every other launch", [](std::size_t i) { return i % 2 ? 7 : mix(i + 1); }},
        {"one kernel again and again", [](std::size_t) { return std::uint64_t{7}; }},
    };
    std::printf("roofline-bench-launch-cycle: %zu launches a stream, longest cycle %zu\n", n,
                LaunchCycle::kLongestCycle);
    for (const auto& [name, at] : streams) {
        std::vector<std::uint64_t> stream(n);
        for (std::size_t i = 0; i < n; ++i)
            stream[i] = at(i);
        std::printf("  %s\n", name);
        const double ns = nsPerLaunch(stream);
        std::printf("  %s: %.0f ns a launch\n", name, ns);
    }
    return 0;
}
