#include "core/ceilings_file.hpp"
#include "core/bundled_ceilings.hpp"
#include "core/device_peaks.hpp"

#include "core/json_number.hpp"

#include "core/atomic_file.hpp"
#include "core/roofline_model.hpp"

#include <roofline/error.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace roofline::core {

const RoofMeasurement* MeasuredCeilings::find(std::string_view roof) const noexcept {
    for (const auto& r : roofs)
        if (r.roof == roof)
            return &r;
    return nullptr;
}

const char* roofUnit(std::string_view roof) noexcept {
    if (roof == "L1" || roof == "L2" || roof == "DRAM" || roof == "shared")
        return "TB/s";
    if (roof == kWarpIssueRoof)
        return "Tinst/s";
    return roof == "tensor_int8" ? "TOP/s" : "TFLOP/s";
}

std::string toJson(const MeasuredCeilings& c) {
    nlohmann::json j = {{"format", "libroofline-ceilings"},
                        {"version", c.version},
                        {"device",
                         {{"name", c.deviceName},
                          {"compute_capability",
                           std::to_string(c.computeMajor) + "." + std::to_string(c.computeMinor)},
                          {"sm_count", c.smCount},
                          {"max_sm_clock_hz", c.maxSmClockHz},
                          {"memory_clock_hz", c.memoryClockHz},
                          {"driver_version", c.driverVersion}}},
                        {"created_utc", c.createdUtc},
                        {"library_version", c.libraryVersion},
                        {"quick", c.quick},
                        {"seconds", c.seconds},
                        {"roofs", nlohmann::json::array()}};
    for (const auto& r : c.roofs)
        j["roofs"].push_back({{"roof", r.roof},
                              {"per_second", r.perSecond},
                              {"kernel", r.kernel},
                              {"shape", r.shape},
                              {"sm_clock_hz", r.smClockHz},
                              {"trials", r.trials},
                              {"note", r.note}});
    return j.dump(2) + "\n";
}

MeasuredCeilings ceilingsFromJson(const std::string& text, const std::string& what) {
    const auto bad = [&](const std::string& why) {
        return Error(ErrorCode::CorruptRecording,
                     "ceilings file '" + what + "' " + why +
                         ": measure again with `roofline ceilings`, or delete the file");
    };
    const nlohmann::json j =
        parseDocument(text, "libroofline-ceilings", "libroofline ceilings file", bad);
    MeasuredCeilings c;
    try {
        c.version = integerAt<int>(j, "version");
        if (c.version > kCeilingsFormatVersion)
            throw Error(ErrorCode::UnsupportedVersion,
                        "ceilings file '" + what + "' has format version " +
                            std::to_string(c.version) + "; this libroofline reads up to " +
                            std::to_string(kCeilingsFormatVersion) +
                            ": update libroofline or measure again with `roofline ceilings`");
        const auto& d = j.at("device");
        c.deviceName = d.at("name").get<std::string>();
        const std::string cc = d.value("compute_capability", "0.0");
        c.computeMajor = std::atoi(cc.c_str());
        const auto dot = cc.find('.');
        c.computeMinor = dot == std::string::npos ? 0 : std::atoi(cc.c_str() + dot + 1);
        c.smCount = integerOr<int>(d, "sm_count", 0);
        c.maxSmClockHz = d.value("max_sm_clock_hz", 0.0);
        c.memoryClockHz = d.value("memory_clock_hz", 0.0);
        c.driverVersion = integerOr<int>(d, "driver_version", 0);
        c.createdUtc = j.value("created_utc", "");
        c.libraryVersion = j.value("library_version", "");
        c.quick = j.value("quick", false);
        c.seconds = j.value("seconds", 0.0);
        for (const auto& r : j.at("roofs")) {
            RoofMeasurement m;
            m.roof = r.at("roof").get<std::string>();
            m.perSecond = r.at("per_second").get<double>();
            m.kernel = r.value("kernel", "");
            m.shape = r.value("shape", "");
            m.smClockHz = r.value("sm_clock_hz", 0.0);
            m.trials = integerOr<int>(r, "trials", 0);
            m.note = r.value("note", "");
            if (!(m.perSecond >= 0.0) || m.perSecond > 1e18)
                throw bad("has an impossible value for roof '" + m.roof + "'");
            c.roofs.push_back(std::move(m));
        }
    } catch (const nlohmann::json::exception& e) {
        throw bad(std::string("lacks a field (") + e.what() + ")");
    } catch (const std::out_of_range& e) {
        throw bad(std::string("has an impossible field (") + e.what() + ")");
    }
    return c;
}

void saveCeilings(const MeasuredCeilings& c, const std::string& path) {
    writeFileAtomically(path, [&](std::ostream& out) { out << toJson(c); });
}

MeasuredCeilings loadCeilings(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw Error(ErrorCode::Io, "cannot open ceilings file '" + path + "'");
    std::ostringstream text;
    text << in.rdbuf();
    return ceilingsFromJson(text.str(), path);
}

