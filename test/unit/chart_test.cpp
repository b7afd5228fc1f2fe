// Charts, comparisons and the ceilings file: layout arithmetic, SVG structure (elements, axis
// ranges, labels: never pixels), kernel matching, bad input.
#include "core/ceilings_file.hpp"
#include "core/device_peaks.hpp"
#include "core/roofline_model.hpp"
#include "report/aggregate.hpp"
#include "report/chart_layout.hpp"
#include "report/compare.hpp"
#include "report/roofline_chart.hpp"
#include "unit/h100_device.hpp"

#include <roofline/chart.hpp>
#include <roofline/error.hpp>
#include <roofline/report.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

using namespace roofline;

namespace {

std::size_t count(const std::string& text, const std::string& what) {
    std::size_t n = 0;
    for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1))
        ++n;
    return n;
}

std::string attribute(const std::string& text, const std::string& element,
                      const std::string& name) {
    const std::regex re("<" + element + "[^>]*\\b" + name + "=\"([^\"]*)\"");
    std::smatch m;
    return std::regex_search(text, m, re) ? m[1].str() : "";
}

KernelRecord record(const std::string& name, const std::string& scope, double seconds,
                    FlopKind kind, double flops, std::array<double, 3> bytes) {
    KernelRecord r;
    r.name = name;
    r.scopePath = scope;
    r.measured = true;
    r.timeSeconds = seconds;
    r.flops[static_cast<std::size_t>(kind)] = flops;
    r.bytes = bytes;
    return r;
}

Ceilings h100() {
    return roofline::test::h100DatasheetCeilings();
}

// The chart of one family of `rs` on the H100 datasheet roofs, labelling the `labels` longest.
std::string renderChart(const std::vector<KernelRecord>& rs, report::Family family,
                        std::size_t labels, bool standalone = false,
                        const std::string& title = "") {
    const auto groups = report::aggregate(rs, report::GroupBy::NameScope);
    report::ChartSpec spec;
    spec.family = family;
    spec.ceilings = h100();
    spec.title = title;
    spec.kernels =
        report::chartKernels(groups, family, spec.ceilings, report::totalSeconds(groups), labels);
    return report::renderRoofline(spec, standalone);
}

std::string slurp(const std::string& path) {
    std::ifstream in(path);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

std::string tempDir(const std::string& name) {
    const auto dir = std::filesystem::temp_directory_path() / ("roofline_chart_test_" + name);
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    return dir.string();
}

} // namespace

TEST(ChartLayout, LogAxisSnapsToDecadesAndMapsEnds) {
    const auto x = report::fitLogAxis({0.03, 250.0}, 100, 700);
    EXPECT_DOUBLE_EQ(x.lo, 0.01);
    EXPECT_DOUBLE_EQ(x.hi, 1000.0);
    EXPECT_DOUBLE_EQ(x.map(0.01), 100);
    EXPECT_DOUBLE_EQ(x.map(1000.0), 700);
    EXPECT_NEAR(x.map(1.0), 340, 1e-9); // two of five decades
    EXPECT_EQ(x.decades().size(), 6u);
    // out-of-range, zero, negative and non-finite values clamp to the axis
    EXPECT_DOUBLE_EQ(x.map(1e9), 700);
    EXPECT_DOUBLE_EQ(x.map(0.0), 100);
    EXPECT_DOUBLE_EQ(x.map(-1.0), 100);
    EXPECT_DOUBLE_EQ(x.map(std::nan("")), 100);
}

TEST(ChartLayout, LogAxisWidensAndIgnoresUnplottableValues) {
    const auto a = report::fitLogAxis({5.0}, 0, 1, 3);
    EXPECT_DOUBLE_EQ(std::log10(a.hi / a.lo), 3.0);
    const auto down = report::fitLogAxis({5.0}, 0, 1, 3, true);
    EXPECT_DOUBLE_EQ(down.hi, 10.0);
    EXPECT_DOUBLE_EQ(down.lo, 0.01);
    const auto empty = report::fitLogAxis({0.0, -3.0, INFINITY, std::nan("")}, 0, 1);
    EXPECT_DOUBLE_EQ(empty.lo, 1.0);
    EXPECT_DOUBLE_EQ(empty.hi, 10.0);
    // a value exactly on a decade stays on it
    const auto exact = report::fitLogAxis({1e12, 1e15}, 0, 1);
    EXPECT_DOUBLE_EQ(exact.lo, 1e12);
    EXPECT_DOUBLE_EQ(exact.hi, 1e15);
}

