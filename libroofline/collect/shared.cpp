#include "collect/shared.hpp"
#include "collect/mode.hpp"
#include "collect/notes.hpp"

#include "core/demangle.hpp"
#include "core/log.hpp"

#include <algorithm>
#include <set>

namespace roofline::collect {

Shared::Shared(CollectorConfig c, Level l)
    : config(std::move(c)), level(l), timingReason(config.timingReason),
      model(config.options.iterationRange) {}

bool Shared::filtersAdmit(const Launch& l, const Stack& stack, bool outsideToo) const {
    if (!outsideToo && !model.insideAnyScope(stack) &&
        !modeFacts(config.mode).measuresOutsideScopes && !config.windowsOutsideSteps)
        return false; // outside every scope: not profiled
    if (config.filter.hasNvtxFilter() &&
        !config.filter.nvtxAdmits(model.views(stack), model.startEndViews()))
        return false;
    if (config.filter.hasNameFilter() &&
        !config.filter.nameAdmits(core::demangle(l.mangledName), l.mangledName))
        return false;
    return true;
}

bool Shared::admits(const Launch& l, const Stack& stack) {
    return filtersAdmit(l, stack) && admitsCounted();
}

bool Shared::admitsCounted() {
    if (skipped_ < config.options.launchSkip) {
        ++skipped_;
        return false;
    }
    if (limitReached())
        return false;
    ++taken_;
    return true;
}

core::LaunchInfo Shared::launchInfo(const Launch& l, const Stack& stack) const {
    core::LaunchInfo info;
    info.mangledName = l.mangledName;
    model.setScope(info, stack);
    info.grid = l.grid;
    info.block = l.block;
    info.registersPerThread = l.registers;
    info.sharedMemBytes = l.sharedMemBytes();
    info.stream = l.stream;
    info.threadId = l.threadId;
    info.correlationId = l.correlationId;
    info.device = l.device;
    if (config.describe)
        config.describe(info, l.graphNode);
    return info;
}

std::int64_t Shared::addLaunch(const Launch& l, const Stack& stack) {
    core::LaunchInfo info = launchInfo(l, stack);
    info.name = core::demangle(info.mangledName);
    if (level == Level::TimingOnly)
        appendNote(info.note, timingReason);
    return records.add(std::move(info));
}

std::int64_t Shared::addGraphKernel(const Launch& l, const Stack& stack) {
    const std::int64_t m = addLaunch(l, stack);
    appendNote(records[m].note,
               level == Level::Counters && !graphKernelsTimed
                   ? "a kernel node of a CUDA graph launch: no counters (CUPTI's range profiler "
                     "does not measure graph kernels) and no duration (activity records would "
                     "zero this replay's instruction counters; kernel replay times graph kernels)"
                   : "a kernel node of a CUDA graph launch: no counters (CUPTI's range profiler "
                     "does not measure graph kernels); its duration comes from CUDA activity "
                     "records");
    return m;
}

bool Shared::graphsStopped() const noexcept {
    return tally.graphInterruptions >= kGraphInterruptionLimit;
}

void Shared::timingNeeded() noexcept {
    try {
        if (onTimingNeeded)
            onTimingNeeded();
    } catch (...) {
    }
}

void Shared::counterFailure(const std::string& why) noexcept {
    try {
        if (level.load() != Level::Counters)
            return;
        level.store(Level::TimingOnly);
        failure = why;
        timingReason = "timing only: counter collection failed mid-run (" + why + ")";
        core::log().error("libroofline: counter collection failed mid-run: {}. The application "
                          "continues; later kernels get timing-only records.",
                          why);
        if (onFailure)
            onFailure(why);
    } catch (...) {
    }
}

// ---- DeviceSlot -------------------------------------------------------------------------------

DeviceSlot::DeviceSlot(std::size_t i, CounterBackend* b, Shared& shared)
    : index(i), backend(b), shared_(shared) {
    rangesPerImage = b ? b->capacity() : 0;
    configs = b ? std::max<std::size_t>(1, b->configurations()) : 1;
    rangesPerLaunch = b ? shared.config.rangesPerLaunch() : 1;
    failed = b == nullptr;
}

void DeviceSlot::fail(const std::string& why) noexcept {
    failed = true;
    try {
        shared_.records.noteUnmeasured(members, "profiling failed mid-run (" + why +
                                                    "): timing only from here");
        members.clear();
    } catch (...) {
    }
    shared_.counterFailure(why);
}

bool DeviceSlot::stale() const noexcept {
    return shared_.config.options.reenableOnCodeLoad && backend && !failed && !backend->released() &&
           loads_.load() != loadsAtEnable;
}

// CUPTI (2025.3, driver 580) crashes, intermittently, collecting SASS metrics on a range profiler
// that saw code loaded into its context: JIT-compiled PTX, and on the H100 also a lazily loaded
// kernel whose module had been compiled or taken from the JIT cache earlier. A profiler enabled
// after the load is safe (docs/design/0005-code-loaded-while-profiling.md).
bool DeviceSlot::reenableIfStale(std::size_t configuration) {
    if (!stale())
        return false;
    enabled(); // loads from here on (during reenable too) count again
    guard([&] { backend->reenable(configuration); });
    if (failed)
        return true;
    if (shared_.tally.reenables++ == 0)
        core::log().info("libroofline: code was loaded while counters were collected (a kernel's "
                         "first use); the profiler is re-created before it measures again, and a "
                         "replay group in progress restarts on a later iteration");
    return true;
}

void DeviceSlot::recreate(std::size_t configuration) {
    enabled();
    backend->reenable(configuration);
}

void DeviceSlot::acquireIfReleased() {
    if (!failed && backend->released()) { // a fresh profiler: loads from here on count
        guard([&] { backend->acquire(); });
        enabled();
    }
}

std::vector<RangeValues> DeviceSlot::evaluateImage(int& chunk) {
    shared_.tally.dropped += backend->decode();
    std::vector<RangeValues> ranges = backend->evaluate();
    chunk = -1;
    const std::size_t limit = shared_.config.keepImageBytes;
    if (shared_.records.keptBytes() + backend->imageSize() <= limit)
        chunk = shared_.records.keepImage(backend->imageBytes(), limit);
    return ranges;
}

void assignRanges(RecordStore& records, const std::vector<std::int64_t>& members,
                  std::vector<RangeValues>& ranges, int chunk, bool shifted, bool mismatch,
                  const std::function<void(std::size_t, core::LaunchInfo&)>& more) {
    if (ranges.size() != members.size())
        core::log().warn("CUPTI returned {} ranges for {} expected{}", ranges.size(),
                         members.size(), mismatch ? " (replay mismatch)" : "");
    for (std::size_t i = 0; i < members.size(); ++i) {
        if (members[i] < 0)
            continue; // a range of a launch the filters left out
        core::LaunchInfo& info = records[members[i]];
        if (i < ranges.size()) {
            info.values = std::move(ranges[i].values);
            info.chunk = chunk;
            info.range = static_cast<std::uint32_t>(i);
            if (shifted)
                appendNote(info.note, "CUPTI recorded " + std::to_string(ranges.size()) +
                                          " ranges for " + std::to_string(members.size()) +
                                          " expected: attribution may be shifted");
        } else {
            appendNote(info.note, "CUPTI recorded no range for it (dropped)");
        }
        more(i, info);
    }
}

} // namespace roofline::collect