std::string ceilingsCacheDir() {
    if (const char* d = std::getenv("ROOFLINE_CEILINGS_DIR"); d && *d)
        return d;
    if (const char* d = std::getenv("XDG_CACHE_HOME"); d && *d)
        return std::string(d) + "/roofline";
    if (const char* d = std::getenv("HOME"); d && *d)
        return std::string(d) + "/.cache/roofline";
    return {};
}

std::string ceilingsCachePath(const std::string& deviceName) {
    const std::string dir = ceilingsCacheDir();
    if (dir.empty())
        return {};
    std::string slug;
    for (char ch : deviceName)
        slug += std::isalnum(static_cast<unsigned char>(ch)) ? ch : '_';
    return dir + "/ceilings-" + (slug.empty() ? "unknown" : slug) + ".json";
}

Ceilings measuredCeilings(const MeasuredCeilings& measured, const std::string& path) {
    Ceilings c;
    const std::vector<RoofRef> roofs = allRoofs();
    for (const auto& r : measured.roofs) // ("shared" has no roof in Ceilings)
        for (RoofRef roof : roofs)
            if (r.perSecond > 0.0 && r.roof == roofName(roof))
                setRoof(c, roof, r.perSecond, RoofSource::Measured);
    if (const RoofMeasurement* issue = measured.find(kWarpIssueRoof);
        issue && issue->perSecond > 0) {
        c.warpInstructionsPerSecond = issue->perSecond;
        c.warpIssueSource = RoofSource::Measured;
    }
    c.name = measured.deviceName + " (measured " + measured.createdUtc.substr(0, 10) + ")";
    c.source = "measured by `roofline ceilings`" + std::string(measured.quick ? " --quick" : "") +
               " (" + path + ")";
    return c;
}

Ceilings mergeCeilings(const Ceilings& datasheet, const MeasuredCeilings& measured,
                       const std::string& path) {
    return combineCeilings(measuredCeilings(measured, path), Ceilings{}, datasheet);
}

CeilingsChoice choiceWith(const DeviceInfo& device, MeasuredCeilings measured,
                          const std::string& path, const Ceilings& devicePeaks) {
    CeilingsChoice choice;
    choice.datasheet = datasheetCeilings(device);
    choice.device = devicePeaks;
    choice.used = combineCeilings(measuredCeilings(measured, path), devicePeaks, choice.datasheet);
    choice.measured = std::move(measured);
    choice.path = path;
    return choice;
}

CeilingsChoice datasheetChoice(const DeviceInfo& device) {
    CeilingsChoice choice;
    choice.datasheet = choice.used = datasheetCeilings(device);
    choice.datasheetOnly = true;
    return choice;
}

CeilingsChoice deviceChoice(const DeviceInfo& device, const Ceilings& devicePeaks) {
    CeilingsChoice choice;
    choice.datasheet = datasheetCeilings(device);
    choice.device = devicePeaks;
    choice.used = combineCeilings(Ceilings{}, devicePeaks, choice.datasheet);
    return choice;
}

CeilingsChoice chooseCeilings(const DeviceInfo& device, const Ceilings& devicePeaks) {
    const char* explicitFile = std::getenv("ROOFLINE_CEILINGS");
    if (explicitFile && std::string_view(explicitFile) == kDatasheetCeilings)
        return datasheetChoice(device);
    CeilingsChoice choice = deviceChoice(device, devicePeaks);
    if (explicitFile && std::string_view(explicitFile) == kDeviceCeilings)
        return choice;
    choice.path = explicitFile && *explicitFile ? explicitFile : ceilingsCachePath(device.name);
    if (!explicitFile || !*explicitFile) {
        std::ifstream probe(choice.path);
        if (choice.path.empty() || !probe) { // not measured on this machine
            std::string bundledPath;
            if (auto bundled = bundledCeilings(device.name, bundledPath))
                return choiceWith(device, std::move(*bundled), bundledPath, devicePeaks);
            return choice; // nothing measured for this GPU model: device peaks, then datasheet
        }
    }
    try {
        MeasuredCeilings m = loadCeilings(choice.path);
        if (!device.name.empty() && m.deviceName != device.name) {
            choice.warning = "ceilings file '" + choice.path + "' was measured on '" +
                             m.deviceName + "', not on '" + device.name +
                             "': not used (device peaks and datasheet roofs instead)";
            return choice;
        }
        return choiceWith(device, std::move(m), choice.path, devicePeaks);
    } catch (const Error& e) {
        choice.warning = std::string(e.what()) + " (device peaks and datasheet roofs used instead)";
    }
    return choice;
}

bool wantsDevicePeaks(const CeilingsChoice& choice) {
    if (choice.datasheetOnly)
        return false;
    const auto roofs = allRoofs();
    return std::any_of(roofs.begin(), roofs.end(), [&](RoofRef roof) {
        return sourceOf(choice.used, roof) != RoofSource::Measured;
    });
}

} // namespace roofline::core
