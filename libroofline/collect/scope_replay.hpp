#pragma once
// Scope replay: one record per scope instance -- the iteration scope and the user ranges nested
// in it, levels 1..scopeLevels -- each a CUPTI user range whose counters sum its kernels. Every
// pass of a group runs one iteration; replayed passes must open the same scopes and launch the
// same kernels (grid and block) in the same order as pass 0, or the group's records are marked
// as combining different work.
#include "collect/group_replay.hpp"

#include <string>
#include <vector>

namespace roofline::collect {

class ScopeReplay final : public GroupReplay {
public:
    ScopeReplay(Shared& shared, std::vector<DeviceSlot*> slots);

    void scopePushed(Stack& stack) override;
    void scopePopping(Frame& frame) override;
    void launch(DeviceSlot& slot, const Launch& l, const Stack& stack) override;

private:
    struct Scopes {
        std::vector<LaunchKey> expected;         // pass 0's launches
        std::vector<std::string> expectedScopes; // pass 0's scope ranges
        std::size_t passKernels = 0;             // launches in this pass
        bool overflowNoted = false;
    };

    void groupBegins(PassGroup& g) override;
    std::size_t perIteration(const PassGroup& g) const override { return g.scopeCount; }
    bool passChecked(PassGroup& g, bool groupDone) override;
    bool differs(const PassGroup& g) const override { return g.mismatch; }
    const std::string& difference(const PassGroup& g) const override { return g.mismatchNote; }
    void passStarts(PassGroup& g) override { scopes_[g.slot->index].passKernels = 0; }
    bool advance(PassGroup& g, bool all) override;
    void completeGroup(PassGroup& g) override;

    std::vector<Scopes> scopes_;
    std::string iterationRangeName_; // the open iteration scope's range name
};

} // namespace roofline::collect
