#pragma once
// The sampling sources of a device on a GPU (session/sampled_run.hpp's SampleSources): CUPTI's
// PM sampler of the device and the process's kernel activity records.
#include "cupti/pm_sampler.hpp"
#include "session/sampled_run.hpp"

#include <chrono>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace roofline::collect {

/// How often the reading thread takes the decoded samples and the kernels' records, turns the
/// steps that ended into values and writes what is due.
inline constexpr std::chrono::milliseconds kReadEvery{250};
/// How often the drain's thread decodes the device's buffer (session/sample_drain.hpp).
inline constexpr std::chrono::milliseconds kDecodeEvery{50};
/// kDecodeEvery, or ROOFLINE_SAMPLE_DECODE_MS where set (10 to 600000; for diagnosis: how the
/// decode's frequency weighs on the program and on what is lost).
std::chrono::milliseconds decodeEvery() noexcept;

/// The sampler for `periodNs`: the device's buffer of raw samples holds several reads' worth (a
/// sample's raw record is tens of kB: 64 MiB overflowed at a 100 us period), and the
/// counter-data image one read's samples twice over.
cupti::PmSamplerSettings samplerSettings(std::uint64_t periodNs);

/// PM sampling of `metrics` on device `ordinal` (chip `chip`) every `periodNs` of GPU time,
/// configured now (throws roofline::Error naming what CUPTI refused); the activity records of
/// kernels begin at start().
std::unique_ptr<SampleSources> pmSampleSources(int ordinal, const std::string& chip,
                                               const std::vector<std::string>& metrics,
                                               std::uint64_t periodNs);
/// The kernels' activity records alone (from start()): steps with times and no counters.
std::unique_ptr<SampleSources> activitySources();

} // namespace roofline::collect
