#pragma once
// A recording -> kernel records: CUPTI host evaluates each launch's range, the catalog's formulas
// turn the values into a record. Runs anywhere (no GPU).
#include "core/recording.hpp"

#include <roofline/kernel_record.hpp>

#include <vector>

namespace roofline::cupti {
/// One record per launch, in launch order. Launches without a range get measured == false and
/// a note saying why; bounds refer to `ceilings`. Throws Error for an unsupported chip or an
/// unreadable image.
std::vector<KernelRecord> evaluateRecording(const core::Recording& recording,
                                            const Ceilings& ceilings);
} // namespace roofline::cupti
