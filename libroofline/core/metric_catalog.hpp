#pragma once
// The metric catalog as data: per chip family, the CUPTI metrics that make up the hierarchical
// roofline and the linear formulas that turn their values into time, FLOPs and bytes.
// Each family records how its formulas were validated (docs/methodology.md has the details).

#include "core/metric_values.hpp"

#include <roofline/kernel_record.hpp>
#include <roofline/options.hpp>

#include <array>
#include <string>
#include <utility>
#include <vector>

namespace roofline::core {

struct Term {
    std::string metric;
    double coefficient = 1.0;
};

/// value = sum of coefficient * metric over the terms; an empty formula means "not measured here".
struct Formula {
    std::vector<Term> terms;
    bool empty() const noexcept { return terms.empty(); }
};

/// A tensor metric of the full set that need not be collected for a launch whose detection
/// counters show it cannot have that work (docs/design/0008-fewer-passes.md): when every formula
/// of `zeroWhen` evaluates to 0, the metric equals `from` (a counter collected from the start), or
/// 0 when `from` is empty. Otherwise the metric has to be collected for that launch.
struct TensorInference {
    std::string metric;
    std::vector<Formula> zeroWhen;
    std::string from;
};

/// A warp-level MMA type whose counter, once collected, can show that a launch's warp MMA is
/// all of that type: its warp-level ops (`metric` less the warpgroup ops in `warpgroup`) equal
/// `opsPerInstruction` -- the type's largest warp MMA shape -- times the warp MMA instructions
/// (TensorDetection::warpMma). No instruction of another type can then have run, since each
/// instruction of this type counts at most that many ops and one of another type none.
struct WarpMmaType {
    std::string metric;    ///< the per-type tensor counter (`sm__ops_path_tensor_src_tf32...`)
    std::string warpgroup; ///< its warpgroup-MMA op counter, collected from the start
    double opsPerInstruction = 0;
    std::vector<std::string> nameHints; ///< lower-case kernel-name parts that suggest the type
    /// Lower-case kernel-name parts that, all present, say a kernel runs warp MMA of this type
    /// whatever its architecture tag (PyTorch's fp32 memory-efficient attention: TF32).
    std::vector<std::vector<std::string>> impliedBy;
};

/// Tensor counters by detection: the counters collected with the core set from the start (MMA
/// instruction counts per family and the cheap per-type counters the inferences substitute), and
/// the inferences. Empty: the family has no detection rules, every tensor metric is collected.
struct TensorDetection {
    std::vector<std::string> counters;
    std::vector<TensorInference> inferences;
    /// Warp-level MMA instructions (0 where the launch ran none); the inferences that name this
    /// formula in `zeroWhen` hold once one warp MMA type accounts for all of them.
    Formula warpMma;
    /// In the order a guess prefers them, when nothing suggests one type (design 0022).
    std::vector<WarpMmaType> warpTypes;
    /// Lower-case kernel-name parts of kernels built for warp MMA (an architecture before the
    /// warpgroup MMA, a library's warp-MMA families), and of kernels built for warpgroup MMA,
    /// which rule a kernel out: a kernel with a marker, no warpgroup marker and a type's name hint
    /// suggests that type's counter from the first pass (core::anticipatedWarpMmaType).
    std::vector<std::string> warpKernelMarkers, warpgroupKernelMarkers;
    std::string validation; ///< the calibration that showed the inferences exact
    bool empty() const noexcept { return inferences.empty(); }
};

/// The instruction roofline's counters (Ding and Williams, "An Instruction Roofline Model for
/// GPUs", PMBS 2019; docs/design/0023): an opt-in group collected beside the FLOP roofline's.
/// Requests are warp-level memory instructions, as in the paper; transactions are 32-byte sectors
/// (global memory, L2, DRAM) and shared-memory wavefronts. Empty: not defined for the family.
struct InstructionCounters {
    std::string warpInstructions;             ///< warp instructions issued and executed
    std::string threadInstructions;           ///< thread instructions (threads active)
    std::string threadInstructionsPredicated; ///< ... whose predicate was true
    /// Thread instructions by class, predicate true, in InstructionClass order.
    std::array<std::string, kInstructionClassCount> threadClasses;
    std::string globalLoadRequests, globalStoreRequests;
    std::string globalLoadSectors, globalStoreSectors;
    /// Bytes the threads asked for: a request's ideal sectors are its bytes over 32 (coalesced).
    std::string globalLoadBytes, globalStoreBytes;
    std::string sharedLoadRequests, sharedStoreRequests;
    /// Bank conflicts of the shared loads and stores: the wavefronts beyond one per request (a
    /// request's wavefronts are 1 + its conflicts).
    std::string sharedLoadConflicts, sharedStoreConflicts;
    /// Bytes the threads asked of shared memory: a request's ideal wavefronts are its bytes over
    /// 128 (one wavefront serves 32 banks of 4 bytes).
    std::string sharedLoadBytes, sharedStoreBytes;
    std::string l2Sectors, dramSectors;
    bool empty() const noexcept { return warpInstructions.empty(); }
};

struct ChipProfile {
    std::string family;             ///< "Hopper"
    std::vector<std::string> chips; ///< CUPTI chip names, e.g. {"GH100"}
    std::string cyclesMetric;       ///< time = cycles / cycleRate
    std::string cycleRateMetric;
    std::string durationMetric; ///< nanoseconds
    std::array<Formula, kFlopKindCount> flops;
    std::array<Formula, kMemoryLevelCount> bytes;
    /// Nsight Compute's hierarchical-roofline byte counters (empty: not defined for the family).
    std::array<Formula, kMemoryLevelCount> bytesNcu;
    /// DRAM bytes read and written (their sum is dram__bytes.sum): collected beside the byte
    /// formulas, raw in each record's metrics (SEER models reads and writes apart). Empty: none.
    std::string dramReadMetric, dramWriteMetric;
    /// The L2's clock (lts cycles per second), collected with the bytes: the device-peak L2 roof
    /// is the L2 byte counter's peak per L2 cycle times it (core/device_peaks.hpp).
    std::string l2CycleRateMetric;
    /// Share of each roof's peak_sustained rate that kernels reach, as measured on the family's
    /// GPU (1: all of it). Sparse-capable tensor types count at the 2:4 sparse rate, twice the
    /// dense rate; L1's t-stage counts 512 B per SM cycle, 4x the 128 B data path; L2 kernels
    /// reach 59% of lts__t_bytes' peak.
    std::array<double, kFlopKindCount> peakFlopShare{1, 1, 1, 1, 1, 1, 1, 1, 1};
    std::array<double, kMemoryLevelCount> peakByteShare{1, 1, 1};
    /// The instruction roofline's group (`instructionMetrics`), collected only when asked for.
    InstructionCounters instructions;
    std::string validation; ///< what validated these formulas, and what did not
    TensorDetection tensorDetection;
};

/// `profile` with its byte formulas of `definition` (throws Error(InvalidArgument) naming the
/// family when it has none of that kind).
ChipProfile withBytes(const ChipProfile& profile, ByteDefinition definition);
/// "nersc" / "ncu" and the counters behind each level, for outputs.
std::string describeBytes(const ChipProfile& profile);

const std::vector<ChipProfile>& chipProfiles();
/// The family covering `chip`; throws Error(UnsupportedChip) listing the chips the catalog has.
const ChipProfile& profileForChip(const std::string& chip);
/// Every metric the profile needs, each once, in catalog order.
std::vector<std::string> requiredMetrics(const ChipProfile& profile,
                                         MetricSet set = MetricSet::Full);
/// Appends each of `metrics` to `list` unless empty or there already (a metric set keeps each
/// name once, in the order first added).
void addMetrics(std::vector<std::string>& list, const std::vector<std::string>& metrics);
/// The instruction roofline group's metrics, each once, in catalog order (empty: the family has
/// none). On GH100 they share the default detection set's 3 passes (docs/design/0023).
std::vector<std::string> instructionMetrics(const ChipProfile& profile);
/// "2 x sm__...ffma_pred_on.sum + sm__...fadd_pred_on.sum"
std::string describe(const Formula& formula);
/// Throws Error(UnknownMetric) naming the missing metric.
double evaluate(const Formula& formula, const MetricValues& values);

} // namespace roofline::core
