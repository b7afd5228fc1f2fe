#include "collect/fallback.hpp"
#include "collect/session_impl.hpp"
#include "core/host_scopes.hpp"
#include "cupti/platform.hpp"

#include "core/ceilings_file.hpp"
#include "core/demangle.hpp"
#include "core/log.hpp"
#include "core/roofline_model.hpp"
#include "core/stopwatch.hpp"
#include "core/tensor_inference.hpp"
#include "core/utc.hpp"
#include "cupti/device.hpp"
#include "cupti/evaluate.hpp"
#include "cupti/host.hpp"
#include "nvtx/listener.hpp"

#include <roofline/error.hpp>
#include <roofline/session.hpp>
#include <roofline/version.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <optional>
#include <unordered_map>

namespace roofline {
namespace collect {

std::atomic<SessionState*> gActive{nullptr};

namespace {

std::atomic<std::uint32_t> gGenerations{0}; // advanced by every Session constructed

// Measured roofs when `roofline ceilings` cached them for this device, datasheet roofs otherwise.
Ceilings deviceCeilings(const core::DeviceInfo& info) {
    core::CeilingsChoice choice = core::chooseCeilings(info);
    if (!choice.warning.empty())
        core::log().warn("libroofline: {}", choice.warning);
    return choice.used;
}

void sink(const cupti::LaunchEvent& event, void* user) noexcept {
    static_cast<SessionState*>(user)->onLaunch(event);
}

cupti::RangeMode rangeMode(CollectionMode mode) {
    switch (mode) {
    case CollectionMode::KernelReplay:
        return cupti::RangeMode::AutoKernelReplay;
    case CollectionMode::IterationReplay:
        return cupti::RangeMode::AutoUserReplay;
    case CollectionMode::ScopeReplay:
        return cupti::RangeMode::UserUserReplay;
    }
    return cupti::RangeMode::AutoUserReplay;
}

} // namespace

bool anySessionStarted() noexcept {
    return gGenerations.load() != 0;
}

namespace {
// Launches are serialized while counters are collected (API entry to exit), so that the order in
// which the callbacks number auto ranges is the order the GPU receives the kernels, whatever the
// number of launching threads. Timed, so a launch never waits more than a second on us.
std::recursive_timed_mutex gLaunchOrder;
thread_local int tLaunchLocks = 0;
} // namespace

void SessionState::onLaunch(const cupti::LaunchEvent& event) noexcept {
    if (event.exit) {
        if (tLaunchLocks > 0) {
            --tLaunchLocks;
            gLaunchOrder.unlock();
        }
        return;
    }
    if (!ready.load(std::memory_order_acquire))
        return; // the session is still being set up
    if (event.kind == cupti::LaunchEvent::Kind::ModuleLoaded) {
        if (CuptiBackend::insideCall())
            return;
        if (const std::size_t slot = slotOf(event.context); slot < devices.size())
            collector->onCodeLoaded(slot);
        return;
    }
    const std::size_t slot = slotOf(event.context);
    if (slot == devices.size())
        return; // a context we do not profile
    const bool graph = event.kind == cupti::LaunchEvent::Kind::Graph;
    if (graph && (!event.graphKernels || event.graphKernels->empty())) {
        static std::atomic<bool> warned{false};
        if (!event.graphKernels && !warned.exchange(true))
            core::log().warn("libroofline: a CUDA graph instantiated before the session started "
                             "was launched: its kernels get no records (instantiate graphs "
                             "after the Session is constructed, or profile with `roofline run`)");
        return;
    }
    // libroofline's own work on the launch, from the callback's start (reading the kernel,
    // waiting for other threads' launches, the collector), is taken out of the host times of
    // the scope the launch is in.
    const HostClocks ours{event.calledWallNs, event.calledCpuNs};
    Launch l = event.launch;
    if (!l.mangledName)
        l.mangledName = "<unknown kernel>";
    l.slot = slot;
    l.device = devices[slot].info.ordinal;
    l.threadId = currentThreadId();
    if (collector->level() == Level::Counters && gLaunchOrder.try_lock_for(std::chrono::seconds(1)))
        ++tLaunchLocks;
    if (graph) {
        collector->onGraphLaunch(slot); // the profiler stops before the graph runs
        // Kernel replay times the graph's kernels with CUDA activity records. Iteration and
        // scope replay cannot: kernel activity enabled beside their user replay made every later
        // range's instruction counters zero on the H100 (FLOPs 0, bytes intact; design 0011).
        if (options.mode == CollectionMode::KernelReplay || collector->level() != Level::Counters)
            startTiming();
    }
    // A graph launch: each of its kernel nodes, in dependency order, with the scopes open now.
    const auto feed = [&](const Stack& stack) {
        // Host timing: every open scope instance counts the kernels launched in it.
        if (hostTimes->on()) {
            const std::uint64_t kernels = graph ? event.graphKernels->size() : 1;
            for (const Frame& f : stack)
                f.host.launches += kernels;
        }
        bool profiled = false; // the kernel runs under the profiler
        if (!graph) {
            profiled = collector->onLaunch(l, stack);
        } else {
            l.inGraph = true;
            for (const cupti::GraphKernel& k : *event.graphKernels) {
                l.mangledName = k.mangledName.c_str();
                l.grid = k.grid;
                l.block = k.block;
                l.dynamicSharedBytes = k.sharedMemBytes;
                l.staticSharedBytes = k.staticSharedBytes;
                l.registers = k.registers;
                collector->onLaunch(l, stack);
            }
        }
        hostTimes->profilerEnd(ours, stack.empty() ? nullptr : &stack.back().host, l.threadId);
        if (profiled && hostTimes->on()) // these instances' host times include CUPTI's work
            for (const Frame& f : stack)
                f.host.profiled = true;
    };
    // The ranges open on this thread (or anywhere in the process), those opened before the
    // session included.
    SessionStack open(scopes);
    feed(open.stack());
}

std::size_t SessionState::slotOf(const void* context) const noexcept {
    std::size_t slot = devices.size();
    for (std::size_t i = 0; i < devices.size(); ++i)
        if (devices[i].context.get() == context)
            slot = i;
    return slot;
}

void SessionState::startTiming() noexcept {
    if (timer)
        return;
    try {
        timer = std::make_unique<cupti::KernelTimer>();
    } catch (const std::exception& e) {
        core::log().error("libroofline: timing-only records are unavailable too ({}): kernels get "
                          "names and scopes but no durations",
                          e.what());
    }
}

void SessionState::goIdle() noexcept {
    std::lock_guard<std::mutex> lock(stopMutex);
    if (stopped || idleWallNs != 0)
        return;
    if (scopeTarget() == &scopes)
        setScopeTarget(nullptr);
    cupti::LaunchTracker::timeCallbacks(HostTiming::Off);
    // No launch may be between its entry and exit callbacks when they go off: its exit would
    // never release the launch-order lock its entry took. Holding the lock waits for one in
    // flight (a second at most, as a launch waits for it).
    const bool ordered = gLaunchOrder.try_lock_for(std::chrono::seconds(1));
    if (tracker)
        tracker->setLaunchCallbacks(false);
    if (ordered)
        gLaunchOrder.unlock();
    idleWallNs = HostTimes::wallNow();
    core::log().info("libroofline: idle after {} iterations: the profile is complete, so launches "
                     "and scopes are no longer followed (ROOFLINE_IDLE_WHEN_COMPLETE=0 keeps "
                     "watching for new kernels)",
                     collector->completedAfterIterations());
}

void SessionState::teardown() noexcept {
    for (auto& d : devices)
        if (d.backend)
            d.backend->disable();
    tracker.reset();
    for (auto& d : devices)
        d.backend.reset();
    profiler.reset(); // after the range profilers, before the contexts
    for (auto& d : devices)
        d.context.reset();
}

void SessionState::finish() noexcept {
    std::lock_guard<std::mutex> lock(stopMutex);
    if (stopped)
        return;
    SessionState* self = this;
    gActive.compare_exchange_strong(self, nullptr);
    if (scopeTarget() == &scopes)
        setScopeTarget(nullptr);
    stopped = true;
    cupti::LaunchTracker::timeCallbacks(HostTiming::Off);
    restoreSignals();
    collector->finish();
    auto& launches = collector->launches();
    if (timer) {
        std::vector<cupti::KernelTiming> timings = timer->take();
        timer.reset();
        if (tracker || !launches.empty()) {
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
    BackendCost cost;
    for (const auto& d : devices)
        if (d.backend)
            cost.add(d.backend->cost());
    teardown();
    unbalancedPops = collect::unbalancedPops() - unbalancedAtStart;
    try {
        core::Recording& r = recorded;
        r.libraryVersion = ROOFLINE_VERSION_STRING;
        r.createdUtc = core::utcNow();
        r.mode = toString(options.mode);
        r.device = devices.empty() ? core::DeviceInfo{} : devices[0].info;
        r.chip = r.device.chip;
        r.metrics = metrics;
        // Aligned replay (auto) may have been switched on mid-run: its pass count.
        r.passes =
            collector && collector->level() == Level::Counters ? collector->passes() : passes;
        r.droppedRanges = collector->droppedRanges();
        if (collector->level() == Level::Counters)
            r.coverage = collector->coverage();
        r.configImage = configImage;
        r.counterData = std::move(collector->keptImages());
        r.status = status;
        r.cacheFlush = toString(options.cacheFlush);
        r.bytes = toString(options.bytes);
        r.launches = std::move(launches);
        r.process = process;
        records = cupti::evaluateRecording(r, ceilings);
    } catch (const std::exception& e) {
        core::log().error("libroofline: evaluating the counters failed: {}", e.what());
        records.clear();
        for (const auto& l : recorded.launches)
            records.push_back(
                core::unmeasuredRecord(l, std::string("evaluation failed: ") + e.what()));
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
    std::size_t unmeasured = 0;
    for (const auto& r : records)
        unmeasured += r.measured ? 0 : 1;
    if (recorded.coverage.known) {
        // An incomplete profile is said at warning level: a loop that ran too few iterations
        // (the first one is observed only) must not look like a complete one.
        if (recorded.coverage.complete())
            core::log().info("libroofline: coverage: {}", core::describe(recorded.coverage));
        else
            core::log().warn("libroofline: coverage: {} (loop with Session::needsPass(), or "
                             "run more iterations)",
                             core::describe(recorded.coverage));
    }
    if (collector->differingLaunches() + collector->unmatchedLaunches() > 0)
        core::log().warn("libroofline: iteration replay: {} launches clean, {} with a grid or "
                         "block that differed between passes (values kept, noted), {} whose "
                         "passes could not be matched (no values; each record says why)",
                         records.size() - unmeasured - collector->differingLaunches(),
                         collector->differingLaunches(), collector->unmatchedLaunches());
    core::log().info("libroofline: {} records ({} without counters), {} dropped ranges, {} replay "
                     "mismatches, {} unbalanced NVTX pops, {} profiler re-creations after code "
                     "loads ({} launches measured again later, {} kernels loaded ahead of their "
                     "first launch); {}",
                     records.size(), unmeasured, collector->droppedRanges(),
                     collector->mismatchedGroups(), unbalancedPops, collector->reenables(),
                     collector->supersededLaunches(), cupti::kernelsLoadedBeforeLaunch(), status);
    if (collector->level() == Level::Counters || cost.creations > 0)
        core::log().info("libroofline: cost: set-up {:.0f} ms (devices {:.0f}, CUPTI {:.0f}, "
                         "config images {:.0f}, launch tracking {:.0f}, range profilers {:.0f}), "
                         "{} pass starts {:.0f} ms (the first {:.0f} ms: CUPTI's per-range state), "
                         "{} profiler re-creations {:.0f} ms, decode and evaluation {:.0f} ms",
                         setupMs, deviceMs, cuptiInitMs, configImagesMs, trackerMs, profilersMs,
                         cost.starts, cost.startMs, cost.firstStartMs, cost.creations,
                         cost.creationMs, cost.evaluationMs);
    if (collector->reusedLaunches() > 0)
        core::log().info("libroofline: {} records reuse the mean of their signature's measured "
                         "launches ({} samples per signature; ROOFLINE_REUSE=0 measures every "
                         "launch)",
                         collector->reusedLaunches(), options.reuseSamples);
    if (collector->reusedDiffering() > 0)
        core::log().warn("libroofline: {} reused records come from samples whose work counters "
                         "differ: launches that look alike (kernel, grid, block, place) did not "
                         "do the same work; their notes say which; ROOFLINE_REUSE=0 measures "
                         "each launch",
                         collector->reusedDiffering());
    if (collector->metricExpansions() > 0)
        core::log().info("libroofline: tensor counters by detection: the collected set grew {} "
                         "time(s) to {} passes (a launch ran MMA work that needs them)",
                         collector->metricExpansions(), collector->passes());
    if (collector->emptyGroups() > 0)
        core::log().info("libroofline: {} iteration replay groups ended after pass 0: it admitted "
                         "no launch (filters, launch skip, launches outside the scopes)",
                         collector->emptyGroups());
    if (collector->onlyTheObservedIterationRan())
        core::log().warn(
            "libroofline: only one iteration ran, and the first is observed only: nothing was "
            "measured. Run more iterations (loop while Session::needsPass()) or set {}",
            collector->reuses()
                ? "ROOFLINE_REUSE=0 ROOFLINE_FIRST_ITERATION=measure (repeated-launch reuse "
                  "observes its first iterations too)"
                : "ROOFLINE_FIRST_ITERATION=measure");
    else if (collector->firstIterationSkipped())
        core::log().info("libroofline: the first iteration was not measured: {}",
                         collector->firstIterationIssue());
    if (collector->graphLaunches() > 0)
        core::log().info("libroofline: {} CUDA graph launches: their kernels have records with "
                         "names and scopes, no counters (durations in kernel replay and "
                         "timing-only sessions); {} replay passes they interrupted were measured "
                         "again",
                         collector->graphLaunches(), collector->graphInterruptions());
    if (unbalancedPops > 0)
        core::log().warn("libroofline: {} NVTX pops had no matching push (counted, ignored)",
                         unbalancedPops);
    if (idleWallNs != 0)
        core::log().info("libroofline: the profile was complete after {} iterations; libroofline "
                         "was idle for the last {:.3f} s of the session (launch callbacks off, "
                         "profiler released, scopes not followed)",
                         collector->completedAfterIterations(),
                         1e-9 * static_cast<double>(HostTimes::wallNow() - idleWallNs));
    if (!outputPath.empty()) {
        try {
            const std::string saved = core::saveRecordingOnce(recorded, outputPath, process.pid);
            if (injected()) {
                const std::string idle =
                    idleWallNs != 0
                        ? "; idle after " + std::to_string(collector->completedAfterIterations()) +
                              " iterations (the profile was complete)"
                        : std::string();
                std::fprintf(stderr,
                             "[roofline] process %ld: %zu records (%zu without counters) "
                             "saved to %s%s\n",
                             static_cast<long>(process.pid), records.size(), unmeasured,
                             saved.c_str(), idle.c_str());
            }
            if (saved == outputPath)
                core::log().info("libroofline: recording saved to {}", saved);
            else
                core::log().warn("libroofline: recording saved to {}: '{}' holds another "
                                 "process's recording of this run (give ROOFLINE_OUTPUT a %p or "
                                 "%r so that each process has its own)",
                                 saved, outputPath);
        } catch (const std::exception& e) {
            core::log().error("libroofline: saving the recording to '{}' failed: {}", outputPath,
                              e.what());
        }
    }
}

} // namespace collect

struct Session::Impl : collect::SessionState {};

namespace {

CacheFlush effectiveFlush(const Options& o) {
    if (o.cacheFlush != CacheFlush::Auto)
        return o.cacheFlush;
    return o.mode == CollectionMode::KernelReplay ? CacheFlush::On : CacheFlush::Off;
}

// Counter collection on every requested device; throws Error on the first failure.
void setUpCounters(collect::SessionState& s, collect::CollectorConfig& config) {
    using core::msSince;
    const auto start = core::SteadyClock::now();
    const int count = cupti::deviceCount();
    std::vector<int> ordinals;
    if (s.options.device < 0)
        for (int i = 0; i < count; ++i)
            ordinals.push_back(i);
    else
        ordinals.push_back(s.options.device);
    if (ordinals.empty())
        throw Error(ErrorCode::NoDevice, "no CUDA device is visible");
    for (int ordinal : ordinals) {
        collect::SessionDevice d;
        d.context = cupti::PrimaryContext(ordinal, d.info);
        s.devices.push_back(std::move(d));
    }
    s.deviceMs = msSince(start);
    const auto initStart = core::SteadyClock::now();
    s.profiler.emplace();
    s.cuptiInitMs = msSince(initStart);
    for (auto& d : s.devices)
        d.info.chip = cupti::chipName(d.info.ordinal);
    const std::string& chip = s.devices[0].info.chip;
    for (const auto& d : s.devices)
        if (d.info.chip != chip)
            throw Error(ErrorCode::UnsupportedChip,
                        "devices of different chips (" + chip + ", " + d.info.chip +
                            ") in one session: profile them with ROOFLINE_DEVICE one at a time");
    const core::ChipProfile profile = core::withBytes(core::profileForChip(chip), s.options.bytes);
    // Tensor counters by detection (design 0008): iteration replay only -- a launch whose MMA
    // kind needs more counters is measured again in a later iteration, which kernel replay and
    // per-scope records cannot do.
    const bool detect = s.options.mode == CollectionMode::IterationReplay &&
                        s.options.tensorCounters == TensorCounters::Detect;
    s.metrics = core::sessionMetrics(profile, s.options.metrics, detect);
    std::vector<std::string> initial = core::initialMetrics(profile, s.options.metrics, detect);
    const bool detecting = initial != s.metrics;
    const auto imagesStart = core::SteadyClock::now();
    const cupti::Host host(chip);
    cupti::ConfigImage image = host.configImage(initial);
    s.configImage = image.bytes;
    const std::size_t levels =
        s.options.mode == CollectionMode::ScopeReplay ? s.options.scopeLevels : 1;
    s.passes = image.passes * levels;
    std::vector<cupti::Configuration> configurations{{std::move(initial), std::move(image.bytes)}};
    // Aligned replay (docs/design/0006): its single-pass configurations are built when it is
    // switched on (auto) or right away (on).
    config.alignAvailable = s.options.mode == CollectionMode::IterationReplay &&
                            s.options.alignPasses != AlignPasses::Off && image.passes > 1;
    config.alignFromStart = config.alignAvailable && s.options.alignPasses == AlignPasses::On;
    if (detecting) {
        config.infer = [profile, metrics = s.metrics](std::vector<double>& values) {
            return core::inferTensorMetrics(profile, metrics, values);
        };
        s.tensorDetection = true;
    }
    config.passes = s.passes;
    s.configImagesMs = msSince(imagesStart);
    s.ceilings = collect::deviceCeilings(s.devices[0].info);
    const auto trackerStart = core::SteadyClock::now();
    s.tracker = std::make_unique<cupti::LaunchTracker>(&collect::sink, &s);
    s.trackerMs = msSince(trackerStart);
    const auto profilersStart = core::SteadyClock::now();
    const std::vector<std::string> fallback =
        detecting ? core::requiredMetrics(profile, MetricSet::Full) : std::vector<std::string>{};
    // The collector keeps the profiler released until its first pass: created only to check the
    // permission, not configured.
    const bool released = config.profilerReleasedAtStart();
    for (auto& d : s.devices) {
        d.backend = std::make_unique<collect::CuptiBackend>(
            d.context.get(), chip, s.metrics, configurations, s.options.rangesPerImage,
            collect::rangeMode(s.options.mode), static_cast<std::uint16_t>(levels), d.info.l2Bytes,
            fallback, released);
        if (config.alignFromStart) {
            config.alignedPasses = d.backend->prepareAligned();
            d.backend->selectConfiguration(1);
            s.configurations = d.backend->configurations() - 1;
        }
    }
    if (config.alignFromStart)
        s.passes = config.alignedPasses;
    s.profilersMs = msSince(profilersStart);
    s.setupMs = msSince(start);
}

} // namespace

Session::Session(Options options) : impl_(std::make_unique<Impl>()) {
    collect::SessionState& s = *impl_;
    s.options = std::move(options);
    if (s.options.rangesPerImage == 0)
        throw Error(ErrorCode::InvalidArgument, "Options::rangesPerImage must be at least 1");
    if (s.options.scopeLevels == 0)
        throw Error(ErrorCode::InvalidArgument, "Options::scopeLevels must be at least 1");
    const core::EnvLookup env = [](const char* name) { return std::getenv(name); };
    s.process = core::currentProcess(env);
    if (!s.options.outputPath.empty()) // a bad pattern is refused now, not after the run
        s.outputPath = core::expandOutputPattern(s.options.outputPath, s.process, env);
    collect::CollectorConfig config;
    config.mode = s.options.mode;
    config.filter =
        core::KernelFilter(s.options.nvtxInclude, s.options.nvtxExclude, s.options.kernelName);
    config.launchSkip = s.options.launchSkip;
    config.launchCount = s.options.launchCount;
    config.iterationRange = s.options.iterationRange;
    config.scopeLevels = s.options.scopeLevels;
    config.iterationsPerPass = s.options.iterationsPerPass;
    config.firstIteration = s.options.firstIteration;
    config.reuseSamples =
        s.options.mode == CollectionMode::IterationReplay ? s.options.reuseSamples : 0;
    s.options.cacheFlush = effectiveFlush(s.options);
    config.flushCaches = s.options.cacheFlush == CacheFlush::On;
    config.keepImageBytes = s.options.keepImagesMiB << 20;
    config.measureAfterComplete = !s.options.idleWhenComplete;
    if (!s.options.listenNvtx)
        core::log().info(
            "libroofline: NVTX listening is off (Options::listenNvtx, ROOFLINE_NVTX=0): "
            "only ProfileScopes delimit what is profiled");
    else if (!nvtx::otherInjection().empty())
        core::log().warn("libroofline: NVTX_INJECTION64_PATH points to another tool ({}): "
                         "application NVTX ranges go there, so only ProfileScopes are seen",
                         nvtx::otherInjection());

    s.generation = (++collect::gGenerations) & 0x7fffffffu;
    if (s.generation == 0)
        s.generation = (++collect::gGenerations) & 0x7fffffffu;
    collect::SessionState* expected = nullptr;
    if (!collect::gActive.compare_exchange_strong(expected, &s))
        throw Error(ErrorCode::ProfilerBusy,
                    collect::injected()
                        ? "`roofline run` already profiles this process: construct no Session "
                          "under it, or run the program without `roofline run`"
                        : "a roofline::Session is already active in this process: stop() it first");

    collect::Level level = collect::Level::Counters;
    std::vector<collect::CounterBackend*> backends;
    std::optional<collect::Fallback> fallback;
    std::string cause; // why there are no counters
    if (const char* v = std::getenv("ROOFLINE_TIMING_ONLY"); v && std::string(v) == "1") {
        cause = "ROOFLINE_TIMING_ONLY=1";
        fallback = collect::Fallback{collect::Fallback::Action::TimingOnly,
                                     "libroofline: timing only, as asked (" + cause + ")"};
        core::log().info("{}", fallback->message);
    } else {
        try {
            setUpCounters(s, config);
            config.metricNames = s.metrics;
            for (auto& d : s.devices)
                backends.push_back(d.backend.get());
        } catch (const Error& e) {
            s.tracker.reset();
            for (auto& d : s.devices)
                d.backend.reset();
            fallback = collect::decideFallback(e.code(), e.what());
            if (fallback->action == collect::Fallback::Action::Rethrow) {
                collect::gActive.store(nullptr);
                s.teardown();
                throw;
            }
            cause = e.what();
            core::log().warn("{}", fallback->message);
        } catch (...) {
            collect::gActive.store(nullptr); // e.g. out of memory: no session, nothing dangling
            s.teardown();
            throw;
        }
    }
    if (fallback) {
        const collect::Fallback& fb = *fallback;
        level = collect::Level::TimingOnly;
        s.status = fb.action == collect::Fallback::Action::Nothing
                       ? "nothing recorded: no CUDA device"
                       : "timing only: " + cause;
        config.timingReason = s.status;
        if (fb.action == collect::Fallback::Action::TimingOnly) {
            if (s.devices.empty())
                try {
                    collect::SessionDevice d;
                    d.context = cupti::PrimaryContext(std::max(0, s.options.device), d.info);
                    s.devices.push_back(std::move(d));
                } catch (...) {
                }
            try {
                s.tracker = std::make_unique<cupti::LaunchTracker>(&collect::sink, &s);
            } catch (const std::exception& t) {
                core::log().warn("libroofline: no launch callbacks ({}): records come from "
                                 "activity timestamps without scopes",
                                 t.what());
            }
            s.startTiming();
            if (!s.devices.empty())
                s.ceilings = collect::deviceCeilings(s.devices[0].info);
        }
    }
    if (const char* v = std::getenv("ROOFLINE_REENABLE_ON_CODE_LOAD"); v && std::string(v) == "0")
        config.reenableOnCodeLoad = false; // only to reproduce the CUPTI crash it prevents
    s.collector = std::make_unique<collect::Collector>(config, backends, level);
    s.hostTimes =
        std::make_unique<collect::HostTimes>(s.options.hostTiming, s.options.processScopes);
    s.startWallNs = collect::HostTimes::wallNow();
    // The launch callbacks note when they begin, so that all of libroofline's work on a launch
    // (reading the kernel, the collector, waiting for other threads' launches) comes out of the
    // host times.
    cupti::LaunchTracker::timeCallbacks(s.options.hostTiming);
    s.ready.store(true, std::memory_order_release);
    s.collector->setFailureHandler([&s](const std::string&) { s.startTiming(); });
    s.scopes.generation = s.generation;
    s.scopes.listenNvtx = s.options.listenNvtx;
    s.scopes.processScopes = s.options.processScopes;
    s.scopes.collector = s.collector.get();
    s.scopes.hostTimes = s.hostTimes.get();
    if (s.options.idleWhenComplete) {
        s.scopes.complete = [](void* user) noexcept {
            static_cast<collect::SessionState*>(user)->goIdle();
        };
        s.scopes.user = &s;
    }
    collect::setScopeTarget(&s.scopes); // ranges open now are adopted at their next event
    s.unbalancedAtStart = collect::unbalancedPops();
    if (s.options.flushOnExit)
        collect::installExitFlush();
    if (collect::injected())
        std::fprintf(
            stderr, "[roofline] profiling %s, device %d (%s): %s; recording to %s at exit\n",
            core::describe(s.process).c_str(),
            s.devices.empty() ? s.options.device : s.devices[0].info.ordinal,
            s.devices.empty() ? "?" : s.devices[0].info.name.c_str(),
            level == collect::Level::Counters ? (std::string(toString(s.options.mode)) + ", " +
                                                 std::to_string(s.passes) + " passes")
                                                    .c_str()
                                              : s.status.c_str(),
            s.outputPath.c_str());
    if (level == collect::Level::Counters)
        core::log().info(
            "libroofline: {} on {} ({}): {} metrics ({}{}), {} passes{}, {} ranges per "
            "image, cache flush {}",
            toString(s.options.mode), s.devices[0].info.name, s.devices[0].info.chip,
            s.metrics.size(), toString(s.options.metrics),
            s.tensorDetection ? ", tensor counters by detection" : "", s.passes,
            s.configurations > 1 ? " (aligned: " + std::to_string(s.configurations) +
                                       " configurations, one per pass)"
                                 : std::string(),
            s.options.rangesPerImage, toString(s.options.cacheFlush));
}

Session::~Session() {
    impl_->finish();
}

const std::vector<KernelRecord>& Session::stop() {
    impl_->finish();
    return impl_->records;
}

bool Session::needsPass() noexcept {
    return !impl_->stopped && impl_->collector->needsPass();
}

void Session::save(const std::string& path) const {
    if (!impl_->stopped)
        throw Error(ErrorCode::InvalidState, "Session::save() needs stop() first");
    core::saveRecording(impl_->recorded, path);
}

bool Session::stopped() const noexcept {
    return impl_->stopped;
}
bool Session::countersAvailable() const noexcept {
    return impl_->status == "counters" && impl_->collector->level() == collect::Level::Counters;
}
std::string Session::status() const {
    const std::string& failure = impl_->collector->failure(); // set only by a mid-run failure
    return failure.empty() ? impl_->status : "timing only: " + failure;
}
std::size_t Session::droppedKernels() const noexcept {
    std::size_t n = 0;
    for (const auto& r : impl_->records)
        n += r.measured ? 0 : 1;
    return impl_->stopped ? n : 0;
}
std::uint64_t Session::droppedRanges() const noexcept {
    return impl_->collector->droppedRanges();
}
std::uint64_t Session::replayMismatches() const noexcept {
    return impl_->collector->mismatchedGroups();
}
std::uint64_t Session::unbalancedNvtxPops() const noexcept {
    return impl_->stopped ? impl_->unbalancedPops
                          : collect::unbalancedPops() - impl_->unbalancedAtStart;
}
std::size_t Session::passes() const noexcept {
    if (impl_->collector && impl_->collector->level() == collect::Level::Counters &&
        impl_->options.mode == CollectionMode::IterationReplay)
        return impl_->collector->passes(); // aligned replay may have been switched on
    return impl_->passes;
}
CollectionMode Session::mode() const noexcept {
    return impl_->options.mode;
}
std::string Session::chip() const {
    return impl_->devices.empty() ? std::string() : impl_->devices[0].info.chip;
}
std::string Session::deviceName() const {
    return impl_->devices.empty() ? std::string() : impl_->devices[0].info.name;
}
const Ceilings& Session::ceilings() const noexcept {
    return impl_->ceilings;
}
const std::vector<HostScope>& Session::hostScopes() const noexcept {
    return impl_->recorded.hostScopes;
}
double Session::sessionSeconds() const noexcept {
    return impl_->recorded.sessionSeconds;
}
double Session::profilerSeconds() const noexcept {
    return impl_->recorded.profilerSeconds;
}
double Session::hostRunSeconds() const noexcept {
    return impl_->recorded.hostRunSeconds;
}

} // namespace roofline
