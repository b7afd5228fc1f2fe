// The charts and tables of real recordings (the training step and the PyTorch transformer step
// recorded on an H100, and the training step's host side), checked for what a reader sees: every
// text inside the canvas, legend names long enough to tell kernels apart, kernel numbers apart
// from each other, table rows within the terminal's width. Text widths are estimated (DejaVu Sans
// / Arial at the SVG's font sizes).
#include "core/ceilings_file.hpp"
#include "core/recording.hpp"
#include "cupti/evaluate.hpp"
#include "unit/cupti_host_guard.hpp"

#include <roofline/chart.hpp>
#include <roofline/report.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>

#include <gtest/gtest.h>

using namespace roofline;

namespace {

struct Text {
    double x = 0, y = 0, size = 12;
    std::string anchor, cls, content;
    bool rotated = false;
};

std::string slurp(const std::string& path) {
    std::ifstream in(path);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

double attribute(const std::string& tag, const char* name, double otherwise) {
    const std::regex re(std::string(" ") + name + "=\"([-0-9.e]+)\"");
    std::smatch m;
    return std::regex_search(tag, m, re) ? std::stod(m[1].str()) : otherwise;
}

std::string word(const std::string& tag, const char* name) {
    const std::regex re(std::string(" ") + name + "=\"([^\"]*)\"");
    std::smatch m;
    return std::regex_search(tag, m, re) ? m[1].str() : "";
}

// The visible characters of a text element's longest line: its content without <title>s and
// tags, entities as one character; a <tspan x=...> starts a line.
std::string visible(std::string body) {
    body = std::regex_replace(body, std::regex("<title>[^<]*</title>"), "");
    body = std::regex_replace(body, std::regex("<tspan x=[^>]*>"), "\n");
    body = std::regex_replace(body, std::regex("<[^>]*>"), "");
    body = std::regex_replace(body, std::regex("&[#a-z0-9]+;"), "_");
    std::string longest, line;
    for (std::istringstream lines(body); std::getline(lines, line);)
        longest = line.size() > longest.size() ? line : longest;
    return longest;
}

std::vector<Text> texts(const std::string& svg) {
    std::vector<Text> out;
    const std::regex re("<text([^>]*)>((?:(?!</text>)[\\s\\S])*)</text>");
    for (std::sregex_iterator it(svg.begin(), svg.end(), re), end; it != end; ++it) {
        const std::string tag = (*it)[1].str();
        Text t;
        t.x = attribute(tag, "x", 0);
        t.y = attribute(tag, "y", 0);
        t.size = attribute(tag, "font-size", 12);
        t.anchor = word(tag, "text-anchor");
        t.cls = word(tag, "class");
        t.rotated = tag.find("rotate(") != std::string::npos;
        t.content = visible((*it)[2].str());
        out.push_back(t);
    }
    return out;
}

// Horizontal extent of a text: ~0.56 em per character (DejaVu Sans is the widest of the fonts
// named), the anchor as given.
std::pair<double, double> extent(const Text& t) {
    const double w = 0.56 * t.size * static_cast<double>(t.content.size());
    if (t.anchor == "middle")
        return {t.x - w / 2, t.x + w / 2};
    if (t.anchor == "end")
        return {t.x - w, t.x};
    return {t.x, t.x + w};
}

// Each <svg> of a document (an HTML page holds several).
std::vector<std::string> svgs(const std::string& document) {
    std::vector<std::string> out;
    for (std::size_t at = document.find("<svg"); at != std::string::npos;
         at = document.find("<svg", at + 1))
        out.push_back(document.substr(at, document.find("</svg>", at) - at));
    return out;
}

void expectInsideTheCanvas(const std::string& svg, const std::string& what) {
    const std::string head = svg.substr(svg.find("<svg"), svg.find('>', svg.find("<svg")));
    const double width = attribute(head, "width", 0), height = attribute(head, "height", 0);
    ASSERT_GT(width, 0) << what;
    for (const Text& t : texts(svg)) {
        if (t.rotated || t.content.empty())
            continue;
        const auto [left, right] = extent(t);
        EXPECT_GE(left, 0.0) << what << ": '" << t.content << "' (" << t.cls << ")";
        EXPECT_LE(right, width) << what << ": '" << t.content << "' (" << t.cls << ")";
        EXPECT_GE(t.y - t.size, 0.0) << what << ": '" << t.content << "'";
        EXPECT_LE(t.y, height) << what << ": '" << t.content << "'";
    }
}

struct Evaluated {
    core::Recording recording;
    core::CeilingsChoice ceilings;
    std::vector<KernelRecord> records;
};

Evaluated evaluate(const char* file) {
    Evaluated e;
    e.recording = core::loadRecording(std::string(ROOFLINE_FIXTURE_DIR "/") + file);
    e.ceilings = core::chooseCeilings(e.recording.device);
    e.records = cupti::evaluateRecording(e.recording, e.ceilings.used);
    return e;
}

std::string tempDir(const std::string& name) {
    const auto dir = std::filesystem::temp_directory_path() / ("roofline_real_chart_" + name);
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    return dir.string();
}

} // namespace

TEST(RealCharts, TextsLegendsAndNumbersFitOnBothH100Recordings) {
    for (const char* file : {"h100_train_step.rfl", "h100_torch_transformer.rfl"}) {
        SCOPED_TRACE(file);
        const Evaluated e = evaluate(file);
        ChartOptions options;
        options.subtitle = std::string(ROOFLINE_FIXTURE_DIR "/") + file + " on " +
                           e.recording.device.name + "; roofs: " + e.ceilings.used.name +
                           "; bytes: " + e.recording.bytes;
        const std::string dir = tempDir(std::filesystem::path(file).stem().string());
        const ChartFiles charts =
            writeRooflineChart(e.records, e.ceilings.used, dir + "/chart.svg", options);
        ASSERT_GE(charts.files.size(), 2u); // FP32 and tensor at least
        for (const auto& path : charts.files) {
            const std::string svg = slurp(path);
            expectInsideTheCanvas(svg, path);
            // Legend names: a shortened one keeps 28 characters (more than the table's kernel
            // column at 120 columns), a "(N)" collision mark included.
            std::size_t legends = 0;
            for (const Text& t : texts(svg))
                if (t.cls == "legend-kernel") {
                    ++legends;
                    std::string name = t.content.substr(0, t.content.rfind(" ("));
                    name = name.substr(name.find(' ') + 1); // after the kernel's number
                    if (name.find("...") != std::string::npos) {
                        EXPECT_GE(name.size(), 28u) << name;
                    }
                    EXPECT_LE(name.size(), 28u) << name;
                }
            EXPECT_GT(legends, 0u) << path;
            // The kernels' numbers: no two on top of each other.
            std::vector<Text> numbers;
            for (const Text& t : texts(svg))
                if (t.cls == "label")
                    numbers.push_back(t);
            for (std::size_t i = 0; i < numbers.size(); ++i)
                for (std::size_t j = i + 1; j < numbers.size(); ++j)
                    EXPECT_FALSE(std::abs(numbers[i].x - numbers[j].x) < 7 &&
                                 std::abs(numbers[i].y - numbers[j].y) < 11)
                        << path << ": numbers " << numbers[i].content << " and "
                        << numbers[j].content;
        }
    }
}

// The HTML page of the training step's host side: its bar chart's labels and legend inside.
TEST(RealCharts, HostBarsFitOnTheRecordedHostSide) {
    const Evaluated e = evaluate("h100_host_step.rfl");
    ASSERT_FALSE(e.recording.hostScopes.empty());
    ChartOptions options;
    options.hostScopes = e.recording.hostScopes;
    const std::string dir = tempDir("host");
    const ChartFiles charts =
        writeRooflineChart(e.records, e.ceilings.used, dir + "/chart.html", options);
    ASSERT_EQ(charts.files.size(), 1u);
    const auto pages = svgs(slurp(charts.files[0]));
    ASSERT_GE(pages.size(), 2u); // the rooflines and the host bars
    for (std::size_t i = 0; i < pages.size(); ++i)
        expectInsideTheCanvas(pages[i], "svg " + std::to_string(i));
}

namespace {
// The default table (numbered scopes merged, 25 rows) of `file` at 80, 100 and 120 columns: every
// line, the notes under it included, within the width; the time and bound there.
void expectTableFits(const char* file) {
    for (std::size_t width : {80u, 100u, 120u}) {
        SCOPED_TRACE(std::string(file) + " at " + std::to_string(width));
        const Evaluated e = evaluate(file);
        TableOptions options;
        options.width = width;
        options.grouped = true;
        options.maxRows = 25;
        options.sortBy = "time";
        std::ostringstream out;
        printTable(groupRecords(e.records, GroupBy::Kernel, e.ceilings.used), out, options);
        const std::string t = out.str();
        EXPECT_NE(t.find("time(ms)"), std::string::npos) << t;
        EXPECT_NE(t.find(" bound"), std::string::npos) << t;
        std::istringstream lines(t);
        std::size_t rows = 0;
        for (std::string line; std::getline(lines, line);) { // notes under it included
            ++rows;
            EXPECT_LE(line.size(), width) << line;
        }
        EXPECT_GT(rows, 5u);
    }
}
} // namespace

TEST(RealTables, RowsFitTheTerminalOnBothH100Recordings) {
    for (const char* file : {"h100_train_step.rfl", "h100_torch_transformer.rfl"})
        expectTableFits(file);
}

// The calibration recording's scopes are shorter than the scope column's usual minimum: the
// column shrinks to them. (A format v1 recording: its values come from CUPTI's host API.)
TEST(RealTables, ScopesShorterThanTheColumnsMinimumStillFit) {
    ROOFLINE_NEEDS_CUPTI_HOST();
    expectTableFits("h100_calibration.rfl");
}

// Every row of every bundled recording's table, at 80 and 120 columns, reads unlike every other:
// the name and scope cells of two different kernel groups never show the same text (the '#'
// aside), so that a reader can tell rows apart without --wide.
TEST(RealTables, NoTwoRowsReadAlikeOnTheBundledRecordings) {
    for (const char* file : {"h100_train_step.rfl", "h100_torch_transformer.rfl",
                             "h100_torch_ops.rfl", "h100_host_step.rfl", "h100_iteration.rfl"})
        for (const GroupBy by : {GroupBy::Kernel, GroupBy::Name, GroupBy::Scope})
            for (std::size_t width : {80u, 120u}) {
                SCOPED_TRACE(std::string(file) + " by " + toString(by) + " at " +
                             std::to_string(width));
                const Evaluated e = evaluate(file);
                TableOptions options;
                options.width = width;
                options.grouped = true;
                options.sortBy = "time";
                std::ostringstream out;
                printTable(groupRecords(e.records, by, e.ceilings.used), out, options);
                const std::string t = out.str();
                const std::size_t head = t.find("    #  ");
                ASSERT_NE(head, std::string::npos) << t;
                const std::size_t time = t.find("time(ms)", head);
                ASSERT_NE(time, std::string::npos) << t;
                const std::size_t cellsEnd = time - head - 2; // "time(ms)" right-aligned in 10
                std::map<std::string, std::string> rowOf;
                std::istringstream lines(t.substr(head));
                std::string line;
                std::getline(lines, line); // the heading
                while (std::getline(lines, line) && line.rfind("       total", 0) != 0) {
                    if (line.size() < cellsEnd || line.rfind("  ...", 0) == 0)
                        continue;
                    const std::string cells = line.substr(7, cellsEnd - 7);
                    const auto [it, fresh] = rowOf.emplace(cells, line);
                    EXPECT_TRUE(fresh) << "reads like another row:\n" << it->second << '\n' << line;
                }
                EXPECT_GE(rowOf.size(), 1u) << t;
            }
}
