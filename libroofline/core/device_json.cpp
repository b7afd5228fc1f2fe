#include "core/device_json.hpp"

#include "core/json_number.hpp"

#include <stdexcept>
#include <string>

namespace roofline::core {

nlohmann::json deviceToJson(const DeviceInfo& d) {
    return {{"ordinal", d.ordinal},
            {"name", d.name},
            {"chip", d.chip},
            {"compute_capability",
             std::to_string(d.computeMajor) + "." + std::to_string(d.computeMinor)},
            {"sm_count", d.smCount},
            {"sm_clock_hz", d.smClockHz},
            {"memory_clock_hz", d.memoryClockHz},
            {"memory_bus_width_bits", d.memoryBusWidthBits},
            {"l2_bytes", d.l2Bytes},
            {"memory_bytes", d.memoryBytes},
            {"driver_version", d.driverVersion},
            {"occupancy",
             {{"max_threads_per_sm", d.occupancy.maxThreadsPerSm},
              {"max_blocks_per_sm", d.occupancy.maxBlocksPerSm},
              {"registers_per_sm", d.occupancy.registersPerSm},
              {"shared_bytes_per_sm", d.occupancy.sharedBytesPerSm},
              {"reserved_shared_per_block", d.occupancy.reservedSharedPerBlock}}}};
}

DeviceInfo deviceFromJson(const nlohmann::json& j) {
    DeviceInfo d;
    d.ordinal = integerAt<int>(j, "ordinal");
    d.name = j.at("name").get<std::string>();
    d.chip = j.at("chip").get<std::string>();
    const auto cc = j.at("compute_capability").get<std::string>();
    const auto dot = cc.find('.');
    if (dot == std::string::npos)
        throw std::invalid_argument("compute_capability '" + cc + "'");
    d.computeMajor = std::stoi(cc.substr(0, dot));
    d.computeMinor = std::stoi(cc.substr(dot + 1));
    d.smCount = integerAt<int>(j, "sm_count");
    d.smClockHz = j.at("sm_clock_hz").get<double>();
    d.memoryClockHz = j.at("memory_clock_hz").get<double>();
    d.memoryBusWidthBits = integerAt<int>(j, "memory_bus_width_bits");
    d.l2Bytes = integerAt<std::uint64_t>(j, "l2_bytes");
    d.memoryBytes = integerAt<std::uint64_t>(j, "memory_bytes");
    d.driverVersion = integerAt<int>(j, "driver_version");
    if (j.contains("occupancy")) { // absent in older recordings
        const auto& o = j.at("occupancy");
        d.occupancy.maxThreadsPerSm = integerOr<int>(o, "max_threads_per_sm", 0);
        d.occupancy.maxBlocksPerSm = integerOr<int>(o, "max_blocks_per_sm", 0);
        d.occupancy.registersPerSm = integerOr<int>(o, "registers_per_sm", 0);
        d.occupancy.sharedBytesPerSm = integerOr<int>(o, "shared_bytes_per_sm", 0);
        d.occupancy.reservedSharedPerBlock = integerOr<int>(o, "reserved_shared_per_block", 0);
    }
    return d;
}

} // namespace roofline::core