TEST(ChartLayout, LinearAxisNiceSteps) {
    const auto y = report::fitLinearAxis(0, 7.3, 400, 100);
    EXPECT_DOUBLE_EQ(y.step, 2.0);
    EXPECT_DOUBLE_EQ(y.hi, 8.0);
    EXPECT_EQ(y.ticks().size(), 5u);
    EXPECT_DOUBLE_EQ(y.map(8.0), 100);
    const auto flat = report::fitLinearAxis(3, 3, 0, 1);
    EXPECT_GT(flat.hi, flat.lo);
    const auto bad = report::fitLinearAxis(NAN, INFINITY, 0, 1);
    EXPECT_DOUBLE_EQ(bad.lo, 0.0);
    EXPECT_DOUBLE_EQ(bad.hi, 1.0);
}

TEST(ChartLayout, NumbersAndEscaping) {
    EXPECT_EQ(report::siNumber(1.5e12), "1.5T");
    EXPECT_EQ(report::siNumber(0.002), "0.002");
    EXPECT_EQ(report::siNumber(NAN), "0");
    EXPECT_EQ(report::escapeXml("a<b>&\"c'"), "a&lt;b&gt;&amp;&quot;c&#39;");
    EXPECT_EQ(report::px(INFINITY), "0");
}

TEST(Aggregate, GroupsSumLaunchesAndPickFamilies) {
    const std::vector<KernelRecord> rs = {
        record("gemm", "step", 1e-3, FlopKind::TensorBF16, 4e11, {1e9, 5e8, 1e8}),
        record("gemm", "step", 1e-3, FlopKind::TensorBF16, 4e11, {1e9, 5e8, 1e8}),
        record("gemm", "eval", 2e-3, FlopKind::FP32, 1e9, {1e9, 5e8, 1e8}),
        record("copy", "step", 5e-4, FlopKind::FP32, 0, {2e9, 2e9, 2e9}),
    };
    const auto g = report::aggregate(rs, report::GroupBy::NameScope);
    ASSERT_EQ(g.size(), 3u);
    EXPECT_EQ(g[0].launches, 2u);
    EXPECT_DOUBLE_EQ(g[0].seconds, 2e-3);
    EXPECT_DOUBLE_EQ(g[0].flops[static_cast<std::size_t>(FlopKind::TensorBF16)], 8e11);
    EXPECT_DOUBLE_EQ(g[0].tensorShare(), 1.0);
    report::Family f{};
    ASSERT_TRUE(g[0].dominantFamily(f));
    EXPECT_EQ(f, report::Family::Tensor);
    ASSERT_TRUE(g[1].dominantFamily(f));
    EXPECT_EQ(f, report::Family::FP32);
    EXPECT_FALSE(g[2].dominantFamily(f)); // no floating-point work
    EXPECT_EQ(report::aggregate(rs, report::GroupBy::Name).size(), 2u);
    const auto byScope = report::aggregate(rs, report::GroupBy::Scope);
    ASSERT_EQ(byScope.size(), 2u);
    EXPECT_EQ(byScope[0].name, "gemm"); // named after its longest-running kernel
    EXPECT_EQ(byScope[0].launches, 3u);
    EXPECT_THROW(report::parseGroupBy("kernels"), Error);
}

