#pragma once
// A device's facts as JSON, the same in every file libroofline writes (a recording's META, a
// sampled job's header). Reading throws std::out_of_range / std::invalid_argument / nlohmann's
// exceptions naming the field; callers turn them into Error(CorruptRecording) naming the file.
#include "core/device_info.hpp"

#include <nlohmann/json.hpp>

namespace roofline::core {

nlohmann::json deviceToJson(const DeviceInfo& d);
DeviceInfo deviceFromJson(const nlohmann::json& j);

} // namespace roofline::core
