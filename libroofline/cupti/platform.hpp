#pragma once
// The GPU side of the platform report (core/platform.hpp): devices, driver, CUDA, CUPTI and cuDNN
// versions, read through the driver API loaded at run time (no GPU: a note says why).
#include "core/platform.hpp"

namespace roofline::cupti {

/// readHostPlatform() with the GPUs and versions added. `loadCudnn`: find cuDNN's version by
/// loading the library the process would load (the CLI); false: only from a cuDNN this process
/// has already loaded (a session: it never loads cuDNN into the application).
core::Platform readPlatform(bool loadCudnn);

} // namespace roofline::cupti
