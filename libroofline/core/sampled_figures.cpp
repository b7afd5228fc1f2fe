#include "core/sampled_figures.hpp"

#include "core/recording_file.hpp"
#include "core/roofline_model.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <string>
#include <utility>

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
    Columns c{at(set.cyclesMetric),       at(set.fmaInstructions), at(set.warpInstructions),
              at(set.threadInstructions), at(set.fp64PipeCycles),  at(set.tensorPipeCycles)};
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

// The work the counters of `values` say was done: FLOP estimates, bytes, the tensor pipe's share.
void workOf(const std::vector<double>& values, const SamplingSet& set, const Columns& c,
            int smCount, StepFigures& f) {
    const double threadsPerWarp = values[c.warp] > 0 ? values[c.thread] / values[c.warp] : 0;
    f.fp32Flops = set.fp32FlopsPerFmaThread * values[c.fma] * threadsPerWarp;
    f.fp64Flops = set.fp64FlopsPerPipeCycle * values[c.fp64];
    const double smCycles = values[c.cycles] * static_cast<double>(std::max(1, smCount));
    f.tensorPipeShare = smCycles > 0 ? values[c.tensor] / smCycles : 0;
    for (std::size_t l = 0; l < kMemoryLevelCount; ++l)
        f.bytes[l] = values[c.bytes[l]];
}

StepFigures stepFigures(const SampledStep& s, const SamplingSet& set, const Columns& c,
                        int smCount) {
    StepFigures f;
    f.index = s.index;
    f.seconds = static_cast<double>(s.endNs - std::min(s.startNs, s.endNs)) * 1e-9;
    f.kernelSeconds = static_cast<double>(s.kernelNs) * 1e-9;
    const double covered = static_cast<double>(s.coveredNs) * 1e-9;
    f.clockHz = covered > 0 ? s.values[c.cycles] / covered : 0;
    workOf(s.values, set, c, smCount, f);
    // The tensor pipe's share over the step, as its FLOP/s and bytes per second are: the SMs'
    // cycles over its time at the clock its kernels ran at.
    const double stepCycles = f.clockHz * f.seconds * static_cast<double>(std::max(1, smCount));
    f.tensorPipeShare = stepCycles > 0 ? s.values[c.tensor] / stepCycles : 0;
    if (f.seconds > 0) {
        f.flopsPerSecond = (f.fp32Flops + f.fp64Flops) / f.seconds;
        f.dramBytesPerSecond = f.bytes[static_cast<std::size_t>(MemoryLevel::DRAM)] / f.seconds;
    }
    const std::uint64_t coverable = s.coverableNs();
    f.covered =
        coverable > 0 ? static_cast<double>(s.coveredNs) / static_cast<double>(coverable) : 0;
    f.kernelRecords = s.kernelRecords;
    f.steps = std::max<std::uint64_t>(s.steps, 1);
    if (f.steps > 1) {
        const double n = static_cast<double>(f.steps);
        f.seconds /= n;
        f.kernelSeconds /= n;
        f.fp32Flops /= n;
        f.fp64Flops /= n;
        for (double& b : f.bytes)
            b /= n;
    }
    f.estimated = s.kernels > 0
                      ? static_cast<double>(s.estimatedKernels) / static_cast<double>(s.kernels)
                      : 0;
    return f;
}

} // namespace

std::uint64_t stepsIn(const SampledFigures& f) {
    std::uint64_t steps = 0;
    for (const StepFigures& s : f.steps)
        steps += s.steps;
    return steps;
}

double medianOf(std::vector<double> v) {
    if (v.empty())
        return 0;
    std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
    return v[v.size() / 2];
}

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
    out.medianSeconds = medianOf(times);
    for (StepFigures& f : out.steps) {
        f.fromMedian =
            out.medianSeconds > 0 ? (f.seconds - out.medianSeconds) / out.medianSeconds : 0;
        f.strays = f.fromMedian > strayShare || f.fromMedian < -strayShare;
        out.strays += f.strays ? 1 : 0;
    }
    return out;
}

