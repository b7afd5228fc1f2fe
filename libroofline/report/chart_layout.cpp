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

} // namespace roofline::report
