#pragma once
// Scope replay: one record per scope instance -- the iteration scope and the user ranges nested
// in it, levels 1..scopeLevels -- each a CUPTI user range whose counters sum its kernels. Every
// pass of a group runs one iteration (or, for short ones, several: PassSchedule); replayed passes
// must open the same scopes and launch the same kernels (grid and block) in the same order as
// pass 0, or the group's records are marked as combining different work.
#include "replay/replay_device.hpp"

#include <memory>
#include <string>
#include <vector>

namespace roofline::collect {

class ScopeReplay final : public Strategy {
public:
    ScopeReplay(Shared& shared, std::vector<DeviceSlot*> slots);
    ~ScopeReplay() override;

    void iterationBegins() override;
    void iterationEnds() override;
    void scopePushed(Stack& stack) override;
    void scopePopping(Frame& frame) override;
    void launch(DeviceSlot& slot, const Launch& l, const Stack& stack) override;
    void graphLaunch(DeviceSlot& slot) override;
    void renewStaleProfiler(DeviceSlot& slot) override;
    bool profiling(const DeviceSlot& slot) const override;
    bool pending() const override;
    void finish() override;

private:
    struct Device final : PassSchedule::Listener {
        Device(ScopeReplay& strategy, DeviceSlot& slot) : owner(&strategy), replay(slot) {}
        void startPass() override { owner->startPass(*this); }
        void endPass() override { owner->endPass(*this); }
        void measure(std::size_t, std::size_t, bool) override {} // scopes are the ranges

        ScopeReplay* owner;
        ReplayDevice replay;
        std::vector<LaunchKey> expected;         // pass 0's launches
        std::vector<std::string> expectedScopes; // pass 0's scope ranges
        std::size_t passKernels = 0;             // launches in this pass
        std::size_t scopeCount = 0;              // scope ranges pushed this pass
        std::size_t launches = 0;                // launches of the current iteration
        bool overflowNoted = false;
    };

    Device& device(const DeviceSlot& slot) { return *devices_[slot.index]; }
    void beginGroup(Device& d);
    void startPass(Device& d);
    void endPass(Device& d);
    /// Every pass is in: the values into the records; true when the group is measured again.
    bool completeGroup(Device& d);
    void quiesce(DeviceSlot& slot) override;

    std::vector<std::unique_ptr<Device>> devices_;
    std::string iterationRangeName_; // the open iteration scope's range name
};

} // namespace roofline::collect
