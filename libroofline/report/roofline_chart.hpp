#pragma once
// The hierarchical roofline of one precision family as SVG: roofs per memory level and compute
// unit, each kernel as three points (L1, L2, HBM intensity) at its FLOP/s joined by a line, sized
// by its share of time, the top ones numbered; in comparisons a hollow "before" point per level
// with an arrow to the filled "after" point.
#include "report/aggregate.hpp"

#include <roofline/kernel_record.hpp>

#include <string>
#include <vector>

namespace roofline::report {

struct ChartPoint {
    double flops = 0; ///< the family's FLOPs
    double seconds = 0;
    std::array<double, kMemoryLevelCount> bytes{};
    bool drawable() const noexcept; ///< time and FLOPs positive
};

struct ChartKernel {
    std::string name;   ///< short display name
    std::string scope;  ///< its scope path (tells apart legend entries of one kernel name)
    std::string detail; ///< hover text (full name, scope, rates, bound, ...)
    std::string bound;  ///< what bounds it ("L2 46%", "latency (DRAM 3%)"), under its legend entry
    ChartPoint now;     ///< the kernel (comparisons: B)
    bool hasBefore = false;
    ChartPoint before; ///< comparisons: A
    double share = 0;  ///< of the chart's total time, 0..1 (marker area)
    int label = -1;    ///< number shown beside it: the kernel's id, the table's '#' (-1: none)
    /// Bit k set: it did work of FlopKind k in the chart's family (tensor charts draw only the
    /// roofs of input types some kernel used); 0: unknown (every roof of the family is drawn).
    std::uint32_t kinds = 0;
};

struct ChartSpec {
    std::string title;
    std::string subtitle;
    Family family = Family::FP32;
    Ceilings ceilings;
    std::vector<ChartKernel> kernels;
    std::vector<std::string> notes; ///< printed under the chart (what was left out and why)
    bool comparison = false;
};

/// A complete <svg> element (standalone file when `xmlHeader`).
std::string renderRoofline(const ChartSpec& spec, bool xmlHeader);

/// Chart kernels for one family from groups: their FLOPs in that family, share of `total` time;
/// the `labels` longest-running numbered 1.. . Kernels of other families are not included.
/// `verbatim`: groups named by operator or module keep their names ("aten::addmm").
std::vector<ChartKernel> chartKernels(const std::vector<KernelGroup>& groups, Family family,
                                      const Ceilings& ceilings, double total, std::size_t labels,
                                      bool verbatim = false);

/// Hover text for a group.
std::string describe(const KernelGroup& group, const Ceilings& ceilings, double total);

/// Refuses (Error(InvalidArgument), naming the files it would write) a chart path that ends in
/// neither ".html" nor ".svg".
void checkChartPath(const std::string& path);
/// Writes charts: one HTML page when `path` ends in ".html", else SVG files (`path` for one chart,
/// "<stem>-<family>.svg" for several). Returns the files written; throws Error(Io), or as
/// checkChartPath.
std::vector<std::string> writeCharts(const std::vector<ChartSpec>& specs, const std::string& path,
                                     const std::string& htmlTitle, const std::string& preface,
                                     const std::vector<std::string>& extraSvgs = {});

/// Wraps SVG charts in one HTML page with hover details (no external resources).
std::string htmlPage(const std::string& title, const std::vector<std::string>& svgs,
                     const std::string& preface);

} // namespace roofline::report
