#include "collect/session_impl.hpp"

#include "core/log.hpp"
#include "core/roofline_model.hpp"
#include "cupti/device.hpp"
#include "cupti/evaluate.hpp"
#include "cupti/host.hpp"

#include <roofline/error.hpp>
#include <roofline/session.hpp>
#include <roofline/version.hpp>

#include "core/demangle.hpp"

#include <ctime>

namespace roofline {
namespace collect {

std::atomic<SessionState*> gActive{nullptr};

namespace {

std::atomic<std::uint32_t> gGenerations{0};

// The path of this thread's open scopes that belong to session `generation`.
std::string joinScopes(std::uint32_t generation) {
    std::string path;
    for (const ScopeEntry& e : threadScopes()) {
        if (e.generation != generation)
            continue;
        if (!path.empty())
            path += '/';
        path += e.name;
    }
    return path;
}

std::string utcNow() {
    const std::time_t now = std::time(nullptr);
    std::tm tm{};
    gmtime_r(&now, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return buf;
}

void sink(const cupti::LaunchEvent& event, void* user) noexcept {
    static_cast<SessionState*>(user)->onLaunch(event);
}

} // namespace

std::vector<ScopeEntry>& threadScopes() noexcept {
    // Names are not copied: ProfileScope requires them to outlive the scope.
    thread_local std::vector<ScopeEntry> scopes;
    return scopes;
}

void SessionState::onPush() noexcept {
    try {
        std::lock_guard<std::mutex> lock(mutex);
        if (openScopes++ == 0 && !failed && !stopped)
            profiler->start();
    } catch (const std::exception& e) {
        failed = true;
        core::log().error("profiling stopped: starting the range profiler failed: {}", e.what());
    }
}

void SessionState::onPop() noexcept {
    try {
        std::lock_guard<std::mutex> lock(mutex);
        if (openScopes > 0 && --openScopes == 0 && profiler && profiler->running())
            profiler->stop();
    } catch (const std::exception& e) {
        failed = true;
        core::log().error("profiling stopped: stopping the range profiler failed: {}", e.what());
    }
}

void SessionState::onLaunch(const cupti::LaunchEvent& event) noexcept {
    if (event.context != context)
        return;
    try {
        std::lock_guard<std::mutex> lock(mutex);
        if (!profiler || !profiler->running())
            return; // outside every scope: not profiled
        if (event.kind == cupti::LaunchEvent::Kind::Graph) {
            if (graphLaunches++ == 0)
                core::log().warn("a CUDA graph was launched inside a ProfileScope: libroofline "
                                 "does not attribute graph kernels yet, so later records may be "
                                 "misattributed (records say so when ranges and launches "
                                 "disagree)");
            return;
        }
        core::LaunchInfo l;
        l.launchIndex = launches.size();
        l.mangledName = event.mangledName;
        l.name = core::demangle(l.mangledName);
        l.scopePath = joinScopes(generation);
        l.grid = event.grid;
        l.block = event.block;
        l.stream = event.stream;
        if (profiled < profiler->capacity()) {
            l.chunk = 0;
            l.range = static_cast<std::uint32_t>(profiled);
        } else if (profiled == profiler->capacity()) {
            core::log().warn("counter-data image full after {} kernels: later kernels are not "
                             "measured (raise Options::maxKernels / ROOFLINE_MAX_KERNELS)",
                             profiled);
        }
        ++profiled;
        launches.push_back(std::move(l));
    } catch (...) {
        // Out of memory while recording a launch: the kernel still runs; its record is lost and
        // the range numbering stays right because `profiled` advanced before any allocation.
    }
}

core::Recording SessionState::takeRecording() {
    core::Recording r;
    r.libraryVersion = ROOFLINE_VERSION_STRING;
    r.createdUtc = utcNow();
    r.mode = toString(options.mode);
    r.device = device;
    r.chip = device.chip;
    r.metrics = metrics;
    r.passes = passes;
    r.droppedRanges = profiler ? profiler->droppedRanges() : 0;
    r.configImage = configImage;
    if (profiler)
        r.counterData.push_back(profiler->takeCounterData());
    r.launches = launches;
    return r;
}

void SessionState::teardown() noexcept {
    if (profiler)
        profiler->disable();
    tracker.reset();
    if (profilerInitialized)
        cupti::deinitializeProfiler();
    profilerInitialized = false;
    if (context)
        cupti::releasePrimaryContext(options.device);
    context = nullptr;
}

} // namespace collect

struct Session::Impl : collect::SessionState {};

Session::Session(Options options) : impl_(std::make_unique<Impl>()) {
    collect::SessionState& s = *impl_;
    s.options = std::move(options);
    s.generation = ++collect::gGenerations;
    if (s.generation == 0)
        s.generation = ++collect::gGenerations; // after 2^32 sessions
    if (s.options.maxKernels == 0)
        throw Error(ErrorCode::InvalidArgument, "Options::maxKernels must be at least 1");
    collect::SessionState* expected = nullptr;
    if (!collect::gActive.compare_exchange_strong(expected, &s))
        throw Error(ErrorCode::ProfilerBusy,
                    "a roofline::Session is already active in this process: stop() it first");
    try {
        s.device = cupti::openDevice(s.options.device, &s.context);
        cupti::initializeProfiler();
        s.profilerInitialized = true;
        s.device.chip = cupti::chipName(s.options.device);
        s.metrics = core::requiredMetrics(core::profileForChip(s.device.chip));
        const cupti::Host host(s.device.chip);
        cupti::ConfigImage config = host.configImage(s.metrics);
        s.configImage = std::move(config.bytes);
        s.passes = config.passes;
        s.ceilings = core::datasheetCeilings(s.device);
        s.tracker = std::make_unique<cupti::LaunchTracker>(&collect::sink, &s);
        s.profiler = std::make_unique<cupti::RangeProfiler>(s.context, s.metrics, s.configImage,
                                                            s.options.maxKernels);
    } catch (...) {
        collect::gActive.store(nullptr);
        s.teardown();
        throw;
    }
    core::log().info("session on {} ({}): {} metrics in {} passes, up to {} kernels", s.device.name,
                     s.device.chip, s.metrics.size(), s.passes, s.options.maxKernels);
}

Session::~Session() {
    try {
        stop();
    } catch (...) {
        // stop() reports its own failures; a destructor must not throw into the application
    }
}

const std::vector<KernelRecord>& Session::stop() {
    collect::SessionState& s = *impl_;
    if (s.stopped)
        return s.records;
    collect::SessionState* self = &s;
    collect::gActive.compare_exchange_strong(self, nullptr);
    {
        std::lock_guard<std::mutex> lock(s.mutex);
        if (s.openScopes > 0)
            core::log().warn("Session::stop() with {} ProfileScope(s) still open: collection "
                             "ends now",
                             s.openScopes);
        s.stopped = true;
    }
    s.teardown();
    try {
        s.recorded = s.takeRecording();
        s.records = cupti::evaluateRecording(s.recorded);
    } catch (const std::exception& e) {
        core::log().error("evaluating the counters failed: {}", e.what());
        s.records.clear();
        for (const auto& l : s.launches)
            s.records.push_back(
                core::unmeasuredRecord(l, std::string("evaluation failed: ") + e.what()));
    }
    if (!s.options.outputPath.empty()) {
        try {
            save(s.options.outputPath);
        } catch (const std::exception& e) {
            core::log().error("saving the recording to '{}' failed: {}", s.options.outputPath,
                              e.what());
        }
    }
    return s.records;
}

void Session::save(const std::string& path) const {
    if (!impl_->stopped)
        throw Error(ErrorCode::InvalidState, "Session::save() needs stop() first");
    core::saveRecording(impl_->recorded, path);
}

bool Session::stopped() const noexcept {
    return impl_->stopped;
}
std::size_t Session::droppedKernels() const noexcept {
    std::size_t n = 0;
    for (const auto& r : impl_->records)
        n += r.measured ? 0 : 1;
    return impl_->stopped ? n : 0;
}
std::size_t Session::passes() const noexcept {
    return impl_->passes;
}
std::string Session::chip() const {
    return impl_->device.chip;
}
std::string Session::deviceName() const {
    return impl_->device.name;
}
const Ceilings& Session::ceilings() const noexcept {
    return impl_->ceilings;
}

} // namespace roofline
