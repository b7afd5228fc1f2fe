#include "session/strategies.hpp"
#include "replay/iteration_replay.hpp"
#include "replay/kernel_replay.hpp"
#include "replay/reuse/reuse_windows.hpp"
#include "replay/scope_replay.hpp"
#include "replay/window_replay.hpp"
#include "sampling/sampled_strategy.hpp"

namespace roofline::collect {

std::unique_ptr<Strategy> makeStrategy(Shared& shared, std::vector<DeviceSlot*> slots) {
    switch (shared.config.mode) {
    case CollectionMode::KernelReplay:
        return std::make_unique<KernelReplay>(shared, std::move(slots));
    case CollectionMode::ScopeReplay:
        return std::make_unique<ScopeReplay>(shared, std::move(slots));
    case CollectionMode::WindowReplay:
        return std::make_unique<WindowReplay>(shared, std::move(slots));
    case CollectionMode::Sample:
        return sampling::makeSampledStrategy(shared, std::move(slots));
    case CollectionMode::IterationReplay:
        break;
    }
    return std::make_unique<IterationReplay>(
        shared, std::move(slots),
        [](const CollectorConfig& config, std::uint64_t& serials, const DeviceSlot& slot) {
            return std::make_unique<ReuseWindows>(config, serials, slot);
        });
}

} // namespace roofline::collect
