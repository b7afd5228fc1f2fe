// The session's glue between CUDA and the collector: launches from the driver callbacks placed
// on a device slot with the scopes open on their thread, the wiring of a session once its devices
// are set up, idling once the profile is complete, and the teardown. No CUDA call of its own: a
// session built from fake backends runs on the CPU (test/unit/session_glue_test.cpp).
#include "session/session_state.hpp"
#include "collect/mode.hpp"
#include "scopes/framework_context.hpp"
#include "session/strategies.hpp"

#include "core/log.hpp"
#include "cupti/graph_replay.hpp"
#include "cupti/relaunch.hpp"

#include <chrono>

namespace roofline::collect {

std::atomic<SessionState*> gActive{nullptr};

namespace {
std::atomic<std::uint32_t> gGenerations{0}; // advanced by every Session constructed
std::atomic<bool> gInjected{false};
std::atomic<double> gInjectionMs{0.0};
} // namespace

namespace {
std::atomic<int> gProfileState{0};
}

ProfileState profileState() noexcept {
    return static_cast<ProfileState>(gProfileState.load(std::memory_order_acquire));
}

void setProfileState(ProfileState state) noexcept {
    gProfileState.store(static_cast<int>(state), std::memory_order_release);
}

bool anySessionStarted() noexcept {
    return gGenerations.load() != 0;
}

std::uint32_t nextGeneration() noexcept {
    std::uint32_t g = 0;
    while (g == 0)
        g = (++gGenerations) & 0x7fffffffu;
    return g;
}

bool injected() noexcept {
    return gInjected.load(std::memory_order_acquire);
}

void markInjected(double ms) noexcept {
    gInjectionMs.store(ms, std::memory_order_relaxed);
    gInjected.store(true, std::memory_order_release);
}

double injectionMs() noexcept {
    return gInjectionMs.load(std::memory_order_relaxed);
}

namespace {
// Launches are serialized while counters are collected (API entry to exit), so that the order in
// which the callbacks number auto ranges is the order the GPU receives the kernels, whatever the
// number of launching threads. Timed, so a launch never waits more than a second on us.
std::recursive_timed_mutex gLaunchOrder;
thread_local int tLaunchLocks = 0;
} // namespace

bool SessionState::handledAside(const cupti::LaunchEvent& event) noexcept {
    if (event.kind == cupti::LaunchEvent::Kind::GraphAhead)
        return true; // the Graph event follows
    if (event.exit) {
        if (tLaunchLocks > 0) {
            --tLaunchLocks;
            gLaunchOrder.unlock();
        }
        return true;
    }
    if (!ready.load(std::memory_order_acquire) || idle.load(std::memory_order_acquire))
        return true; // the session is still being set up, or the profile is complete
    if (event.kind == cupti::LaunchEvent::Kind::Captured) {
        framework::captured(event.launch.graphNode, event.launch.mangledName);
        return true;
    }
    if (event.kind == cupti::LaunchEvent::Kind::ModuleLoaded) {
        if (CuptiBackend::insideCall())
            return true;
        if (const std::size_t slot = slotOf(event.context); slot < devices.size())
            collector->onCodeLoaded(slot);
        return true;
    }
    return false;
}

void SessionState::onLaunch(const cupti::LaunchEvent& event) noexcept {
    if (handledAside(event))
        return;
    const std::size_t slot = slotOf(event.context);
    if (event.kind == cupti::LaunchEvent::Kind::MemoryOperation) {
        if (CuptiBackend::insideCall()) // libroofline's own copies and sets are not the program's
            return;
        if (event.hostVisible) // in any context: the host can reach it from every one
            collector->onHostVisibleMemory();
        if (slot < devices.size())
            collector->onMemoryOperation(slot);
        return;
    }
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
    launched(event, slot, graph);
}

void SessionState::launched(const cupti::LaunchEvent& event, std::size_t slot, bool graph) {
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
        // The profiler stops before the graph runs; kernel replay has its kernels timed by CUDA
        // activity records (the timing handler). Iteration and scope replay cannot: kernel
        // activity enabled beside their user replay made every later range's instruction
        // counters zero on the H100 (FLOPs 0, bytes intact; design 0011).
        collector->onGraphLaunch(slot);
        if (collector->level() != Level::Counters)
            startTiming();
    }
    // The ranges open on this thread (or anywhere in the process), those opened before the
    // session included; in a program that opens none, the step found in its launch stream.
    bool complete = false;
    {
        SessionStack open(scopes);
        if (foundSteps)
            complete =
                foundSteps->launch(l, graph, open.stack(), graph ? event.graphKernels->size() : 1);
        if (!complete)
            feed(event, l, graph, open.stack(), ours);
    }
    if (complete) // the step just closed left nothing to measure: this launch runs unrecorded
        goIdle();
}

// A graph launch: each of its kernel nodes, in dependency order, with the scopes open now.
void SessionState::feed(const cupti::LaunchEvent& event, Launch& l, bool graph, const Stack& stack,
                        const HostClocks& ours) {
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
            l.graphNode = k.node;
            collector->onLaunch(l, stack);
        }
    }
    hostTimes->profilerEnd(ours, stack.empty() ? nullptr : &stack.back().host, l.threadId);
    if (profiled && hostTimes->on()) // these instances' host times include CUPTI's work
        for (const Frame& f : stack)
            f.host.profiled = true;
}

std::size_t SessionState::slotOf(const void* context) const noexcept {
    std::size_t slot = devices.size();
    for (std::size_t i = 0; i < devices.size(); ++i)
        if (devices[i].context.get() == context)
            slot = i;
    return slot;
}

