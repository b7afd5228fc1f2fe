#pragma once
/// \file kernel_record.hpp
/// One kernel launch on the hierarchical roofline: its time, FLOPs per precision, bytes per memory
/// level, and what bounds it.

#include <roofline/export.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace roofline {

/// Kinds of arithmetic work. The first three run on CUDA cores, the others on tensor cores
/// (named by input type). TensorINT8 counts integer operations, not FLOPs.
enum class FlopKind : std::uint8_t {
    FP64,
    FP32,
    FP16,
    TensorFP64,
    TensorTF32,
    TensorFP16,
    TensorBF16,
    TensorFP8,
    TensorINT8,
};
inline constexpr std::size_t kFlopKindCount = 9;

/// Levels of the memory hierarchy whose traffic defines the three arithmetic intensities.
enum class MemoryLevel : std::uint8_t { L1, L2, DRAM };
inline constexpr std::size_t kMemoryLevelCount = 3;

ROOFLINE_API std::string_view toString(FlopKind kind) noexcept;
ROOFLINE_API std::string_view toString(MemoryLevel level) noexcept;
constexpr bool isTensor(FlopKind kind) noexcept {
    return kind >= FlopKind::TensorFP64;
}
constexpr bool isFloatingPoint(FlopKind kind) noexcept {
    return kind != FlopKind::TensorINT8;
}

/// Classes of thread instructions the instruction roofline splits (threads whose predicate was
/// true; Nsight Compute's "instruction statistics" classes).
enum class InstructionClass : std::uint8_t { Integer, FP32, FP64, FP16, Memory, Control };
inline constexpr std::size_t kInstructionClassCount = 6;
/// "integer", "fp32", "fp64", "fp16", "memory" or "control".
ROOFLINE_API std::string_view toString(InstructionClass kind) noexcept;

/// One kind of memory access of a launch: its warp-level requests, the transactions they took
/// (sectors of 32 B for global memory, wavefronts for shared memory) and the bytes its threads
/// asked for.
struct AccessCounts {
    double requests = 0;
    double transactions = 0;
    double bytes = 0;
};

/// The instruction roofline's counters of one launch (Ding and Williams, "An Instruction Roofline
/// Model for GPUs"), collected with ROOFLINE_METRICS=+instructions. Totals for the launch.
struct InstructionCounts {
    bool measured = false;         ///< false: the group was not collected (every value 0)
    double warp = 0;               ///< warp instructions executed
    double thread = 0;             ///< thread instructions (threads active)
    double threadPredicatedOn = 0; ///< ... whose predicate was true
    std::array<double, kInstructionClassCount> byClass{}; ///< thread instructions per class
    AccessCounts globalLoad, globalStore;                 ///< transactions: 32-byte sectors at L1
    AccessCounts sharedLoad, sharedStore;                 ///< transactions: wavefronts
    double l2Sectors = 0, dramSectors = 0;

    double classOf(InstructionClass kind) const noexcept {
        return byClass[static_cast<std::size_t>(kind)];
    }
};

/// Peak rates a record is compared with: FLOP/s per kind and bytes/s per level. Zero means unknown
/// (that roof is not drawn and never chosen as the bound).
/// Where one roof's value came from, best first: measured by microbenchmarks on this GPU model
/// (`roofline ceilings`: cached or bundled), the device's own peak rate (the counter API's
/// peak_sustained of the same metric, times its clock), or the model's datasheet.
enum class RoofSource : std::uint8_t { None, Measured, Device, Datasheet };
/// "", "measured", "device peak" or "datasheet".
ROOFLINE_API const char* toString(RoofSource source) noexcept;

struct Ceilings {
    std::string name;   ///< e.g. "NVIDIA H100 SXM5 (datasheet)"
    std::string source; ///< where the numbers come from, and how they were scaled
    std::array<double, kFlopKindCount> flopsPerSecond{};
    std::array<double, kMemoryLevelCount> bytesPerSecond{};
    /// Per roof: where its value came from (None where the value is 0).
    std::array<RoofSource, kFlopKindCount> flopSource{};
    std::array<RoofSource, kMemoryLevelCount> byteSource{};
    /// The instruction roofline's ceiling: warp instructions per second the device issues (0:
    /// unknown), and where it came from (measured, or the device's shape: SMs x 4 schedulers x
    /// the clock).
    double warpInstructionsPerSecond = 0;
    RoofSource warpIssueSource = RoofSource::None;
};

/// Below this many FLOPs per byte at every memory level a kernel counts as doing no floating-point
/// work (KernelRecord::noFloatingPointWork): real FP kernels sit far above it (an elementwise add
/// does 1 FLOP per 12 bytes), copies with a few compiler-generated FP instructions far below.
inline constexpr double kNoWorkIntensity = 1e-3;
/// Whether `flops` over the largest of `bytes` is FP work worth a point on a FLOP roofline.
inline bool floatingPointWork(double flops, const double* bytes, std::size_t levels) noexcept {
    double most = 0;
    for (std::size_t l = 0; l < levels; ++l)
        most = bytes[l] > most ? bytes[l] : most;
    return flops > 0 && flops >= kNoWorkIntensity * most;
}

