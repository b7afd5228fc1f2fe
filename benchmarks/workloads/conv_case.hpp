#pragma once
/// \file conv_case.hpp
/// One convolution workload: shape, precision, layout and passes; its output shape, analytic FLOPs
/// and the reason it cannot run, if any. Pure C++: tested on the CPU.

#include "workloads/precision.hpp"

#include <array>
#include <string>
#include <vector>

namespace roofline::workloads {

enum class ConvPass { Forward, BackwardData, BackwardFilter };
enum class ConvLayout { ChannelsFirst, ChannelsLast }; ///< NCHW/NCDHW, NHWC/NDHWC

std::string toString(ConvPass p);                    ///< "fwd", "bwd-data", "bwd-filter"
std::string toString(ConvLayout l, int spatialDims); ///< "NCHW", "NDHWC", ...
std::vector<ConvPass> parseConvPasses(const std::string& text, const std::string& what);
std::vector<ConvLayout> parseConvLayouts(const std::string& text, const std::string& what);

/// Spatial extents are ordered (depth, height, width); a 2D case has depth 1 everywhere.
struct ConvCase {
    std::string name;   ///< from the workload file, or generated
    std::string source; ///< "configs/resnet50.csv:7", "--case", "seer.txt:3"
    int spatialDims = 2;
    long long n = 1, c = 1, k = 1, groups = 1;
    std::array<long long, 3> input{1, 1, 1};
    std::array<long long, 3> filter{1, 1, 1};
    std::array<long long, 3> stride{1, 1, 1};
    std::array<long long, 3> dilation{1, 1, 1};
    std::array<long long, 3> padPre{0, 0, 0};  ///< zeros before (top/left/front)
    std::array<long long, 3> padPost{0, 0, 0}; ///< zeros after; differs from padPre for "same"
    long long expectedOutputWidth = 0;         ///< SEER lines state it; 0: not stated
    long long count = 1; ///< layers of the network with this shape (a network's time sums them)
    Precision precision = Precision::FP32;
    ConvLayout layout = ConvLayout::ChannelsFirst;
    ConvPass pass = ConvPass::Forward;

    /// Output extents (depth, height, width); a non-positive extent means the shape is impossible.
    std::array<long long, 3> output() const;
    /// Empty when the case can run; otherwise one line saying what is wrong with the shape.
    std::string invalidReason() const;
    /// Multiply-adds x 2 of the direct convolution: 2 N K (C/g) T R S O P Q, the same for all
    /// passes.
    double flops() const;
    /// Products summed into each element of the pass's result: forward (C/g) T R S, backward data
    /// at most (K/g) T R S, backward filter N O P Q.
    double reductionLength() const;
    /// Elements of x (N C D H W), w (K C/g T R S) and y (N K O P Q).
    long long inputElements() const;
    long long filterElements() const;
    long long outputElements() const;
    /// SEER's one-line form "batch in_channels in_width out_channels out_width kernel_width stride
    /// padding" when SEER can describe the case (2D, square input, filter and stride, the same
    /// padding on every side, no groups or dilation); "" otherwise.
    std::string seerLine() const;
    /// "n32 c64 56x56 k64 3x3 s1 p1 g1" (3D: "8x8x8"; dilation and padding shown when not default).
    std::string shape() const;
};

/// Columns a convolution CSV may have; every one except the shape ones is optional.
const std::vector<std::string>& convColumns();

/// Defaults that CLI flags apply to cases whose file does not set them; each list multiplies.
struct ConvDefaults {
    std::vector<Precision> precisions{Precision::FP32};
    std::vector<ConvLayout> layouts{ConvLayout::ChannelsFirst};
    std::vector<ConvPass> passes{ConvPass::Forward, ConvPass::BackwardData,
                                 ConvPass::BackwardFilter};
};

/// Parses a workload: CSV with a header (see convColumns()) or SEER's one-line format
/// ("batch in_channels in_width out_channels out_width kernel_width stride padding" per line),
/// recognised by its lines of eight integers. List cells and the defaults expand the cases.
/// Shapes that cannot run still become cases (their invalidReason() says why); malformed text
/// throws WorkloadError naming the line.
std::vector<ConvCase> parseConvWorkload(const std::string& text, const std::string& sourceName,
                                        const ConvDefaults& defaults);
/// One inline case, "key=value" pairs separated by spaces ("n=16;32 c=64 size=56 k=64 kernel=3
/// pad=1"), with the same keys as the CSV columns.
std::vector<ConvCase> parseConvSpec(const std::string& spec, const ConvDefaults& defaults);

} // namespace roofline::workloads
