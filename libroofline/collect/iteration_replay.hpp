#pragma once
// Iteration replay: one record per admitted launch. The iteration scope's instance i runs pass i
// of a group; a group covers the launches [offset, offset + capacity) of an iteration, so
// iterations longer than one image are covered window by window (positional replay: CUPTI's auto
// ranges, each replayed launch checked against pass 0's at its position, collect/replay_check).
// When a replayed pass ran other kernels than pass 0 it switches to aligned replay (one
// configuration per pass, each pass's launches aligned with pass 0's: collect/aligned_replay,
// docs/design/0006). With repeated-launch reuse a ReuseCycle per device chooses the windows.
#include "collect/aligned_replay.hpp"
#include "collect/group_replay.hpp"
#include "collect/replay_check.hpp"
#include "collect/reuse_cycle.hpp"
#include "collect/window_placement.hpp"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <set>
#include <vector>

namespace roofline::collect {

class IterationReplay final : public GroupReplay {
public:
    IterationReplay(Shared& shared, std::vector<DeviceSlot*> slots);

    void launch(DeviceSlot& slot, const Launch& l, const Stack& stack) override;
    bool done() const override;
    void completed() override;
    void coverage(core::Coverage& c) const override;
    bool aligned() const noexcept override { return aligned_; }
    std::size_t firstConfig() const noexcept override { return aligned_ ? 1 : 0; }

    /// The iterations it took to measure every launch of one iteration (0: not complete).
    std::uint64_t completedAt() const noexcept { return completedAt_; }
    /// Signatures device slot 0's reuse plan holds (0 once observation stopped).
    std::size_t reuseSignatures() const noexcept {
        return cycles_.empty() ? 0 : cycles_[0].signatures();
    }
    bool reuses() const noexcept { return reuse_; }

private:
    struct Passes {
        ReplayCheck replay;                 // each launch against pass 0 (positional)
        AlignedGroup aligned;               // aligned replay: docs/design/0006
        std::size_t config = 0;             // the current pass's configuration
        std::size_t subPass = 0;            // the current pass within its configuration
        std::size_t configPass = 0;         // the group pass that began the current configuration
        std::size_t retries = 0;            // the window measured again in a row (measureAgain)
        std::vector<std::int64_t> previous; // the attempt being measured again: its records
        WindowPlacement placement;          // where a window's passes start (windowInPlace)
    };
    static constexpr std::size_t kLostRetries = 3;

    bool alignedOn(const PassGroup& g) const noexcept { return aligned_ && g.slot->configs > 1; }
    void position(PassGroup& g, const Launch& l, const Stack& stack, bool inside);
    bool windowsComplete() const;
    std::uint64_t launchesCovered(std::uint64_t launches) const;
    void completeProfile(PassGroup& g);
    bool switchToAligned(PassGroup& g);
    void completeConfiguration(PassGroup& g);
    void completeAligned(PassGroup& g);
    void completeImage(PassGroup& g);
    void keepPreviousAttempt(PassGroup& g);
    bool windowInPlace(PassGroup& g);
    bool measureAgain(PassGroup& g, const std::function<ReplayVerdict(std::size_t)>& verdict,
                      const std::string& issue);
    void dropCycle(PassGroup& g);

    // GroupReplay's hooks
    void startIteration(PassGroup& g) override;
    void iterationObserved(PassGroup& g) override;
    bool holdsBack(const PassGroup& g) const override;
    bool complete(PassGroup& g) override;
    void groupBegins(PassGroup& g) override;
    bool passAtIterationStart(const PassGroup& g) const override { return g.offset == 0; }
    std::size_t perIteration(const PassGroup& g) const override { return g.k; }
    bool groupEnds(const PassGroup& g, bool all) const override;
    bool passChecked(PassGroup& g, bool groupDone) override;
    bool differs(const PassGroup& g) const override;
    const std::string& difference(const PassGroup& g) const override;
    bool advance(PassGroup& g, bool all) override;
    void completeGroup(PassGroup& g) override;
    void groupRecorded(PassGroup& g) override;
    void groupCovered(PassGroup& g) override;
    void endIteration(PassGroup& g) override;
    bool morePending(const PassGroup& g) const override;
    void finishGroup(PassGroup& g) override;
    void metricsAdded(DeviceSlot& slot) override;

    std::vector<Passes> passes_;
    bool aligned_ =
        false;           // aligned replay in use (from the start, or since a pass went out of step)
    bool reuse_ = false; // repeated-launch reuse (CollectorConfig::reuses(), with counters)
    std::vector<ReuseCycle> cycles_;       // per device, with reuse
    std::vector<std::uint32_t> signature_; // per record: its signature (reuse)
    std::uint64_t serials_ = 0;            // Frame::serial given so far
    std::size_t cycleWindows_ = 0;         // windows of the last completed reuse cycle
    std::set<std::size_t> coveredOffsets_; // window offsets of completed groups (device slot 0)
    bool coveredWhole_ = false;            // a group of passes spanning whole iterations completed
    std::uint64_t completedAt_ = 0;        // iterations seen when the profile was complete
};

} // namespace roofline::collect
