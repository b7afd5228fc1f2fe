#include "core/bundled_ceilings.hpp"

namespace roofline::core {

std::optional<MeasuredCeilings> bundledCeilings(const std::string& deviceName, std::string& path) {
    if (deviceName.empty())
        return std::nullopt;
    for (const BundledCeilingsFile& f : bundledCeilingsFiles()) {
        const std::string what = std::string("bundled: ") + f.name;
        MeasuredCeilings m = ceilingsFromJson(f.json, what); // a damaged file fails every test
        if (m.deviceName == deviceName) {
            path = what;
            return m;
        }
    }
    return std::nullopt;
}

} // namespace roofline::core