namespace {

KernelRecord sampledRecord(std::string name, std::string scope, double seconds,
                           const StepFigures& work, std::uint32_t kernels, const Ceilings& roofs,
                           const std::string& note) {
    KernelRecord r;
    r.name = r.mangledName = std::move(name);
    r.scopePath = r.scopePathRaw = std::move(scope);
    r.timeSeconds = r.gpuDurationSeconds = seconds;
    r.smClockHz = work.clockHz;
    r.flops[static_cast<std::size_t>(FlopKind::FP32)] = work.fp32Flops;
    r.flops[static_cast<std::size_t>(FlopKind::FP64)] = work.fp64Flops;
    r.bytes = work.bytes;
    r.kernels = kernels;
    r.measured = true;
    r.note = note;
    r.bound = classify(r, roofs);
    return r;
}

// Every signature's sums over all the writes, and the steps they cover.
struct Totals {
    std::map<std::pair<std::string, std::string>, SampledSignature> signatures;
    double steps = 0;    ///< the steps whose kernels were recorded (the signatures' steps)
    double allSteps = 0; ///< every step
};

Totals signatureTotals(const SampledRecording& rec) {
    Totals t;
    for (const SampledBatch& b : rec.batches) {
        for (const SampledStep& s : b.steps) {
            const double steps = static_cast<double>(std::max<std::uint64_t>(s.steps, 1));
            t.allSteps += steps;
            if (s.kernelRecords) // the signatures sum the steps whose kernels were recorded
                t.steps += steps;
        }
        for (const SampledSignature& s : b.signatures)
            addTo(t.signatures[{s.name, s.scope}], s.name, s.scope, rec.header.counters.size(),
                  s.launches, s.ns, s.values, s.estimated, s.coveredNs);
    }
    return t;
}

// What a signature's record is: a mean per step of sampled launches, its tensor type's source,
// and the share of its time the samples covered where they missed some.
std::string signatureNote(const SampledSignature& sig, double steps, double allSteps,
                          bool tensorWork, const TensorRate* rate) {
    const std::string share =
        allSteps > steps ? " (kernel records on " + std::to_string(static_cast<long long>(steps)) +
                               " of " + std::to_string(static_cast<long long>(allSteps)) + " steps)"
                         : "";
    std::string note = "sampled: per step, the mean over " +
                       std::to_string(static_cast<long long>(steps)) + " steps" + share +
                       " of its " + std::to_string(sig.launches) +
                       " launches (PM sampling; FLOPs are estimates";
    if (tensorWork)
        note += rate ? "; tensor type from the kernel's name"
                     : "; its tensor work has no FLOPs: its name does not say the type";
    if (sig.coveredNs > 0 && sig.coveredNs < sig.ns) {
        char covered[64];
        std::snprintf(covered, sizeof covered, "; samples covered %.1f %% of its time",
                      100.0 * static_cast<double>(sig.coveredNs) / static_cast<double>(sig.ns));
        note += covered;
    }
    return note + ")";
}

// "N steps", or "R rows of N steps" where short steps were merged into rows.
std::string rowsSaid(const SampledFigures& f) {
    const std::uint64_t steps = stepsIn(f);
    return steps == f.steps.size()
               ? std::to_string(steps) + " steps"
               : std::to_string(f.steps.size()) + " rows of " + std::to_string(steps) + " steps";
}

} // namespace

std::vector<KernelRecord> sampledRecords(const SampledRecording& rec, const Ceilings& roofs) {
    return sampledRecords(rec, figuresOf(rec, roofs), roofs);
}

std::vector<KernelRecord> sampledRecords(const SampledRecording& rec, const SampledFigures& f,
                                         const Ceilings& roofs) {
    const SamplingSet& set = samplingSetForChip(rec.header.device.chip);
    const Columns c = columnsOf(set, rec.header.counters);
    std::vector<KernelRecord> out;
    if (f.steps.empty())
        return out;
    std::vector<double> times;
    for (const StepFigures& s : f.steps)
        times.push_back(s.seconds);
    const double median = medianOf(times);
    const auto step = std::min_element(
        f.steps.begin(), f.steps.end(), [&](const StepFigures& a, const StepFigures& b) {
            return std::abs(a.seconds - median) < std::abs(b.seconds - median);
        });
    const Totals totals = signatureTotals(rec);
    for (const auto& [key, sig] : totals.signatures) {
        if (totals.steps <= 0)
            break;
        std::vector<double> values(sig.values.size());
        for (std::size_t m = 0; m < values.size(); ++m)
            values[m] = sig.values[m] / totals.steps;
        StepFigures work;
        workOf(values, set, c, rec.header.device.smCount, work);
        // Its cycles over the time the samples covered: its own clock (0 where not known).
        work.clockHz = sig.coveredNs > 0
                           ? sig.values[c.cycles] / (static_cast<double>(sig.coveredNs) * 1e-9)
                           : 0;
        const double launches = static_cast<double>(sig.launches) / totals.steps;
        const TensorRate* rate = tensorRateFor(set, key.first);
        KernelRecord r = sampledRecord(
            key.first, key.second, static_cast<double>(sig.ns) * 1e-9 / totals.steps, work,
            static_cast<std::uint32_t>(launches + 0.5), roofs,
            signatureNote(sig, totals.steps, totals.allSteps, values[c.tensor] > 0, rate));
        if (rate) {
            r.flops[static_cast<std::size_t>(rate->kind)] =
                values[c.tensor] * rate->flopsPerPipeCycle;
            r.bound = classify(r, roofs);
        }
        out.push_back(std::move(r));
    }
    // The rest of the median step: its time between the kernels (the whole step when no batch
    // kept a full step), so that the records add up to the step.
    double kernels = 0;
    for (const KernelRecord& r : out)
        kernels += r.timeSeconds;
    StepFigures none;
    const bool whole = out.empty();
    out.push_back(
        sampledRecord(whole ? "step" : "between kernels", "(median step)",
                      whole ? step->seconds : std::max(0.0, step->seconds - kernels),
                      whole ? *step : none, 1, roofs,
                      "sampled: the median of " + rowsSaid(f) +
                          (whole ? " (PM sampling; FLOPs are estimates)"
                                 : ", less its kernels' time per step: the gaps between them")));
    for (std::size_t i = 0; i < out.size(); ++i)
        out[i].launchIndex = i;
    assignKernelIds(out);
    return out;
}

} // namespace roofline::core
