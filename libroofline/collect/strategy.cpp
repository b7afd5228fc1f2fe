#include "collect/strategy.hpp"
#include "collect/notes.hpp"

#include "core/demangle.hpp"
#include "core/log.hpp"

#include <algorithm>
#include <set>

namespace roofline::collect {

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

bool Strategy::recordLaunchRanges(DeviceSlot& s, bool last) {
    int chunk = -1;
    std::vector<RangeValues> ranges = s.evaluateImage(chunk);
    assignRanges(shared_.records, s.members, ranges, chunk, ranges.size() != s.members.size(),
                 false, [](std::size_t, core::LaunchInfo&) {});
    if (inferTensorMetrics(s)) {
        if (!last)
            return true; // measured again by the caller, with the counters the set now has
        for (std::int64_t m : s.members) // not measured again: they keep what they have
            if (m >= 0)
                appendNote(shared_.records[m].note,
                           "partial: its MMA work needs tensor counters collected from now on");
    }
    s.members.clear();
    ++shared_.tally.groupsCompleted;
    s.backend->configure(); // a fresh image for the next window
    return false;
}

} // namespace roofline::collect
