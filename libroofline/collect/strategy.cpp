#include "collect/strategy.hpp"
#include "collect/mode.hpp"
#include "collect/notes.hpp"

#include "core/demangle.hpp"
#include "core/log.hpp"

#include <algorithm>
#include <set>

namespace roofline::collect {

Shared::Shared(CollectorConfig c, Level l)
    : config(std::move(c)), level(l), timingReason(config.timingReason),
      model(config.iterationRange) {}

bool Shared::filtersAdmit(const Launch& l, const Stack& stack) const {
    if (!model.insideAnyScope(stack) && !modeFacts(config.mode).measuresOutsideScopes)
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
    if (skipped_ < config.launchSkip) {
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
    return shared_.config.reenableOnCodeLoad && backend && !failed && !backend->released() &&
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

// ---- Strategy ---------------------------------------------------------------------------------

void Strategy::changeEveryBackend(DeviceSlot& except,
                                  const std::function<void(DeviceSlot&)>& change) {
    for (DeviceSlot* other : slots_) {
        if (!other->usable())
            continue;
        if (other != &except)
            quiesce(*other);
        other->guard([&] { change(*other); });
    }
}

// The records of the slot's image get their inferred tensor metrics. A launch that ran an MMA
// kind whose per-type counters were not collected leaves them unknown: every backend collects
// them from now on and the window is measured again (its records superseded). The collected set
// only grows, so this happens at most once per MMA kind.
bool Strategy::inferTensorMetrics(DeviceSlot& slot) {
    const CollectorConfig& config = shared_.config;
    if (!config.infer)
        return false;
    std::set<std::string> unknown;
    std::vector<const core::LaunchInfo*> unexplained;
    for (std::int64_t m : slot.members) {
        if (m < 0)
            continue;
        core::LaunchInfo& info = shared_.records[m];
        if (info.values.empty())
            continue;
        const auto left = config.infer(info.values);
        if (!left.empty())
            unexplained.push_back(&info);
        unknown.insert(left.begin(), left.end());
    }
    if (unknown.empty())
        return false;
    const std::vector<std::string> more =
        config.chooseTensorMetrics ? config.chooseTensorMetrics(unknown, unexplained, tensorAdded_)
                                   : std::vector<std::string>(unknown.begin(), unknown.end());
    tensorAdded_.insert(more.begin(), more.end());
    std::string list;
    for (const auto& m : more)
        list += (list.empty() ? "" : ", ") + m;
    ++shared_.tally.expansions;
    std::size_t passes = 0;
    changeEveryBackend(slot, [&](DeviceSlot& other) {
        passes = other.backend->addMetrics(more);
        other.configs = other.backend->configurations();
        other.enabled();
        metricsAdded(other);
    });
    if (!aligned())
        passes_ = passes;
    core::log().info("libroofline: a launch ran MMA work whose per-type counters were not "
                     "collected ({}): they are collected from now on ({} passes) and its replay "
                     "window is measured again",
                     list, passes_);
    return true;
}

bool Strategy::anticipateTensorMetrics(const std::vector<std::string>& kernels) {
    const CollectorConfig& config = shared_.config;
    if (!config.anticipateTensorMetrics || !tensorAdded_.empty() || aligned() || kernels.empty())
        return false;
    for (const DeviceSlot* s : slots_)
        if (s->usable() && !s->backend->released())
            return false; // a live profiler would be re-created: the expansion decides then
    std::string why;
    const std::vector<std::string> more = config.anticipateTensorMetrics(kernels, why);
    if (more.empty())
        return false;
    tensorAdded_.insert(more.begin(), more.end());
    std::size_t passes = 0;
    for (DeviceSlot* s : slots_)
        if (s->usable())
            s->guard([&] {
                passes = s->backend->addMetrics(more);
                s->configs = s->backend->configurations();
                metricsAdded(*s);
            });
    if (passes > 0)
        passes_ = passes;
    ++shared_.tally.anticipations;
    std::string list;
    for (const auto& m : more)
        list += (list.empty() ? "" : ", ") + m;
    std::string kernel = core::demangle(why);
    kernel = kernel.substr(0, std::min<std::size_t>(kernel.find('('), 160)); // no parameters
    core::log().info("libroofline: a kernel's name suggests warp MMA whose per-type counters are "
                     "not in the set ({}): they are collected from the first pass ({} passes); "
                     "the kernel: {}",
                     list, passes_, kernel);
    return true;
}

void Strategy::recordLaunchRanges(DeviceSlot& s) {
    int chunk = -1;
    std::vector<RangeValues> ranges = s.evaluateImage(chunk);
    assignRanges(shared_.records, s.members, ranges, chunk, ranges.size() != s.members.size(),
                 false, [](std::size_t, core::LaunchInfo&) {});
    if (inferTensorMetrics(s)) // no launch is measured again: its records keep what they have
        for (std::int64_t m : s.members)
            if (m >= 0)
                appendNote(shared_.records[m].note,
                           "partial: its MMA work needs tensor counters collected from now on");
    s.members.clear();
    ++shared_.tally.groupsCompleted;
    s.backend->configure(); // a fresh image for the next window
}

} // namespace roofline::collect
