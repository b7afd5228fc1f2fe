#include "report/roofline_chart.hpp"
#include "report/roofline_canvas.hpp"
#include "report/kernel_names.hpp"
#include "report/columns.hpp"

#include "report/chart_layout.hpp"
#include "report/format.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <numeric>
#include <sstream>

namespace roofline::report {

using namespace canvas; // the parts of a chart (report/roofline_canvas.hpp)

bool ChartPoint::drawable() const noexcept {
    return seconds > 0 && flops > 0 && std::isfinite(seconds) && std::isfinite(flops);
}

std::string describe(const KernelGroup& g, const Ceilings& ceilings, double total) {
    char buf[256];
    std::ostringstream o;
    o << g.name << '\n';
    if (!g.scope.empty())
        o << "scope: " << g.scope << '\n';
    std::snprintf(buf, sizeof buf, "%zu launch%s, %.4g ms (%.1f%% of time)\n", g.launches,
                  g.launches == 1 ? "" : "es", g.seconds * 1e3,
                  total > 0 ? 100.0 * g.seconds / total : 0.0);
    o << buf;
    const double flops = g.totalFlops();
    o << "FLOPs " << siNumber(flops) << ", " << siNumber(g.seconds > 0 ? flops / g.seconds : 0)
      << "FLOP/s, tensor cores " << static_cast<int>(std::lround(100 * g.tensorShare())) << "%\n";
    for (std::size_t l = 0; l < kMemoryLevelCount; ++l) {
        o << kLevelName[l] << ": " << siNumber(g.bytes[l]) << "B";
        if (g.bytes[l] > 0)
            o << ", AI " << siNumber(flops / g.bytes[l]) << " FLOP/B";
        o << '\n';
    }
    o << "bound: " << toString(g.bound(ceilings));
    if (g.unmeasured)
        o << "\n" << g.unmeasured << " launch(es) without counters not included";
    if (g.unmatched)
        o << " (" << g.unmatched << " whose replay passes ran other kernels)";
    if (g.differing)
        o << "\nflagged: " << g.differing
          << " launch(es) whose replay passes ran another grid or block (values kept)";
    return o.str();
}

std::vector<ChartKernel> chartKernels(const std::vector<KernelGroup>& groups, Family family,
                                      const Ceilings& ceilings, double total, std::size_t labels,
                                      bool verbatim) {
    std::vector<ChartKernel> out;
    std::vector<std::uint32_t> ids; // the table's '#' of each kernel drawn
    for (const auto& g : groups) {
        Family f{};
        if (!g.dominantFamily(f) || f != family || !(g.seconds > 0))
            continue;
        ids.push_back(g.kernelId);
        ChartKernel k;
        k.name = verbatim ? g.name : displayName(g.name);
        if (g.differing + g.unmatched > 0) // replay caveats: in the legend, details on hover
            k.name = "[!] " + k.name;
        k.detail = describe(g, ceilings, total);
        k.bound = toString(g.bound(ceilings));
        k.scope = g.scope;
        k.now.flops = g.flopsIn(family);
        for (std::size_t kind = 0; kind < kFlopKindCount; ++kind)
            if (inFamily(static_cast<FlopKind>(kind), family) && g.flops[kind] > 0)
                k.kinds |= 1u << kind;
        k.now.seconds = g.seconds;
        k.now.bytes = g.bytes;
        k.share = total > 0 ? g.seconds / total : 0;
        out.push_back(std::move(k));
    }
    std::vector<std::size_t> order(out.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return out[a].share > out[b].share; });
    for (std::size_t i = 0; i < order.size() && i < labels; ++i)
        out[order[i]].label = static_cast<int>(ids[order[i]]);
    return out;
}

