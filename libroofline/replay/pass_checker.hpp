#pragma once
// How an iteration-replay group's passes run and are checked (docs/design/0006, 0018), behind
// one interface with two implementations:
//   PositionalPasses  every pass on configuration 0, CUPTI combining them by position; each
//                     replayed launch checked against pass 0's at its position (ReplayCheck);
//   AlignedPasses     one configuration per pass, each with its own image, each pass's launches
//                     aligned with pass 0's (AlignedGroup); a launch inserted or left out costs
//                     only itself.
// Both keep the positional check (a pass that ran other kernels than pass 0 somewhere: the first
// iteration was not steady, or positional replay switches to aligned). The iteration replay
// strategy feeds the launches and passes and takes each member's values when the group completes.
// Pure logic over the device's CounterBackend; tested with tables of events in
// test/unit/pass_checker_test.cpp.
#include "replay/aligned_replay.hpp"
#include "replay/replay_check.hpp"
#include "collect/strategy.hpp"

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

namespace roofline::collect {

/// A member's values from a completed group.
struct MemberValues {
    std::vector<double> values; ///< empty: none (no range, or every pass's metrics missing)
    int chunk = -1;             ///< the kept image holding its range; -1: none
    std::uint32_t range = 0;    ///< its range in that image
    std::string note;           ///< what CUPTI did with its range (dropped, shifted)
};

/// One verdict rule for positional and aligned replay (VerdictTally's): a launch whose passes ran
/// other kernels loses its values, one whose grid or block differed keeps them; both say why.
void applyVerdict(core::LaunchInfo& info, ReplayVerdict verdict, const std::string& note,
                  Tally& tally);

class PassChecker {
public:
    virtual ~PassChecker() = default;
    virtual bool aligned() const noexcept = 0;
    /// The configuration a fresh profiler starts at.
    virtual std::size_t firstConfig() const noexcept = 0;
    /// A new group (the device's backend at the first configuration).
    virtual void groupBegins() = 0;
    /// Range `range` of pass `pass` ran `key`; pass 0's launches are the group's reference.
    void launch(std::size_t pass, std::size_t range, const LaunchKey& key);
    /// The pass stopped and CUPTI said whether its configuration has every pass in (`all`):
    /// whether the group has every pass in.
    virtual bool groupEnds(bool all) const { return all; }
    /// Pass `pass` ended after `ranges` ranges.
    void passEnded(std::size_t pass, std::size_t ranges);
    /// Positional view: some replayed pass ran other kernels than pass 0 at some position.
    bool outOfStep() const noexcept { return positions_.anyUnmatched(); }
    /// What differed first (empty when nothing did).
    const std::string& difference() const noexcept;
    /// The group moves past pass `pass` (`all` as stop() said).
    virtual void advance(DeviceSlot& slot, std::size_t pass, bool all, Tally& tally) {
        (void)slot, (void)pass, (void)all, (void)tally;
    }
    /// Every pass is in: each of the group's `members` values.
    virtual std::vector<MemberValues> complete(DeviceSlot& slot, std::size_t members) = 0;
    /// After complete(): the backend fresh for the next group.
    virtual void done(DeviceSlot& slot) = 0;
    /// Member `i`'s verdict over the passes, and the note that goes with it.
    virtual ReplayVerdict verdict(std::size_t i) const noexcept = 0;
    virtual const std::string& note(std::size_t i) const noexcept = 0;
    virtual bool anyIssue() const noexcept = 0;
    virtual const std::string& firstIssue() const noexcept = 0;
    /// The device's configurations changed (the metric set grew).
    virtual void configurationsChanged(std::size_t n) noexcept { (void)n; }

protected:
    virtual void launched(std::size_t pass, const LaunchKey& key) { (void)pass, (void)key; }
    ReplayCheck positions_;
};

class PositionalPasses final : public PassChecker {
public:
    bool aligned() const noexcept override { return false; }
    std::size_t firstConfig() const noexcept override { return 0; }
    void groupBegins() override { positions_.reset(); }
    std::vector<MemberValues> complete(DeviceSlot& slot, std::size_t members) override;
    void done(DeviceSlot& slot) override;
    ReplayVerdict verdict(std::size_t i) const noexcept override { return positions_.verdict(i); }
    const std::string& note(std::size_t i) const noexcept override { return positions_.note(i); }
    bool anyIssue() const noexcept override { return positions_.anyIssue(); }
    const std::string& firstIssue() const noexcept override { return positions_.firstIssue(); }
};

class AlignedPasses final : public PassChecker {
public:
    /// `configurations`: the device's (1..n single-pass ones after configuration 0).
    explicit AlignedPasses(std::size_t configurations) : configs_(configurations) {}
    bool aligned() const noexcept override { return true; }
    std::size_t firstConfig() const noexcept override { return 1; }
    void groupBegins() override;
    bool groupEnds(bool all) const override { return all && config_ + 1 >= configs_; }
    void advance(DeviceSlot& slot, std::size_t pass, bool all, Tally& tally) override;
    std::vector<MemberValues> complete(DeviceSlot& slot, std::size_t members) override;
    void done(DeviceSlot& slot) override;
    ReplayVerdict verdict(std::size_t i) const noexcept override { return group_.verdict(i); }
    const std::string& note(std::size_t i) const noexcept override { return group_.note(i); }
    bool anyIssue() const noexcept override { return group_.anyIssue(); }
    const std::string& firstIssue() const noexcept override { return group_.firstIssue(); }
    void configurationsChanged(std::size_t n) noexcept override { configs_ = n; }

private:
    void launched(std::size_t pass, const LaunchKey& key) override;

    AlignedGroup group_;
    std::size_t configs_;
    std::size_t config_ = 1;     // the current pass's configuration
    std::size_t subPass_ = 0;    // the current pass within its configuration
    std::size_t configPass_ = 0; // the group pass that began the current configuration
};

/// The checker for `slot`: aligned when `aligned` and the device has aligned configurations.
std::unique_ptr<PassChecker> makePassChecker(bool aligned, const DeviceSlot& slot);

} // namespace roofline::collect
