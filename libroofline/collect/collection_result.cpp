#include "collect/collection_result.hpp"

namespace roofline::collect {

core::Recording recordingOf(CollectionResult&& result, RecordingContext context) {
    const CollectionCounts& counts = result.counts;
    core::Recording r;
    r.libraryVersion = std::move(context.libraryVersion);
    r.createdUtc = std::move(context.createdUtc);
    r.mode = std::move(context.mode);
    r.device = std::move(context.device);
    r.chip = r.device.chip;
    r.metrics = std::move(context.metrics);
    // Aligned passes may have been switched on, and the metric set grown, mid-run.
    r.passes = counts.level == Level::Counters ? counts.passes : context.passesAtStart;
    r.droppedRanges = counts.tally.dropped;
    if (counts.level == Level::Counters)
        r.coverage = counts.coverage;
    r.configImage = std::move(context.configImage);
    r.counterData = std::move(result.images);
    r.status = std::move(context.status);
    r.cacheFlush = std::move(context.cacheFlush);
    r.bytes = std::move(context.bytes);
    r.launches = std::move(result.launches);
    r.process = std::move(context.process);
    if (counts.shareCount > 1) {
        r.shareIndex = counts.shareIndex;
        r.shareCount = counts.shareCount;
    }
    r.devicePeaks = std::move(context.devicePeaks);
    return r;
}

} // namespace roofline::collect