TEST(RooflineChart, SvgHasRoofsKernelsLabelsAndAxisRanges) {
    const Ceilings c = h100();
    std::vector<KernelRecord> rs;
    // FP32 kernels with intensities 1, 10, 100 FLOP/byte at DRAM
    for (int i = 0; i < 3; ++i) {
        const double ai = std::pow(10.0, i);
        rs.push_back(record("k" + std::to_string(i), "s", 1e-3 * (i + 1), FlopKind::FP32, 1e10,
                            {1e10 / ai / 4, 1e10 / ai / 2, 1e10 / ai}));
        rs.back().kernelId = static_cast<std::uint32_t>(10 + i); // the table's '#'
    }
    const std::string svg = renderChart(rs, report::Family::FP32, 2, true, "t");
    const std::string plot = svg.substr(0, svg.find("<g class=\"legend\">"));

    EXPECT_EQ(svg.rfind("<?xml", 0), 0u);
    EXPECT_EQ(count(svg, "<svg"), 1u);
    EXPECT_EQ(count(svg, "</svg>"), 1u);
    EXPECT_EQ(count(svg, "class=\"kernel\""), 3u);
    EXPECT_EQ(count(plot, "class=\"pt "), 9u); // three levels per kernel
    EXPECT_EQ(count(svg, "class=\"link\""), 3u);
    EXPECT_EQ(count(svg, "class=\"roof compute\""), 1u); // FP32 only in the FP32 chart
    EXPECT_EQ(count(svg, "data-kind=\"fp32\""), 1u);
    EXPECT_EQ(count(svg, "class=\"roof memory\""), 2u);   // datasheet: L1 and DRAM, no L2
    EXPECT_EQ(count(svg, "class=\"label\""), 2u);         // the two longest-running, k2 and k1,
    EXPECT_NE(svg.find(">12</text>"), std::string::npos); // labelled with their ids
    EXPECT_NE(svg.find(">11</text>"), std::string::npos);
    EXPECT_EQ(svg.find("class=\"label\" data-label=\"10\""), std::string::npos);
    EXPECT_NE(svg.find("data-label=\"12\" "), std::string::npos);
    EXPECT_NE(svg.find("k2"), std::string::npos);
    // axis ranges: whole decades covering the data (AI 1..100, 3.3-10 TFLOP/s) and the roof
    const double xMin = std::stod(attribute(svg, "g", "data-x-min"));
    const double xMax = std::stod(attribute(svg, "g", "data-x-max"));
    const double yMin = std::stod(attribute(svg, "g", "data-y-min"));
    const double yMax = std::stod(attribute(svg, "g", "data-y-max"));
    EXPECT_LE(xMin, 0.25);
    EXPECT_GE(xMax, 100.0);
    EXPECT_LE(yMin, 3.3e12);
    EXPECT_GE(yMax, c.flopsPerSecond[1]);
    EXPECT_DOUBLE_EQ(std::log10(xMax / xMin), std::round(std::log10(xMax / xMin)));
    EXPECT_EQ(svg.find("nan"), std::string::npos);
    EXPECT_EQ(svg.find("inf"), std::string::npos);
}

TEST(RooflineChart, OneFilePerFamilyAndNotesForWhatIsNotDrawn) {
    const std::string dir = tempDir("families");
    std::vector<KernelRecord> rs = {
        record("sgemm", "a", 1e-3, FlopKind::FP32, 1e10, {1e9, 1e9, 1e9}),
        record("hgemm", "a", 1e-3, FlopKind::TensorFP16, 1e12, {1e9, 1e9, 1e9}),
        record("copy", "a", 2e-3, FlopKind::FP32, 0, {1e9, 1e9, 1e9}),
        record("empty", "a", 0, FlopKind::FP32, 1e6, {1, 1, 1}),
    };
    KernelRecord unmeasured;
    unmeasured.name = "lost";
    rs.push_back(unmeasured);
    const ChartFiles files = writeRooflineChart(rs, h100(), dir + "/out.svg");
    ASSERT_EQ(files.files.size(), 2u);
    EXPECT_EQ(files.files[0], dir + "/out-fp32.svg");
    EXPECT_EQ(files.files[1], dir + "/out-tensor.svg");
    const std::string fp32 = slurp(files.files[0]);
    EXPECT_EQ(count(fp32, "class=\"kernel\""), 1u);
    EXPECT_EQ(attribute(fp32, "svg", "data-family"), "FP32");
    ASSERT_EQ(files.notes.size(), 3u);
    EXPECT_NE(files.notes[0].find("1 kernel(s) with no floating-point work (50.0% of time)"),
              std::string::npos);
    EXPECT_NE(files.notes[1].find("zero measured time"), std::string::npos);
    EXPECT_NE(files.notes[2].find("1 launch(es) without counter values"), std::string::npos);
    EXPECT_NE(fp32.find("no floating-point work"), std::string::npos); // printed on the chart

    const ChartFiles html = writeRooflineChart(rs, h100(), dir + "/all.html");
    ASSERT_EQ(html.files.size(), 1u);
    const std::string page = slurp(dir + "/all.html");
    EXPECT_EQ(count(page, "<svg"), 2u);
    EXPECT_NE(page.find("addEventListener('mouseenter'"), std::string::npos);
    EXPECT_NE(page.find("data-detail=\"sgemm"), std::string::npos);

    // With host scopes: the page ends with their host-against-GPU bars.
    ChartOptions withHost;
    HostScope step;
    step.scopePath = "step #/forward";
    step.calls = 4;
    step.wallSeconds = 8e-3;
    step.launches = 8;
    step.kernels = 2;
    step.gpuSeconds = 1e-3;
    withHost.hostScopes = {step};
    writeRooflineChart(rs, h100(), dir + "/host.html", withHost);
    const std::string hostPage = slurp(dir + "/host.html");
    EXPECT_EQ(count(hostPage, "<svg"), 3u);
    EXPECT_NE(hostPage.find("Host and GPU time per scope call"), std::string::npos);
    EXPECT_NE(hostPage.find("step #/forward"), std::string::npos);

    // a single family: exactly the path given
    const ChartFiles one = writeRooflineChart({rs[0]}, h100(), dir + "/one.svg");
    ASSERT_EQ(one.files.size(), 1u);
    EXPECT_EQ(one.files[0], dir + "/one.svg");
}

