// Writes a sampled job's recording as the sampler would, for the report's and merge's tests: 120
// steps on an H200 (GH100's sampling set), 40 launches each, the slow steps (60 and 90 unless
// given) twice as long (their kernels' work the same, so their FLOP/s and bandwidth halve), one
// write every 25 steps; as rank RANK of WORLD when given.
//   roofline-test-sampled-job OUT.rfs [RANK WORLD [SLOW_STEP...]]
#include "core/sampled_recording.hpp"
#include "core/sampling_set.hpp"

#include <cstdio>
#include <cstdlib>
#include <set>
#include <string>

int main(int argc, char** argv) {
    using namespace roofline::core;
    if (argc < 2 || argc == 3) {
        std::fprintf(stderr, "usage: roofline-test-sampled-job OUT.rfs [RANK WORLD [SLOW...]]\n");
        return 2;
    }
    std::set<std::uint64_t> slow = {60, 90};
    if (argc > 4) {
        slow.clear();
        for (int i = 4; i < argc; ++i)
            slow.insert(std::strtoull(argv[i], nullptr, 10));
    }
    const SamplingSet& set = samplingSetForChip("GH100");
    SampledHeader h;
    h.libraryVersion = "test";
    h.device.name = "NVIDIA H200";
    h.device.chip = "GH100";
    h.device.computeMajor = 9;
    h.device.smCount = 132;
    h.device.smClockHz = 1.98e9;
    h.device.memoryClockHz = 2.619e9;
    h.device.memoryBusWidthBits = 6144;
    h.device.l2Bytes = 62914560;
    h.device.memoryBytes = 150ull << 30;
    h.counters = set.metrics();
    h.periodNs = 100000;
    h.ringSteps = 16;
    h.pid = 1;
    if (argc >= 4) {
        h.rank = std::atoi(argv[2]);
        h.worldSize = std::atoi(argv[3]);
    }
    h.startedUnixNs = 1;
    SampledRecordingWriter w(argv[1], h);
    SampledBatch batch;
    std::uint64_t clock = 0;
    for (std::uint64_t step = 0; step < 120; ++step) {
        const std::uint64_t ns = slow.count(step) ? 24000000 : 12000000; // 12 ms
        SampledStep s;
        s.index = step;
        s.startNs = clock;
        s.endNs = clock + ns;
        s.kernels = 40;
        s.kernelNs = ns - 400000;
        s.coveredNs = s.kernelNs;
        s.estimatedKernels = 10;
        for (const std::string& m : h.counters) {
            double v = 0;
            if (m == set.cyclesMetric)
                v = 1.755e9 * static_cast<double>(s.coveredNs) * 1e-9; // 1.755 GHz
            else if (m == set.fmaInstructions)
                v = 2e9;
            else if (m == set.warpInstructions)
                v = 4e9;
            else if (m == set.threadInstructions)
                v = 4e9 * 32 * 0.75; // three quarters of the threads on
            else if (m == set.fp64PipeCycles)
                v = 1e6;
            else if (m == set.tensorPipeCycles)
                v = 0.3 * 1.755e9 * static_cast<double>(s.coveredNs) * 1e-9 * 132;
            else if (m == set.bytes[2])
                v = 24e9; // 2 TB/s over 12 ms
            else if (m == set.bytes[1])
                v = 60e9;
            else if (m == set.bytes[0])
                v = 120e9;
            s.values.push_back(v);
            s.between.push_back(0);
        }
        batch.steps.push_back(s);
        clock += ns + 1000;
        if (batch.steps.size() == 25 || step == 119) {
            batch.writtenUnixNs = step;
            batch.launches.push_back({step, "gemm_bf16", "step/forward", s.startNs,
                                      s.startNs + 500000, s.values, 500000, false});
            // Every step ran the GEMM 20 times, 250 us each, with a quarter of the step's work.
            std::vector<double> work = s.values;
            for (double& v : work)
                v *= 0.25 * static_cast<double>(batch.steps.size());
            batch.signatures.push_back({"gemm_bf16", "step/forward", 20 * batch.steps.size(),
                                        5000000 * batch.steps.size(), work, 0});
            w.append(batch);
            batch = {};
        }
    }
    return 0;
}
