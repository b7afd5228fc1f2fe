#include "report/chart_layout.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace roofline::report {

double LogAxis::map(double value) const noexcept {
    if (!(value > 0.0) || !std::isfinite(value))
        return from;
    const double t = (std::log10(value) - std::log10(lo)) / (std::log10(hi) - std::log10(lo));
    return from + std::clamp(t, 0.0, 1.0) * (to - from);
}

std::vector<double> LogAxis::decades() const {
    std::vector<double> out;
    const int a = static_cast<int>(std::lround(std::log10(lo)));
    const int b = static_cast<int>(std::lround(std::log10(hi)));
    for (int e = a; e <= b; ++e)
        out.push_back(std::pow(10.0, e));
    return out;
}

LogAxis fitLogAxis(const std::vector<double>& values, double from, double to, int minDecades,
                   bool growDown) {
    double mn = 0, mx = 0;
    bool any = false;
    for (double v : values) {
        if (!(v > 0.0) || !std::isfinite(v))
            continue;
        mn = any ? std::min(mn, v) : v;
        mx = any ? std::max(mx, v) : v;
        any = true;
    }
    LogAxis axis;
    axis.from = from;
    axis.to = to;
    if (!any)
        return axis;
    int a = static_cast<int>(std::floor(std::log10(mn) + 1e-9));
    int b = static_cast<int>(std::ceil(std::log10(mx) - 1e-9));
    if (b <= a)
        b = a + 1;
    while (b - a < minDecades) {
        if (!growDown && (b - a) % 2 == 0)
            ++b;
        else
            --a;
    }
    axis.lo = std::pow(10.0, a);
    axis.hi = std::pow(10.0, b);
    return axis;
}

double LinearAxis::map(double value) const noexcept {
    if (!std::isfinite(value))
        return from;
    const double t = hi > lo ? (value - lo) / (hi - lo) : 0.0;
    return from + std::clamp(t, 0.0, 1.0) * (to - from);
}

std::vector<double> LinearAxis::ticks() const {
    std::vector<double> out;
    if (!(step > 0.0))
        return {lo, hi};
    for (int i = 0; i <= 1000; ++i) {
        const double v = lo + i * step;
        if (v > hi + step * 1e-6)
            break;
        out.push_back(v);
    }
    return out;
}

LinearAxis fitLinearAxis(double lo, double hi, double from, double to, int targetTicks) {
    LinearAxis axis;
    axis.from = from;
    axis.to = to;
    if (!std::isfinite(lo) || !std::isfinite(hi) || hi < lo)
        lo = 0, hi = 1;
    if (hi == lo)
        hi = lo + (lo == 0 ? 1.0 : std::fabs(lo));
    const double raw = (hi - lo) / std::max(targetTicks, 1);
    const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
    double step = magnitude;
    for (double m : {1.0, 2.0, 5.0, 10.0})
        if (m * magnitude >= raw) {
            step = m * magnitude;
            break;
        }
    axis.step = step;
    axis.lo = std::floor(lo / step) * step;
    axis.hi = std::ceil(hi / step) * step;
    return axis;
}

std::string siNumber(double value) {
    if (!std::isfinite(value) || value == 0.0)
        return "0";
    static const char* const kBig[] = {"", "k", "M", "G", "T", "P", "E"};
    const double a = std::fabs(value);
    char buf[40];
    if (a < 1.0) {
        std::snprintf(buf, sizeof buf, "%.3g", value);
        return buf;
    }
    int i = 0;
    double v = a;
    while (v >= 1000.0 && i < 6)
        v /= 1000.0, ++i;
    std::snprintf(buf, sizeof buf, "%s%.3g%s", value < 0 ? "-" : "", v, kBig[i]);
    return buf;
}

std::string escapeXml(const std::string& text) {
    std::string out;
    out.reserve(text.size());
    for (char c : text) {
        switch (c) {
        case '&':
            out += "&amp;";
            break;
        case '<':
            out += "&lt;";
            break;
        case '>':
            out += "&gt;";
            break;
        case '"':
            out += "&quot;";
            break;
        case '\'':
            out += "&#39;";
            break;
        default:
            out += static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\t' ? ' ' : c;
        }
    }
    return out;
}

std::string px(double value) {
    if (!std::isfinite(value))
        return "0";
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2f", value);
    return buf;
}

double textWidth(const std::string& text, double fontSize) {
    return 0.58 * fontSize * static_cast<double>(text.size()) + 2;
}

Box placeLabel(double x, double y, double r, double w, double h, const std::vector<Box>& taken,
               const Box& bounds) {
    Box best;
    double bestOverlap = -1;
    for (double ring : {3.0, 10.0, 20.0, 34.0, 52.0}) {
        const double d = r + ring;
        // right, upper right, above, upper left, left, lower left, below, lower right
        const double cx[] = {x + d,     x + d * 0.7,     x - w / 2, x - d * 0.7 - w,
                             x - d - w, x - d * 0.7 - w, x - w / 2, x + d * 0.7};
        const double cy[] = {y - h / 2, y - d * 0.7 - h, y - d - h, y - d * 0.7 - h,
                             y - h / 2, y + d * 0.7,     y + d,     y + d * 0.7};
        for (int i = 0; i < 8; ++i) {
            const Box b{cx[i], cy[i], cx[i] + w, cy[i] + h};
            if (!b.inside(bounds))
                continue;
            double overlap = 0;
            for (const Box& t : taken)
                if (b.overlaps(t))
                    overlap += (std::min(b.x1, t.x1) - std::max(b.x0, t.x0)) *
                               (std::min(b.y1, t.y1) - std::max(b.y0, t.y0));
            if (overlap == 0)
                return b;
            if (bestOverlap < 0 || overlap < bestOverlap)
                best = b, bestOverlap = overlap;
        }
    }
    if (bestOverlap < 0) // nothing fits inside the bounds: to the right, clamped
        best = {std::min(x + r + 3, bounds.x1 - w), y - h / 2,
                std::min(x + r + 3, bounds.x1 - w) + w, y + h / 2};
    return best;
}

} // namespace roofline::report
