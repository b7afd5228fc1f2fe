#pragma once
/// \file sample.hpp
/// Random convolution configurations for a SEER data set (`roofline-seer sample`): each parameter
/// drawn over the range real networks use, the configuration kept when its work and memory fall
/// within bounds a sweep can afford. Deterministic for a seed on every machine. Pure C++.
#include "seer/dataset.hpp"

#include <cstdint>
#include <iosfwd>
#include <vector>

namespace roofline::seer {

/// SplitMix64: the next number of the stream `state` -- the same on every machine and standard
/// library (std::*_distribution are not). The sampler and the boosted trees' subsamples use it.
inline std::uint64_t splitMix64(std::uint64_t& state) {
    std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

struct SampleOptions {
    std::size_t count = 1000;
    std::uint64_t seed = 1;
    double minMacs = 1e7;  ///< smaller ones measure launch latency more than the engine
    double maxMacs = 1e10; ///< larger ones cost the sweep more than they teach
    double maxTensorBytes = 512.0 * 1024 * 1024; ///< per tensor, 4-byte elements
};

/// `count` distinct configurations (ConvParams::key()): batch 1-256 (powers of two), input
/// channels 3 or 4-2048, filters 8-2048 (multiples of 8 from 16 on, log-uniform), widths 7-224
/// (log-uniform), kernel widths 1/3/5/7, strides 1-2, padding 0 or half the kernel ('same' for
/// stride 1). Throws SeerError when the bounds leave too few to draw from.
std::vector<ConvParams> sampleConfigs(const SampleOptions& options);

/// Writes them in SEER's one-line format under a comment saying how they were drawn.
void writeSeerConfigs(const std::vector<ConvParams>& configs, const SampleOptions& options,
                      std::ostream& out);

} // namespace roofline::seer