TEST(RooflineChart, NothingDrawableWritesNothingAndSaysWhy) {
    const std::string dir = tempDir("empty");
    const ChartFiles none = writeRooflineChart({}, h100(), dir + "/x.svg");
    EXPECT_TRUE(none.files.empty());
    ASSERT_FALSE(none.notes.empty());
    EXPECT_NE(none.notes[0].find("no chart written"), std::string::npos);
    EXPECT_FALSE(std::filesystem::exists(dir + "/x.svg"));
}

TEST(SeedPlots, StackedBarsAndViolinsStructure) {
    const std::string bars =
        stackedBarsSvg({"fwd", "bwd-data"}, {{"conv1", {1.0, 2.0}}, {"conv2", {0.5, NAN}}},
                       {"t", "s", "time (ms)"});
    EXPECT_EQ(count(bars, "class=\"bar\""), 2u);
    EXPECT_EQ(count(bars, "class=\"segment\""), 3u); // the NaN segment is left out
    EXPECT_EQ(attribute(bars, "g", "data-y-max"), "3");
    EXPECT_EQ(bars.find("nan"), std::string::npos);
    const std::string violins = violinSvg(
        {{"eng0", {1.0, 1.1, 1.05, 0.98}}, {"eng1", {2.0, 2.0, 2.0}}, {"none", {}}}, {"v", "", ""});
    EXPECT_EQ(count(violins, "class=\"violin\""), 3u);
    EXPECT_EQ(count(violins, "class=\"body\""), 2u); // identical samples still draw a shape
    EXPECT_EQ(count(violins, "class=\"median\""), 2u);
    EXPECT_EQ(count(violins, "class=\"sample\""), 7u);
    EXPECT_EQ(violins.find("nan"), std::string::npos);
}

TEST(SeedPlots, ScatterHasOneColourPerSeriesAndTheDiagonalWithItsBand) {
    const std::string svg = scatterSvg({{"eng0", {{10e-6, 11e-6, "a"}, {1e-3, 0.9e-3, "b"}}},
                                        {"eng1", {{2e-5, 2e-5, "c"}, {0, 1, "dropped"}}}},
                                       {"t", "s", "predicted"}, "measured");
    EXPECT_EQ(count(svg, "class=\"series\""), 2u);
    EXPECT_EQ(count(svg, "<circle cx"), 3u + 2u); // 3 points (a zero is dropped) + 2 legend dots
    EXPECT_EQ(count(svg, "class=\"identity\""), 1u);
    EXPECT_EQ(count(svg, "class=\"band\""), 2u);
    EXPECT_EQ(attribute(svg, "g", "data-min"), "1e-05"); // both axes: whole decades around all
    EXPECT_EQ(attribute(svg, "g", "data-max"), "0.001");
    EXPECT_EQ(svg.find("nan"), std::string::npos);
}