namespace {

// The legend lists every labelled kernel within the canvas, above the notes: up to 14 with the
// bound under each, up to 25 without; beyond that the kernels with the least time lose their
// labels (the HTML page's hover details still name every kernel).
ChartSpec withFittedLegend(ChartSpec spec) {
    const double start = kTop + 4 + 20.0 * kMemoryLevelCount + (spec.comparison ? 20 : 0) + 28;
    const double room = kBottom + 40 - start;
    std::vector<ChartKernel*> labelled;
    for (auto& k : spec.kernels)
        if (k.label >= 0)
            labelled.push_back(&k);
    const auto withBounds = static_cast<std::size_t>(room / 31);
    const auto without = static_cast<std::size_t>(room / 18);
    if (labelled.size() <= withBounds)
        return spec;
    for (auto& k : spec.kernels)
        k.bound.clear();
    std::stable_sort(labelled.begin(), labelled.end(),
                     [](const ChartKernel* a, const ChartKernel* b) { return a->share > b->share; });
    for (std::size_t i = without; i < labelled.size(); ++i)
        labelled[i]->label = -1;
    return spec;
}

// The roofs of the spec's family.
void chooseRoofs(Canvas& cv) {
    const ChartSpec& spec = cv.spec;
    auto& compute = cv.compute;
    double& top = cv.top;
    double& bandwidthMax = cv.bandwidthMax;
    // Only the roofs of the kinds the kernels used (a BF16 GEMM must not seem to sit on the
    // FP64-tensor roof); every roof of the family when no kernel says.
    std::uint32_t used = 0;
    for (const auto& k : spec.kernels)
        used |= k.kinds;
    for (std::size_t k = 0; k < kFlopKindCount; ++k) {
        const auto kind = static_cast<FlopKind>(k);
        if (inFamily(kind, spec.family) && spec.ceilings.flopsPerSecond[k] > 0 &&
            (used == 0 || (used & (1u << k))))
            compute.emplace_back(kind, spec.ceilings.flopsPerSecond[k]);
    }
    for (const auto& c : compute)
        top = std::max(top, c.second);
    for (double b : spec.ceilings.bytesPerSecond)
        bandwidthMax = std::max(bandwidthMax, b);
}

void fitAxes(Canvas& cv) {
    const ChartSpec& spec = cv.spec;
    auto& compute = cv.compute;
    const double top = cv.top, bandwidthMax = cv.bandwidthMax;
    LogAxis& x = cv.x;
    LogAxis& y = cv.y;
    auto& roofNotes = cv.roofNotes;
    // Axes fitted to the kernels: their points with a margin, then the roofs and ridge points
    // that lie within a decade of them (the roofline's shape near the data); a roof further away
    // is left out and named in the notes, so that points never crowd into a corner of a plot
    // sized for roofs they are nowhere near. Without kernels: the roofs and ridge points.
    std::vector<double> xs, ys;
    for (const auto& k : spec.kernels)
        for (const ChartPoint* p : {&k.now, k.hasBefore ? &k.before : nullptr}) {
            if (!p || !p->drawable())
                continue;
            ys.push_back(rate(*p));
            for (std::size_t l = 0; l < kMemoryLevelCount; ++l)
                xs.push_back(intensity(*p, l));
        }
    // One kernel's extreme intensity (an L1 intensity of 2.7e6) must not squeeze every other
    // point into a corner: the axis spans at most 4 decades left of the first ridge point and 3
    // right of the last; points beyond sit on its edge, marked (kClampedMark).
    double firstRidge = 0, lastRidge = 0;
    for (const auto& c : compute)
        for (double b : spec.ceilings.bytesPerSecond)
            if (b > 0) {
                const double ridge = c.second / b;
                firstRidge = firstRidge > 0 ? std::min(firstRidge, ridge) : ridge;
                lastRidge = std::max(lastRidge, ridge);
            }
    if (firstRidge > 0)
        for (double& v : xs)
            v = std::clamp(v, firstRidge / 1e4, lastRidge * 1e3);
    if (!xs.empty() && !ys.empty()) {
        const auto [xMin, xMax] = std::minmax_element(xs.begin(), xs.end());
        const auto [yMin, yMax] = std::minmax_element(ys.begin(), ys.end());
        const double xLo = *xMin / 3, xHi = *xMax * 3, yLo = *yMin / 3, yHi = *yMax * 2;
        xs = {xLo, xHi};
        ys = {yLo, yHi};
        for (const auto& c : compute) {
            if (c.second <= yHi * 10)
                ys.push_back(c.second * 1.3);
            else
                roofNotes.push_back(std::string(roofName(c.first)) + ' ' + siNumber(c.second) +
                                    "FLOP/s");
            for (double b : spec.ceilings.bytesPerSecond)
                if (b > 0 && c.second / b >= xLo / 10 && c.second / b <= xHi * 10)
                    xs.push_back(c.second / b);
        }
    } else {
        for (const auto& c : compute) {
            ys.push_back(c.second);
            ys.push_back(c.second * 1.5);
            for (double b : spec.ceilings.bytesPerSecond)
                if (b > 0)
                    xs.push_back(c.second / b);
        }
        if (top > 0 && bandwidthMax > 0) // room left of the first ridge point for roof labels
            xs.push_back(top / bandwidthMax / 10);
    }
    x = fitLogAxis(xs, kLeft, kRight, 2);
    y = fitLogAxis(ys, kBottom, kTop, 2, true);
    if (!ys.empty() && top > 0 && y.lo < top / 1e7) // keep the roofs readable: at most 7 decades
        y = fitLogAxis({top / 1e6, top * 1.5}, kBottom, kTop, 3, true);
    // compute roofs above the plot are not drawn (their labels would leave it)
    compute.erase(std::remove_if(compute.begin(), compute.end(),
                                 [&](const auto& c) { return c.second > y.hi; }),
                  compute.end());
}

// The SVG element, its definitions, the title and the subtitle.
void writeHeader(Canvas& cv, bool xmlHeader) {
    const ChartSpec& spec = cv.spec;
    std::ostringstream& o = cv.o;
    if (xmlHeader)
        o << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
    o << "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"roofline-chart\" width=\"" << kWidth
      << "\" height=\"" << kHeight << "\" viewBox=\"0 0 " << kWidth << ' ' << kHeight
      << "\" font-family=\"DejaVu Sans, Arial, sans-serif\" font-size=\"12\" data-family=\""
      << toString(spec.family) << "\">\n";
    o << "<defs><marker id=\"arrow\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" markerWidth=\"6\""
         " markerHeight=\"6\" orient=\"auto-start-reverse\"><path d=\"M0,0 L10,5 L0,10 z\" "
         "fill=\"#555\"/></marker></defs>\n";
    o << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
    o << "<text class=\"title\" x=\"" << kLeft
      << "\" y=\"24\" font-size=\"17\" font-weight=\"bold\">" << escapeXml(spec.title)
      << "</text>\n";
    // The subtitle (a recording's path can be long) keeps what the canvas holds, all on hover.
    constexpr std::size_t kSubtitleWidth = 130; // 890 px of 12 px text
    o << "<text class=\"subtitle\" x=\"" << kLeft << "\" y=\"44\" fill=\"#555\">"
      << escapeXml(shorten(spec.subtitle, kSubtitleWidth, false));
    if (spec.subtitle.size() > kSubtitleWidth)
        o << "<title>" << escapeXml(spec.subtitle) << "</title>";
    o << "</text>\n";
}

void drawFrame(Canvas& cv) {
    const ChartSpec& spec = cv.spec;
    std::ostringstream& o = cv.o;
    const LogAxis& x = cv.x;
    const LogAxis& y = cv.y;
    // plot frame, grid and axes
    o << "<g class=\"plot\" data-x-min=\"" << x.lo << "\" data-x-max=\"" << x.hi
      << "\" data-y-min=\"" << y.lo << "\" data-y-max=\"" << y.hi << "\">\n";
    o << "<clipPath id=\"clip-" << toString(spec.family) << "\"><rect x=\"" << kLeft << "\" y=\""
      << kTop << "\" width=\"" << (kRight - kLeft) << "\" height=\"" << (kBottom - kTop)
      << "\"/></clipPath>\n";
    o << "<rect class=\"frame\" x=\"" << kLeft << "\" y=\"" << kTop << "\" width=\""
      << (kRight - kLeft) << "\" height=\"" << (kBottom - kTop)
      << "\" fill=\"none\" stroke=\"#333\"/>\n";
    o << "<g class=\"x-axis\">\n";
    for (double d : x.decades()) {
        const double p = x.map(d);
        o << "<line x1=\"" << px(p) << "\" y1=\"" << kTop << "\" x2=\"" << px(p) << "\" y2=\""
          << kBottom << "\" stroke=\"#ddd\"/><text class=\"tick\" x=\"" << px(p) << "\" y=\""
          << (kBottom + 18) << "\" text-anchor=\"middle\">" << siNumber(d) << "</text>\n";
    }
    o << "<text class=\"axis-label\" x=\"" << px((kLeft + kRight) / 2) << "\" y=\""
      << (kBottom + 40)
      << "\" text-anchor=\"middle\">arithmetic intensity (FLOP/byte at each level)</text>\n</g>\n";
    o << "<g class=\"y-axis\">\n";
    for (double d : y.decades()) {
        const double p = y.map(d);
        o << "<line x1=\"" << kLeft << "\" y1=\"" << px(p) << "\" x2=\"" << kRight << "\" y2=\""
          << px(p) << "\" stroke=\"#ddd\"/><text class=\"tick\" x=\"" << (kLeft - 6) << "\" y=\""
          << px(p + 4) << "\" text-anchor=\"end\">" << siNumber(d) << "</text>\n";
    }
    o << "<text class=\"axis-label\" transform=\"translate(22," << px((kTop + kBottom) / 2)
      << ") rotate(-90)\" text-anchor=\"middle\">" << toString(spec.family)
      << " performance (FLOP/s)</text>\n</g>\n";
}

void drawRoofs(Canvas& cv) {
    const ChartSpec& spec = cv.spec;
    std::ostringstream& o = cv.o;
    const LogAxis& x = cv.x;
    const LogAxis& y = cv.y;
    auto& compute = cv.compute;
    const double top = cv.top, bandwidthMax = cv.bandwidthMax;
    auto& roofLabels = cv.roofLabels;
    auto& obstacles = cv.obstacles;
    // roofs
    o << "<g class=\"roofs\" clip-path=\"url(#clip-" << toString(spec.family) << ")\">\n";
    const double dxPerDecade = (kRight - kLeft) / std::log10(x.hi / x.lo);
    const double dyPerDecade = (kBottom - kTop) / std::log10(y.hi / y.lo);
    const double angle = -std::atan2(dyPerDecade, dxPerDecade) * 180.0 / M_PI;
    for (std::size_t l = 0; l < kMemoryLevelCount; ++l) {
        const double b = spec.ceilings.bytesPerSecond[l];
        if (!(b > 0))
            continue;
        const double x0 = std::max(x.lo, y.lo / b);
        const double x1 = top > 0 ? std::min(x.hi, top / b) : x.hi;
        if (x1 <= x0)
            continue;
        o << "<line class=\"roof memory\" data-level=\"" << kLevelName[l] << "\" data-value=\"" << b
          << "\" x1=\"" << px(x.map(x0)) << "\" y1=\"" << px(y.map(x0 * b)) << "\" x2=\""
          << px(x.map(x1)) << "\" y2=\"" << px(y.map(x1 * b)) << "\" stroke=\"" << kLevelColor[l]
          << "\" stroke-width=\"2\"/>\n";
        // label a little way along the line (drawn after the kernels, over their lines)
        const double xl = x0 * std::pow(x1 / x0, 0.12);
        const double ax = x.map(xl), ay = y.map(xl * b) - 6;
        const std::string text = std::string(kLevelName[l]) + ' ' + siNumber(b) + "B/s";
        std::ostringstream t;
        t << "<text class=\"roof-label\" x=\"" << px(ax) << "\" y=\"" << px(ay) << "\" fill=\""
          << kLevelColor[l] << "\"" << kHalo << " transform=\"rotate(" << px(angle) << ' ' << px(ax)
          << ' ' << px(ay) << ")\">" << text << "</text>\n";
        roofLabels.push_back(t.str());
        // the rotated text's bounding box
        const double w = textWidth(text), rad = angle * M_PI / 180.0;
        const double ex = w * std::cos(rad), ey = w * std::sin(rad);
        obstacles.push_back({std::min(ax, ax + ex) - 2, std::min(ay - 12, ay + ey - 12),
                             std::max(ax, ax + ex) + 2, std::max(ay + 3, ay + ey + 3)});
    }
    // compute roofs from the highest down; a label that would overlap the one above goes below
    // its line instead
    std::sort(compute.begin(), compute.end(),
              [](const auto& a, const auto& b) { return a.second > b.second; });
    double lastLabelY = -1e9;
    for (const auto& [kind, p] : compute) {
        const double x0 = bandwidthMax > 0 ? std::max(x.lo, p / bandwidthMax) : x.lo;
        double labelY = y.map(p) - 6;
        if (labelY - lastLabelY < 14)
            labelY = y.map(p) + 15;
        lastLabelY = labelY;
        o << "<line class=\"roof compute\" data-kind=\"" << toString(kind) << "\" data-value=\""
          << p << "\" x1=\"" << px(x.map(x0)) << "\" y1=\"" << px(y.map(p)) << "\" x2=\"" << kRight
          << "\" y2=\"" << px(y.map(p)) << "\" stroke=\"#444\" stroke-width=\"2\"/>\n";
        const std::string text = std::string(roofName(kind)) + ' ' + siNumber(p) + "FLOP/s";
        std::ostringstream t;
        t << "<text class=\"roof-label\" x=\"" << (kRight - 6) << "\" y=\"" << px(labelY)
          << "\" text-anchor=\"end\" fill=\"#444\"" << kHalo << ">" << text << "</text>\n";
        roofLabels.push_back(t.str());
        obstacles.push_back({kRight - 6 - textWidth(text), labelY - 12, kRight - 6, labelY + 3});
    }
    o << "</g>\n";
}

} // namespace

