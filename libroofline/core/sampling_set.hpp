#pragma once
// PM sampling's counter set per chip family, as data (docs/design/0029): the counters sampled on a
// period in one pass, and which of them give time, bytes at each level and the pipe activity the
// FLOP estimates come from. PM sampling has its own metric list (the replay profile's SASS
// counters are not in it) and refuses more than one pass; `SamplingSet.FitsOnePassOnItsChips`
// checks every set against CUPTI's host API.
#include <roofline/kernel_record.hpp>

#include <array>
#include <string>
#include <vector>

namespace roofline::core {

/// The tensor pipe's rate for one input type: FLOPs per active cycle (summed over SMs), and the
/// lower-case parts of a kernel's name that say the type (the pipe's counter does not).
struct TensorRate {
    FlopKind kind = FlopKind::TensorBF16;
    double flopsPerPipeCycle = 0;
    std::vector<std::string> nameHints;
};

struct SamplingSet {
    std::string family;             ///< "Hopper"
    std::vector<std::string> chips; ///< CUPTI chip names it was checked on
    /// SM cycles elapsed (average over SMs). Every counter of the set adds up over time (a rate
    /// would not: samples are divided among kernels by time); the clock is cycles over time.
    std::string cyclesMetric;
    /// Bytes at L1, L2 and DRAM (MemoryLevel order), the replay profile's counters.
    std::array<std::string, kMemoryLevelCount> bytes;
    std::string dramReadMetric, dramWriteMetric;
    std::string fmaInstructions;    ///< warp instructions on the FMA pipes (heavy and lite)
    std::string warpInstructions;   ///< every warp instruction
    std::string threadInstructions; ///< every thread instruction whose predicate was true
    std::string fp64PipeCycles;     ///< cycles the FP64 pipe was active, summed over SMs
    std::string tensorPipeCycles;   ///< cycles the tensor pipe was active, summed over SMs
    /// FP32 FLOPs = this x FMA-pipe warp instructions x (thread instructions / warp instructions):
    /// 2 for an FFMA of a full warp (FADD, FMUL and IMAD count the same, so an upper bound).
    double fp32FlopsPerFmaThread = 2;
    /// FP64 FLOPs per FP64-pipe active cycle (summed over SMs): the calibration's DFMA kernel
    /// kept the pipe 2 cycles per warp DFMA, 64 FLOPs.
    double fp64FlopsPerPipeCycle = 32;
    /// Tensor FLOPs per tensor-pipe active cycle by input type, as cuBLAS GEMMs measured them;
    /// the first whose hint a kernel's name holds is its type.
    std::vector<TensorRate> tensorRates;
    std::string validation;         ///< what checked the set, and what is still an estimate
    /// Every counter the sampler configures, each once, in this order.
    std::vector<std::string> metrics() const;
};

/// The tensor rate a kernel's name suggests (`demangled`, any case); null: none does.
const TensorRate* tensorRateFor(const SamplingSet& set, const std::string& demangled);

/// The sets the catalog has, one per family.
const std::vector<SamplingSet>& samplingSets();
/// The set covering `chip`; throws Error(UnsupportedChip) naming the chips that have one.
const SamplingSet& samplingSetForChip(const std::string& chip);

} // namespace roofline::core