TEST(Compare, MatchesByNameAndScopeAndReportsTheRest) {
    const std::vector<KernelRecord> a = {
        record("conv", "l1/fwd", 1e-3, FlopKind::FP32, 1e9, {1e8, 1e8, 1e8}),
        record("conv", "l2/fwd", 2e-3, FlopKind::FP32, 2e9, {1e8, 1e8, 1e8}),
        record("old_engine", "l3/fwd", 1e-3, FlopKind::FP32, 1e9, {1e8, 1e8, 1e8}),
    };
    const std::vector<KernelRecord> b = {
        record("conv", "l1/fwd", 4e-3, FlopKind::FP32, 8e9, {1e8, 1e8, 4e8}),
        record("conv", "l2/fwd", 1e-3, FlopKind::FP32, 2e9, {1e8, 1e8, 1e8}),
        record("new_engine", "l3/fwd", 1e-3, FlopKind::TensorFP16, 9e9, {1e8, 1e8, 1e8}),
    };
    const auto c = report::compareRecords(a, b, report::GroupBy::NameScope);
    EXPECT_EQ(c.matched, 2u);
    ASSERT_EQ(c.rows.size(), 4u);
    EXPECT_EQ(c.rows[0], (std::pair<long, long>{0, 0})); // l1: 5 ms combined, largest first
    EXPECT_EQ(c.rows[1], (std::pair<long, long>{1, 1}));
    std::ostringstream table;
    report::printComparison(c, h100(), h100(), table, 0);
    EXPECT_NE(table.str().find("4.00x"), std::string::npos);
    EXPECT_NE(table.str().find("0.50x"), std::string::npos);
    EXPECT_NE(table.str().find("only in A"), std::string::npos);
    EXPECT_NE(table.str().find("only in B"), std::string::npos);
    EXPECT_NE(table.str().find("2 of 3 A and 3 B groups matched by name+scope"), std::string::npos);
    // by scope, the engines that differ are compared as one scope
    const auto s = report::compareRecords(a, b, report::GroupBy::Scope);
    EXPECT_EQ(s.matched, 3u);
    std::ostringstream csv;
    report::writeComparisonCsv(c, h100(), h100(), csv);
    EXPECT_EQ(count(csv.str(), "\n"), 5u); // header + 4 rows
    EXPECT_NE(csv.str().find("\"conv\",\"l1/fwd\",1,1,1,1,0.001,0.004,4,"), std::string::npos);
    // A kernel on one side only: the other side's cells and the ratio are empty, not 0.
    EXPECT_NE(csv.str().find("\"old_engine\",\"l3/fwd\",1,0,1,,0.001,,,"), std::string::npos)
        << csv.str();
    EXPECT_NE(csv.str().find("\"new_engine\",\"l3/fwd\",0,1,,1,,0.001,,"), std::string::npos);
    // The table follows the width, names the readable headers and keeps every column with --wide.
    std::ostringstream narrow, wide;
    report::CompareTableOptions options;
    options.width = 100;
    report::printComparison(c, h100(), h100(), narrow, 0, options);
    for (std::size_t at = 0, end; (end = narrow.str().find('\n', at)) != std::string::npos;
         at = end + 1) {
        if (narrow.str().compare(at, 6, "kernel") == 0 ||
            narrow.str().compare(at, 4, "conv") == 0) {
            EXPECT_LE(end - at, 100u) << narrow.str().substr(at, end - at);
        }
    }
    options.wide = true;
    report::printComparison(c, h100(), h100(), wide, 0, options);
    EXPECT_NE(wide.str().find("DRAM bytes A -> B"), std::string::npos) << wide.str();
    EXPECT_NE(wide.str().find("AI(DRAM) A -> B"), std::string::npos);
    const auto charts = report::comparisonCharts(c, h100(), 0, "A vs B");
    ASSERT_EQ(charts.size(), 2u); // FP32 and tensor
    const std::string svg = report::renderRoofline(charts[0], true);
    EXPECT_EQ(count(svg, "class=\"change\""), 6u);                 // 2 matched kernels x 3 levels
    EXPECT_EQ(count(svg, "fill=\"none\" stroke=\"#1f77b4\""), 2u); // hollow A at L1
}

TEST(Compare, NoMatchSuggestsScope) {
    const auto c = report::compareRecords({record("x", "s", 1e-3, FlopKind::FP32, 1, {1, 1, 1})},
                                          {record("y", "s", 1e-3, FlopKind::FP32, 1, {1, 1, 1})},
                                          report::GroupBy::NameScope);
    std::ostringstream out;
    report::printComparison(c, h100(), h100(), out, 0);
    EXPECT_NE(out.str().find("--by scope"), std::string::npos);
}

