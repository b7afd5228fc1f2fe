#pragma once
// What the collector is asked to do: the collection mode, filters, replay settings and the
// policies a session derives from its options. Pure: no CUDA.
#include "collect/frame.hpp"
#include "collect/mode.hpp"
#include "core/launch.hpp"
#include "core/nvtx_filter.hpp"

#include <roofline/options.hpp>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <set>
#include <string>
#include <vector>

namespace roofline::core {
struct LaunchInfo;
} // namespace roofline::core

namespace roofline::collect {

using core::Launch;
using core::LaunchKey;
using core::launchText;
using core::sameLaunch;

enum class Level { Counters, TimingOnly };

struct CollectorConfig {
    CollectionMode mode = CollectionMode::IterationReplay;
    core::KernelFilter filter;
    std::uint64_t launchSkip = 0;
    std::uint64_t launchCount = 0; ///< 0: no limit
    std::string iterationRange;    ///< name of the iteration scope; "": the outermost scope
    std::size_t scopeLevels = 1;
    std::size_t iterationsPerPass = 0; ///< iteration replay; 0: as many as half an image holds
    std::size_t passes = 1;            ///< passes per group (CUPTI passes x nesting levels)
    bool flushPasses = false;          ///< caches flushed before each pass (kernel replay: kernel)
    /// Iteration replay: the L2 flushed before each measured kernel inside the passes (as ncu's
    /// --cache-control all), by a kernel that takes a range of its own (left out).
    bool flushEachKernel = false;
    /// Ranges one measured launch takes in a pass: the flush kernel's range, then its own.
    std::size_t rangesPerLaunch() const noexcept { return flushEachKernel ? 2 : 1; }
    std::size_t keepImageBytes = 0; ///< raw counter-data images kept for the recording
    std::string timingReason;       ///< Level::TimingOnly: why (goes into every record's note)
    /// Re-create the profiler before measuring again once code was loaded while it was enabled
    /// (CUPTI crashes collecting SASS metrics on a profiler that saw code loaded:
    /// docs/design/0005-code-loaded-while-profiling.md). Off only to reproduce that crash.
    bool reenableOnCodeLoad = true;
    /// Skip: the first iteration is observed with the profiler released (its lazy code loads
    /// cost no re-creation, CUPTI's first start comes on a steady iteration), measuring starts
    /// at the second. SkipIfDifferent: a replay group whose pass 0 was the session's first
    /// iteration and whose pass 1 launched other kernels (warm-up, validation, lazy
    /// initialization) starts again on a later iteration. Measure: neither. (The session passes
    /// Options::firstIteration, Skip by default; the collector's own default is the plain
    /// mechanism, as reuseSamples' is.)
    FirstIteration firstIteration = FirstIteration::Measure;
    /// Iteration replay: passes of aligned replay (docs/design/0006), whose single-pass
    /// configurations are the backend's configurations 1..n; 0: not available. Configuration 0
    /// holds every metric (`passes` passes, combined by position).
    std::size_t alignedPasses = 0;
    /// Aligned replay can be switched to (CounterBackend::prepareAligned() builds its
    /// configurations then).
    bool alignAvailable = false;
    /// Tensor counters by detection (docs/design/0008): fills a completed launch's inferred
    /// metrics in its values and returns those that stay unknown (collected from then on, and the
    /// launch's window measured again). Empty: every metric is collected from the start.
    std::function<std::vector<std::string>(std::vector<double>&)> infer;
    /// Which of the metrics `infer` left unknown to collect from now on, given the launches that
    /// left them unknown (their values and kernel names) and the metrics added so far. Empty:
    /// every unknown metric.
    std::function<std::vector<std::string>(const std::set<std::string>& unknown,
                                           const std::vector<const core::LaunchInfo*>& launches,
                                           const std::set<std::string>& added)>
        chooseTensorMetrics;
    /// Tensor metrics to collect from the first pass on, given the kernels (mangled names) the
    /// first windows will measure: a warp MMA type their names suggest (`why`: a kernel that
    /// suggested it). Empty: none is guessed.
    std::function<std::vector<std::string>(const std::vector<std::string>& kernels,
                                           std::string& why)>
        anticipateTensorMetrics;
    /// Iteration replay: samples measured per launch signature, the other launches of the
    /// signature reuse their mean (docs/design/0009); 0: every launch measured. With reuse the
    /// first iteration is observed only, and profiling stops once every signature of an
    /// iteration has its samples (until an iteration launches a signature without).
    std::size_t reuseSamples = 0;
    /// With reuse: the most ranges a cycle's image grows to, from the backend's, where a larger
    /// image measures the cycle in fewer iterations; 0: the backend's.
    std::size_t rangesPerImageMax = 0;
    /// Launches whose signature has its samples, left inside a window when fewer than this lie
    /// between two that need measuring. By default any run that fits the image: a window of its
    /// own costs a group of passes -- as many iterations -- while a launch inside one costs a
    /// range per pass, so the fewest windows complete a profile in the fewest iterations.
    std::size_t reuseMaxGap = std::numeric_limits<std::size_t>::max();
    /// Signatures a program may show before observation stops, once a profile is complete (only
    /// grids that change with every iteration keep adding ones, and host memory with them).
    std::size_t reuseMaxSignatures = std::size_t{1} << 16;
    /// Reuse shared across data-parallel ranks (Options::shareAcrossRanks): this rank's index
    /// and the number of ranks; shareCount 1: this rank measures everything.
    std::uint32_t shareIndex = 0, shareCount = 1;
    bool shares() const noexcept { return reuses() && shareCount > 1; }
    /// Names a launch's framework operator, phase and module from what the framework is doing on
    /// the launching thread (the session's: scopes/framework_context); empty: none named.
    std::function<void(core::LaunchInfo& info, std::uint64_t graphNode)> describe;
    /// The values' metric names (notes name the metric whose samples spread most).
    std::vector<std::string> metricNames;
    /// Aligned replay from the first group on; otherwise from the first replayed pass that ran
    /// other kernels than pass 0 (an insertion or omission), whose group is measured again.
    bool alignFromStart = false;
    /// Iteration replay: measuring goes on once every launch of one iteration has its record
    /// (positional replay measures every iteration again; reuse keeps observing). false (the
    /// session's Options::idleWhenComplete): positional replay stops there, and the collector
    /// reports the completion (takeCompletion). A program that loops on needsPass() decides
    /// itself when it is done: then measuring always goes on.
    bool measureAfterComplete = true;

    /// Repeated-launch reuse is on (iteration replay with samples per signature).
    bool reuses() const noexcept { return modeFacts(mode).measuresAgain && reuseSamples > 0; }
    /// The first iteration is observed only (FirstIteration::Skip; kernel replay has none).
    bool observesFirstIteration() const noexcept {
        return firstIteration == FirstIteration::Skip && modeFacts(mode).followsIterations;
    }
    /// Nothing is measured before the first pass of a later iteration: the session creates the
    /// profiler only to check the permission, and the collector keeps it released until then.
    bool profilerReleasedAtStart() const noexcept { return reuses() || observesFirstIteration(); }
};

} // namespace roofline::collect
