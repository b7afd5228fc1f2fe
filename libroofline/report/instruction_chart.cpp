#include "report/instruction_chart.hpp"

#include "core/instruction_model.hpp"
#include "report/chart_layout.hpp"
#include "report/columns.hpp"
#include "report/format.hpp"
#include "report/roofline_canvas.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace roofline::report {
namespace {

using canvas::kLevelColor;
using canvas::kLevelName;

constexpr double kWidth = 980, kLeft = 80, kRight = 690, kTop = 62, kBottom = 470;
constexpr double kWallsTop = 580, kRowHeight = 20;
constexpr std::size_t kWallRows = 12;
// The walls' axis: 1 to 32 transactions per request, log 2.
constexpr double kWallLeft[2] = {300, 640}, kWallWidth = 280;

struct Point {
    const KernelGroup* group;
    core::InstructionModel model;
    double share;
};

double wallX(int panel, double perRequest) {
    const double v = std::clamp(perRequest, 1.0, 32.0);
    return kWallLeft[panel] + kWallWidth * std::log2(v) / 5.0;
}

// "#3 copy @ ..step #/Layer 2": the kernel id and name, and where it ran (one kernel in several
// scopes is several points).
std::string name(const KernelGroup& g) {
    std::string n = "#" + std::to_string(g.kernelId) + " " + displayName(g.name);
    n = n.size() > 24 ? n.substr(0, 23) + ".." : n;
    return g.scope.empty() ? n : n + " @ " + shortenScope(g.scope, 14);
}

void ceilingAndDiagonals(std::ostringstream& o, const LogAxis& x, const LogAxis& y,
                         const Ceilings& c) {
    const double issue = c.warpInstructionsPerSecond;
    for (std::size_t l = 0; l < kMemoryLevelCount; ++l) {
        const double perSecond = c.bytesPerSecond[l] / 32; // 32-byte transactions
        if (!(perSecond > 0))
            continue;
        // y = x * transactions/s, from the left edge up to the ceiling (or the top)
        const double x0 = x.lo, x1 = issue > 0 ? std::min(x.hi, issue / perSecond) : x.hi;
        o << "<line class=\"roof " << kLevelName[l] << "\" x1=\"" << px(x.map(x0)) << "\" y1=\""
          << px(y.map(x0 * perSecond)) << "\" x2=\"" << px(x.map(x1)) << "\" y2=\""
          << px(y.map(x1 * perSecond)) << "\" stroke=\"" << kLevelColor[l]
          << "\" stroke-width=\"1.5\"/>\n<text x=\"" << px(x.map(x0) + 6) << "\" y=\""
          << px(y.map(x0 * perSecond) - 6) << "\" fill=\"" << kLevelColor[l] << "\""
          << canvas::kHalo << ">" << kLevelName[l] << " " << siNumber(perSecond)
          << " transactions/s</text>\n";
    }
    if (issue > 0)
        o << "<line class=\"roof issue\" x1=\"" << kLeft << "\" y1=\"" << px(y.map(issue))
          << "\" x2=\"" << kRight << "\" y2=\"" << px(y.map(issue))
          << "\" stroke=\"#333\" stroke-width=\"2\"/>\n<text x=\"" << (kRight - 4) << "\" y=\""
          << px(y.map(issue) - 6) << "\" text-anchor=\"end\"" << canvas::kHalo << ">warp issue "
          << siNumber(issue) << " instructions/s (" << toString(c.warpIssueSource) << ")</text>\n";
}

void axes(std::ostringstream& o, const LogAxis& x, const LogAxis& y) {
    o << "<rect x=\"" << kLeft << "\" y=\"" << kTop << "\" width=\"" << (kRight - kLeft)
      << "\" height=\"" << (kBottom - kTop) << "\" fill=\"none\" stroke=\"#999\"/>\n";
    for (double d : x.decades())
        o << "<line x1=\"" << px(x.map(d)) << "\" y1=\"" << kTop << "\" x2=\"" << px(x.map(d))
          << "\" y2=\"" << kBottom << "\" stroke=\"#eee\"/><text x=\"" << px(x.map(d)) << "\" y=\""
          << (kBottom + 16) << "\" text-anchor=\"middle\">" << siNumber(d) << "</text>\n";
    for (double d : y.decades())
        o << "<line x1=\"" << kLeft << "\" y1=\"" << px(y.map(d)) << "\" x2=\"" << kRight
          << "\" y2=\"" << px(y.map(d)) << "\" stroke=\"#eee\"/><text x=\"" << (kLeft - 6)
          << "\" y=\"" << px(y.map(d) + 4) << "\" text-anchor=\"end\">" << siNumber(d)
          << "</text>\n";
    o << "<text x=\"" << (kLeft + kRight) / 2 << "\" y=\"" << (kBottom + 36)
      << "\" text-anchor=\"middle\">instruction intensity (warp instructions per transaction: L1 "
         "global sectors + shared wavefronts, L2 and HBM sectors)</text>\n<text transform=\""
         "translate(22,"
      << (kTop + kBottom) / 2
      << ") rotate(-90)\" text-anchor=\"middle\">warp instructions per second</text>\n";
}

void points(std::ostringstream& o, const LogAxis& x, const LogAxis& y,
            const std::vector<Point>& pts, std::size_t labels) {
    std::vector<Box> taken;
    const Box bounds{kLeft, kTop, kRight, kBottom};
    for (std::size_t i = 0; i < pts.size(); ++i) {
        const Point& p = pts[i];
        const double r = 3 + 12 * std::sqrt(p.share);
        const double yy = y.map(p.model.rate);
        std::ostringstream tip;
        tip << displayName(p.group->name) << (p.group->scope.empty() ? "" : " @ " + p.group->scope)
            << "\n"
            << siNumber(p.model.rate) << " warp instructions/s, threads active "
            << std::lround(100 * p.model.threadEfficiency) << "%";
        o << "<g class=\"kernel\"><title>" << escapeXml(tip.str()) << "</title>";
        double firstX = 0;
        for (std::size_t l = 0; l < kMemoryLevelCount; ++l) {
            const double xi = p.model.intensity[l];
            if (!(xi > 0) || !std::isfinite(xi))
                continue;
            firstX = firstX > 0 ? firstX : x.map(xi);
            o << canvas::marker(l, x.map(xi), yy, r, false);
            taken.push_back({x.map(xi) - r, yy - r, x.map(xi) + r, yy + r});
        }
        o << "</g>\n";
        if (i < labels && firstX > 0) {
            const std::string text = std::to_string(p.group->kernelId);
            const Box b = placeLabel(firstX, yy, r, textWidth(text), 14, taken, bounds);
            taken.push_back(b);
            o << "<text class=\"label\" x=\"" << px(b.x0) << "\" y=\"" << px(b.y1 - 3) << "\""
              << canvas::kHalo << ">" << text << "</text>\n";
        }
    }
}

void legend(std::ostringstream& o, const std::vector<Point>& pts, std::size_t labels) {
    double yy = kTop + 8;
    for (std::size_t l = 0; l < kMemoryLevelCount; ++l, yy += 18)
        o << canvas::marker(l, kRight + 24, yy, 5, false) << "<text x=\"" << (kRight + 36)
          << "\" y=\"" << px(yy + 4) << "\">" << kLevelName[l] << "</text>\n";
    for (std::size_t i = 0; i < pts.size() && i < labels; ++i, yy += 16)
        o << "<text x=\"" << (kRight + 18) << "\" y=\"" << px(yy + 8) << "\" font-size=\"11\">"
          << escapeXml(name(*pts[i].group)) << "</text>\n";
}

// One row of walls: a marker at the kernel's transactions per request, a hollow one at what its
// bytes need; "-" without such accesses.
void wallRow(std::ostringstream& o, int panel, double y, double actual, double ideal) {
    if (!(actual > 0) || !std::isfinite(actual)) {
        o << "<text x=\"" << px(kWallLeft[panel] + kWallWidth / 2) << "\" y=\"" << px(y + 4)
          << "\" fill=\"#999\" text-anchor=\"middle\">-</text>\n";
        return;
    }
    if (ideal > 0 && std::isfinite(ideal))
        o << "<circle cx=\"" << px(wallX(panel, ideal)) << "\" cy=\"" << px(y)
          << "\" r=\"5\" fill=\"none\" stroke=\"#555\"><title>what the bytes need: "
          << siNumber(ideal) << "</title></circle>";
    const bool waste = ideal > 0 && actual > 1.25 * ideal;
    o << "<circle cx=\"" << px(wallX(panel, actual)) << "\" cy=\"" << px(y) << "\" r=\"4\" fill=\""
      << (waste ? "#d62728" : "#2ca02c") << "\"><title>" << siNumber(actual)
      << " per request</title></circle>\n";
}

void walls(std::ostringstream& o, const std::vector<Point>& pts, double bottom) {
    o << "<text x=\"" << kLeft << "\" y=\"" << (kWallsTop - 34)
      << "\" font-size=\"14\" font-weight=\"bold\">Memory walls of the kernels with most "
         "time</text>\n";
    const char* title[2] = {"global loads: sectors per request",
                            "shared loads: wavefronts per request"};
    const std::vector<std::pair<double, const char*>> marks[2] = {
        {{1, "stride 0"}, {4, "stride 1"}, {32, "stride 8+"}},
        {{1, "no conflict"}, {32, "32-way"}}};
    for (int p = 0; p < 2; ++p) {
        o << "<text x=\"" << kWallLeft[p] << "\" y=\"" << (kWallsTop - 14) << "\">" << title[p]
          << "</text>\n";
        for (const auto& [v, text] : marks[p])
            o << "<line x1=\"" << px(wallX(p, v)) << "\" y1=\"" << (kWallsTop - 6) << "\" x2=\""
              << px(wallX(p, v)) << "\" y2=\"" << px(bottom) << "\" stroke=\"#999\" "
              << "stroke-dasharray=\"4 3\"/><text x=\"" << px(wallX(p, v)) << "\" y=\""
              << px(bottom + 14) << "\" text-anchor=\"middle\" font-size=\"11\">" << text
              << "</text>\n";
    }
    double y = kWallsTop + 6;
    for (std::size_t i = 0; i < pts.size() && i < kWallRows; ++i, y += kRowHeight) {
        const core::InstructionModel& m = pts[i].model;
        o << "<text x=\"" << (kLeft - 60) << "\" y=\"" << px(y + 4) << "\" font-size=\"11\">"
          << escapeXml(name(*pts[i].group)) << "</text>\n";
        wallRow(o, 0, y, m.loadSectorsPerRequest, m.loadIdealSectors);
        wallRow(o, 1, y, m.sharedLoadWavefrontsPerRequest, m.sharedLoadIdealWavefronts);
    }
}

} // namespace

