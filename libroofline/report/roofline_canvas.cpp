#include "report/roofline_canvas.hpp"
#include "report/columns.hpp"
#include "report/format.hpp"
#include "report/kernel_names.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>

namespace roofline::report::canvas {
namespace {

// Legend entries that tell kernels apart: names shortened in the middle (so names that differ
// at the end stay distinct) to what the legend's column holds beside "N " and " (12.5%)" (266 px
// of 12 px text: ~39 characters of DejaVu Sans); one kernel name in several scopes gets its
// innermost scope name; what still collides a number "(N)", as in the tables.
std::vector<std::string> legendNames(const std::vector<const ChartKernel*>& kernels) {
    constexpr std::size_t kLegendWidth = 22; // with the id and the share: the legend's width
    std::vector<std::string> names, identities;
    for (const ChartKernel* k : kernels) {
        names.push_back(k->name);
        identities.push_back(k->name + '\t' + k->scope);
    }
    std::vector<std::string> out = abbreviateNames(names, identities, kLegendWidth);
    // A kernel name in several scopes gets its innermost scope name where that tells the
    // look-alikes apart (in one scope it would only take the name's room).
    const auto innermost = [&](std::size_t i) {
        const std::string& scope = kernels[i]->scope;
        const auto slash = scope.rfind('/');
        return slash == std::string::npos ? scope : scope.substr(slash + 1);
    };
    const std::vector<std::string> first = out;
    for (std::size_t i = 0; i < out.size(); ++i) {
        bool otherScope = false;
        for (std::size_t j = 0; j < first.size(); ++j)
            otherScope |= j != i && first[j] == first[i] && innermost(j) != innermost(i);
        if (otherScope && !innermost(i).empty())
            out[i] = abbreviateName(kernels[i]->name, 15, names) + " @ " +
                     shortenScope(innermost(i), 10);
    }
    return out;
}

} // namespace

std::string roofName(FlopKind k) {
    switch (k) {
    case FlopKind::FP64:
        return "FP64";
    case FlopKind::FP32:
        return "FP32";
    case FlopKind::FP16:
        return "FP16";
    case FlopKind::TensorFP64:
        return "FP64 tensor";
    case FlopKind::TensorTF32:
        return "TF32 tensor";
    case FlopKind::TensorFP16:
        return "FP16 tensor";
    case FlopKind::TensorBF16:
        return "BF16 tensor";
    case FlopKind::TensorFP8:
        return "FP8 tensor";
    case FlopKind::TensorINT8:
        return "INT8 tensor";
    }
    return "?";
}

double intensity(const ChartPoint& p, std::size_t level) {
    return p.bytes[level] > 0 ? p.flops / p.bytes[level] : 0.0;
}

double rate(const ChartPoint& p) {
    return p.seconds > 0 ? p.flops / p.seconds : 0.0;
}

std::string marker(std::size_t level, double x, double y, double r, bool hollow) {
    const std::string fill = hollow ? "none" : kLevelColor[level];
    const std::string common = " class=\"pt " + std::string(kLevelName[level]) + "\" fill=\"" +
                               fill + "\" stroke=\"" + kLevelColor[level] + "\"";
    std::ostringstream o;
    if (level == 0)
        o << "<circle" << common << " cx=\"" << px(x) << "\" cy=\"" << px(y) << "\" r=\"" << px(r)
          << "\"/>";
    else if (level == 1)
        o << "<rect" << common << " x=\"" << px(x - r) << "\" y=\"" << px(y - r) << "\" width=\""
          << px(2 * r) << "\" height=\"" << px(2 * r) << "\"/>";
    else
        o << "<path" << common << " d=\"M" << px(x) << ',' << px(y - 1.2 * r) << " L"
          << px(x + 1.1 * r) << ',' << px(y + 0.8 * r) << " L" << px(x - 1.1 * r) << ','
          << px(y + 0.8 * r) << " Z\"/>";
    return o.str();
}

void drawKernels(Canvas& cv) {
    const ChartSpec& spec = cv.spec;
    std::ostringstream& o = cv.o;
    const LogAxis& x = cv.x;
    const LogAxis& y = cv.y;
    auto& obstacles = cv.obstacles;
    auto& anchors = cv.anchors;
    // kernels: largest first so small ones stay visible on top
    std::vector<std::size_t> order(spec.kernels.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        return spec.kernels[a].share > spec.kernels[b].share;
    });
    for (const ChartKernel& k : spec.kernels) { // every marker is an obstacle for every label
        if (!k.now.drawable())
            continue;
        const double r = 3.0 + 14.0 * std::sqrt(std::clamp(k.share, 0.0, 1.0));
        const double yk = y.map(rate(k.now));
        for (std::size_t l = 0; l < kMemoryLevelCount; ++l)
            if (k.now.bytes[l] > 0) {
                const double xk = x.map(intensity(k.now, l));
                obstacles.push_back({xk - r * 1.1, yk - r * 1.2, xk + r * 1.1, yk + r * 1.0});
            }
    }
    o << "<g class=\"kernels\">\n";
    for (std::size_t i : order) {
        const ChartKernel& k = spec.kernels[i];
        if (!k.now.drawable())
            continue;
        const double r = 3.0 + 14.0 * std::sqrt(std::clamp(k.share, 0.0, 1.0));
        o << "<g class=\"kernel\" data-name=\"" << escapeXml(k.name) << "\" data-share=\""
          << k.share << "\" data-label=\"" << k.label << "\" data-detail=\"" << escapeXml(k.detail)
          << "\">\n<title>" << escapeXml(k.detail) << "</title>\n";
        const double yNow = y.map(rate(k.now));
        std::string link;
        for (std::size_t l = 0; l < kMemoryLevelCount; ++l)
            if (k.now.bytes[l] > 0)
                link += px(x.map(intensity(k.now, l))) + "," + px(yNow) + " ";
        o << "<polyline class=\"link\" points=\"" << link
          << "\" fill=\"none\" stroke=\"#888\" stroke-width=\"1.5\"/>\n";
        if (k.hasBefore && k.before.drawable()) {
            const double yBefore = y.map(rate(k.before));
            for (std::size_t l = 0; l < kMemoryLevelCount; ++l) {
                if (!(k.before.bytes[l] > 0) || !(k.now.bytes[l] > 0))
                    continue;
                const double xb = x.map(intensity(k.before, l)), xa = x.map(intensity(k.now, l));
                o << marker(l, xb, yBefore, r * 0.8, true) << '\n';
                o << "<line class=\"change\" x1=\"" << px(xb) << "\" y1=\"" << px(yBefore)
                  << "\" x2=\"" << px(xa) << "\" y2=\"" << px(yNow) << "\" stroke=\"#555\""
                  << " stroke-dasharray=\"4 3\" marker-end=\"url(#arrow)\"/>\n";
            }
        }
        double labelX = kLeft;
        for (std::size_t l = 0; l < kMemoryLevelCount; ++l)
            if (k.now.bytes[l] > 0) {
                const double ai = intensity(k.now, l);
                const double xp = x.map(ai);
                o << marker(l, xp, yNow, r, false) << '\n';
                if (ai > x.hi || ai < x.lo) // beyond the axis: on its edge, an arrow says so
                    o << "<text class=\"clamped\" x=\"" << px(ai > x.hi ? xp + r + 2 : xp - r - 2)
                      << "\" y=\"" << px(yNow + 4) << "\" text-anchor=\""
                      << (ai > x.hi ? "start" : "end") << "\" fill=\"" << kLevelColor[l] << "\">"
                      << (ai > x.hi ? "&#187;" : "&#171;") << "<title>" << kLevelName[l]
                      << " intensity " << siNumber(ai) << " FLOP/byte, beyond the axis"
                      << "</title></text>\n";
                labelX = std::max(labelX, xp);
            }
        if (const double perSecond = rate(k.now); perSecond < y.lo) // on the floor, marked
            o << "<text class=\"clamped\" x=\"" << px(labelX) << "\" y=\"" << px(yNow - r - 3)
              << "\" text-anchor=\"middle\" fill=\"#555\">&#8595;<title>" << siNumber(perSecond)
              << (spec.family == Family::Tensor ? " OP/s" : " FLOP/s") << ", below the axis"
              << "</title></text>\n";
        if (k.label >= 0)
            anchors.push_back({k.label, labelX, yNow, r});
        o << "</g>\n";
    }
    o << "</g>\n";
}