std::string renderRoofline(const ChartSpec& given, bool xmlHeader) {
    Canvas cv(withFittedLegend(given));
    chooseRoofs(cv);
    fitAxes(cv);
    writeHeader(cv, xmlHeader);
    drawFrame(cv);
    drawRoofs(cv);
    drawKernels(cv);
    drawLabels(cv);
    drawLegend(cv);
    writeNotes(cv);
    cv.o << "</svg>\n";
    return cv.o.str();
}

std::string htmlPage(const std::string& title, const std::vector<std::string>& svgs,
                     const std::string& preface) {
    std::ostringstream o;
    o << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>"
      << escapeXml(title) << "</title>\n<style>\n"
      << "body{font-family:DejaVu Sans,Arial,sans-serif;margin:16px;color:#222}\n"
      << "pre.preface{background:#f6f6f6;padding:8px;font-size:12px;white-space:pre-wrap;"
         "overflow-wrap:anywhere}\n"
      << ".kernel{cursor:pointer}.kernel:hover .pt{stroke:#000;stroke-width:2}\n"
      << ".kernel.dim{opacity:.25}\n"
      << "#details{position:fixed;right:16px;bottom:16px;max-width:520px;white-space:pre-wrap;"
         "background:#fffbe6;border:1px solid #cc9;padding:8px;font-size:12px;display:none}\n"
      << "</style></head><body>\n<h1>" << escapeXml(title) << "</h1>\n";
    if (!preface.empty())
        o << "<pre class=\"preface\">" << escapeXml(preface) << "</pre>\n";
    for (const auto& svg : svgs)
        o << "<div class=\"chart\">\n" << svg << "</div>\n";
    o << "<div id=\"details\"></div>\n<script>\n"
      << "const box=document.getElementById('details');\n"
      << "document.querySelectorAll('.kernel').forEach(k=>{\n"
      << " k.addEventListener('mouseenter',()=>{box.textContent=k.dataset.detail;"
         "box.style.display='block';const svg=k.closest('svg');"
         "svg.querySelectorAll('.kernel').forEach(o=>{if(o!==k)o.classList.add('dim')});});\n"
      << " k.addEventListener('mouseleave',()=>{box.style.display='none';"
         "k.closest('svg').querySelectorAll('.kernel').forEach(o=>o.classList.remove('dim'));});\n"
      << "});\n</script>\n</body></html>\n";
    return o.str();
}

} // namespace roofline::report