TEST(Report, TableFlagsZeroFlopKernelsAndShowsTensorShare) {
    std::vector<KernelRecord> rs = {
        record("mixed", "s", 1e-3, FlopKind::FP32, 1e9, {1e8, 1e8, 1e8}),
        record("memcpy", "s", 1e-3, FlopKind::FP32, 0, {1e8, 1e8, 1e8}),
    };
    rs[0].flops[static_cast<std::size_t>(FlopKind::TensorFP16)] = 3e9;
    EXPECT_DOUBLE_EQ(rs[0].tensorShare(), 0.75);
    EXPECT_TRUE(rs[1].noFloatingPointWork());
    EXPECT_FALSE(rs[0].noFloatingPointWork());
    std::ostringstream table, csv;
    printTable(rs, table);
    EXPECT_NE(table.str().find(" TC% "), std::string::npos);
    EXPECT_NE(table.str().find("   75 "), std::string::npos);
    EXPECT_NE(table.str().find("[no FP]"), std::string::npos);
    writeCsv(rs, csv);
    EXPECT_NE(
        csv.str().find(
            ",tensor_share,no_fp_work,scope_raw,iteration,replay,short_name,bound_"
            "kind,bound_roof,rank,registers,shared_mem_bytes,resident_blocks,waves,bound_"
            "limiter,counters_rank,lacks,position,op,phase,module,shapes,kernel_id,inst_measured,"),
        std::string::npos);
    EXPECT_NE(csv.str().find(",0.75,0,"), std::string::npos);
    EXPECT_NE(csv.str().find(",0,1,"), std::string::npos);
}

TEST(CeilingsFile, RoundTripMergeAndChoice) {
    core::MeasuredCeilings m;
    m.deviceName = "NVIDIA H100 80GB HBM3";
    m.computeMajor = 9;
    m.smCount = 132;
    m.maxSmClockHz = 1.98e9;
    m.createdUtc = "2026-11-22T10:00:00Z";
    m.roofs = {{"fp32", 66e12, "FFMA", "132 x 256", 1.98e9, 42, ""},
               {"L2", 7.5e12, "read", "", 0, 9, ""},
               {"tensor_bf16", 0, "", "", 0, 0, "not on this chip"}};
    const core::MeasuredCeilings back = core::ceilingsFromJson(core::toJson(m), "mem");
    EXPECT_EQ(back.deviceName, m.deviceName);
    ASSERT_EQ(back.roofs.size(), 3u);
    EXPECT_DOUBLE_EQ(back.find("fp32")->perSecond, 66e12);
    EXPECT_EQ(back.find("tensor_bf16")->note, "not on this chip");

    core::DeviceInfo d;
    d.name = m.deviceName;
    d.smCount = 132;
    d.smClockHz = 1.98e9;
    const Ceilings datasheet = core::datasheetCeilings(d);
    const Ceilings merged = core::mergeCeilings(datasheet, m, "f.json");
    EXPECT_DOUBLE_EQ(merged.flopsPerSecond[1], 66e12);
    EXPECT_DOUBLE_EQ(merged.bytesPerSecond[1], 7.5e12);                      // L2 now known
    EXPECT_DOUBLE_EQ(merged.flopsPerSecond[6], datasheet.flopsPerSecond[6]); // bf16 not measured
    EXPECT_EQ(merged.flopSource[1], RoofSource::Measured);
    EXPECT_EQ(merged.byteSource[1], RoofSource::Measured);
    EXPECT_EQ(merged.flopSource[6], RoofSource::Datasheet);
    EXPECT_NE(merged.source.find("datasheet: "), std::string::npos);
    EXPECT_NE(core::describeSources(merged).find("datasheet: fp64, fp16, tensor_fp64"),
              std::string::npos)
        << core::describeSources(merged);

    const std::string dir = tempDir("cache");
    setenv("ROOFLINE_CEILINGS_DIR", dir.c_str(), 1);
    unsetenv("ROOFLINE_CEILINGS");
    EXPECT_EQ(core::ceilingsCachePath(m.deviceName), dir + "/ceilings-NVIDIA_H100_80GB_HBM3.json");
    // Nothing cached: the roofs bundled for this GPU model, no warning.
    const auto bundled = core::chooseCeilings(d);
    ASSERT_TRUE(bundled.measured);
    EXPECT_EQ(bundled.path, "bundled: NVIDIA_H100_80GB_HBM3.json");
    EXPECT_TRUE(bundled.warning.empty());
    d.name = "NVIDIA H100 PCIe"; // no cache, nothing bundled: datasheet, no warning
    EXPECT_FALSE(core::chooseCeilings(d).measured);
    EXPECT_TRUE(core::chooseCeilings(d).warning.empty());
    d.name = m.deviceName;
    core::saveCeilings(m, core::ceilingsCachePath(m.deviceName));
    const auto chosen = core::chooseCeilings(d); // the cache file before the bundled one
    ASSERT_TRUE(chosen.measured);
    EXPECT_EQ(chosen.path, core::ceilingsCachePath(m.deviceName));
    EXPECT_DOUBLE_EQ(chosen.used.flopsPerSecond[1], 66e12);
    // a file for another device is not used, and the warning says so
    d.name = "NVIDIA A100-SXM4-80GB";
    setenv("ROOFLINE_CEILINGS", core::ceilingsCachePath(m.deviceName).c_str(), 1);
    const auto other = core::chooseCeilings(d);
    EXPECT_FALSE(other.measured);
    EXPECT_NE(other.warning.find("was measured on 'NVIDIA H100 80GB HBM3'"), std::string::npos);
    unsetenv("ROOFLINE_CEILINGS");
    unsetenv("ROOFLINE_CEILINGS_DIR");
}

