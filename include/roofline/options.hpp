#pragma once
/// \file options.hpp
/// How a Session collects. Every field can also be set from a ROOFLINE_* environment variable.

#include <roofline/export.hpp>

#include <cstddef>
#include <string>

namespace roofline {

/// Which CUPTI collection mode a Session uses (DESIGN.md, "Collection modes").
enum class CollectionMode {
    /// One record per kernel launch; CUPTI replays each kernel once per pass, saving and restoring
    /// device memory. Simple and exact for one-shot code; expensive inside loops.
    KernelReplay,
};

/// Session settings.
///
///     roofline::Options opt = roofline::Options::fromEnvironment();
///     opt.maxKernels = 16;
///     roofline::Session session{opt};
struct ROOFLINE_API Options {
    CollectionMode mode = CollectionMode::KernelReplay; ///< ROOFLINE_MODE=kernel-replay
    int device = 0;              ///< CUDA device ordinal to profile; ROOFLINE_DEVICE
    std::size_t maxKernels = 64; ///< launches the counter-data image holds (~0.7 MB each on GH100);
                                 ///< more are counted as dropped. ROOFLINE_MAX_KERNELS
    std::string outputPath;      ///< if set, stop() saves the recording here. ROOFLINE_OUTPUT

    /// `defaults` overridden by every ROOFLINE_* variable that is set. A malformed value throws
    /// Error(InvalidArgument) naming the variable.
    static Options fromEnvironment(Options defaults);
    static Options fromEnvironment() { return fromEnvironment(Options{}); }
};

ROOFLINE_API const char* toString(CollectionMode mode) noexcept;

} // namespace roofline
