// C entry points for framework hooks (python/roofline_torch: PyTorch's module forward hooks,
// through ctypes). They never throw and never block on a session: a module boundary is a push on
// the calling thread's module stack, the state a plain atomic read.
#include "collect/framework_context.hpp"
#include "collect/session_impl.hpp"

#define ROOFLINE_C_API extern "C" __attribute__((visibility("default")))

/// 0: no session yet (the first kernel launch starts one under `roofline run`), 1: collecting,
/// 2: the profile is complete (libroofline idle: a hook should remove itself), 3: stopped.
ROOFLINE_C_API int roofline_profile_state(void) {
    return static_cast<int>(roofline::collect::profileState());
}

/// The module at `path` ("encoder.layers.3.linear1") begins its forward on this thread.
ROOFLINE_C_API void roofline_module_enter(const char* path) {
    roofline::collect::framework::moduleEnter(path);
}

/// The innermost module begun on this thread ends its forward.
ROOFLINE_C_API void roofline_module_exit(void) {
    roofline::collect::framework::moduleExit();
}

/// A fact about the run for the recording ("torch" -> "2.11.0+cu130"); up to 64 keys, values cut
/// at 256 characters.
ROOFLINE_C_API void roofline_framework_fact(const char* key, const char* value) {
    roofline::collect::framework::setFact(key, value);
}
