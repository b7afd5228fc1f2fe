#pragma once
// Geometry of the charts: logarithmic axes fitted to the data, linear axes, tick labels. Pure
// arithmetic, unit-tested.
#include <string>
#include <vector>

namespace roofline::report {

/// A log10 axis from `lo` to `hi` (whole decades) drawn from pixel `from` to pixel `to`.
struct LogAxis {
    double lo = 1, hi = 10;
    double from = 0, to = 1;
    double map(double value) const noexcept; ///< pixel of a value (clamped to the axis)
    std::vector<double> decades() const;     ///< lo, 10·lo, ..., hi
};

/// Whole decades around every positive finite value, at least `minDecades` wide (widened evenly,
/// or downwards only with `growDown`); [1, 10] when there is none.
LogAxis fitLogAxis(const std::vector<double>& values, double from, double to, int minDecades = 2,
                   bool growDown = false);

/// A linear axis from 0 (or the minimum) to a "nice" maximum (1, 2 or 5 x 10^k) with its ticks.
struct LinearAxis {
    double lo = 0, hi = 1, step = 0.2;
    double from = 0, to = 1;
    double map(double value) const noexcept;
    std::vector<double> ticks() const;
};
LinearAxis fitLinearAxis(double lo, double hi, double from, double to, int targetTicks = 5);

/// An axis-aligned box in pixels.
struct Box {
    double x0 = 0, y0 = 0, x1 = 0, y1 = 0;
    bool overlaps(const Box& o) const noexcept {
        return x0 < o.x1 && o.x0 < x1 && y0 < o.y1 && o.y0 < y1;
    }
    bool inside(const Box& o) const noexcept {
        return x0 >= o.x0 && x1 <= o.x1 && y0 >= o.y0 && y1 <= o.y1;
    }
};

/// Where a label of `w` x `h` pixels goes beside a marker of radius `r` at (`x`, `y`): the first
/// of eight positions around it, then the same on wider rings, whose box stays inside `bounds` and
/// overlaps nothing in `taken` (other labels, markers, roof labels). When every candidate
/// collides, the one with the least overlap. The label's text baseline is at y1 - 3.
Box placeLabel(double x, double y, double r, double w, double h, const std::vector<Box>& taken,
               const Box& bounds);

/// Width in pixels of `text` at the charts' 12 px font (an estimate: 7 px per character).
double textWidth(const std::string& text, double fontSize = 12);

/// 1.5e12 -> "1.5T", 2e-3 -> "0.002", 0 -> "0"; finite output for any input.
std::string siNumber(double value);

/// XML text and attribute escaping (& < > " ').
std::string escapeXml(const std::string& text);

/// Pixel coordinates with two decimals, "0" for non-finite values.
std::string px(double value);

} // namespace roofline::report
