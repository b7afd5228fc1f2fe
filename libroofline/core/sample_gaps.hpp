#pragma once
// The sampling periods a device lost (docs/design/0029, "The drain"): PM samples come back to
// back, each starting where the one before ended, so a gap between two decoded samples is periods
// whose samples the device's buffer lost (an overflow, or the samples CUPTI drops after a decode
// that filled its image). Pure: no CUDA, no CUPTI.
#include <algorithm>
#include <cstdint>

namespace roofline::core {

class SampleGaps {
public:
    explicit SampleGaps(std::uint64_t periodNs) noexcept
        : period_(std::max<std::uint64_t>(periodNs, 1)) {}

    /// Where the sample [startNs, endNs) begins once it follows the latest one seen: at that one's
    /// end where their timestamps overlap (consecutive samples' stamps can), so that samples tile
    /// time and no kernel's time is covered twice; else at startNs (a sample that overlaps
    /// nothing, or lies wholly before the latest end, decoded out of order).
    std::uint64_t startAfterLast(std::uint64_t startNs, std::uint64_t endNs) const noexcept {
        return startNs < lastEndNs_ && lastEndNs_ < endNs ? lastEndNs_ : startNs;
    }

    /// The periods missing before the sample [startNs, endNs), in the order decoded: 0 for the
    /// first, for one that follows within half a period (the trigger's jitter), and for one
    /// that begins before the last ended; else the gap in periods, rounded.
    std::uint64_t missingBefore(std::uint64_t startNs, std::uint64_t endNs) noexcept {
        std::uint64_t missing = 0;
        if (lastEndNs_ != 0 && startNs > lastEndNs_ + period_ / 2)
            missing = (startNs - lastEndNs_ + period_ / 2) / period_;
        lastEndNs_ = std::max(lastEndNs_, endNs);
        return missing;
    }

private:
    std::uint64_t period_;
    std::uint64_t lastEndNs_ = 0; // the latest end seen (0: none yet)
};

} // namespace roofline::core
