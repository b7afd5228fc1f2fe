// Public chart API (include/roofline/chart.hpp): the roofline per family and the seed plots.
#include "core/atomic_file.hpp"
#include "report/aggregate.hpp"
#include "report/chart_layout.hpp"
#include "report/columns.hpp"
#include "report/format.hpp"
#include "report/instruction_chart.hpp"
#include "report/roofline_chart.hpp"

#include <roofline/chart.hpp>
#include <roofline/error.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <ostream>
#include <sstream>

namespace roofline {
namespace {

std::string lower(std::string s) {
    for (char& c : s)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

bool endsWith(const std::string& s, const std::string& suffix) {
    return s.size() >= suffix.size() &&
           s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

const char* const kPalette[] = {"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f",
                                "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"};

// The FLOP families the groups' kernels belong to (`present`), and notes on the kernels no chart
// draws.
std::vector<std::string> drawnFamilies(const std::vector<report::KernelGroup>& groups, double total,
                                       bool (&present)[report::kFamilyCount]) {
    using namespace report;
    std::size_t noWork = 0, noTime = 0, unmeasured = 0;
    double noWorkSeconds = 0;
    for (const auto& g : groups) {
        unmeasured += g.unmeasured;
        Family f{};
        if (g.launches == g.unmeasured)
            continue;
        if (!(g.seconds > 0))
            ++noTime;
        else if (!g.dominantFamily(f))
            ++noWork, noWorkSeconds += g.seconds;
        else
            present[static_cast<std::size_t>(f)] = true;
    }
    std::vector<std::string> notes;
    if (noWork)
        notes.push_back(std::to_string(noWork) + " kernel(s) with no floating-point work (" +
                        report::percent(noWorkSeconds, total) +
                        " of time) are not drawn: their intensity is 0");
    if (noTime)
        notes.push_back(std::to_string(noTime) +
                        " kernel(s) with zero measured time are not drawn");
    if (unmeasured)
        notes.push_back(std::to_string(unmeasured) +
                        " launch(es) without counter values are not drawn");
    return notes;
}

// One chart per FLOP family present: its kernels, title and notes.
std::vector<report::ChartSpec> familyCharts(const std::vector<report::KernelGroup>& groups,
                                            double total,
                                            const bool (&present)[report::kFamilyCount],
                                            const Ceilings& ceilings, const ChartOptions& options,
                                            const std::vector<std::string>& notes) {
    using namespace report;
    std::vector<ChartSpec> specs;
    for (std::size_t f = 0; f < kFamilyCount; ++f) {
        if (!present[f])
            continue;
        ChartSpec spec;
        spec.family = static_cast<Family>(f);
        spec.title = (options.title.empty() ? "Hierarchical roofline" : options.title) + ": " +
                     toString(spec.family);
        spec.subtitle = options.subtitle.empty() ? "roofs: " + ceilings.name : options.subtitle;
        spec.ceilings = ceilings;
        spec.kernels = report::chartKernels(groups, spec.family, ceilings, total, options.labels,
                                            report::frameworkRows(options.groupBy));
        double familySeconds = 0;
        for (const auto& k : spec.kernels)
            familySeconds += k.share * total;
        spec.notes.push_back(std::to_string(spec.kernels.size()) + " kernel(s), " +
                             report::percent(familySeconds, total) + " of profiled time; y: " +
                             toString(spec.family) + " FLOP/s; roofs: " + ceilings.name);
        spec.notes.insert(spec.notes.end(), notes.begin(), notes.end());
        specs.push_back(std::move(spec));
    }
    return specs;
}

} // namespace

ChartFiles writeRooflineChart(const std::vector<KernelRecord>& records, const Ceilings& ceilings,
                              const std::string& path, const ChartOptions& options) {
    using namespace report;
    ChartFiles result;
    const auto groups = aggregate(records, options.groupBy);
    const double total = totalSeconds(groups);
    bool present[kFamilyCount] = {};
    result.notes = drawnFamilies(groups, total, present);
    const std::vector<ChartSpec> specs =
        familyCharts(groups, total, present, ceilings, options, result.notes);
    // The instruction roofline, where the records have its counters: every kernel has a place
    // there, those without floating-point work included.
    const bool html = endsWith(lower(path), ".html");
    const std::string instructions = instructionRooflineSvg(
        groups, ceilings, options.labels,
        options.subtitle.empty() ? "roofs: " + ceilings.name : options.subtitle, !html);
    if (specs.empty() && instructions.empty()) {
        result.notes.insert(result.notes.begin(),
                            "no chart written: no kernel has both measured time and "
                            "floating-point work");
        return result;
    }
    std::vector<std::string> extra;
    if (html && !instructions.empty())
        extra.push_back(instructions);
    if (!options.hostScopes.empty())
        extra.push_back(hostBarsSvg(options.hostScopes, 16));
    if (specs.empty() && !html) { // the instruction roofline alone
        checkChartPath(path);
        saveChart(path, instructions);
        result.files = {path};
        return result;
    }
    result.files =
        writeCharts(specs, path, options.title.empty() ? "Hierarchical roofline" : options.title,
                    options.subtitle, extra);
    if (!html && !instructions.empty()) {
        const std::string file = path.substr(0, path.size() - 4) + "-instructions.svg";
        saveChart(file, instructions);
        result.files.push_back(file);
    }
    return result;
}

void saveChart(const std::string& path, const std::string& document) {
    core::writeFileAtomically(path, [&](std::ostream& out) { out << document; });
}

void report::checkChartPath(const std::string& path) {
    const std::string l = lower(path);
    if (endsWith(l, ".html") || (endsWith(l, ".svg") && l.size() > 4))
        return;
    throw Error(ErrorCode::InvalidArgument,
                "chart '" + path +
                    "': charts are SVG or HTML -- FILE.html (every chart in one page, with hover "
                    "details) or FILE.svg (one file per precision family drawn: FILE-fp64.svg, "
                    "FILE-fp32.svg, FILE-fp16.svg, FILE-tensor.svg, or FILE.svg itself when only "
                    "one is); give a path ending in .html or .svg");
}

std::vector<std::string> report::writeCharts(const std::vector<ChartSpec>& specs,
                                             const std::string& path, const std::string& htmlTitle,
                                             const std::string& preface,
                                             const std::vector<std::string>& extraSvgs) {
    checkChartPath(path);
    if (endsWith(lower(path), ".html")) {
        std::vector<std::string> svgs;
        for (const auto& s : specs)
            svgs.push_back(renderRoofline(s, false));
        svgs.insert(svgs.end(), extraSvgs.begin(), extraSvgs.end());
        saveChart(path, htmlPage(htmlTitle, svgs, preface));
        return {path};
    }
    const std::string stem = endsWith(lower(path), ".svg") ? path.substr(0, path.size() - 4) : path;
    std::vector<std::string> files;
    for (const auto& s : specs) {
        const std::string file =
            specs.size() == 1 ? path : stem + "-" + lower(toString(s.family)) + ".svg";
        saveChart(file, renderRoofline(s, true));
        files.push_back(file);
    }
    return files;
}

namespace {

constexpr double kW = 900, kH = 520, kL = 80, kR = 700, kT = 60, kB = 430;

void header(std::ostringstream& o, const PlotText& text, const char* cls) {
    o << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" "
         "class=\""
      << cls << "\" width=\"" << kW << "\" height=\"" << kH << "\" viewBox=\"0 0 " << kW << ' '
      << kH << "\" font-family=\"DejaVu Sans, Arial, sans-serif\" font-size=\"12\">\n"
      << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n<text class=\"title\" x=\"" << kL
      << "\" y=\"24\" font-size=\"17\" font-weight=\"bold\">" << report::escapeXml(text.title)
      << "</text>\n<text class=\"subtitle\" x=\"" << kL << "\" y=\"44\" fill=\"#555\">"
      << report::escapeXml(text.subtitle) << "</text>\n";
}

void yAxis(std::ostringstream& o, const report::LinearAxis& y, const std::string& label) {
    o << "<g class=\"y-axis\" data-y-min=\"" << y.lo << "\" data-y-max=\"" << y.hi << "\">\n";
    for (double t : y.ticks())
        o << "<line x1=\"" << kL << "\" y1=\"" << report::px(y.map(t)) << "\" x2=\"" << kR
          << "\" y2=\"" << report::px(y.map(t))
          << "\" stroke=\"#e4e4e4\"/><text class=\"tick\" x=\"" << (kL - 6) << "\" y=\""
          << report::px(y.map(t) + 4) << "\" text-anchor=\"end\">" << report::siNumber(t)
          << "</text>\n";
    o << "<text class=\"axis-label\" transform=\"translate(22," << (kT + kB) / 2
      << ") rotate(-90)\" text-anchor=\"middle\">" << report::escapeXml(label) << "</text>\n</g>\n";
}

void xLabel(std::ostringstream& o, double x, const std::string& label) {
    // Scope paths differ at their innermost levels: keep those ("...ep #/validation").
    const std::string shown = report::shortenScope(label, 20);
    o << "<text class=\"category\" x=\"" << report::px(x) << "\" y=\"" << (kB + 14)
      << "\" text-anchor=\"end\" transform=\"rotate(-35 " << report::px(x) << ' ' << (kB + 14)
      << ")\">" << report::escapeXml(shown) << "<title>" << report::escapeXml(label)
      << "</title></text>\n";
}

} // namespace

std::string stackedBarsSvg(const std::vector<std::string>& series,
                           const std::vector<StackedBar>& bars, const PlotText& text) {
    std::ostringstream o;
    header(o, text, "stacked-bars");
    double top = 0;
    for (const auto& b : bars) {
        double sum = 0;
        for (double v : b.values)
            sum += std::isfinite(v) && v > 0 ? v : 0;
        top = std::max(top, sum);
    }
    const report::LinearAxis y = report::fitLinearAxis(0, top > 0 ? top : 1, kB, kT);
    yAxis(o, y, text.yLabel);
    const double slot = bars.empty() ? 0 : (kR - kL) / static_cast<double>(bars.size());
    const double width = std::min(60.0, slot * 0.7);
    o << "<g class=\"bars\">\n";
    for (std::size_t i = 0; i < bars.size(); ++i) {
        const double cx = kL + slot * (static_cast<double>(i) + 0.5);
        double base = 0;
        o << "<g class=\"bar\" data-label=\"" << report::escapeXml(bars[i].label) << "\">\n";
        for (std::size_t s = 0; s < bars[i].values.size() && s < series.size(); ++s) {
            const double v =
                std::isfinite(bars[i].values[s]) && bars[i].values[s] > 0 ? bars[i].values[s] : 0;
            if (v <= 0)
                continue;
            const double y0 = y.map(base), y1 = y.map(base + v);
            o << "<rect class=\"segment\" data-series=\"" << report::escapeXml(series[s])
              << "\" x=\"" << report::px(cx - width / 2) << "\" y=\"" << report::px(y1)
              << "\" width=\"" << report::px(width) << "\" height=\"" << report::px(y0 - y1)
              << "\" fill=\"" << kPalette[s % 10] << "\"><title>"
              << report::escapeXml(bars[i].label + " / " + series[s] + ": " + report::siNumber(v))
              << "</title></rect>\n";
            base += v;
        }
        o << "</g>\n";
        xLabel(o, cx, bars[i].label);
    }
    o << "</g>\n<line x1=\"" << kL << "\" y1=\"" << kB << "\" x2=\"" << kR << "\" y2=\"" << kB
      << "\" stroke=\"#333\"/>\n<g class=\"legend\">\n";
    // The legend's column (kR + 38 to kW: 162 px of 12 px text) holds ~24 characters a line:
    // longer entries wrap at spaces instead of running past the edge.
    double ly = kT;
    for (std::size_t s = 0; s < series.size(); ++s) {
        o << "<rect x=\"" << (kR + 20) << "\" y=\"" << ly << "\" width=\"12\" "
          << "height=\"12\" fill=\"" << kPalette[s % 10] << "\"/><text x=\"" << (kR + 38)
          << "\" y=\"" << (ly + 11) << "\">";
        std::size_t lines = 0;
        for (const std::string& part : report::wrapWords(series[s], 24))
            o << "<tspan x=\"" << (kR + 38) << "\" dy=\"" << (lines++ ? 14 : 0) << "\">"
              << report::escapeXml(part) << "</tspan>";
        o << "</text>\n";
        ly += 20.0 + 14.0 * static_cast<double>(lines > 0 ? lines - 1 : 0);
    }
    o << "</g>\n</svg>\n";
    return o.str();
}

namespace {

// The value axis of violins: linear, or logarithmic when the timings span more than 20x
// (engines of one layer) -- the densities are then estimated on the log too.
struct ViolinAxis {
    report::LinearAxis linear;
    report::LogAxis log;
    bool logScale = false;
    double map(double v) const { return logScale ? log.map(v) : linear.map(v); }
    double fwd(double v) const { return logScale ? std::log10(v) : v; }
    double inv(double t) const { return logScale ? std::pow(10.0, t) : t; }
};

ViolinAxis violinAxis(const std::vector<Distribution>& distributions) {
    double lo = 0, hi = 0;
    bool any = false;
    for (const auto& d : distributions)
        for (double v : d.samples)
            if (std::isfinite(v)) {
                lo = any ? std::min(lo, v) : v;
                hi = any ? std::max(hi, v) : v;
                any = true;
            }
    const double pad = any ? std::max((hi - lo) * 0.1, std::fabs(hi) * 0.02) : 1;
    return {report::fitLinearAxis(any ? std::max(0.0, lo - pad) : 0, any ? hi + pad : 1, kB, kT),
            report::fitLogAxis({lo, hi}, kB, kT, 1), any && lo > 0 && hi / lo > 20};
}

void violinYAxis(std::ostringstream& o, const ViolinAxis& y, const std::string& label) {
    if (!y.logScale) {
        yAxis(o, y.linear, label);
        return;
    }
    const report::LogAxis& log = y.log;
    o << "<g class=\"y-axis log\" data-y-min=\"" << log.lo << "\" data-y-max=\"" << log.hi
      << "\">\n";
    for (double d : log.decades())
        for (double m : {1.0, 2.0, 5.0}) {
            const double t = d * m;
            if (t > log.hi)
                break;
            o << "<line x1=\"" << kL << "\" y1=\"" << report::px(log.map(t)) << "\" x2=\"" << kR
              << "\" y2=\"" << report::px(log.map(t))
              << "\" stroke=\"#e4e4e4\"/><text class=\"tick\" x=\"" << (kL - 6) << "\" y=\""
              << report::px(log.map(t) + 4) << "\" text-anchor=\"end\">" << report::siNumber(t)
              << "</text>\n";
        }
    o << "<text class=\"axis-label\" transform=\"translate(22," << (kT + kB) / 2
      << ") rotate(-90)\" text-anchor=\"middle\">" << report::escapeXml(label)
      << " (log scale)</text>\n</g>\n";
}

// One violin of the sorted samples `s` centred at `cx`: its body (a Gaussian kernel density,
// Silverman's bandwidth), its range, its median and its samples.
void drawViolin(std::ostringstream& o, const std::vector<double>& s, double cx, double halfWidth,
                const char* color, const ViolinAxis& y) {
    const double n = static_cast<double>(s.size());
    std::vector<double> t(s.size());
    std::transform(s.begin(), s.end(), t.begin(), [&](double v) { return y.fwd(v); });
    const double mean = std::accumulate(t.begin(), t.end(), 0.0) / n;
    double var = 0;
    for (double v : t)
        var += (v - mean) * (v - mean);
    const double sd = std::sqrt(var / std::max(1.0, n - 1));
    // Silverman's rule; a floor so identical samples still draw a shape
    const double bw =
        std::max(1.06 * sd * std::pow(n, -0.2), std::max(std::fabs(mean) * 0.005, 1e-30));
    const int steps = 48;
    const double a = t.front() - 2 * bw, b = t.back() + 2 * bw;
    std::vector<double> density(steps + 1);
    double peak = 0;
    for (int k = 0; k <= steps; ++k) {
        const double at = a + (b - a) * k / steps;
        double sum = 0;
        for (double v : t)
            sum += std::exp(-0.5 * ((at - v) / bw) * ((at - v) / bw));
        density[k] = sum;
        peak = std::max(peak, sum);
    }
    std::string right, left;
    for (int k = 0; k <= steps; ++k) {
        const double at = y.inv(a + (b - a) * k / steps);
        const double w = peak > 0 ? halfWidth * density[k] / peak : 0;
        right += report::px(cx + w) + "," + report::px(y.map(at)) + " ";
        left = report::px(cx - w) + "," + report::px(y.map(at)) + " " + left;
    }
    o << "<polygon class=\"body\" points=\"" << right << left << "\" fill=\"" << color
      << "\" fill-opacity=\"0.45\" stroke=\"" << color << "\"/>\n";
    const double median =
        s.size() % 2 ? s[s.size() / 2] : 0.5 * (s[s.size() / 2 - 1] + s[s.size() / 2]);
    o << "<line class=\"range\" x1=\"" << report::px(cx) << "\" y1=\""
      << report::px(y.map(s.front())) << "\" x2=\"" << report::px(cx) << "\" y2=\""
      << report::px(y.map(s.back())) << "\" stroke=\"#333\"/>\n";
    o << "<line class=\"median\" x1=\"" << report::px(cx - halfWidth * 0.6) << "\" y1=\""
      << report::px(y.map(median)) << "\" x2=\"" << report::px(cx + halfWidth * 0.6) << "\" y2=\""
      << report::px(y.map(median)) << "\" stroke=\"#000\" stroke-width=\"2\"><title>median "
      << report::siNumber(median) << ", min " << report::siNumber(s.front()) << ", max "
      << report::siNumber(s.back()) << ", " << s.size() << " samples</title></line>\n";
    for (double v : s)
        o << "<circle class=\"sample\" cx=\"" << report::px(cx) << "\" cy=\""
          << report::px(y.map(v)) << "\" r=\"1.8\" fill=\"#222\"/>\n";
}

} // namespace

std::string violinSvg(const std::vector<Distribution>& distributions, const PlotText& text) {
    std::ostringstream o;
    header(o, text, "violins");
    const ViolinAxis y = violinAxis(distributions);
    violinYAxis(o, y, text.yLabel);
    const double slot =
        distributions.empty() ? 0 : (kR - kL) / static_cast<double>(distributions.size());
    const double halfWidth = std::min(40.0, slot * 0.42);
    o << "<g class=\"distributions\">\n";
    for (std::size_t i = 0; i < distributions.size(); ++i) {
        std::vector<double> s;
        for (double v : distributions[i].samples)
            if (std::isfinite(v))
                s.push_back(v);
        std::sort(s.begin(), s.end());
        const double cx = kL + slot * (static_cast<double>(i) + 0.5);
        o << "<g class=\"violin\" data-label=\"" << report::escapeXml(distributions[i].label)
          << "\" data-samples=\"" << s.size() << "\">\n";
        if (!s.empty())
            drawViolin(o, s, cx, halfWidth, kPalette[i % 10], y);
        o << "</g>\n";
        xLabel(o, cx, distributions[i].label);
    }
    o << "</g>\n<line x1=\"" << kL << "\" y1=\"" << kB << "\" x2=\"" << kR << "\" y2=\"" << kB
      << "\" stroke=\"#333\"/>\n</svg>\n";
    return o.str();
}

std::string scatterSvg(const std::vector<ScatterSeries>& series, const PlotText& text,
                       const std::string& xLabel) {
    std::ostringstream o;
    header(o, text, "scatter");
    std::vector<double> values;
    for (const auto& s : series)
        for (const auto& p : s.points)
            if (p.x > 0 && p.y > 0 && std::isfinite(p.x) && std::isfinite(p.y)) {
                values.push_back(p.x);
                values.push_back(p.y);
            }
    // One range for both axes, so that the diagonal is y = x; the plot area is square.
    const double side = kB - kT;
    const report::LogAxis x = report::fitLogAxis(values, kL, kL + side, 1);
    const report::LogAxis y = report::fitLogAxis(values, kB, kT, 1);
    o << "<g class=\"axes\" data-min=\"" << x.lo << "\" data-max=\"" << x.hi << "\">\n";
    for (double d : x.decades()) {
        o << "<line x1=\"" << report::px(x.map(d)) << "\" y1=\"" << kT << "\" x2=\""
          << report::px(x.map(d)) << "\" y2=\"" << kB << "\" stroke=\"#e4e4e4\"/>"
          << "<text class=\"tick\" x=\"" << report::px(x.map(d)) << "\" y=\"" << (kB + 16)
          << "\" text-anchor=\"middle\">" << report::siNumber(d) << "</text>\n";
        o << "<line x1=\"" << kL << "\" y1=\"" << report::px(y.map(d)) << "\" x2=\"" << (kL + side)
          << "\" y2=\"" << report::px(y.map(d)) << "\" stroke=\"#e4e4e4\"/>"
          << "<text class=\"tick\" x=\"" << (kL - 6) << "\" y=\"" << report::px(y.map(d) + 4)
          << "\" text-anchor=\"end\">" << report::siNumber(d) << "</text>\n";
    }
    o << "<text class=\"axis-label\" x=\"" << (kL + side / 2) << "\" y=\"" << (kB + 36)
      << "\" text-anchor=\"middle\">" << report::escapeXml(xLabel) << " (log scale)</text>\n"
      << "<text class=\"axis-label\" transform=\"translate(22," << (kT + kB) / 2
      << ") rotate(-90)\" text-anchor=\"middle\">" << report::escapeXml(text.yLabel)
      << " (log scale)</text>\n</g>\n";
    // y = x and the +-10% band around it.
    const auto line = [&](double factor, const char* cls, const char* style) { // y = factor x
        const double from = std::max(x.lo, x.lo / factor), to = std::min(x.hi, x.hi / factor);
        o << "<line class=\"" << cls << "\" x1=\"" << report::px(x.map(from)) << "\" y1=\""
          << report::px(y.map(from * factor)) << "\" x2=\"" << report::px(x.map(to)) << "\" y2=\""
          << report::px(y.map(to * factor)) << "\" " << style << "/>\n";
    };
    line(1.0, "identity", "stroke=\"#333\"");
    line(1.1, "band", "stroke=\"#999\" stroke-dasharray=\"4 3\"");
    line(1.0 / 1.1, "band", "stroke=\"#999\" stroke-dasharray=\"4 3\"");
    for (std::size_t i = 0; i < series.size(); ++i) {
        const char* colour = kPalette[i % 10];
        o << "<g class=\"series\" data-label=\"" << report::escapeXml(series[i].label)
          << "\" data-points=\"" << series[i].points.size() << "\">\n";
        for (const auto& p : series[i].points)
            if (p.x > 0 && p.y > 0 && std::isfinite(p.x) && std::isfinite(p.y))
                o << "<circle cx=\"" << report::px(x.map(p.x)) << "\" cy=\""
                  << report::px(y.map(p.y)) << "\" r=\"3\" fill=\"" << colour
                  << "\" fill-opacity=\"0.75\"><title>" << report::escapeXml(p.label)
                  << "</title></circle>\n";
        o << "</g>\n";
        const double ly = kT + 14 + 18 * static_cast<double>(i);
        o << "<circle cx=\"" << (kL + side + 30) << "\" cy=\"" << report::px(ly - 4)
          << "\" r=\"4\" fill=\"" << colour << "\"/><text class=\"legend\" x=\"" << (kL + side + 40)
          << "\" y=\"" << report::px(ly) << "\">"
          << report::escapeXml(series[i].label.size() > 40 ? series[i].label.substr(0, 39) + "…"
                                                           : series[i].label)
          << "</text>\n";
    }
    o << "</svg>\n";
    return o.str();
}

} // namespace roofline
