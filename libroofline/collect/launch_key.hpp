#pragma once
// A launch's configuration as text: equal for launches of the same kernel with the same grid,
// block and shared memory. Repeated-launch reuse builds its signatures on it (replay/reuse), and
// windows name with it the configurations whose work their data decides (Shared).
#include "core/launch.hpp"

#include <cstdint>
#include <string>

namespace roofline::collect {

/// "kernel|grid|block|smem".
inline std::string launchKey(const std::string& mangledName, Dim3 grid, Dim3 block,
                             std::uint32_t sharedMemBytes) {
    std::string s = mangledName;
    for (const Dim3& d : {grid, block})
        s += '|' + core::dimText(d);
    return s + '|' + std::to_string(sharedMemBytes);
}

/// The same without the grid: launches whose grid depends on the data share it.
inline std::string familyKey(const std::string& mangledName, Dim3 block,
                             std::uint32_t sharedMemBytes) {
    return launchKey(mangledName, Dim3{0, 0, 0}, block, sharedMemBytes);
}

} // namespace roofline::collect
