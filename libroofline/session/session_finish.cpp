// The end of a session: the collector's launches with their durations and values become the
// recording (evaluated on the host), the summary says what was measured and what it cost, and the
// recording is saved once.
#include "core/ceilings_file.hpp"
#include "scopes/framework_context.hpp"
#include "session/session_state.hpp"

#include "core/demangle.hpp"
#include "core/device_peaks.hpp"
#include "core/host_scopes.hpp"
#include "core/log.hpp"
#include "core/stopwatch.hpp"
#include "core/utc.hpp"
#include "cupti/evaluate.hpp"
#include "cupti/graph_replay.hpp"
#include "cupti/platform.hpp"
#include "report/recording_text.hpp"

#include <roofline/version.hpp>

#include <algorithm>
#include <cstdlib>
#include <iterator>
#include <unordered_map>

namespace roofline::collect {
namespace {

// Kernel durations from CUDA activity records onto the launches without counter values: by
// correlation id. Without launch callbacks (another CUPTI subscriber) the activity alone gives the
// records.
void attachTimings(std::vector<cupti::KernelTiming> timings,
                   std::vector<core::LaunchInfo>& launches, bool callbacks,
                   const std::string& status) {
    if (callbacks || !launches.empty()) {
        // One launch call, one kernel -- except a graph launch: its kernels share the call's
        // correlation id and are taken in the order they ran, matched by name.
        std::sort(timings.begin(), timings.end(),
                  [](const auto& a, const auto& b) { return a.startNs < b.startNs; });
        std::unordered_map<std::uint64_t, std::vector<cupti::KernelTiming*>> byCorrelation;
        for (auto& t : timings)
            byCorrelation[t.correlationId].push_back(&t);
        for (auto& l : launches) {
            if (!l.values.empty())
                continue;
            auto it = byCorrelation.find(l.correlationId);
            if (it == byCorrelation.end())
                continue;
            cupti::KernelTiming** match = nullptr;
            for (cupti::KernelTiming*& t : it->second)
                if (t && (!match || t->mangledName == l.mangledName)) {
                    match = &t; // the first free one, unless one has the launch's name
                    if (t->mangledName == l.mangledName)
                        break;
                }
            if (match) {
                l.timingSeconds = (*match)->seconds;
                *match = nullptr; // taken
            }
        }
    } else {
        // No launch callbacks (another CUPTI subscriber): records from the activity alone.
        for (const auto& t : timings) {
            core::LaunchInfo l;
            l.launchIndex = launches.size();
            l.mangledName = t.mangledName;
            l.name = core::demangle(t.mangledName);
            l.grid = t.grid;
            l.block = t.block;
            l.stream = t.streamId;
            l.device = t.device;
            l.correlationId = t.correlationId;
            l.timingSeconds = t.seconds;
            l.note = status + " (scope unknown: launch callbacks unavailable)";
            launches.push_back(std::move(l));
        }
    }
}

} // namespace

void SessionState::finish() noexcept {
    std::lock_guard<std::mutex> lock(stopMutex);
    if (stopped)
        return;
    SessionState* self = this;
    if (gActive.compare_exchange_strong(self, nullptr))
        setProfileState(ProfileState::Stopped);
    if (scopeTarget() == &scopes)
        setScopeTarget(nullptr);
    stopped = true;
    if (foundSteps) { // the found step open now ends with the session, unseen
        SessionStack open(scopes);
        foundSteps->drop(open.stack());
    }
    // Where the stop's time goes (the last line of the cost summary).
    using Clock = core::SteadyClock;
    auto lap = Clock::now();
    const auto split = [&lap] {
        const double ms = core::msSince(lap);
        lap = Clock::now();
        return ms;
    };
    const auto began = lap;
    cupti::LaunchTracker::timeCallbacks(HostTiming::Off);
    cupti::replaceGraphLaunches(false);
    restoreSignals();
    CollectionResult result = collector->finish();
    if (sampled) { // nothing is recorded launch by launch: the run's recording is its own
        finishSampled();
        teardown();
        return;
    }
    if (timer || !timingsAtIdle.empty()) {
        std::vector<cupti::KernelTiming> timings = std::move(timingsAtIdle);
        if (timer) { // never after an idle session's detach: goIdle() took it
            std::vector<cupti::KernelTiming> more = timer->take();
            timings.insert(timings.end(), std::make_move_iterator(more.begin()),
                           std::make_move_iterator(more.end()));
            timer.reset();
        }
        attachTimings(std::move(timings), result.launches, tracker != nullptr, status);
    }
    BackendCost cost = releasedCost; // what backends let go at idle cost
    for (const auto& d : devices)
        if (d.backend)
            cost.add(d.backend->cost());
    const std::vector<double> peaks =
        !devices.empty() && devices[0].backend ? devices[0].backend->peakValues() : releasedPeaks;
    const double collectionMs = split();
    teardown();
    const double teardownMs = split();
    unbalancedPops = collect::unbalancedPops() - unbalancedAtStart;
    if (result.counts.coverage.known)
        result.counts.coverage.rangesMeasured = cost.ranges;
    const CollectionCounts counts = result.counts;
    evaluate(std::move(result), peaks);
    const double recordsMs = split();
    addRunContext();
    const double contextMs = split();
    std::size_t unmeasured = 0;
    for (const auto& r : records)
        unmeasured += r.measured ? 0 : 1;
    summarize(counts, unmeasured, cost);
    if (!outputPath.empty())
        saveOnce(counts, unmeasured, cost);
    const double savedMs = split();
    if (counts.level == Level::Counters)
        core::log().info("libroofline: stopping took {:.0f} ms: collection's end {:.0f} ms, "
                         "CUPTI detached {:.0f} ms, records evaluated {:.0f} ms, platform and "
                         "host times {:.0f} ms, summary and recording written {:.0f} ms",
                         core::msSince(began), collectionMs, teardownMs, recordsMs, contextMs,
                         savedMs);
}

// The recording of `result` with the session's context, and its records evaluated (every
// record without counters, saying why, when evaluation fails).
void SessionState::evaluate(CollectionResult result, const std::vector<double>& peaks) noexcept {
    try {
        RecordingContext context;
        context.libraryVersion = ROOFLINE_VERSION_STRING;
        context.createdUtc = core::utcNow();
        context.mode = toString(settings.mode);
        context.device = devices.empty() ? core::DeviceInfo{} : devices[0].info;
        context.metrics = metrics;
        context.passesAtStart = passes;
        context.configImage = configImage;
        context.status = status;
        context.cacheFlush = toString(settings.cacheFlush);
        context.bytes = toString(settings.options.bytes);
        context.process = process;
        if (!peaks.empty()) {
            const auto names =
                core::peakMetrics(core::peakRoofs(core::profileForChip(context.device.chip)));
            for (std::size_t i = 0; i < names.size() && i < peaks.size(); ++i)
                context.devicePeaks.emplace_back(names[i], peaks[i]);
        }
        recorded = recordingOf(std::move(result), std::move(context));
        core::Recording& r = recorded;
        // Roofs the measured ceilings lack come from the device's own peak rates, now that they
        // and the L2 clock are in.
        core::CeilingsChoice choice = core::chooseCeilings(r.device);
        if (core::wantsDevicePeaks(choice)) {
            choice = core::chooseCeilings(r.device, cupti::devicePeakCeilings(r, false));
            ceilings = choice.used;
        }
        records = cupti::evaluateRecording(r, ceilings);
    } catch (const std::exception& e) {
        core::log().error("libroofline: evaluating the counters failed: {}", e.what());
        records.clear();
        for (const auto& l : recorded.launches)
            records.push_back(
                core::unmeasuredRecord(l, std::string("evaluation failed: ") + e.what()));
    }
}

// What the recording says of the run beside its records: the framework's facts, the platform,
// the host times per scope.
void SessionState::addRunContext() noexcept {
    try {
        recorded.framework = framework::facts();
    } catch (...) {
    }
    try {
        recorded.platform = cupti::readPlatform(false);
    } catch (const std::exception& e) {
        core::log().warn("libroofline: the platform description is left out: {}", e.what());
    }
    if (hostTimes) {
        try {
            const std::int64_t end = HostTimes::wallNow();
            recorded.sessionSeconds = 1e-9 * static_cast<double>(end - startWallNs);
            // Idle, scopes were timed until the profile was complete: the shares' base ends there.
            recorded.hostRunSeconds =
                hostTimes->runSeconds(startWallNs, idleWallNs != 0 ? idleWallNs : end);
            recorded.hostScopes = hostTimes->collect();
            recorded.profilerSeconds = hostTimes->profilerSeconds();
            core::attachKernelTime(recorded.hostScopes, records);
        } catch (const std::exception& e) {
            core::log().error("libroofline: the host times per scope are lost: {}", e.what());
            recorded.hostScopes.clear();
        }
    }
}

void SessionState::summarize(const CollectionCounts& c, std::size_t unmeasured,
                             const BackendCost& cost) const noexcept {
    summarizeRecords(c, unmeasured);
    summarizeCost(c, unmeasured, cost);
    summarizeReplay(c);
}

// How complete the profile is, and which records lack something.
void SessionState::summarizeRecords(const CollectionCounts& c,
                                    std::size_t unmeasured) const noexcept {
    if (recorded.coverage.known) {
        // An incomplete profile is said at warning level: a loop that ran too few iterations
        // (the first one is observed only) must not look like a complete one.
        if (recorded.coverage.complete())
            core::log().info("libroofline: coverage: {}", report::describe(recorded.coverage));
        else
            core::log().warn("libroofline: coverage: {} (loop with Session::needsPass(), or "
                             "run more iterations)",
                             report::describe(recorded.coverage));
    }
    std::size_t partial = 0;
    for (const auto& r : records)
        partial += r.measured && !r.lacks.empty() ? 1 : 0;
    if (partial > 0)
        core::log().warn("libroofline: {} records have partial counters: each names the "
                         "quantities it lacks (`roofline report` shows them as ?); a replay "
                         "group cut short (by the stop, or by an iteration of another shape) gives "
                         "them (run more iterations)",
                         partial);
    if (c.tally.differing + c.tally.unmatched > 0)
        core::log().warn("libroofline: iteration replay: {} launches clean, {} with a grid or "
                         "block that differed between passes (values kept, noted), {} whose "
                         "passes could not be matched (no values; each record says why)",
                         records.size() - unmeasured - c.tally.differing, c.tally.differing,
                         c.tally.unmatched);
}

// What was recorded, and what it cost.
void SessionState::summarizeCost(const CollectionCounts& c, std::size_t unmeasured,
                                 const BackendCost& cost) const noexcept {
    core::log().info("libroofline: {} records ({} without counters), {} dropped ranges, {} replay "
                     "mismatches, {} unbalanced NVTX pops, {} profiler re-creations after code "
                     "loads ({} launches measured again later, {} kernels loaded ahead of their "
                     "first launch); {}",
                     records.size(), unmeasured, c.tally.dropped, c.tally.mismatchedGroups,
                     unbalancedPops, c.tally.reenables, c.superseded,
                     cupti::kernelsLoadedBeforeLaunch(), status);
    if (c.level == Level::Counters || cost.creations > 0)
        core::log().info(
            "libroofline: cost: set-up {:.0f} ms (injection in cuInit {:.0f}, devices {:.0f}, "
            "CUPTI {:.0f}, config images {:.0f}, launch tracking {:.0f}, range profilers "
            "{:.0f}); {} passes: Start {:.0f} ms "
            "({:.0f} ms in the first Start of {} profiler object(s) ({} image ranges), CUPTI's set-up "
            "of each; the "
            "rest mostly waits for the program's work queued before the window), inside passes "
            "{:.0f} ms (the window's launches serialized, one range each), Stop {:.0f} ms; {} "
            "ranges evaluated ({} range-passes: each range times its image's passes); {} "
            "profiler re-creations {:.0f} ms; decode and evaluation {:.0f} ms",
            setupMs + injectionMs(), injectionMs(), deviceMs, cuptiInitMs, configImagesMs,
            trackerMs, profilersMs, cost.starts, cost.startMs, cost.objectStartMs,
            cost.objectStarts, cost.objectRanges, cost.passMs, cost.stopMs, cost.ranges, cost.rangePasses, cost.creations,
            cost.creationMs, cost.evaluationMs);
    if (cost.memoryCopies > 0 || cost.recordMs > 0)
        core::log().info(
            "libroofline: recorded windows' cost: {} device-memory saves and restores {:.0f} ms; "
            "waits for the device before windows and their replays {:.0f} ms (mostly the "
            "program's own queued work); launches recorded and arguments read {:.0f} ms",
            cost.memoryCopies, cost.memoryMs, cost.waitMs, cost.recordMs);
}

// What the replay did on the way: reuse, tensor detection, windows measured again, the first
// iteration, graph launches, unbalanced pops, idling.
void SessionState::summarizeReplay(const CollectionCounts& c) const noexcept {
    if (c.tally.reused > 0)
        core::log().info("libroofline: {} records reuse the mean of their signature's measured "
                         "launches ({} samples per signature; ROOFLINE_REUSE=0 measures every "
                         "launch)",
                         c.tally.reused, settings.reuseSamples);
    if (c.tally.reusedDiffering > 0)
        core::log().warn("libroofline: {} launches have no values: launches that look like "
                         "them (kernel, grid, block, place) did different work, so each is "
                         "measured on its own, and the profile stopped before these were (run "
                         "more iterations; their notes say which launches differed)",
                         c.tally.reusedDiffering);
    if (c.tally.anticipations > 0 && c.tally.expansions == 0)
        core::log().info("libroofline: tensor counters by detection: a warp MMA type's counter "
                         "was collected from the first pass ({} passes), as the kernels' names "
                         "suggested, and no window was measured again for tensor counters",
                         c.passes);
    if (c.tally.expansions > 0)
        core::log().info("libroofline: tensor counters by detection: the collected set grew {} "
                         "time(s) to {} passes (a launch ran MMA work that needs them{})",
                         c.tally.expansions, c.passes,
                         c.tally.anticipations > 0
                             ? "; a warp MMA type the kernels' names suggested was collected "
                               "from the first pass and did not account for it"
                             : "");
    if (c.tally.windowsMeasuredAgain > 0)
        core::log().info("libroofline: {} replay windows were measured again: a later pass ran "
                         "other kernels at their positions (an iteration that also validated, a "
                         "data-dependent branch)",
                         c.tally.windowsMeasuredAgain);
    if (c.tally.emptyGroups > 0)
        core::log().info("libroofline: {} iteration replay groups ended after pass 0: it admitted "
                         "no launch (filters, launch skip, launches outside the scopes)",
                         c.tally.emptyGroups);
    if (c.onlyObservedIterationRan)
        core::log().warn(
            "libroofline: only one iteration ran, and the first is observed only: nothing was "
            "measured. Run more iterations (loop while Session::needsPass()) or set {}",
            c.reuses ? "ROOFLINE_REUSE=0 ROOFLINE_FIRST_ITERATION=measure (repeated-launch reuse "
                       "observes its first iterations too)"
                     : "ROOFLINE_FIRST_ITERATION=measure");
    else if (!c.firstIterationIssue.empty())
        core::log().info("libroofline: the first iteration was not measured: {}",
                         c.firstIterationIssue);
    if (c.tally.graphLaunches > 0)
        core::log().info("libroofline: {} CUDA graph launches: their kernels have records with "
                         "names and scopes, no counters (durations in kernel replay and "
                         "timing-only sessions); {} replay passes they interrupted were measured "
                         "again",
                         c.tally.graphLaunches, c.tally.graphInterruptions);
    if (unbalancedPops > 0)
        core::log().warn("libroofline: {} NVTX pops had no matching push (counted, ignored)",
                         unbalancedPops);
    if (idleWallNs != 0)
        core::log().info("libroofline: the profile was complete after {} iterations; libroofline "
                         "was idle for the last {:.3f} s of the session (profiler released, "
                         "scopes not followed, CUPTI detached)",
                         c.completedAfterIterations,
                         1e-9 * static_cast<double>(HostTimes::wallNow() - idleWallNs));
}

} // namespace roofline::collect
