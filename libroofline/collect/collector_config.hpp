#pragma once
// What the collector is asked to do: the collection mode, filters, replay settings and the
// policies a session derives from its options. Pure: no CUDA.
#include "collect/frame.hpp"
#include "collect/mode.hpp"
#include "collect/settings.hpp"
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

/// Counters: a replay strategy measures; TimingOnly: records without counters, timed by activity
/// records; Sampled: no record at all -- every launch and step goes to the configuration's
/// StepSink, the session's PM sampler measures (docs/design/0029).
class StepSink;

enum class Level { Counters, TimingOnly, Sampled };

/// What the collector reads: the session's settings, resolved once from its options and never
/// written back (collect/settings.hpp: mode, cache flush, reuse and its share, and the options
/// as given), the kernel filter built from them, and what the session's counter set-up found
/// (passes, metric names, aligned replay, tensor counters by detection) with the session's hook
/// for framework operators.
///
/// A config made without settings (tests, a program driving the collector itself) takes the
/// plain mechanisms: the first iteration measured, measuring going on after completion, no reuse.
struct CollectorConfig : Settings {
    CollectorConfig();
    /// The settings, and the filter and image limit derived from their options.
    explicit CollectorConfig(const Settings& settings);

    core::KernelFilter filter;      ///< from options.nvtxInclude, nvtxExclude and kernelName
    std::size_t keepImageBytes = 0; ///< raw counter-data images kept (options.keepImagesMiB)

    // ---- what the counter set-up found --------------------------------------------------------
    std::size_t passes = 1; ///< passes per group (CUPTI passes x nesting levels)
    /// The values' metric names (notes name the metric whose samples spread most).
    std::vector<std::string> metricNames;
    /// Iteration replay: passes of aligned replay (docs/design/0006), whose single-pass
    /// configurations are the backend's configurations 1..n; 0: not available. Configuration 0
    /// holds every metric (`passes` passes, combined by position).
    std::size_t alignedPasses = 0;
    /// Aligned replay can be switched to (CounterBackend::prepareAligned() builds its
    /// configurations then).
    bool alignAvailable = false;
    /// Aligned replay from the first group on; otherwise from the first replayed pass that ran
    /// other kernels than pass 0 (an insertion or omission), whose group is measured again.
    bool alignFromStart = false;
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

    // ---- the session's ------------------------------------------------------------------------
    /// Level::TimingOnly: why (goes into every record's note).
    std::string timingReason;
    /// Names a launch's framework operator, phase and module from what the framework is doing on
    /// the launching thread (the session's: scopes/framework_context); empty: none named.
    std::function<void(core::LaunchInfo& info, std::uint64_t graphNode)> describe;
    /// Level::Sampled: where the launches and the steps' ends go (the session's; not owned).
    StepSink* steps = nullptr;

    // ---- reuse's limits (tests lower them) ----------------------------------------------------
    /// Launches whose signature has its samples, left inside a window when fewer than this lie
    /// between two that need measuring. By default any run that fits the image: a window of its
    /// own costs a group of passes -- as many iterations -- while a launch inside one costs a
    /// range per pass, so the fewest windows complete a profile in the fewest iterations.
    std::size_t reuseMaxGap = std::numeric_limits<std::size_t>::max();
    /// Signatures a program may show before observation stops, once a profile is complete (only
    /// grids that change with every iteration keep adding ones, and host memory with them).
    std::size_t reuseMaxSignatures = std::size_t{1} << 16;

    /// Iteration replay: measuring goes on once every launch of one iteration has its record
    /// (positional replay measures every iteration again; reuse keeps observing). Off
    /// (Options::idleWhenComplete): positional replay stops there, and the collector reports
    /// the completion (takeCompletion). A program that loops on needsPass() decides itself when
    /// it is done: then measuring always goes on.
    bool measuresAfterComplete() const noexcept { return !options.idleWhenComplete; }
    /// Reuse shared across data-parallel ranks.
    bool shares() const noexcept { return reuses() && shareCount > 1; }
    /// Repeated-launch reuse is on (iteration replay with samples per signature).
    bool reuses() const noexcept { return modeFacts(mode).measuresAgain && reuseSamples > 0; }
    /// The first iteration is observed only (FirstIteration::Skip; kernel replay has none).
    bool observesFirstIteration() const noexcept {
        return options.firstIteration == FirstIteration::Skip && modeFacts(mode).followsIterations;
    }
    /// Nothing is measured before the first pass of a later iteration: the session creates the
    /// profiler only to check the permission, and the collector keeps it released until then.
    bool profilerReleasedAtStart() const noexcept { return reuses() || observesFirstIteration(); }
};

} // namespace roofline::collect
