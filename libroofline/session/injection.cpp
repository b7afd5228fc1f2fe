// Zero-code profiling (docs/design/0011): libroofline as the CUDA injection library.
//
// `roofline run` (or a user) sets CUDA_INJECTION64_PATH to libroofline.so; the driver loads it
// inside cuInit and calls InitializeInjection. Only a process that initializes CUDA gets here, so
// wrappers (time, bash, torchrun's parent) never start a session. Nothing is set up inside cuInit
// but the CUPTI subscription: the Session is built at the process's first kernel launch, on the
// device and context of that launch, outside the driver's initialization. A process that
// initializes CUDA and launches nothing (a device query) leaves nothing behind. The session is
// stopped and its recording saved by the exit flush (session/stop_at_exit.cpp).
#include "session/session_state.hpp"
#include "core/log.hpp"
#include "core/output_path.hpp"
#include "core/stopwatch.hpp"
#include "cupti/device.hpp"
#include "cupti/launch.hpp"

#include <roofline/options.hpp>
#include <roofline/session.hpp>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <string>
#include <unistd.h>

namespace roofline::collect {
namespace {

std::mutex gStartMutex;
std::atomic<bool> gDecided{false};
cupti::LaunchTracker* gBootstrap = nullptr;
Session* gSession = nullptr; // never destroyed: the exit flush stops it and saves the recording

// The options of an injected session: ROOFLINE_* over the defaults of `roofline run`.
Options injectedOptions(void* context) {
    Options defaults;
    const core::EnvLookup env = [](const char* name) { return std::getenv(name); };
    defaults.outputPath = core::defaultOutputPattern(core::currentProcess(env));
    Options o = Options::fromEnvironment(defaults);
    if (!std::getenv("ROOFLINE_DEVICE")) { // the device this process launches on
        const int device = cupti::deviceOfContext(context);
        o.device = device >= 0 ? device : 0;
    }
    if (!o.flushOnExit)
        core::log().warn("libroofline: ROOFLINE_FLUSH_ON_EXIT=0 ignored under injection: the exit "
                         "flush is what saves the recording");
    o.flushOnExit = true;
    if (o.outputPath.empty())
        o.outputPath = defaults.outputPath;
    return o;
}

void start(const cupti::LaunchEvent& event) {
    if (anySessionStarted()) {
        core::log().info("libroofline: the program constructs its own roofline::Session: the "
                         "injection stands aside");
        return;
    }
    try {
        gSession = new Session(injectedOptions(event.context));
    } catch (const std::exception& e) {
        std::fprintf(stderr,
                     "[roofline] not profiling process %ld: %s (the program runs on unprofiled)\n",
                     static_cast<long>(::getpid()), e.what());
    }
}

// The bootstrap sink: the first kernel (or graph) launch of the process starts the session and is
// handed on to it; later launches go to the session's own tracker directly.
void onFirstLaunch(const cupti::LaunchEvent& event, void*) noexcept {
    // A launch from inside the session's own construction (none is known) must not wait on the
    // lock this thread holds.
    thread_local bool tStarting = false;
    if (event.exit || event.kind == cupti::LaunchEvent::Kind::ModuleLoaded ||
        event.kind == cupti::LaunchEvent::Kind::Captured ||
        gDecided.load(std::memory_order_acquire) || tStarting)
        return;
    std::lock_guard<std::mutex> lock(gStartMutex); // launches of other threads wait for it
    if (!gDecided.load(std::memory_order_relaxed)) {
        tStarting = true;
        try {
            start(event);
        } catch (...) {
        }
        tStarting = false;
        gDecided.store(true, std::memory_order_release);
    }
    if (gSession && cupti::LaunchTracker::active() != gBootstrap)
        cupti::LaunchTracker::dispatch(event); // to the session's tracker
}

} // namespace

} // namespace roofline::collect

// Called by the CUDA driver inside cuInit when CUDA_INJECTION64_PATH names this library. Must be
// exported with default visibility (the library's symbols are hidden otherwise), or the driver
// skips it silently. Returns 1 on success; never throws into the driver.
extern "C" __attribute__((visibility("default"))) int InitializeInjection(void) {
    using namespace roofline;
    static std::once_flag once;
    static int result = 0;
    std::call_once(once, [] {
        try {
            const auto t0 = core::SteadyClock::now();
            collect::gBootstrap =
                cupti::LaunchTracker::subscribeProcess(&collect::onFirstLaunch, nullptr);
            collect::markInjected(core::msSince(t0));
            result = 1;
        } catch (const std::exception& e) {
            std::fprintf(stderr, "[roofline] injection: no launch callbacks (%s): not profiling\n",
                         e.what());
        }
    });
    return result;
}
