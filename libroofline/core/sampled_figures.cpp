#include "core/sampled_figures.hpp"

#include "core/recording_file.hpp"

#include <algorithm>

namespace roofline::core {
namespace {

// Where each counter of the set sits in the recording's values.
struct Columns {
    std::size_t cycles, fma, warp, thread, fp64, tensor;
    std::array<std::size_t, kMemoryLevelCount> bytes{};
};

Columns columnsOf(const SamplingSet& set, const std::vector<std::string>& counters) {
    const auto at = [&](const std::string& m) {
        const auto it = std::find(counters.begin(), counters.end(), m);
        if (it == counters.end())
            corruptRecording("sampled recording", "it has no counter '" + m + "', which the " +
                                                      set.family + " sampling set needs");
        return static_cast<std::size_t>(it - counters.begin());
    };
    Columns c{at(set.cyclesMetric),   at(set.fmaInstructions), at(set.warpInstructions),
              at(set.threadInstructions), at(set.fp64PipeCycles), at(set.tensorPipeCycles)};
    for (std::size_t l = 0; l < kMemoryLevelCount; ++l)
        c.bytes[l] = at(set.bytes[l]);
    return c;
}

void nearestRoof(StepFigures& f, const Ceilings& roofs) {
    const auto consider = [&f](const char* name, double share) {
        if (share > f.nearestShare) {
            f.nearest = name;
            f.nearestShare = share;
        }
    };
    const auto share = [](double value, double roof) { return roof > 0 ? value / roof : 0.0; };
    const std::size_t dram = static_cast<std::size_t>(MemoryLevel::DRAM);
    consider("DRAM", share(f.dramBytesPerSecond, roofs.bytesPerSecond[dram]));
    consider("FP32", share(f.seconds > 0 ? f.fp32Flops / f.seconds : 0,
                           roofs.flopsPerSecond[static_cast<std::size_t>(FlopKind::FP32)]));
    consider("FP64", share(f.seconds > 0 ? f.fp64Flops / f.seconds : 0,
                           roofs.flopsPerSecond[static_cast<std::size_t>(FlopKind::FP64)]));
    consider("tensor pipe", f.tensorPipeShare);
}

StepFigures stepFigures(const SampledStep& s, const SamplingSet& set, const Columns& c,
                        int smCount) {
    StepFigures f;
    f.index = s.index;
    f.seconds = static_cast<double>(s.endNs - std::min(s.startNs, s.endNs)) * 1e-9;
    f.kernelSeconds = static_cast<double>(s.kernelNs) * 1e-9;
    const double covered = static_cast<double>(s.coveredNs) * 1e-9;
    f.clockHz = covered > 0 ? s.values[c.cycles] / covered : 0;
    const double threadsPerWarp = s.values[c.warp] > 0 ? s.values[c.thread] / s.values[c.warp] : 0;
    f.fp32Flops = set.fp32FlopsPerFmaThread * s.values[c.fma] * threadsPerWarp;
    f.fp64Flops = set.fp64FlopsPerPipeCycle * s.values[c.fp64];
    const double smCycles = s.values[c.cycles] * static_cast<double>(std::max(1, smCount));
    f.tensorPipeShare = smCycles > 0 ? s.values[c.tensor] / smCycles : 0;
    for (std::size_t l = 0; l < kMemoryLevelCount; ++l)
        f.bytes[l] = s.values[c.bytes[l]];
    if (f.seconds > 0) {
        f.flopsPerSecond = (f.fp32Flops + f.fp64Flops) / f.seconds;
        f.dramBytesPerSecond = f.bytes[static_cast<std::size_t>(MemoryLevel::DRAM)] / f.seconds;
    }
    f.covered = s.kernelNs > 0 ? static_cast<double>(s.coveredNs) / static_cast<double>(s.kernelNs)
                               : 0;
    f.estimated = s.kernels > 0 ? static_cast<double>(s.estimatedKernels) /
                                      static_cast<double>(s.kernels)
                                : 0;
    return f;
}

} // namespace

SampledFigures figuresOf(const SampledRecording& rec, const Ceilings& roofs, double strayShare) {
    const SamplingSet& set = samplingSetForChip(rec.header.device.chip);
    const Columns c = columnsOf(set, rec.header.counters);
    SampledFigures out;
    for (const SampledBatch& b : rec.batches) {
        out.keptLaunches += b.launches.size();
        for (const SampledStep& s : b.steps) {
            out.steps.push_back(stepFigures(s, set, c, rec.header.device.smCount));
            nearestRoof(out.steps.back(), roofs);
        }
    }
    std::stable_sort(out.steps.begin(), out.steps.end(),
                     [](const StepFigures& a, const StepFigures& b) { return a.index < b.index; });
    std::vector<double> times;
    for (const StepFigures& f : out.steps)
        times.push_back(f.seconds);
    if (times.empty())
        return out;
    std::nth_element(times.begin(), times.begin() + times.size() / 2, times.end());
    out.medianSeconds = times[times.size() / 2];
    for (StepFigures& f : out.steps) {
        f.fromMedian = out.medianSeconds > 0 ? (f.seconds - out.medianSeconds) / out.medianSeconds
                                             : 0;
        f.strays = f.fromMedian > strayShare || f.fromMedian < -strayShare;
        out.strays += f.strays ? 1 : 0;
    }
    return out;
}

} // namespace roofline::core
