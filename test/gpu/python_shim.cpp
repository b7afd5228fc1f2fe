// A C entry point to libroofline for scripts (ctypes) that drive the session themselves (`roofline
// run` profiles an unmodified script; this shim lets a loop ask needsPass()):
// the PyTorch checks load it, start a Session configured from ROOFLINE_* before their loop, ask
// needsPass() after each step, and stop it after the loop.
//
//   lib = ctypes.CDLL("libroofline_pyshim.so"); lib.rl_start(); ...; lib.rl_needs_pass(); ...
//   lib.rl_stop(b"out.rfl")
#include <roofline/roofline.hpp>

#include <cstdio>
#include <exception>
#include <map>
#include <memory>
#include <string>

namespace {
std::unique_ptr<roofline::Session> gSession;
}

extern "C" {

int rl_start() {
    try {
        gSession = std::make_unique<roofline::Session>(roofline::Options::fromEnvironment());
        return 0;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "rl_start: %s\n", e.what());
        return 1;
    }
}

int rl_needs_pass() {
    return gSession && gSession->needsPass() ? 1 : 0;
}

// Stops, saves to `path` (when not null) and prints one summary line per scope path.
int rl_stop(const char* path) {
    if (!gSession)
        return 1;
    try {
        const auto& records = gSession->stop();
        std::map<std::string, int> perScope;
        std::size_t measured = 0, flagged = 0;
        for (const auto& r : records) {
            ++perScope[r.scopePath];
            measured += r.measured ? 1 : 0;
            flagged += r.replay != roofline::ReplayStatus::Clean ? 1 : 0;
        }
        std::printf("rl_stop: %zu records, %zu measured, %zu flagged; %s\n", records.size(),
                    measured, flagged, gSession->status().c_str());
        for (const auto& [scope, n] : perScope)
            std::printf("rl_stop:   %5d  %s\n", n, scope.c_str());
        if (path && *path)
            gSession->save(path);
        gSession.reset();
        return 0;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "rl_stop: %s\n", e.what());
        return 1;
    }
}
}
