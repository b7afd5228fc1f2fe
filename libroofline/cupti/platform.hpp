#pragma once
// The GPU side of the platform report (core/platform.hpp): devices, driver, CUDA, CUPTI and cuDNN
// versions, read through the driver API loaded at run time (no GPU: a note says why).
#include "core/platform.hpp"

namespace roofline::cupti {

/// readHostPlatform() with the GPUs and versions added.
core::Platform readPlatform();

} // namespace roofline::cupti
