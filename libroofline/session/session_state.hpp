#pragma once
// Session internals: the one active session of the process, its devices, the collector, and the
// per-thread scope stacks fed by ProfileScope and the NVTX listener.
#include "collect/collector.hpp"
#include "core/device_info.hpp"
#include "core/recording.hpp"
#include "cupti/activity.hpp"
#include "cupti/device.hpp"
#include "cupti/launch.hpp"
#include "scopes/found_steps.hpp"
#include "scopes/host_timing.hpp"
#include "scopes/scope_stacks.hpp"
#include "session/cupti_backend.hpp"
#include "session/sampled_run.hpp"
#include "session/session_devices.hpp"
#include "session/settings.hpp"

#include <roofline/kernel_record.hpp>
#include <roofline/options.hpp>

#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace roofline::collect {

/// A session: its devices (what the counter set-up put in place), what setting them up cost, and
/// its lifecycle -- settings, collector, host times, idling, the stop and its recording.
struct SessionState : SessionDevices, SetupTimings {
    std::uint32_t generation = 0; // unique per Session in this process, never 0, < 2^31
    /// Resolved once by the constructor (session/settings.hpp); read-only from then on.
    Settings settings;
    core::ProcessIdentity process; ///< host, pid, launcher rank (recorded; output patterns)
    std::string outputPath;        ///< options.outputPath with its pattern expanded
    std::unique_ptr<cupti::KernelTimer> timer;
    /// What the timer had recorded when the session went idle (it goes before CUPTI detaches).
    std::vector<cupti::KernelTiming> timingsAtIdle;
    std::unique_ptr<Collector> collector;
    /// The sampling mode's device side (null in the other modes): its sources, series and
    /// recording; ended by finish(), before the teardown.
    std::unique_ptr<SampledRun> sampled;
    /// Host time per scope (Options::hostTiming); created before the session becomes active.
    std::unique_ptr<HostTimes> hostTimes;
    std::int64_t startWallNs = 0; ///< HostTimes::wallNow() at the start (the run's host time)
    std::string status = "counters";
    std::atomic<bool> ready{false}; // the collector exists: callbacks may use it
    /// Where the scope stacks send pushes and pops (set once the collector exists).
    ScopeTarget scopes;
    /// The step found in the launch stream, while the program opened no range (null: not
    /// searched -- another mode, an iteration range given, per-thread scopes, no counters).
    std::unique_ptr<FoundSteps> foundSteps;
    /// Options::idleWhenComplete: when the profile was complete and libroofline went idle
    /// (HostTimes::wallNow(); 0: not idle).
    std::int64_t idleWallNs = 0;
    std::atomic<bool> idle{false}; ///< launches are no longer followed (goIdle)
    /// What the backends cost and the device's peak rates, read when they were let go at idle.
    BackendCost releasedCost;
    std::vector<double> releasedPeaks;
    std::uint64_t unbalancedAtStart = 0;

    std::mutex stopMutex;
    bool stopped = false;
    core::Recording recorded; // built once by stop(); what save() writes
    std::vector<KernelRecord> records;
    std::uint64_t unbalancedPops = 0;

