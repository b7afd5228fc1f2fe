#pragma once
/// \file chart.hpp
/// Charts as self-contained SVG (or HTML with hover details): the hierarchical roofline of a set
/// of records, and two plots for benchmark results (stacked bars, violins). No CUDA needed.

#include <roofline/export.hpp>
#include <roofline/host_scope.hpp>
#include <roofline/kernel_record.hpp>
#include <roofline/report.hpp>

#include <cstddef>
#include <string>
#include <vector>

namespace roofline {

struct ChartOptions {
    std::string title;      ///< default: "Hierarchical roofline"
    std::string subtitle;   ///< e.g. the recording and device
    std::size_t labels = 5; ///< number the N kernels with most time and list them
    /// One point per group, as report's table rows (GroupBy::Launch: one per launch).
    GroupBy groupBy = GroupBy::Kernel;
    /// HTML pages: a bar chart of host against GPU time per scope (hostBarsSvg) below the
    /// rooflines, when not empty.
    std::vector<HostScope> hostScopes;
};

struct ChartFiles {
    std::vector<std::string> files; ///< written, one per precision family (or one HTML page)
    std::vector<std::string> notes; ///< what was not drawn and why (also printed on the charts)
};

/// Hierarchical roofline of `records` (grouped by options.groupBy, launches summed): one chart
/// per precision family present (FP64, FP32, FP16, tensor), each kernel in the family of most of
/// its FLOPs. `path` ending in ".html": one page with all charts and hover details; otherwise SVG
/// files, `path` itself for one family, "<stem>-<family>.svg" for several. Writes nothing and
/// says why in `notes` when no kernel has both time and floating-point work. Throws Error(Io).
ROOFLINE_API ChartFiles writeRooflineChart(const std::vector<KernelRecord>& records,
                                           const Ceilings& ceilings, const std::string& path,
                                           const ChartOptions& options = {});

struct PlotText {
    std::string title;
    std::string subtitle;
    std::string yLabel; ///< e.g. "time (ms)"
};

/// One bar per entry, stacked from `values` (one per series, same order as `series`).
struct StackedBar {
    std::string label;
    std::vector<double> values;
};
ROOFLINE_API std::string stackedBarsSvg(const std::vector<std::string>& series,
                                        const std::vector<StackedBar>& bars, const PlotText& text);

/// One violin per distribution (kernel density, median and extremes marked, samples as dots).
struct Distribution {
    std::string label;
    std::vector<double> samples;
};
ROOFLINE_API std::string violinSvg(const std::vector<Distribution>& distributions,
                                   const PlotText& text);

/// Predicted against measured (or any y against x) on log axes with the same decades, one colour
/// per series with a legend, the diagonal y = x and its +-10% band; a point's tooltip is its label.
struct ScatterPoint {
    double x = 0, y = 0;
    std::string label;
};
struct ScatterSeries {
    std::string label;
    std::vector<ScatterPoint> points;
};
ROOFLINE_API std::string scatterSvg(const std::vector<ScatterSeries>& series, const PlotText& text,
                                    const std::string& xLabel);

/// Writes text (an SVG or HTML document) atomically; throws Error(Io) naming the path.
ROOFLINE_API void saveChart(const std::string& path, const std::string& document);

} // namespace roofline