/// A kernel below this fraction of every roof is bound by none of them: its Bound names what its
/// launch shape says instead (Limiter), beside the nearest roof.
inline constexpr double kBelowEveryRoof = 0.2;

/// Why a kernel far below every roof is slow, from its launch shape (docs/methodology.md).
enum class Limiter : std::uint8_t {
    None,      ///< some roof reaches kBelowEveryRoof: that roof bounds it
    FewBlocks, ///< the grid fills under half of one wave (or has fewer blocks than SMs): SMs idle
    Occupancy, ///< enough blocks, but under a quarter of the SM's warps resident (registers,
               ///< shared memory or block size): too little parallelism to hide latency
    Latency,   ///< full waves and occupancy, yet far from every roof: latency (dependent memory
               ///< accesses, synchronisation, a serial tail)
    ShapeUnknown, ///< far from every roof, with at least as many blocks as SMs, but the launch's
                  ///< registers or the device's occupancy limits were not recorded (recordings
                  ///< of libroofline before 0.1.0's occupancy fields): waves and occupancy
                  ///< cannot be told
};
/// "", "few blocks", "occupancy", "latency" or "no shape".
ROOFLINE_API const char* toString(Limiter limiter) noexcept;

/// What limits a kernel: the roof (a compute unit or a memory level) it uses the largest share of
/// or, below kBelowEveryRoof of every roof, its Limiter.
struct Bound {
    enum class Kind : std::uint8_t { Unknown, Compute, Memory };
    Kind kind = Kind::Unknown;
    FlopKind flop = FlopKind::FP32;      ///< valid when kind == Compute
    MemoryLevel level = MemoryLevel::L1; ///< valid when kind == Memory
    double fractionOfPeak = 0.0;     ///< achieved rate / that roof, 0..1 (can exceed 1 slightly)
    Limiter limiter = Limiter::None; ///< set when fractionOfPeak < kBelowEveryRoof
};
/// "DRAM 84%", or below every roof "latency (DRAM 5%)"; "unknown" without roofs.
ROOFLINE_API std::string toString(const Bound& bound);

struct Dim3 {
    std::uint32_t x = 1, y = 1, z = 1;
};

/// How a replayed record's passes compared with its first pass (iteration and scope replay).
enum class ReplayStatus : std::uint8_t {
    Clean,     ///< every pass ran the same launch (or no replay: kernel replay, timing only)
    Differs,   ///< a pass ran it with another grid or block: values kept, the note says what
    Unmatched, ///< a pass ran another kernel at its position or none: no values, the note says why
};

/// "clean", "differs" or "unmatched" (CSV/JSON column `replay`).
ROOFLINE_API const char* toString(ReplayStatus status);

