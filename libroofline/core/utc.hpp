#pragma once
#include <string>

namespace roofline::core {
/// The current time as ISO 8601 UTC, e.g. "2026-11-22T10:00:00Z".
std::string utcNow();
} // namespace roofline::core