void SessionState::startTiming() noexcept {
    if (timer || sampled || idle.load(std::memory_order_acquire))
        return; // idle: nothing more is measured, and CUPTI is detached or about to be; a
                // sampled run reads the kernels' records itself
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
    cupti::replaceGraphLaunches(false); // graphs run as they are once the profile is complete
    cupti::LaunchTracker::followMemoryOperations(false);
    // No launch may be between its entry and exit callbacks when the session stops following
    // them: its exit would never release the launch-order lock its entry took. Holding the lock
    // waits for one in flight (a second at most, as a launch waits for it).
    const bool ordered = gLaunchOrder.try_lock_for(std::chrono::seconds(1));
    idle.store(true, std::memory_order_release);
    if (ordered)
        gLaunchOrder.unlock();
    // Nothing more is measured: the counter backends (their range profilers, images and flush
    // buffers) and CUPTI's profiler go now -- what the stop reports of them read first -- and
    // CUPTI detaches at the next driver call, so the program's launches cost what they cost
    // without a tool (docs/design/0018).
    try {
        for (const auto& d : devices)
            if (d.backend)
                releasedCost.add(d.backend->cost());
        if (!devices.empty() && devices[0].backend)
            releasedPeaks = devices[0].backend->peakValues();
    } catch (...) {
    }
    collector->releaseBackends();
    // Kernel timings recorded so far (a device that turned to timing only) are read, and the
    // activity API turned off, while CUPTI is attached: a call to it after the detach would attach
    // CUPTI again -- at exit, inside the program's teardown.
    if (timer) {
        timingsAtIdle = timer->take();
        timer.reset();
    }
    for (auto& d : devices)
        if (d.backend) {
            d.backend->disable();
            d.backend.reset();
        }
    profiler.reset();
    cupti::LaunchTracker::detachAtNextCall();
    idleWallNs = HostTimes::wallNow();
    setProfileState(ProfileState::Complete);
    core::log().info("libroofline: idle after {} iterations: the profile is complete, so launches "
                     "and scopes are no longer followed and CUPTI is detached "
                     "(ROOFLINE_IDLE_WHEN_COMPLETE=0 keeps watching for new kernels)",
                     collector->completedAfterIterations());
}

void SessionState::teardown() noexcept {
    cupti::LaunchTracker::followMemoryOperations(false);
    sampled.reset(); // its sampler disabled before CUPTI's profiler is
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

CollectorConfig collectorConfig(const Settings& settings) {
    CollectorConfig config(settings);
    config.describe = &framework::describe;
    return config;
}

void SessionState::begin(const CollectorConfig& config,
                         const std::vector<CounterBackend*>& backends, Level level) {
    const Options& options = settings.options;
    collector = std::make_unique<Collector>(config, backends, level, makeStrategy);
    // A sampled run keeps no host time per scope (its recording has steps, not scopes): a
    // week-long job pays no clock read per launch.
    const HostTiming hostTiming = level == Level::Sampled ? HostTiming::Off : options.hostTiming;
    hostTimes = std::make_unique<HostTimes>(hostTiming, options.processScopes);
    startWallNs = HostTimes::wallNow();
    // The launch callbacks note when they begin, so that all of libroofline's work on a launch
    // (reading the kernel, the collector, waiting for other threads' launches) comes out of the
    // host times.
    cupti::LaunchTracker::timeCallbacks(hostTiming);
    cupti::LaunchTracker::readKernelResources(level != Level::Sampled);
    // Graph launches run as their nodes while counters are collected (cupti/graph_replay.hpp).
    cupti::replaceGraphLaunches(options.launchGraphNodes && level == Level::Counters);
    ready.store(true, std::memory_order_release);
    collector->setFailureHandler([this](const std::string&) {
        cupti::replaceGraphLaunches(false); // timing only from now on
        startTiming();
    });
    collector->setTimingHandler([this] { startTiming(); });
    scopes.generation = generation;
    scopes.listenNvtx = options.listenNvtx;
    scopes.processScopes = options.processScopes;
    scopes.collector = collector.get();
    scopes.hostTimes = hostTimes.get();
    if (options.idleWhenComplete) {
        scopes.complete = [](void* user) noexcept { static_cast<SessionState*>(user)->goIdle(); };
        scopes.user = this;
    }
    // A program with no range of its own gets its step from its launch stream (process-wide
    // scopes only: a found step must be on the stack every launching thread sees).
    const bool stepsFollowed =
        (level == Level::Counters && modeFacts(config.mode).followsIterations) ||
        level == Level::Sampled;
    if (stepsFollowed && options.iterationRange.empty() && options.processScopes)
        foundSteps = std::make_unique<FoundSteps>(scopes);
    scopes.foundSteps = foundSteps.get();
    const bool windowReplay = modeFacts(config.mode).relaunchesWindows;
    if (level == Level::Counters && windowReplay) {
        std::string why;
        if (!cupti::windowReplayAvailable(&why))
            core::log().warn("libroofline: window replay is unavailable here ({}): launches get "
                             "timing only",
                             why);
        else
            core::log().warn("libroofline: window replay restores device and pinned host memory "
                             "after each window: a thread storing into pinned memory while "
                             "another closes a window would lose the store (a DataLoader's "
                             "pin-memory thread); use it on one-shot programs");
    }
    // Windows -- window replay's, or iteration replay's before the first step -- close before
    // any driver call that changes memory.
    if (level == Level::Counters && (windowReplay || config.windowsOutsideSteps))
        cupti::LaunchTracker::followMemoryOperations(true);
    setScopeTarget(&scopes); // ranges open now are adopted at their next event
    unbalancedAtStart = collect::unbalancedPops();
    if (options.flushOnExit)
        installExitFlush();
}

} // namespace roofline::collect
