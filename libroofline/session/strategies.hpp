#pragma once
// The collection strategy of each mode, made for a collector (Collector's MakeStrategy): kernel,
// scope, iteration and window replay, iteration replay's reuse chooser with it. The one place
// that knows them all, above the collector that runs them.
#include "collect/collector.hpp"

#include <memory>
#include <vector>

namespace roofline::collect {

/// The strategy of `shared.config.mode`.
std::unique_ptr<Strategy> makeStrategy(Shared& shared, std::vector<DeviceSlot*> slots);

} // namespace roofline::collect
