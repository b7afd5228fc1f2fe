#pragma once
// Two recordings side by side: kernels matched by name + scope (or name, or scope), the change in
// time, FLOPs, bytes, intensity and bound, as a table, CSV and roofline charts with arrows A -> B.
#include "report/aggregate.hpp"
#include "report/roofline_chart.hpp"

#include <iosfwd>
#include <string>
#include <vector>

namespace roofline::report {

struct Comparison {
    GroupBy by = GroupBy::NameScope;
    std::vector<KernelGroup> a, b;
    /// Rows by combined time, largest first: indices into a and b, -1 where one side lacks it.
    std::vector<std::pair<long, long>> rows;
    double secondsA = 0, secondsB = 0;
    std::size_t matched = 0;
};

Comparison compareRecords(const std::vector<KernelRecord>& a, const std::vector<KernelRecord>& b,
                          GroupBy by);

struct CompareTableOptions {
    bool wide = false;     ///< never shorten names or scopes, keep every column
    std::size_t width = 0; ///< characters per line; 0: report::terminalWidth()
};
/// The table: `top` rows (0: all) then totals. Bounds refer to each side's ceilings.
void printComparison(const Comparison& c, const Ceilings& ceilingsA, const Ceilings& ceilingsB,
                     std::ostream& out, std::size_t top, const CompareTableOptions& options = {});
/// One row per matched or one-sided group; the side a group is missing from has empty cells.
void writeComparisonCsv(const Comparison& c, const Ceilings& ceilingsA, const Ceilings& ceilingsB,
                        std::ostream& out);

/// One chart per precision family (B's roofs): matched kernels as hollow A points with arrows to
/// filled B points, kernels only in B as filled points; `top` largest by combined time.
std::vector<ChartSpec> comparisonCharts(const Comparison& c, const Ceilings& ceilingsB,
                                        std::size_t top, const std::string& subtitle);

} // namespace roofline::report