void drawLabels(Canvas& cv) {
    std::ostringstream& o = cv.o;
    auto& obstacles = cv.obstacles;
    auto& anchors = cv.anchors;
    // Roof labels over the kernels' lines (a white halo keeps them readable), then the kernels'
    // numbers, each placed clear of every other number, marker and roof label.
    o << "<g class=\"roof-labels\">\n";
    for (const auto& t : cv.roofLabels)
        o << t;
    o << "</g>\n<g class=\"labels\">\n";
    std::sort(anchors.begin(), anchors.end(),
              [](const Canvas::Anchor& a, const Canvas::Anchor& b) { return a.label < b.label; });
    const Box plot{kLeft + 1, kTop + 1, kRight - 1, kBottom - 1};
    for (const Canvas::Anchor& a : anchors) {
        const std::string text = std::to_string(a.label);
        const Box b = placeLabel(a.x, a.y, a.r, textWidth(text) + 2, 14, obstacles, plot);
        obstacles.push_back(b);
        const double cx = (b.x0 + b.x1) / 2, cy = (b.y0 + b.y1) / 2;
        if (std::hypot(cx - a.x, cy - a.y) > a.r + 14) // far from its marker: a leader line
            o << "<line class=\"leader\" x1=\"" << px(a.x) << "\" y1=\"" << px(a.y) << "\" x2=\""
              << px(cx) << "\" y2=\"" << px(cy) << "\" stroke=\"#999\" stroke-width=\"0.8\"/>\n";
        o << "<text class=\"label\" data-label=\"" << a.label << "\" x=\"" << px(b.x0 + 1)
          << "\" y=\"" << px(b.y1 - 3) << "\" font-weight=\"bold\"" << kHalo << ">" << text
          << "</text>\n";
    }
    o << "</g>\n</g>\n";
}