TEST(CeilingsFile, BadFilesGetClearErrors) {
    // Found by libFuzzer: fields of the wrong type or range are a clear error, never another
    // exception type or a cast with undefined behaviour.
    for (const char* text :
         {R"({"format":{}})", R"([1,2])", R"({"format":"libroofline-ceilings","version":1e300})",
          R"({"format":"libroofline-ceilings","version":1,"device":{"name":"x","sm_count":1e40},)"
          R"("roofs":[]})",
          R"({"format":"libroofline-ceilings","version":1,"device":{"name":"x"},"roofs":[{"roof":)"
          R"("fp32","per_second":1,"trials":-1e30}]})"})
        EXPECT_THROW(core::ceilingsFromJson(text, "f.json"), Error) << text;
    try {
        core::ceilingsFromJson("{", "x.json");
        FAIL();
    } catch (const Error& e) {
        EXPECT_EQ(e.code(), ErrorCode::CorruptRecording);
        EXPECT_NE(std::string(e.what()).find("'x.json' is not valid JSON"), std::string::npos);
    }
    try {
        core::ceilingsFromJson(R"({"format":"libroofline-ceilings","version":99})", "new.json");
        FAIL();
    } catch (const Error& e) {
        EXPECT_EQ(e.code(), ErrorCode::UnsupportedVersion);
        EXPECT_NE(std::string(e.what()).find("format version 99"), std::string::npos);
    }
    EXPECT_THROW(core::ceilingsFromJson(R"({"format":"other"})", "o.json"), Error);
    EXPECT_THROW(core::ceilingsFromJson(
                     R"({"format":"libroofline-ceilings","version":1,"device":{"name":"x"},
                         "roofs":[{"roof":"fp32","per_second":-1}]})",
                     "neg.json"),
                 Error);
}

namespace {

// Boxes of elements, read back from the SVG: labels (their estimated text box), markers.
std::vector<report::Box> labelBoxes(const std::string& svg) {
    std::vector<report::Box> out;
    const std::regex re("<text class=\"label\" data-label=\"\\d+\" x=\"([-0-9.]+)\" "
                        "y=\"([-0-9.]+)\"[^>]*>([^<]*)</text>");
    for (std::sregex_iterator it(svg.begin(), svg.end(), re), end; it != end; ++it) {
        const double x = std::stod((*it)[1]), y = std::stod((*it)[2]);
        const double w = report::textWidth((*it)[3]);
        out.push_back({x, y - 11, x + w, y + 2});
    }
    return out;
}

std::vector<report::Box> circleBoxes(const std::string& svg) {
    std::vector<report::Box> out;
    const std::regex re("<circle class=\"pt [^\"]*\" fill=\"[^\"]*\" stroke=\"[^\"]*\" "
                        "cx=\"([-0-9.]+)\" cy=\"([-0-9.]+)\" r=\"([-0-9.]+)\"");
    for (std::sregex_iterator it(svg.begin(), svg.end(), re), end; it != end; ++it) {
        const double x = std::stod((*it)[1]), y = std::stod((*it)[2]), r = std::stod((*it)[3]);
        out.push_back({x - r * 0.7, y - r * 0.7, x + r * 0.7, y + r * 0.7});
    }
    return out;
}

} // namespace

