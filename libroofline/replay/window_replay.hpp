#pragma once
// Window replay (docs/design/0026-launches-no-step-covers.md): every admitted launch measured in
// recorded windows (replay/windows), no repeated step needed, one range each. The windows close
// before every driver call that changes memory and every CUDA graph launch.
#include "collect/strategy.hpp"
#include "replay/windows.hpp"

namespace roofline::collect {

class WindowReplay final : public Strategy {
public:
    WindowReplay(Shared& shared, std::vector<DeviceSlot*> slots);

    void launch(DeviceSlot& slot, const Launch& l, const Stack& stack) override;
    void graphLaunch(DeviceSlot& slot) override;
    void memoryOperation(DeviceSlot& slot) override { windows_.close(slot); }
    void renewStaleProfiler(DeviceSlot& slot) override { windows_.renewStaleProfiler(slot); }
    bool profiling(const DeviceSlot& slot) const override {
        return !slot.failed && windows_.isOpen(slot);
    }
    void finish() override { windows_.finish(slots_); }

private:
    Windows windows_;
};

} // namespace roofline::collect