std::string instructionRooflineSvg(const std::vector<KernelGroup>& groups, const Ceilings& ceilings,
                                   std::size_t labels, const std::string& subtitle,
                                   bool xmlHeader) {
    double total = 0;
    for (const auto& g : groups)
        total += g.instructions.measured && g.seconds > 0 ? g.seconds : 0;
    std::vector<Point> pts;
    for (const auto& g : groups)
        if (g.instructions.measured && g.seconds > 0 && g.instructions.warp > 0)
            pts.push_back({&g, core::instructionModel(g.instructions, g.seconds),
                           total > 0 ? g.seconds / total : 0});
    if (pts.empty())
        return {};
    std::sort(pts.begin(), pts.end(),
              [](const Point& a, const Point& b) { return a.share > b.share; });
    std::vector<double> xs, ys;
    for (const auto& p : pts) {
        ys.push_back(p.model.rate);
        for (double v : p.model.intensity)
            xs.push_back(v);
    }
    ys.push_back(ceilings.warpInstructionsPerSecond);
    const LogAxis x = fitLogAxis(xs, kLeft, kRight, 3);
    const LogAxis y = fitLogAxis(ys, kBottom, kTop, 3, true);
    const double wallsBottom =
        kWallsTop + kRowHeight * static_cast<double>(std::min(pts.size(), kWallRows));
    const double height = wallsBottom + 40;
    std::ostringstream o;
    if (xmlHeader)
        o << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
    o << "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"instruction-roofline\" width=\""
      << kWidth << "\" height=\"" << px(height) << "\" viewBox=\"0 0 " << kWidth << ' '
      << px(height) << "\" font-family=\"DejaVu Sans, Arial, sans-serif\" font-size=\"12\">\n"
      << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n<text x=\"" << kLeft
      << "\" y=\"24\" font-size=\"17\" font-weight=\"bold\">Instruction roofline</text>\n<text x=\""
      << kLeft << "\" y=\"44\" fill=\"#555\">" << escapeXml(subtitle) << "</text>\n";
    axes(o, x, y);
    o << "<svg x=\"0\" y=\"0\" width=\"" << kWidth << "\" height=\"" << px(height)
      << "\"><clipPath id=\"plot\"><rect x=\"" << kLeft << "\" y=\"" << kTop << "\" width=\""
      << (kRight - kLeft) << "\" height=\"" << (kBottom - kTop) << "\"/></clipPath>\n<g "
      << "clip-path=\"url(#plot)\">\n";
    ceilingAndDiagonals(o, x, y, ceilings);
    o << "</g></svg>\n";
    points(o, x, y, pts, labels);
    legend(o, pts, labels);
    walls(o, pts, wallsBottom);
    o << "</svg>\n";
    return o.str();
}

} // namespace roofline::report