// Ten kernels crowded into one spot (the FP16 chart of a real run): their numbers must not
// overlap each other or any marker.
TEST(RooflineChart, LabelsDoNotOverlapEachOtherOrMarkers) {
    std::vector<KernelRecord> rs;
    for (int i = 0; i < 10; ++i)
        rs.push_back(record("crowded_kernel_" + std::to_string(i), "s", 1e-3 * (1 + 0.01 * i),
                            FlopKind::FP32, 1e10 * (1 + 0.02 * i),
                            {2e9 * (1 + 0.03 * i), 2e9, 1e9}));
    const std::string svg = renderChart(rs, report::Family::FP32, 8);
    const auto labels = labelBoxes(svg);
    ASSERT_EQ(labels.size(), 8u) << svg;
    for (std::size_t i = 0; i < labels.size(); ++i)
        for (std::size_t j = i + 1; j < labels.size(); ++j)
            EXPECT_FALSE(labels[i].overlaps(labels[j])) << "labels " << i + 1 << " and " << j + 1;
    const auto circles = circleBoxes(svg.substr(0, svg.find("<g class=\"legend\">")));
    ASSERT_EQ(circles.size(), 10u); // the L1 markers
    for (std::size_t i = 0; i < labels.size(); ++i)
        for (const auto& m : circles)
            EXPECT_FALSE(labels[i].overlaps(m)) << "label " << i + 1 << " covers a marker";
    EXPECT_NE(svg.find("class=\"leader\""), std::string::npos); // some had to move away
}

TEST(ChartLayout, PlaceLabelAvoidsWhatIsTakenAndStaysInBounds) {
    const report::Box bounds{0, 0, 200, 200};
    const report::Box first = report::placeLabel(100, 100, 5, 10, 14, {}, bounds);
    EXPECT_GE(first.x0, 105); // to the right of the marker by default
    const report::Box second = report::placeLabel(100, 100, 5, 10, 14, {first}, bounds);
    EXPECT_FALSE(second.overlaps(first));
    const report::Box edge = report::placeLabel(198, 100, 5, 10, 14, {}, bounds);
    EXPECT_TRUE(edge.inside(bounds));
}

// A tensor chart of BF16 GEMMs draws the BF16 tensor roof only: they must not seem to sit on the
// FP64-tensor roof.
TEST(RooflineChart, TensorRoofsOnlyForTheInputTypesPresent) {
    std::vector<KernelRecord> rs = {
        record("gemm", "s", 1e-3, FlopKind::TensorBF16, 6e10, {1e9, 5e8, 2e8})};
    const std::string svg = renderChart(rs, report::Family::Tensor, 5);
    EXPECT_EQ(count(svg, "class=\"roof compute\""), 1u) << svg;
    EXPECT_EQ(count(svg, "data-kind=\"tensor_bf16\""), 1u);
    EXPECT_EQ(count(svg, "data-kind=\"tensor_fp64\""), 0u);
}

// One kernel's extreme L1 intensity does not stretch the axis: it sits on the edge, marked.
TEST(Chart, AnOutlierIntensityIsClampedToTheAxisWithAMark) {
    std::vector<KernelRecord> rs = {
        record("gemm", "s", 1e-3, FlopKind::FP32, 3e10, {1e9, 1e9, 1e8}),
        record("tiny_l1", "s", 1e-3, FlopKind::FP32, 2.7e9, {1e3, 1e8, 1e8}), // L1: 2.7e6
    };
    const std::string svg = renderChart(rs, report::Family::FP32, 2);
    const std::size_t at = svg.find("data-x-max=\"");
    ASSERT_NE(at, std::string::npos);
    const double xMax = std::stod(svg.substr(at + 12));
    EXPECT_LE(xMax, 1e5) << "the axis follows the roofs, not the outlier";
    EXPECT_EQ(count(svg, "class=\"clamped\""), 1u);
    EXPECT_NE(svg.find("L1 intensity 2.7M FLOP/byte, beyond the axis"), std::string::npos);
}

// A kernel far below the roofs (the axis keeps them readable: at most 7 decades) sits on the
// floor, and an arrow with its rate says it is lower still.
TEST(Chart, ARateBelowTheAxisSitsOnTheFloorWithAMark) {
    std::vector<KernelRecord> rs = {
        record("gemm", "s", 1e-3, FlopKind::FP32, 3e10, {1e9, 1e9, 1e8}),
        record("trickle", "s", 1e-3, FlopKind::FP32, 2, {1e3, 1e3, 1e3}), // 2 kFLOP/s
    };
    const std::string svg = renderChart(rs, report::Family::FP32, 2);
    const std::size_t at = svg.find("data-y-min=\"");
    ASSERT_NE(at, std::string::npos);
    EXPECT_GT(std::stod(svg.substr(at + 12)), 2e3) << "the axis follows the roofs";
    EXPECT_EQ(count(svg, "class=\"clamped\""), 1u);
    EXPECT_NE(svg.find("2k FLOP/s, below the axis"), std::string::npos) << svg;
}
