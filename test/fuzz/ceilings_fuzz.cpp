// Fuzz target: the ceilings reader (core::ceilingsFromJson) and the ceilings table.
#include "core/ceilings_file.hpp"
#include "report/ceilings_table.hpp"

#include <roofline/error.hpp>

#include <cstddef>
#include <cstdint>
#include <sstream>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace roofline;
    try {
        core::MeasuredCeilings m = core::ceilingsFromJson(
            std::string(reinterpret_cast<const char*>(data), size), "fuzz input");
        core::DeviceInfo device;
        device.name = m.deviceName;
        device.chip = "GH100";
        device.computeMajor = 9;
        device.smCount = 132;
        device.smClockHz = 1.98e9;
        const core::CeilingsChoice choice = core::choiceWith(device, std::move(m), "fuzz input");
        std::ostringstream out;
        report::printCeilings(choice, out, true);
    } catch (const Error&) {
    }
    return 0;
}
