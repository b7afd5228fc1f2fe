#pragma once
/// \file options.hpp
/// How a Session collects. Every field can also be set from a ROOFLINE_* environment variable
/// (docs/configuration.md lists them all; one table in the library reads them and gives
/// `roofline run` its flags).

#include <roofline/export.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace roofline {

/// Which CUPTI collection mode a Session uses (DESIGN.md, "Collection modes").
enum class CollectionMode {
    /// One record per kernel launch; the application's loop replays: instance i of the iteration
    /// scope runs pass i. The default: a small fraction of kernel replay's cost inside loops.
    IterationReplay,
    /// One record per kernel launch; CUPTI replays each kernel once per pass, saving and restoring
    /// device memory. For one-shot code; expensive inside loops.
    KernelReplay,
    /// One record per scope instance covering all its kernels (SASS FLOP counters included);
    /// replayed over iterations like IterationReplay. The cheapest.
    ScopeReplay,
    /// One record per kernel launch, no repeated step needed: a window of launches runs once as
    /// the program runs it, then libroofline launches it again for the other passes from a copy
    /// of device memory saved before it, and gives the program its memory back. For one-shot
    /// code: several times cheaper than KernelReplay (docs/design/0026).
    WindowReplay,
    /// No replay: a one-pass counter set is sampled on a fixed period of GPU time (PM sampling)
    /// while the program runs as it would unprofiled, and each kernel of every step takes its
    /// share of the samples, placed by its activity timestamps. Estimated values for every step
    /// of a long job and for code that cannot be replayed (CUDA graphs), written to a sampled
    /// recording (.rfs) as the job runs (docs/design/0029).
    Sample,
};

/// What a Session measures of each scope instance on the host (Options::hostTiming).
enum class HostTiming { Off, Wall, Cpu };

/// Which metrics a Session collects (more metrics, more passes).
enum class MetricSet {
    Full,   ///< time, FP64/FP32/FP16 and tensor FLOPs per type, L1/L2/DRAM bytes (GH100: 7 passes)
    Core,   ///< as Full without tensor FLOPs (GH100: 4 passes)
    Memory, ///< time and L1/L2/DRAM bytes only
    Time,   ///< time and clock only (1 pass)
};

/// What "L1 bytes" and "L2 bytes" mean (DRAM bytes are dram__bytes.sum in both).
enum class ByteDefinition {
    Nersc, ///< l1tex__t_bytes.sum, lts__t_bytes.sum: all traffic through L1 and L2 (NERSC)
    Ncu,   ///< Nsight Compute's hierarchical roofline (CC >= 9.0): L1 = 128 x
           ///< l1tex__lsu_writeback_active_mem_lgds.sum, L2 = 32 x lts__lts2xbar_cycles_active.sum
};

/// When the L2 cache is flushed: what cache state each measured kernel starts from.
enum class CacheFlush {
    Auto,   ///< on for kernel replay, off for iteration and scope replay
    On,     ///< before each pass (kernel replay: before each kernel)
    Off,    ///< never: each kernel sees the cache the program left (its real DRAM traffic)
    Kernel, ///< before each measured kernel, as Nsight Compute's --cache-control all: each
            ///< kernel's DRAM bytes as it would move from a cold L2 (iteration replay; scope
            ///< replay flushes before each pass, kernel replay before each kernel)
};

/// Iteration replay's passes: see Options::alignPasses.
enum class AlignPasses {
    Auto, ///< positional until a replayed pass inserts or leaves out a launch, then aligned
    On,   ///< aligned from the start: one single-pass configuration per pass
    Off,  ///< positional: one configuration for all passes, combined by position
};

/// Iteration replay's launches that no step covers: see Options::outsideSteps.
enum class OutsideSteps {
    Auto,   ///< in windows where the session sees every allocation: under `roofline run`
    Window, ///< in windows (the program's host memory is its own: no pinned or managed memory)
    Skip,   ///< not measured: counted at the stop
};

/// What iteration and scope replay do with the session's first iteration: see
/// Options::firstIteration.
enum class FirstIteration {
    /// Observed only, with no profiler: measuring starts at the second iteration. The first one
    /// of a program usually warms up (lazily loaded kernels, validation, state created on first
    /// use), and CUPTI's first start of a range profiler is slowest there.
    Skip,
    /// Measured as pass 0 of the first replay group, which starts again on a later iteration
    /// when the next iteration launches other kernels.
    SkipIfDifferent,
    Measure, ///< measured as pass 0 of the first replay group whatever the next one launches
};

