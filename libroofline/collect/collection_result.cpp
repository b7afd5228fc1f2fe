#include "collect/collection_result.hpp"

namespace roofline::collect {

CollectionResult countsOf(const CollectionResult& r) {
    CollectionResult c;
    c.coverage = r.coverage;
    c.tally = r.tally;
    c.superseded = r.superseded;
    c.passes = r.passes;
    c.level = r.level;
    c.failure = r.failure;
    c.firstIterationIssue = r.firstIterationIssue;
    c.onlyObservedIterationRan = r.onlyObservedIterationRan;
    c.completedAfterIterations = r.completedAfterIterations;
    c.reuses = r.reuses;
    c.shareIndex = r.shareIndex;
    c.shareCount = r.shareCount;
    return c;
}

core::Recording recordingOf(CollectionResult&& result, RecordingContext context) {
    core::Recording r;
    r.libraryVersion = std::move(context.libraryVersion);
    r.createdUtc = std::move(context.createdUtc);
    r.mode = std::move(context.mode);
    r.device = std::move(context.device);
    r.chip = r.device.chip;
    r.metrics = std::move(context.metrics);
    // Aligned passes may have been switched on, and the metric set grown, mid-run.
    r.passes = result.level == Level::Counters ? result.passes : context.passesAtStart;
    r.droppedRanges = result.tally.dropped;
    if (result.level == Level::Counters)
        r.coverage = result.coverage;
    r.configImage = std::move(context.configImage);
    r.counterData = std::move(result.images);
    r.status = std::move(context.status);
    r.cacheFlush = std::move(context.cacheFlush);
    r.bytes = std::move(context.bytes);
    r.launches = std::move(result.launches);
    r.process = std::move(context.process);
    if (result.shareCount > 1) {
        r.shareIndex = result.shareIndex;
        r.shareCount = result.shareCount;
    }
    r.devicePeaks = std::move(context.devicePeaks);
    return r;
}

} // namespace roofline::collect
