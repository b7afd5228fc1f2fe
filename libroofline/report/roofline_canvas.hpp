#pragma once
// One roofline chart being drawn: the canvas's geometry and colours, what one part of the drawing
// leaves for the next, and the parts report/roofline_canvas.cpp draws (the kernels, their labels,
// the legend, the notes); report/roofline_chart.cpp draws the frame and the roofs and puts the
// parts together (renderRoofline).
#include "report/chart_layout.hpp"
#include "report/roofline_chart.hpp"

#include <cstddef>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace roofline::report::canvas {

inline constexpr double kWidth = 980, kHeight = 680;
inline constexpr double kLeft = 80, kRight = 690, kTop = 62, kBottom = 570;
inline constexpr const char* kLevelColor[kMemoryLevelCount] = {"#1f77b4", "#2ca02c", "#d62728"};
inline constexpr const char* kLevelName[kMemoryLevelCount] = {"L1", "L2", "HBM"};

// A white outline under text, so lines behind it do not strike through it.
inline constexpr const char* kHalo = " stroke=\"white\" stroke-width=\"3\" paint-order=\"stroke\"";

/// "FP64", "BF16 tensor": a compute roof's name.
std::string roofName(FlopKind k);
/// A point's arithmetic intensity at memory level `level`, and its FLOP rate.
double intensity(const ChartPoint& p, std::size_t level);
double rate(const ChartPoint& p);
/// A kernel's marker at one memory level (circle L1, square L2, triangle HBM).
std::string marker(std::size_t level, double x, double y, double r, bool hollow);

// One chart being drawn: its spec, the SVG so far, and what one part leaves for the next.
struct Canvas {
    explicit Canvas(ChartSpec fitted) : spec(std::move(fitted)) {}
    const ChartSpec spec;
    std::ostringstream o;
    std::vector<std::pair<FlopKind, double>> compute; ///< the compute roofs drawn
    double top = 0, bandwidthMax = 0;                  ///< the highest compute and memory roofs
    LogAxis x, y;
    std::vector<std::string> roofNotes;  ///< roofs far above the plot, named in the notes
    std::vector<std::string> roofLabels; ///< drawn over the kernels
    std::vector<Box> obstacles; ///< roof labels and markers: what a kernel's label must not cover
    struct Anchor {
        int label;
        double x, y, r;
    };
    std::vector<Anchor> anchors; ///< the labelled kernels' markers
};

/// The kernels' markers, links and changes; then their numbers clear of every other mark.
void drawKernels(Canvas& cv);
void drawLabels(Canvas& cv);
/// The legend: levels, then the numbered kernels, most time first.
void drawLegend(Canvas& cv);
/// The spec's notes under the plot, and the roofs left out of it.
void writeNotes(Canvas& cv);

} // namespace roofline::report::canvas
