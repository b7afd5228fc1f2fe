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

/// The device's own roofs for the recording (core/device_peaks.hpp): the peak rates CUPTI's host
/// API gives for its chip, evaluated on its first kept counter-data image, times the device's
/// clocks and the L2 clock its launches measured. Empty Ceilings when it keeps no image or its
/// chip is not supported (logged; never throws). `isolated`: evaluate in a child process (for
/// images read from files, as evaluateRecording does).
Ceilings devicePeakCeilings(const core::Recording& recording, bool isolated);
} // namespace roofline::cupti
