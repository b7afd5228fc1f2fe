#pragma once
// The roofs side by side: the ones in use, the measured ones (with how they were reached) and the
// datasheet's. Used by `roofline ceilings` and `roofline report`.
#include "core/ceilings_file.hpp"

#include <iosfwd>

namespace roofline::report {
void printCeilings(const core::CeilingsChoice& choice, std::ostream& out, bool details);
} // namespace roofline::report
