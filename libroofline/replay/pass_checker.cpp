#include "replay/pass_checker.hpp"

#include "collect/notes.hpp"

#include "core/log.hpp"

namespace roofline::collect {

void applyVerdict(core::LaunchInfo& info, ReplayVerdict verdict, const std::string& note,
                  Tally& tally) {
    if (verdict == ReplayVerdict::Clean)
        return;
    appendNote(info.note, note);
    if (verdict == ReplayVerdict::Unmatched) {
        info.values.clear();
        info.chunk = -1; // not evaluated from a kept image either
        info.replay = ReplayStatus::Unmatched;
        ++tally.unmatched;
    } else {
        info.replay = ReplayStatus::Differs;
        ++tally.differing;
    }
}

void PassChecker::launch(std::size_t pass, std::size_t range, const LaunchKey& key) {
    launched(pass, key);
    if (pass > 0)
        positions_.check(pass, range, key);
    else
        positions_.expect(key);
}

void PassChecker::passEnded(std::size_t pass, std::size_t ranges) {
    if (pass > 0)
        positions_.endPass(pass, ranges);
}

const std::string& PassChecker::difference() const noexcept {
    static const std::string kNone;
    return positions_.anyUnmatched() ? positions_.firstIssue() : kNone;
}

// ---- positional ----------------------------------------------------------------------------

// Launches a later pass added beyond pass 0's count only add ranges at the end (auto ranges are
// positional), which shifts nothing; fewer ranges than launches may have shifted them.
// With the L2 flushed before each kernel, each launch's range follows its flush kernel's.
std::vector<MemberValues> PositionalPasses::complete(DeviceSlot& slot, std::size_t members) {
    int chunk = -1;
    std::vector<RangeValues> ranges = slot.evaluateImage(chunk);
    const std::size_t stride = slot.rangesPerLaunch, expected = members * stride;
    if (ranges.size() != expected)
        core::log().warn("CUPTI returned {} ranges for {} expected", ranges.size(), expected);
    const bool shifted = ranges.size() < expected;
    std::vector<MemberValues> out(members);
    for (std::size_t i = 0; i < members; ++i) {
        const std::size_t r = i * stride + stride - 1;
        if (r >= ranges.size()) {
            out[i].note = "CUPTI recorded no range for it (dropped)";
            continue;
        }
        out[i].values = std::move(ranges[r].values);
        out[i].chunk = chunk;
        out[i].range = static_cast<std::uint32_t>(r);
        if (shifted)
            out[i].note = "CUPTI recorded " + std::to_string(ranges.size()) + " ranges for " +
                          std::to_string(expected) + " expected: attribution may be shifted";
    }
    return out;
}

void PositionalPasses::done(DeviceSlot& slot) {
    slot.backend->configure(); // the same image, fresh, for the next group
}

// ---- aligned -------------------------------------------------------------------------------

void AlignedPasses::groupBegins() {
    positions_.reset();
    group_.reset();
    config_ = firstConfig();
    subPass_ = configPass_ = 0;
}

void AlignedPasses::launched(std::size_t, const LaunchKey& key) {
    group_.launch(key);
}

// Every pass of the current configuration is in: its image holds exactly those passes' launches;
// their values go to the pass-0 launches the alignment matched them to, and the next pass runs the
// next configuration.
void AlignedPasses::advance(DeviceSlot& slot, std::size_t pass, bool all, Tally& tally) {
    group_.endPass(pass, subPass_ == 0);
    ++subPass_;
    if (!all)
        return;
    tally.dropped += slot.backend->decode();
    std::vector<RangeValues> ranges = slot.backend->evaluate();
    if (const std::size_t stride = slot.rangesPerLaunch; stride > 1) { // flush kernels' out
        std::vector<RangeValues> launches;
        for (std::size_t r = stride - 1; r < ranges.size(); r += stride)
            launches.push_back(std::move(ranges[r]));
        ranges.swap(launches);
    }
    group_.addConfiguration(configPass_, ranges);
    subPass_ = 0;
    configPass_ = pass + 1;
    if (config_ + 1 < configs_) {
        slot.enabled(); // a fresh profiler: loads from here on count again
        slot.backend->selectConfiguration(++config_);
    }
}

// Counter-data images hold one configuration each, so records carry evaluated values only (no
// image reference).
std::vector<MemberValues> AlignedPasses::complete(DeviceSlot&, std::size_t members) {
    std::vector<MemberValues> out(members);
    for (std::size_t i = 0; i < members; ++i) {
        out[i].range = static_cast<std::uint32_t>(i);
        if (group_.verdict(i) != ReplayVerdict::Unmatched)
            out[i].values = group_.takeValues(i);
    }
    return out;
}

void AlignedPasses::done(DeviceSlot& slot) {
    config_ = firstConfig();
    subPass_ = configPass_ = 0;
    slot.enabled();                             // a fresh profiler: loads from here on count again
    slot.backend->selectConfiguration(config_); // the first configuration, fresh
}

std::unique_ptr<PassChecker> makePassChecker(bool aligned, const DeviceSlot& slot) {
    if (aligned && slot.configs > 1)
        return std::make_unique<AlignedPasses>(slot.configs);
    return std::make_unique<PositionalPasses>();
}

} // namespace roofline::collect
