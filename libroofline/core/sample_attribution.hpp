#pragma once
// Samples to kernels (docs/design/0029, "Samples to kernels"): PM sampling gives each counter's
// increase over one period of GPU time; the activity records give each kernel's start and end.
// Inside one sample a counter is taken to grow at a constant rate while some kernel runs (not in
// the gaps between launches: sampled on the calibration kernels, the gaps' share held 17 % of
// their FFMA work); each instant's share goes to the kernels running then, split evenly among
// them; a sample in which no kernel runs is the device's "between kernels". The clock is the one
// counter that grows with time whether a kernel runs or not: each kernel gets the cycles of the
// time it ran, as a replay counts its elapsed cycles, and the gaps' cycles are "between kernels".
// Pure: no CUDA, no CUPTI.
#include <cstddef>
#include <cstdint>
#include <vector>

namespace roofline::core {

/// One PM sample: what each counter grew by over [startNs, endNs) of GPU time.
struct CounterSample {
    std::uint64_t startNs = 0, endNs = 0;
    std::vector<double> values;
};

/// One kernel's execution [startNs, endNs), from its activity record.
struct KernelSpan {
    std::uint64_t startNs = 0, endNs = 0;
    std::uint64_t lengthNs() const noexcept { return endNs > startNs ? endNs - startNs : 0; }
};

/// A kernel's share of the samples.
struct SampledKernel {
    std::vector<double> values;  ///< its share of each counter
    std::uint64_t coveredNs = 0; ///< how much of its time some sample covers
    std::size_t samples = 0;     ///< samples that overlap it
    /// Shorter than kEstimatedBelowPeriods sampling periods: the constant rate inside a sample
    /// spreads its counters over its neighbours, and theirs over it.
    bool estimated = false;
};

struct Attribution {
    std::vector<SampledKernel> kernels; ///< in the order the spans were given
    std::vector<double> between;        ///< what grew in samples where no kernel ran
    std::size_t samplesUsed = 0;        ///< samples with a duration and the right width
};

/// A kernel shorter than this many periods is marked estimated.
inline constexpr std::uint64_t kEstimatedBelowPeriods = 3;

/// No counter of the samples is the clock.
inline constexpr std::size_t kNoClock = static_cast<std::size_t>(-1);

/// Divides `samples` (in any order; each with `counters` values, others skipped) among `kernels`.
/// Every counter's total is kept: the kernels' shares and `between` add up to the samples' sum --
/// the clock's (counter `clock`) too where no two kernels overlap; where some do, each has the
/// cycles of its own time.
Attribution attributeSamples(const std::vector<CounterSample>& samples,
                             const std::vector<KernelSpan>& kernels, std::size_t counters,
                             std::uint64_t periodNs, std::size_t clock = kNoClock);

} // namespace roofline::core
