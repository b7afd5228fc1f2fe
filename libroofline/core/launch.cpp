#include "core/launch.hpp"

#include "core/demangle.hpp"

#include <cstring>

namespace roofline::core {

bool sameDim(const Dim3& a, const Dim3& b) {
    return a.x == b.x && a.y == b.y && a.z == b.z;
}

std::string dimText(const Dim3& d) {
    return std::to_string(d.x) + "x" + std::to_string(d.y) + "x" + std::to_string(d.z);
}

bool sameConfiguration(const LaunchKey& a, const LaunchKey& b) {
    return sameDim(a.grid, b.grid) && sameDim(a.block, b.block);
}

bool sameLaunch(const LaunchKey& a, const LaunchKey& b) {
    return a.name == b.name && sameConfiguration(a, b);
}

std::string launchText(const LaunchKey& key) {
    return demangle(key.name) + " <<<" + dimText(key.grid) + ", " + dimText(key.block) + ">>>";
}

const char* communicationLibrary(const char* mangledName) noexcept {
    if (!mangledName)
        return nullptr;
    if (std::strstr(mangledName, "ncclKernel") || std::strstr(mangledName, "ncclDevKernel"))
        return "NCCL";
    if (std::strstr(mangledName, "nvshmem"))
        return "NVSHMEM";
    if (std::strstr(mangledName, "16symmetric_memory"))
        return "PyTorch symmetric memory";
    return nullptr;
}

} // namespace roofline::core
