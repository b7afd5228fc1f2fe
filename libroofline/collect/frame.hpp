#pragma once
// An open push/pop range (an NVTX range or a ProfileScope) and a thread's stack of them: what the
// collector attributes launches to. Pure: no CUDA.
#include "collect/host_timing.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace roofline::collect {

/// One open push/pop range (an NVTX range or a ProfileScope) on a thread.
struct Frame {
    std::string domain; ///< "" for the default domain
    std::string name;
    std::vector<std::int64_t> records; ///< scope mode: its record per device slot, -1: none
    std::int64_t instance = -1; ///< the iteration scope: its number (from the name, or counted)
    /// Reuse: a number unique to this scope instance, given at its first launch (0: none yet);
    /// a launch's place within its innermost scope instance is part of its signature.
    mutable std::uint64_t serial = 0;
    /// Reuse: the uniform scope path of this instance's launches (made at its first one).
    mutable std::string uniform{};
    /// Host time of this instance.
    HostFrame host{};
    std::uint64_t thread = 0; ///< the OS thread that opened it
    bool nvtx = false;        ///< an NVTX range (false: a ProfileScope)
    bool iteration = false;   ///< opened an iteration (Collector::onPush)
};
using Stack = std::vector<Frame>;

} // namespace roofline::collect
