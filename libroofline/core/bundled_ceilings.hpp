#pragma once
// Ceilings measured once per GPU model and shipped with libroofline (libroofline/data/ceilings/):
// a recording of such a GPU is compared with measured roofs for every level and precision, L2
// included, without a `roofline ceilings` run on the user's machine. A cache file of the device
// (measured there) is preferred; docs/ceilings.md.
#include "core/ceilings_file.hpp"

#include <optional>
#include <string>
#include <vector>

namespace roofline::core {

struct BundledCeilingsFile {
    const char* name; ///< the file's name under libroofline/data/ceilings/
    const char* json; ///< its text (docs/ceilings.md's format)
};
/// Every bundled file (generated at build time).
const std::vector<BundledCeilingsFile>& bundledCeilingsFiles();

/// The bundled measurement of a GPU named `deviceName` (cudaDeviceProp::name), if any; `path`
/// receives how reports name it ("bundled: <file>").
std::optional<MeasuredCeilings> bundledCeilings(const std::string& deviceName, std::string& path);

} // namespace roofline::core
