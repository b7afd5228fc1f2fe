#pragma once
// What a collector hands over when it stops (Collector::finish): the records and kept images,
// what the replay covered and every count the summary reports -- one value, so that the session
// turns it into the recording (recordingOf, pure) and the summary without asking the collector
// again. Pure: no CUDA.
#include "collect/collector_config.hpp"
#include "collect/strategy.hpp"
#include "core/recording.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace roofline::collect {

/// What the collection covered and counted: what a summary of it reads.
struct CollectionCounts {
    core::Coverage coverage; ///< known with counters (iteration replay)
    Tally tally;
    std::uint64_t superseded = 0; ///< records of groups measured again, removed
    std::size_t passes = 0;       ///< replay passes per group at the end
    Level level = Level::Counters;
    std::string failure;             ///< counters failed mid-run: why
    std::string firstIterationIssue; ///< the first iteration was not measured: why
    /// Launches outside every step that got no record (Tally::outsideIterations): why, where
    /// such launches were measured in windows until something stopped them.
    std::string outsideWhy;
    /// Of those launches, the ones whose kernel and launch shape a step's measured record has
    /// (OutsideShapes::alikeStep).
    std::uint64_t outsideAlikeStep = 0;
    bool onlyObservedIterationRan = false;
    std::uint64_t completedAfterIterations = 0; ///< 0: not complete
    bool reuses = false;
    std::uint32_t shareIndex = 0, shareCount = 1; ///< ranks sharing the profile (shareCount > 1)
};

struct CollectionResult {
    std::vector<core::LaunchInfo> launches; ///< in program order (iteration replay)
    std::vector<std::vector<std::uint8_t>> images;
    CollectionCounts counts;
};

/// What the recording says beside the collector's result: the library, the run, the device and
/// the counter configuration.
struct RecordingContext {
    std::string libraryVersion, createdUtc, mode, status, cacheFlush, bytes;
    core::DeviceInfo device;
    std::vector<std::string> metrics;
    std::vector<std::uint8_t> configImage;
    core::ProcessIdentity process;
    std::vector<std::pair<std::string, double>> devicePeaks;
    std::size_t passesAtStart = 0; ///< without counters, the passes the set-up planned
};

/// The recording of a collection (pure; the launches and images move into it).
core::Recording recordingOf(CollectionResult&& result, RecordingContext context);

} // namespace roofline::collect
