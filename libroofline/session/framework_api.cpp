// The C entry points of framework hooks (include/roofline/framework.h; PyTorch's hook binds them
// through ctypes from that header). They never throw and never block on a session: a module
// boundary is a push on the calling thread's module stack, the state a plain atomic read.
#include "scopes/found_steps.hpp"
#include "scopes/framework_context.hpp"
#include "session/session_state.hpp"

#include <roofline/framework.h>
#include <roofline/options.hpp>

#include <cstring>

#define ROOFLINE_C_API extern "C" __attribute__((visibility("default")))

static_assert(
    ROOFLINE_PROFILE_NOT_STARTED == static_cast<int>(roofline::collect::ProfileState::NotStarted) &&
    ROOFLINE_PROFILE_COLLECTING == static_cast<int>(roofline::collect::ProfileState::Collecting) &&
    ROOFLINE_PROFILE_COMPLETE == static_cast<int>(roofline::collect::ProfileState::Complete) &&
    ROOFLINE_PROFILE_STOPPED == static_cast<int>(roofline::collect::ProfileState::Stopped) &&
    ROOFLINE_PROFILE_SAMPLING == static_cast<int>(roofline::collect::ProfileState::Sampling));

ROOFLINE_C_API int roofline_framework_api(void) {
    return ROOFLINE_FRAMEWORK_API;
}

ROOFLINE_C_API int roofline_torch_hook_enabled(void) {
    try {
        return roofline::Options::fromEnvironment().torchHook ? 1 : 0;
    } catch (...) {
        return 0; // a malformed setting: `roofline run` refused it before the program ran
    }
}

ROOFLINE_C_API int roofline_profile_state(void) {
    return static_cast<int>(roofline::collect::profileState());
}

ROOFLINE_C_API void roofline_module_enter(const char* path, int top) {
    roofline::collect::framework::moduleEnter(path, top != 0);
}

ROOFLINE_C_API void roofline_module_exit(void) {
    roofline::collect::framework::moduleExit();
}

ROOFLINE_C_API void roofline_framework_fact(const char* key, const char* value) {
    roofline::collect::framework::setFact(key, value);
}

ROOFLINE_C_API void roofline_compiled_graph(const char* graph, const char* sites) {
    roofline::collect::framework::setCompiledGraph(graph, sites);
}

ROOFLINE_C_API void roofline_step_end(const char* source) {
    char name[257] = {};
    if (source != nullptr)
        std::strncpy(name, source, sizeof name - 1);
    roofline::collect::frameworkStepEnds(name);
}