/// Which tensor counters a Session collects (docs/design/0008-fewer-passes.md).
enum class TensorCounters {
    /// MMA instruction counters first (with the core set and the HFMA2.MMA count: 3 passes on
    /// GH100, against 7); the per-type tensor counters are collected only once some launch ran MMA
    /// of that kind (FP16/BF16/TF32: HMMA or warpgroup MMA, FP64: DMMA, INT8: IMMA): 3 passes for
    /// a program without tensor-core work, up to 8 when it runs every kind. FLOPs per kind are
    /// exact either way.
    Detect,
    All, ///< every tensor counter from the start (GH100: 7 passes)
};

/// Session settings.
///
///     roofline::Options opt = roofline::Options::fromEnvironment();
///     opt.nvtxInclude = {"train/step/"};
///     roofline::Session session{opt};
struct ROOFLINE_API Options {
    CollectionMode mode =
        CollectionMode::IterationReplay; ///< ROOFLINE_MODE=iteration|kernel|scope|window|sample
    MetricSet metrics = MetricSet::Full; ///< ROOFLINE_METRICS=full|core|memory|time
    /// The instruction roofline's counters beside the set (off by default; GH100: no pass more
    /// beside the default set). ROOFLINE_METRICS=+instructions, or `full+instructions`.
    bool instructionMetrics = false;
    /// L1/L2 byte counters: NERSC's (default) or Nsight Compute's. ROOFLINE_BYTES=nersc|ncu
    ByteDefinition bytes = ByteDefinition::Nersc;
    int device = 0; ///< CUDA device ordinal; -1: every visible device. ROOFLINE_DEVICE
    /// Ranges one counter-data image holds before it is decoded, evaluated and reused. Not a limit
    /// on kernels. Host memory per range on the H100: ~0.6 MB of image (full set) plus ~1.4 MiB
    /// inside CUPTI, so the default keeps profiling state near 190 MiB. Window replay takes at most
    /// 32 (its windows are short; an image is initialized at each). ROOFLINE_RANGES_PER_IMAGE
    std::size_t rangesPerImage = 96;
    /// Repeated-launch reuse: the most ranges a cycle's image grows to (from rangesPerImage) where
    /// a larger image measures the cycle in fewer windows, so in fewer iterations; 0 (auto): 1/32
    /// of the host memory available at ~2 MiB per range, at most 512. ROOFLINE_RANGES_PER_IMAGE_MAX
    std::size_t rangesPerImageMax = 0;
    /// Name of the scope (ProfileScope or NVTX push/pop range) whose instances are the loop
    /// iterations replay passes run on; "" = the outermost scope. ROOFLINE_ITERATION_RANGE
    std::string iterationRange;
    /// Iteration replay: iterations one pass spans; 0 (auto): as many as fill half an image, which
    /// amortizes the per-pass cost over short iterations. ROOFLINE_ITERATIONS_PER_PASS
    std::size_t iterationsPerPass = 0;
    /// Scope replay: nesting levels measured below and including the iteration scope; each level
    /// costs a full set of passes. ROOFLINE_SCOPE_LEVELS
    std::size_t scopeLevels = 1;
    /// NVTX filters in Nsight Compute's syntax ("step/", "A/*/B", "[A", "A]", "D@A/", "regex:").
    /// ROOFLINE_NVTX_INCLUDE / ROOFLINE_NVTX_EXCLUDE (several separated by ';')
    std::vector<std::string> nvtxInclude, nvtxExclude;
    /// Kernel name (function or demangled name) or "regex:<pattern>". ROOFLINE_KERNEL_NAME
    std::string kernelName;
    std::uint64_t launchSkip = 0;  ///< admitted launches to skip first. ROOFLINE_LAUNCH_SKIP
    std::uint64_t launchCount = 0; ///< admitted launches to profile, 0: all. ROOFLINE_LAUNCH_COUNT
    CacheFlush cacheFlush = CacheFlush::Auto; ///< ROOFLINE_CACHE_FLUSH=auto|on|off|kernel
    /// stop() (and the exit/signal flush) saves the recording here. A pattern: %p the pid, %h the
    /// host, %r the launcher's rank (RANK, OMPI_COMM_WORLD_RANK, PMI_RANK, PMIX_RANK,
    /// SLURM_PROCID), %q{VAR} an environment variable, %% a '%' (a bad pattern is refused by the
    /// Session's constructor). A file another process of the same run saved at that path is never
    /// replaced: this one goes to "<stem>.<pid>.rfl" beside it, with a warning. ROOFLINE_OUTPUT
    std::string outputPath;
    /// Stop and save at normal process exit and on SIGINT/SIGTERM (when the application installed
    /// no handler of its own). ROOFLINE_FLUSH_ON_EXIT=0|1
    bool flushOnExit = true;
    /// Listen to the application's NVTX ranges (push/pop, start/end, domains). ROOFLINE_NVTX=0|1
    bool listenNvtx = true;
    /// Push/pop scopes of the whole process instead of each thread: a launch from any thread is
    /// attributed to the ranges open at that moment, whichever thread opened them (Nsight
    /// Compute's --nvtx-push-pop-scope process). For frameworks that launch from worker threads
    /// (PyTorch's autograd thread runs backward while the main thread's range is open).
    /// ROOFLINE_PUSH_POP_SCOPE=thread|process
    bool processScopes = false;
    /// Host time per scope instance (ProfileScope and NVTX push/pop ranges): Cpu (wall
    /// and thread CPU time), Wall (wall time only: no CPU clock, which is a system call on
    /// Linux), or Off. Kept per scope and thread, with the GPU time of the kernels launched
    /// inside (roofline report --host). ROOFLINE_HOST_TIMING=cpu|wall|off
    HostTiming hostTiming = HostTiming::Cpu;
    /// Iteration and scope replay: the session's first iteration is observed only, with no
    /// profiler (Skip: it usually warms up, loads kernels lazily and would pay CUPTI's slowest
    /// profiler start); measured, and replaced by a later iteration when the next one launches
    /// other kernels (SkipIfDifferent); or measured whatever follows (Measure: launches that
    /// differ are flagged). ROOFLINE_FIRST_ITERATION=skip|skip-if-different|measure
    FirstIteration firstIteration = FirstIteration::Skip;
    /// Iteration replay: aligned passes run each pass with its own single-pass configuration and
    /// match every pass's launches with pass 0's (kernel name, grid, block), so that a launch
    /// inserted in or missing from one iteration costs only itself; positional passes use one
    /// CUPTI configuration for all passes, combined by position (cheaper: no profiler
    /// re-creation per pass, sometimes one pass fewer; an insertion costs every later launch of
    /// its window). Auto: positional until a replayed pass runs other kernels than pass 0, then
    /// aligned (that group is measured again). ROOFLINE_ALIGN_PASSES=auto|on|off
    AlignPasses alignPasses = AlignPasses::Auto;
    /// ROOFLINE_TENSOR_COUNTERS=detect|all
    TensorCounters tensorCounters = TensorCounters::Detect;
    /// Iteration replay: launches with the same signature (kernel, grid, block, dynamic shared
    /// memory, scope path with separated instance numbers made uniform -- "Train step #/Layer #"
    /// -- and order within the innermost scope) are measured this many times per profile of an
    /// iteration; the others take the mean of those measurements, their records marked
    /// (`KernelRecord::reusedSamples`, the note gives the spread between the samples). Samples
    /// that did different work (instruction, tensor operation or L1 byte counts) are never
    /// averaged: their launches are measured each on its own. The first iteration is observed,
    /// unprofiled, the second is the reference, and the third must launch what it did; profiling
    /// stops once every signature has its samples. 0: every launch of one iteration is measured
    /// (exact per launch), window by window. ROOFLINE_REUSE (docs/design/0009-repeated-launches.md,
    /// docs/design/0018-iteration-replay-from-parts.md)
    std::size_t reuseSamples = 2;
    /// Iteration replay: launches no step covers -- set-up, warm-up, a program with no repeated
    /// step (a benchmark script, a one-shot program, a decoding loop) -- are measured in recorded
    /// windows as window replay measures them, until the first step begins
    /// (docs/design/0026-launches-no-step-covers.md). Windows restore the device's memory and
    /// CUDA's pinned host memory, so none opens once the process has allocated pinned, mapped
    /// or managed memory, nor while the device's memory is too full to be saved twice. Auto:
    /// where the session started with the process (`roofline run`), so that every such
    /// allocation was seen; Window: also for a Session constructed later (the caller vouches
    /// that no pinned memory was allocated before it); Skip: never (counted at the stop).
    /// ROOFLINE_OUTSIDE_STEPS=auto|window|skip
    OutsideSteps outsideSteps = OutsideSteps::Auto;
    /// Iteration replay: once every launch of one iteration has its record, libroofline goes
    /// idle for the rest of the run -- the profiler released, scopes no longer followed or timed,
    /// CUPTI detached at the next driver call -- so that a long job runs at its unprofiled speed.
    /// Kernels first launched after that get no record. false: launches and scopes stay observed (a
    /// later iteration that launches something new is measured). ROOFLINE_IDLE_WHEN_COMPLETE
    bool idleWhenComplete = true;
    /// While counters are collected, a CUDA graph launch runs as its nodes, launched one by one
    /// in dependency order on the launch's stream (an empty graph in its place), so that its
    /// kernels are measured like any launch; results are the graph's, bit for bit. Graphs with a
    /// node the host cannot issue (memory allocation, conditional) run as they are, unmeasured.
    /// false: every graph runs as it is. ROOFLINE_GRAPH_NODES (docs/design/0016)
    bool launchGraphNodes = true;
    /// Iteration replay with reuse, in a job of several ranks (the launcher's rank and world
    /// size: RANK / WORLD_SIZE, OMPI_COMM_WORLD_*, PMI_*, SLURM_*): each rank measures only its
    /// run of the reference iteration's launch signatures (in the order of their first launch,
    /// cut so that each run's replay windows number about 1/N of one rank's), so that its
    /// profile completes in fewer iterations; the other launches' records name the rank that
    /// measures them and `roofline merge` fills in their counters from it. Data-parallel ranks only
    /// (every rank launches the same kernels). Without a rank and a world size above 1, or without
    /// reuse, every rank measures everything. ROOFLINE_SHARE_RANKS
    bool shareAcrossRanks = false;
    /// MiB of raw CUPTI counter-data images kept in the recording beside the evaluated values
    /// (for re-evaluation with CUPTI's host API; copying and compressing them costs time at each
    /// image and at stop, and host memory). 0: values only. ROOFLINE_KEEP_IMAGES
    std::size_t keepImagesMiB = 0;
    /// `roofline run`: libroofline's PyTorch hook names each kernel's operator and module in the
    /// Python programs it runs (docs/profiling-programs.md#pytorch). false: the hook is not put on
    /// PYTHONPATH, and one already there binds nothing. ROOFLINE_TORCH_HOOK
    bool torchHook = true;
    /// No counters: kernel durations, names and scopes only, from CUPTI's activity records (the
    /// cheapest profile; also how the fallback is tested). ROOFLINE_TIMING_ONLY
    bool timingOnly = false;
    /// The profiler is re-created before it measures again once code was loaded while it was
    /// enabled (docs/design/0005-code-loaded-while-profiling.md). false only reproduces the CUPTI
    /// crash it prevents. ROOFLINE_REENABLE_ON_CODE_LOAD
    bool reenableOnCodeLoad = true;
    /// Sampling mode: the period of GPU time between two samples, in microseconds. A kernel
    /// shorter than three periods is marked estimated. libroofline's reading thread decodes the
    /// samples (on the H200 about half a core at the default, a whole core at 100 us, which
    /// samples short kernels ten times finer: for runs of minutes, not days).
    /// ROOFLINE_SAMPLE_PERIOD_US
    std::uint64_t samplePeriodUs = 1000;
    /// Sampling mode: a batch of steps is appended to the recording (and flushed) at least every
    /// this many steps and every `sampleWriteSeconds`: what a killed job keeps.
    /// ROOFLINE_SAMPLE_WRITE_STEPS, ROOFLINE_SAMPLE_WRITE_SECONDS
    std::uint64_t sampleWriteSteps = 100;
    std::uint64_t sampleWriteSeconds = 30;
    /// Sampling mode: the last steps whose launches are held one by one (the rest is kept as
    /// per-step and per-signature sums); the ring's last step and every stray step are written
    /// launch by launch. ROOFLINE_SAMPLE_RING
    std::size_t sampleRingSteps = 16;
    /// Sampling mode: the steps whose kernels' activity records are kept (each kernel placed
    /// among the samples by them). 1: every step. N: one step in N. 0: measured in the program
    /// -- after its first steps, records go on and off in turn for 20 steps, and where they cost
    /// more than 0.5 % of a step they are kept for one step in 10, else for every step; measured
    /// again every 1000 steps. A step without records gets the samples over its span, estimated
    /// from its launch calls; steps go without only while the recorded ones show the host
    /// pacing the GPU (a lag under a tenth of a step). ROOFLINE_SAMPLE_RECORDS
    std::uint64_t sampleKernelRecords = 1;

    /// `defaults` overridden by every ROOFLINE_* variable that is set. A malformed value throws
    /// Error(InvalidArgument) naming the variable.
    static Options fromEnvironment(Options defaults);
    static Options fromEnvironment() { return fromEnvironment(Options{}); }
};

ROOFLINE_API const char* toString(CollectionMode mode) noexcept;
ROOFLINE_API const char* toString(MetricSet set) noexcept;
ROOFLINE_API const char* toString(CacheFlush flush) noexcept;
ROOFLINE_API const char* toString(AlignPasses align) noexcept;
ROOFLINE_API const char* toString(OutsideSteps outside) noexcept;
ROOFLINE_API const char* toString(FirstIteration first) noexcept;
ROOFLINE_API const char* toString(ByteDefinition bytes) noexcept;
ROOFLINE_API const char* toString(TensorCounters counters) noexcept;

} // namespace roofline
