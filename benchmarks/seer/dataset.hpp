#pragma once
/// \file dataset.hpp
/// The SEER data set (docs/design/0012-seer-model.md): one row per convolution case and
/// cuDNN engine, with SEER's columns mapped to cuDNN 9 and the roofline quantities it lacked. Read
/// by column name from CSV; configurations also in SEER's one-line format. Pure C++.
#include <cstdint>
#include <iosfwd>
#include <stdexcept>
#include <string>
#include <vector>

namespace roofline::seer {

/// Bad input (a file, a line, a column): the message names it and the fix.
class SeerError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// A 2D convolution as SEER describes it (square images and filters): batch, input channels and
/// width, output channels and width, kernel width, stride, padding.
struct ConvParams {
    double batch = 0, inChannels = 0, inWidth = 0, outChannels = 0, outWidth = 0, kernelWidth = 0,
           stride = 1, padding = 0;
    /// "batch in_channels in_width out_channels out_width kernel_width stride padding": SEER's
    /// one-line format, and the key that groups a configuration's engines.
    std::string key() const;
    /// Multiply-accumulates of the direct algorithm: N K Q^2 C R^2.
    double macs() const;
};

/// Parses SEER's one-line format (8 numbers; '#' starts a comment). Throws SeerError naming
/// `where` (file:line) on a malformed line.
ConvParams parseSeerLine(const std::string& line, const std::string& where);
/// Every configuration line of a SEER file (blank lines and comments skipped).
std::vector<ConvParams> readSeerConfigs(std::istream& in, const std::string& name);

struct SeerRow {
    ConvParams conv;
    std::string precision = "fp32";
    std::string pass = "fwd";  ///< "fwd", "bwd-data", "bwd-filter"
    std::string engine;        ///< cuDNN engine, e.g. "eng1 (tensor_core)"
    double timeSeconds = 0;    ///< the case's time (CUDA events, median)
    double flops = 0;          ///< floating-point work of all its kernels (CUDA cores + tensor)
    double tensorFlops = 0;    ///< of which tensor cores
    double dramReadBytes = 0;  ///< 0 when only the total is known
    double dramWriteBytes = 0; ///< 0 when only the total is known
    double dramBytes = 0;      ///< read + write
    double l1Bytes = 0, l2Bytes = 0;
    double blocks = 0;         ///< thread blocks launched by its kernels
    double waves = 0;          ///< blocks / (SMs x resident blocks per SM), per kernel, summed
    double residentBlocks = 0; ///< blocks per SM of its dominant kernel; 0: unknown
    std::string bound;         ///< roofline bound of its dominant kernel, e.g. "DRAM 71%"
    int heuristicRank = -1;    ///< cuDNN heuristic's order for this configuration; 0: its pick
    std::string kernel;        ///< name of its dominant (longest) kernel; "" when unknown
};

/// "memory" for a bound at a memory level ("DRAM 71%", "L2 40%", "L1 ..."), "compute" for one at a
/// FLOP roof ("fp32 73%", "tensor_bf16 ..."), "" when unknown: SEER's classes.
std::string boundClass(const std::string& bound);

/// What the model keys its per-engine fits by: the engine, prefixed by the pass when it is not
/// the forward one ("bwd-data/eng1 (tensor_core)"): one engine is another kernel in another pass.
std::string modelKey(const SeerRow& row);

/// Reads a data set by column name (order free, extra columns ignored). Required: batch,
/// in_channels, in_width, out_channels, out_width, kernel_width, stride, padding, engine, time_s.
/// Throws SeerError naming the file, line and column.
std::vector<SeerRow> readDataset(std::istream& in, const std::string& name);
void writeDataset(const std::vector<SeerRow>& rows, std::ostream& out);

/// The text of a data set file; a name ending in ".zst" is decompressed (zstd), to at most
/// `limitBytes`. Throws SeerError naming the file when it cannot be read, is not zstd, or is
/// larger than the limit.
std::string readDataFile(const std::string& path, std::size_t limitBytes = std::size_t{1} << 30);

/// readDataset() of readDataFile(path): the rows of a data set file, plain or `.zst`.
std::vector<SeerRow> readDatasetFile(const std::string& path);

/// The deterministic 70/30 split by configuration: a configuration (ConvParams::key(), whatever
/// its engines) goes to the test side when a hash of its key falls in the last `testShare`.
bool isTestConfig(const ConvParams& conv, double testShare = 0.3);

} // namespace roofline::seer
