#pragma once
// A sampled job's steps in figures (docs/design/0029): each step's time, clock, FLOP estimates,
// bytes at each level, bandwidth, the resource nearest its peak, and whether it strays from the
// median step. Every figure comes from the recording's raw counters and the family's SamplingSet
// when read, so a later calibration changes the figures, not the file. Pure.
#include "core/sampled_recording.hpp"
#include "core/sampling_set.hpp"

#include <roofline/kernel_record.hpp>

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace roofline::core {

// A row of several steps (SampledStep::steps) gives each figure per step: its times, FLOPs and
// bytes are the row's over its steps; rates and shares are the row's.
struct StepFigures {
    std::uint64_t index = 0;
    std::uint64_t steps = 1;  ///< the program's steps the row holds, from `index` on
    double seconds = 0;       ///< GPU time from its first kernel's start to its last one's end
    double kernelSeconds = 0; ///< its kernels' durations added up
    double clockHz = 0;       ///< SM cycles over the kernels' time the samples covered
    double fp32Flops = 0, fp64Flops = 0; ///< estimates (SamplingSet)
    /// Of the SMs' cycles over `seconds` (at clockHz), the tensor pipe's active ones; of a
    /// signature's, over its kernels' time.
    double tensorPipeShare = 0;
    std::array<double, kMemoryLevelCount> bytes{};
    double flopsPerSecond = 0;     ///< FP32 and FP64 estimates over `seconds`
    double dramBytesPerSecond = 0; ///< over `seconds`
    /// The resource nearest its roof, and how near: "DRAM", "FP32", "FP64" or "tensor pipe".
    std::string nearest;
    double nearestShare = 0;
    double covered = 0;    ///< share of kernel time some sample covered (of the span: see below)
    double estimated = 0;  ///< share of its kernels shorter than three periods
    double fromMedian = 0; ///< (seconds - median) / median
    bool strays = false;
    /// false: its kernels were not recorded (SampledStep::kernelRecords): `seconds` is its span
    /// estimated from its launch calls, its values the samples over it, `covered` of the span.
    bool kernelRecords = true;
};

struct SampledFigures {
    std::vector<StepFigures> steps; ///< in step order
    double medianSeconds = 0;
    std::size_t strays = 0;
    std::size_t keptLaunches = 0; ///< launches the batches kept (last steps, strays)
};

/// The program's steps `f` holds: its rows' steps added up (a row of merged short steps holds
/// several).
std::uint64_t stepsIn(const SampledFigures& f);

/// The median of `values` (the upper one of an even count); 0 when empty.
double medianOf(std::vector<double> values);

/// The steps of `rec` in figures; `roofs`: the device's (FP32, FP64 and DRAM used); `strayShare`:
/// how far from the median step time a step strays. Throws Error(UnsupportedChip) for a chip
/// with no sampling set, Error(CorruptRecording) when a counter of the set is missing.
SampledFigures figuresOf(const SampledRecording& rec, const Ceilings& roofs,
                         double strayShare = 0.10);

/// The recording as kernel records, for `roofline compare` and its gate: one per kernel signature
/// (name and scope) with its time and work per step -- every launch of it in every write added up,
/// over the steps written -- and "between kernels" (scope "(median step)"): the median step's time
/// less theirs, so that the records add up to one step (`total`). With no signature written, one
/// record "step" holds the median step. Every record's note says it was sampled; bounds against
/// `roofs`.
std::vector<KernelRecord> sampledRecords(const SampledRecording& rec, const Ceilings& roofs);
/// The same, with the figures of `rec` already taken (figuresOf).
std::vector<KernelRecord> sampledRecords(const SampledRecording& rec, const SampledFigures& f,
                                         const Ceilings& roofs);

} // namespace roofline::core
