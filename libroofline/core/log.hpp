#pragma once
// The one logger: spdlog, private to libroofline, level from ROOFLINE_LOG_LEVEL
// (trace, debug, info, warn, error, critical, off; default warn).
#include <spdlog/logger.h>

namespace roofline::core {
spdlog::logger& log() noexcept;
} // namespace roofline::core