void drawLegend(Canvas& cv) {
    const ChartSpec& spec = cv.spec;
    std::ostringstream& o = cv.o;
    // legend: levels, then the numbered kernels
    double ly = kTop + 4;
    o << "<g class=\"legend\">\n";
    for (std::size_t l = 0; l < kMemoryLevelCount; ++l, ly += 20)
        o << marker(l, kRight + 30, ly, 6, false) << "<text x=\"" << (kRight + 44) << "\" y=\""
          << px(ly + 4) << "\">" << kLevelName[l] << " intensity</text>\n";
    if (spec.comparison) {
        o << marker(2, kRight + 30, ly, 6, true) << "<text x=\"" << (kRight + 44) << "\" y=\""
          << px(ly + 4) << "\">A (before), filled: B</text>\n";
        ly += 20;
    }
    o << "<text x=\"" << (kRight + 24) << "\" y=\"" << px(ly + 4)
      << "\" fill=\"#555\">marker area: share of time</text>\n";
    ly += 28;
    std::vector<const ChartKernel*> labelled;
    for (const auto& k : spec.kernels)
        if (k.label >= 0)
            labelled.push_back(&k);
    std::stable_sort(labelled.begin(), labelled.end(), // the legend: most time first
                     [](const ChartKernel* a, const ChartKernel* b) { return a->share > b->share; });
    const std::vector<std::string> names = legendNames(labelled);
    for (std::size_t i = 0; i < labelled.size(); ++i) {
        const ChartKernel* k = labelled[i];
        const std::string& name = names[i];
        char share[32];
        std::snprintf(share, sizeof share, " (%.1f%%)", 100.0 * k->share);
        o << "<text class=\"legend-kernel\" x=\"" << (kRight + 24) << "\" y=\"" << px(ly)
          << "\"><tspan font-weight=\"bold\">" << k->label << "</tspan> " << escapeXml(name)
          << share << "</text>\n";
        if (!k->bound.empty()) { // what bounds it, readable without hovering (static SVG)
            o << "<text class=\"legend-bound\" x=\"" << (kRight + 40) << "\" y=\"" << px(ly + 13)
              << "\" font-size=\"10\" fill=\"#555\">" << escapeXml(k->bound) << "</text>\n";
            ly += 13;
        }
        ly += 18;
    }
    o << "</g>\n";
}

void writeNotes(Canvas& cv) {
    const ChartSpec& spec = cv.spec;
    std::ostringstream& o = cv.o;
    const auto& roofNotes = cv.roofNotes;
    double ny = kBottom + 58;
    std::vector<std::string> notes = spec.notes;
    if (!roofNotes.empty()) {
        std::string n = "above the plot, far from every kernel:";
        for (const auto& r : roofNotes)
            n += ' ' + r;
        notes.push_back(n);
    }
    for (const auto& n : notes) {
        o << "<text class=\"note\" x=\"" << kLeft << "\" y=\"" << px(ny) << "\" fill=\"#555\">"
          << escapeXml(n) << "</text>\n";
        ny += 15;
    }
}

} // namespace roofline::report::canvas
