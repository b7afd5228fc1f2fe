#pragma once
#include <functional>
#include <iosfwd>
#include <string>

namespace roofline::core {
/// Writes `path` through `write` into a temporary file beside it, then renames it into place, so a
/// reader never sees a half-written file. Throws Error(Io) naming the path.
void writeFileAtomically(const std::string& path, const std::function<void(std::ostream&)>& write);
} // namespace roofline::core