/// One profiled kernel launch. Values are totals for the launch; rates divide by timeSeconds.
struct ROOFLINE_API KernelRecord {
    std::uint64_t launchIndex = 0; ///< order among the session's profiled launches, from 0
    /// The kernel's id in this recording: kernels numbered by their first launch, from 0. The same
    /// in every view of the recording (table '#', chart labels, CSV `kernel_id`, whatever the
    /// filters, grouping or sort).
    std::uint32_t kernelId = 0;
    std::string name;        ///< demangled kernel name
    std::string mangledName; ///< as the driver knows it
    /// Enclosing scope names (ProfileScope, NVTX) joined by '/', e.g. "train/step", with the
    /// iteration scope's instance number made uniform: "Train step 7/Layer 3" and "Train step 35/
    /// Layer 3" are both "Train step #/Layer 3", so every iteration's launches share one path.
    std::string scopePath;
    std::string scopePathRaw;    ///< the same path as the scopes were named ("Train step 7/...")
    std::int64_t iteration = -1; ///< the iteration scope's instance (its number, or the count of
                                 ///< iteration scopes opened before it); -1: outside any
    std::int64_t position = -1;  ///< order among its iteration's launches, from 0; -1: unknown
    /// The framework operator that launched it (PyTorch: "aten::addmm"); a backward kernel
    /// carries the forward operator it differentiates, an optimizer kernel the optimizer's
    /// operator ("aten::_fused_adamw_"), a torch.compile kernel the operators it fused
    /// ("inductor::fused_add_mul"). "": not launched inside a known operator.
    std::string op;
    /// Where `op` ran: "forward", "backward", "optimizer", "communication"; "": unknown.
    std::string phase;
    /// The module path of the layer it belongs to ("encoder.layers.3.linear1"; optimizer kernels:
    /// "optimizer.AdamW"); "": none known.
    std::string module;
    /// The operator's argument shapes as the framework gave them ("[[8, 256, 512], [2048, 512]]";
    /// a backward kernel: its forward operator's); "": not recorded.
    std::string shapes;
    /// Iteration replay with reuse (Options::reuseSamples): the values are the mean of this many
    /// measured launches of the same signature, the note says which and how far they spread; 0:
    /// measured on this launch itself.
    std::uint32_t reusedSamples = 0;
    Dim3 grid, block;
    int registersPerThread = -1;      ///< the kernel's registers per thread; -1: unknown
    std::uint64_t sharedMemBytes = 0; ///< static + dynamic shared memory per block
    /// Blocks of this launch one SM holds at once, by the device's occupancy rules (registers,
    /// shared memory, threads, blocks per SM); 0: unknown.
    int residentBlocksPerSm = 0;
    /// ceil(blocks / (residentBlocksPerSm x SMs)): how many rounds of blocks the launch runs in;
    /// 0: unknown.
    double waves = 0.0;
    std::uint64_t stream = 0;   ///< stream handle value (0: default stream)
    std::uint64_t threadId = 0; ///< OS thread id (gettid) of the launching thread
    int device = 0;             ///< CUDA device ordinal
    /// Recordings merged from several processes (`roofline merge`): the launcher's rank of the
    /// process that recorded it (its input order where the launcher set none); -1: one process.
    int rank = -1;
    /// Ranks that shared the profile (Options::shareAcrossRanks): the rank whose counters the
    /// record has (merged recordings) or awaits (a rank's own recording: not measured here);
    /// -1: its own.
    int countersRank = -1;
    /// Per-scope mode: the record covers one scope instance (name = the scope's name, scopePath =
    /// its full path) and all `kernels` launches inside it. Per-kernel modes: false, kernels 1.
    bool scopeRecord = false;
    std::uint32_t kernels = 1;

    ReplayStatus replay = ReplayStatus::Clean;
    bool measured = false; ///< false: no counter values (see note), only identity fields are set
                           ///< and, in timing-only mode, timeSeconds
    std::string note;      ///< why a record is incomplete, or caveats about its values
    /// A measured record whose counters are partial: the quantities it has no value for
    /// ("time", "FLOPs", "tensor FLOPs", "bytes", comma-separated) -- its other values stand,
    /// these are unknown, not zero (the note says why). Empty: complete.
    std::string lacks;

    double timeSeconds = 0.0;        ///< sm__cycles_elapsed.avg / sm__cycles_elapsed.avg.per_second
    double gpuDurationSeconds = 0.0; ///< gpu__time_duration.sum
    double smClockHz = 0.0;          ///< sm__cycles_elapsed.avg.per_second: the clock it ran at
    std::array<double, kFlopKindCount> flops{};    ///< work per kind (FLOPs; INT8: ops)
    std::array<double, kMemoryLevelCount> bytes{}; ///< traffic per memory level
    Bound bound;                                   ///< against the session's Ceilings
    std::map<std::string, double> metrics;         ///< raw CUPTI values keyed by metric name
    /// The instruction roofline's counters (measured only with ROOFLINE_METRICS=+instructions).
    InstructionCounts instructions;
    /// What those counters say a kernel author can act on, most telling first: "uncoalesced
    /// loads: 8.0 sectors per request (ideal 4.0)", "8-way shared-memory bank conflicts on loads",
    /// "predicated: 41% of threads active", "issue-bound at 83% of the warp-issue ceiling".
    /// Empty: nothing to act on, or the group was not measured.
    std::vector<std::string> instructionVerdicts;

    /// Floating-point work on all units (excludes TensorINT8).
    double totalFlops() const noexcept;
    /// Work on tensor cores only (floating point).
    double tensorFlops() const noexcept;
    /// tensorFlops() / totalFlops(): the share of the work done on tensor cores; 0 without work.
    double tensorShare() const noexcept;
    /// Measured, ran, and did no floating-point work worth the name (copies, memsets, integer
    /// kernels): under kNoWorkIntensity FLOP per byte at every level (a copy's few stray FP
    /// instructions), so it cannot sit on a FLOP roofline.
    bool noFloatingPointWork() const noexcept;
    /// FLOPs per byte at a level; 0 when no bytes moved there.
    double intensity(MemoryLevel level) const noexcept;
    /// totalFlops() / timeSeconds; 0 when the time is 0.
    double flopRate() const noexcept;
    /// bytes at a level / timeSeconds; 0 when the time is 0.
    double byteRate(MemoryLevel level) const noexcept;

    double flopsOf(FlopKind kind) const noexcept { return flops[static_cast<std::size_t>(kind)]; }
    double bytesAt(MemoryLevel level) const noexcept {
        return bytes[static_cast<std::size_t>(level)];
    }
};

} // namespace roofline
