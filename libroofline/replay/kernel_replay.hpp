#pragma once
// Kernel replay: one range per admitted launch. The backend is started before an admitted launch
// and stopped before a refused one (or a graph launch); a full image is decoded, evaluated and
// used again from inside the launch callback. Iterations play no part.
#include "collect/strategy.hpp"

namespace roofline::collect {

class KernelReplay final : public Strategy {
public:
    using Strategy::Strategy;

    void launch(DeviceSlot& slot, const Launch& l, const Stack& stack) override;
    void graphLaunch(DeviceSlot& slot) override;
    void renewStaleProfiler(DeviceSlot& slot) override;
    bool profiling(const DeviceSlot& slot) const override;
    void finish() override;

private:
    void pause(DeviceSlot& slot);
    void closeWindow(DeviceSlot& slot);

    std::vector<bool> running_; // per slot: the backend is started
};

} // namespace roofline::collect