    /// Wires the session once its devices are set up (or known to give timing only): the
    /// collector over `backends`, host times, the scope target (ranges open now are adopted),
    /// idling when complete, the exit flush. The session is ready for launches after it.
    void begin(const CollectorConfig& config, const std::vector<CounterBackend*>& backends,
               Level level);
    void onLaunch(const cupti::LaunchEvent& event) noexcept;
    /// onLaunch's events that are no launch of a profiled context (a launch's exit, a capture,
    /// a module load, a launch before the session is ready or once idle): handled; true then.
    bool handledAside(const cupti::LaunchEvent& event) noexcept;
    /// A kernel launch, or a graph launch's kernels, on device slot `slot`, to the step search
    /// and the collector with the scopes open now.
    void launched(const cupti::LaunchEvent& event, std::size_t slot, bool graph);
    /// `l` (each of a graph launch's kernels) to the collector with `stack`, the host times of
    /// its scopes told; `ours`: when libroofline's work on the launch began.
    void feed(const cupti::LaunchEvent& event, Launch& l, bool graph, const Stack& stack,
              const HostClocks& ours);
    /// The device slot whose context this is; devices.size() for a context not profiled.
    std::size_t slotOf(const void* context) const noexcept;
    /// Switches to (or starts in) timing-only: CUPTI activity records for kernel durations.
    void startTiming() noexcept;
    void teardown() noexcept;
    /// The profile is complete: scopes no longer followed (the host times end here), the counter
    /// backends and CUPTI's profiler released, and CUPTI detached from the process at the next
    /// driver call (no callback, no subscription left: design 0018).
    void goIdle() noexcept;
    /// Session::stop(): idempotent, never throws.
    void finish() noexcept;
    /// finish()'s parts: the recording of `result` and its records evaluated; what the
    /// recording says of the run beside them (framework, platform, host times).
    void evaluate(CollectionResult result, const std::vector<double>& peaks) noexcept;
    void addRunContext() noexcept;
    /// The summary lines at the end of a session (what was measured, what it cost).
    void summarize(const CollectionCounts& counts, std::size_t unmeasured,
                   const BackendCost& cost) const noexcept;
    void summarizeRecords(const CollectionCounts& counts, std::size_t unmeasured) const noexcept;
    void summarizeCost(const CollectionCounts& counts, std::size_t unmeasured,
                       const BackendCost& cost) const noexcept;
    void summarizeReplay(const CollectionCounts& counts) const noexcept;
    /// The sampling mode's end: the run finished (its last batch written) and said.
    void finishSampled() noexcept;
    /// Why a run with no NVTX range of its own ends with no record, or with `unmeasured` (all)
    /// records without counters because its step stopped repeating, for its exit line ("" when
    /// there is nothing to explain, or the program had ranges).
    std::string whyNoRecord(std::size_t unmeasured) const;
    /// For the exit line: why records have no counters, by their kind ("; 1534 of them kernels
    /// of CUDA graphs that ran as they are (...)"), then the most frequent other note and how
    /// many have still others (launches outside every step apart: unrecordedOutside); "" when
    /// every record has counters.
    std::string whyUnmeasured(std::size_t unmeasured) const;
    /// For the exit line: the records of launches outside every step that no window measured, how
    /// many took their signature's counters from the step, and why the others have none; then
    /// the launches beyond the records' bound, how many of them ran the step's kernels at its
    /// launch shapes ("" when none).
    std::string unrecordedOutside(const CollectionCounts& counts) const;
    /// For the exit line: the ranges the profile measured, in how many passes, and the seconds
    /// libroofline spent on it (set-up, passes, profiler objects, decoding, windows' memory and
    /// waits) -- "; 1204 ranges in 15 passes, 2.1 s"; "" where no range was measured.
    std::string profileCost(const CollectionCounts& counts, const BackendCost& cost) const;
    /// Saves the recording to outputPath (another process's file is never overwritten).
    void saveOnce(const CollectionCounts& counts, std::size_t unmeasured,
                  const BackendCost& cost) const noexcept;
};

/// What the collector reads: the settings, with the session's hook for framework operators. The
/// counter set-up adds what it finds (passes, metric names, aligned replay, tensor detection).
CollectorConfig collectorConfig(const Settings& settings);

/// The active session, or null. The ProfileScope hot path reads it with one atomic load.
extern std::atomic<SessionState*> gActive;

/// Where profiling stands, for a framework hook (session/framework_api.cpp): no session yet, one
/// collecting, idle because its profile is complete, or stopped; or one sampling every step
/// (which wants the steps' ends and nothing else).
enum class ProfileState : int {
    NotStarted = 0,
    Collecting = 1,
    Complete = 2,
    Stopped = 3,
    Sampling = 4
};
ProfileState profileState() noexcept;
void setProfileState(ProfileState state) noexcept;

/// Whether a Session was constructed in this process (the injection stands aside when the program
/// constructs its own).
bool anySessionStarted() noexcept;
/// A session generation unique in this process, never 0, < 2^31 (anySessionStarted() from then).
std::uint32_t nextGeneration() noexcept;
/// Whether libroofline was loaded as the CUDA injection (`roofline run`): the session then says
/// on standard error where its recording goes and went.
bool injected() noexcept;
/// Called once by the CUDA injection entry point when it subscribed to the first launch, with
/// the milliseconds that took inside cuInit.
void markInjected(double ms) noexcept;
/// What markInjected() was given (0: not injected).
double injectionMs() noexcept;

/// Tells `roofline run` (ROOFLINE_RUN_MANIFEST) that this process records to `path`.
void noteRecording(const std::string& path) noexcept;

/// Registers the atexit and SIGINT/SIGTERM flush (once per process; signals only where the
/// application installed no handler of its own).
void installExitFlush() noexcept;
void restoreSignals() noexcept;

} // namespace roofline::collect
