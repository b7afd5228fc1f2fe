#pragma once
// Measured ceilings (written by `roofline ceilings`), their cache file per device, and the choice
// between measured and datasheet roofs. Format: docs/ceilings.md.
#include "core/device_info.hpp"

#include <roofline/kernel_record.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace roofline::core {

inline constexpr int kCeilingsFormatVersion = 1;
/// The instruction roofline's ceiling in a ceilings file: warp instructions per second.
inline constexpr std::string_view kWarpIssueRoof = "warp_issue";

/// The best rate one roof reached over the sweep, and how.
struct RoofMeasurement {
    /// toString(FlopKind) or toString(MemoryLevel), "shared", or kWarpIssueRoof
    std::string roof;
    /// FLOP/s (tensor_int8: op/s), bytes/s or warp instructions/s; 0: not measured
    double perSecond = 0;
    std::string kernel;   ///< microbenchmark that reached it, e.g. "wgmma m64n256k16 bf16"
    std::string shape;    ///< its launch shape and work per thread
    double smClockHz = 0; ///< SM clock during that run (0: not probed)
    int trials = 0;       ///< configurations tried
    std::string note;     ///< why it was not measured, or a caveat
};

struct MeasuredCeilings {
    int version = kCeilingsFormatVersion;
    std::string deviceName; ///< cudaDeviceProp::name, e.g. "NVIDIA H100 80GB HBM3"
    int computeMajor = 0, computeMinor = 0;
    int smCount = 0;
    double maxSmClockHz = 0;  ///< the device's peak SM clock
    double memoryClockHz = 0; ///< peak memory clock
    int driverVersion = 0;    ///< e.g. 13000 (CUDA driver API version)
    std::string createdUtc;   ///< ISO 8601
    std::string libraryVersion;
    bool quick = false; ///< the short sweep (fewer shapes): lower bounds of the full one
    double seconds = 0; ///< how long the sweep took
    std::vector<RoofMeasurement> roofs;

    const RoofMeasurement* find(std::string_view roof) const noexcept;
};

/// The unit of a roof's value divided by 1e12: "TB/s" (L1, L2, DRAM, shared), "TOP/s"
/// (tensor_int8), "Tinst/s" (warp issue) or "TFLOP/s".
const char* roofUnit(std::string_view roof) noexcept;

std::string toJson(const MeasuredCeilings& ceilings);
/// Throws Error(CorruptRecording) naming `what` for malformed text, Error(UnsupportedVersion)
/// for a newer format.
MeasuredCeilings ceilingsFromJson(const std::string& text, const std::string& what);
/// Atomic write; throws Error(Io).
void saveCeilings(const MeasuredCeilings& ceilings, const std::string& path);
MeasuredCeilings loadCeilings(const std::string& path);

/// The cache folder: $ROOFLINE_CEILINGS_DIR, else $XDG_CACHE_HOME/roofline, else
/// $HOME/.cache/roofline; empty when none of them is set.
std::string ceilingsCacheDir();
/// <cache folder>/ceilings-<device name with [^A-Za-z0-9] as '_'>.json; empty without a folder.
std::string ceilingsCachePath(const std::string& deviceName);

/// The measured roofs alone (perSecond > 0), each with RoofSource::Measured.
Ceilings measuredCeilings(const MeasuredCeilings& measured, const std::string& path);
/// Datasheet roofs with every measured roof (perSecond > 0) put in their place.
Ceilings mergeCeilings(const Ceilings& datasheet, const MeasuredCeilings& measured,
                       const std::string& path);

/// What a report compares records with, and where it came from.
struct CeilingsChoice {
    Ceilings used;      ///< per roof: measured, else device peak, else datasheet
    Ceilings datasheet; ///< for the side-by-side table
    Ceilings device;    ///< the device's own peaks (empty when the recording has none)
    std::optional<MeasuredCeilings> measured;
    std::string path;           ///< the measured file consulted (may not exist)
    std::string warning;        ///< a file that exists but was not used, and why
    bool datasheetOnly = false; ///< datasheet roofs were asked for: no device peaks either
};
/// The choice with `measured` in use: its roofs, then `devicePeaks`', then the datasheet's.
CeilingsChoice choiceWith(const DeviceInfo& device, MeasuredCeilings measured,
                          const std::string& path, const Ceilings& devicePeaks = {});
/// Datasheet roofs only (`--ceilings datasheet`).
CeilingsChoice datasheetChoice(const DeviceInfo& device);
/// The device's peaks, datasheet roofs where it has none (`--ceilings device`).
CeilingsChoice deviceChoice(const DeviceInfo& device, const Ceilings& devicePeaks);
/// `--ceilings` / ROOFLINE_CEILINGS value that asks for datasheet roofs only.
inline constexpr std::string_view kDatasheetCeilings = "datasheet";
/// `--ceilings` / ROOFLINE_CEILINGS value that asks for the device's peaks (datasheet where the
/// device has none).
inline constexpr std::string_view kDeviceCeilings = "device";

/// $ROOFLINE_CEILINGS (a file, "datasheet" or "device") if set, else the cache file for the
/// device's name, else the ceilings bundled for its GPU model (core/bundled_ceilings.hpp); each
/// roof those lack comes from `devicePeaks` (core/device_peaks.hpp), then the datasheet. A file
/// for another device, or one that cannot be read, is not used and `warning` says why.
CeilingsChoice chooseCeilings(const DeviceInfo& device, const Ceilings& devicePeaks = {});
/// Whether the device's peaks could change `choice`: some roof in use is not measured (and
/// datasheet roofs alone were not asked for). Measured ceilings that have every roof need none.
bool wantsDevicePeaks(const CeilingsChoice& choice);

} // namespace roofline::core
