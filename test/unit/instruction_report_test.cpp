// The instruction roofline's counts through the record (from a recording's values), its groups,
// the CSV and JSON outputs, the table's verdict column and the warp-issue ceiling.
#include "core/ceilings_file.hpp"
#include "core/device_peaks.hpp"
#include "core/instruction_model.hpp"
#include "core/recording.hpp"
#include "core/roofline_model.hpp"
#include "report/ceilings_table.hpp"
#include "unit/h100_device.hpp"

#include <roofline/chart.hpp>
#include <roofline/report.hpp>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <iterator>
#include <sstream>

namespace roofline {
namespace {

const core::ChipProfile& hopper() {
    return core::profileForChip("GH100");
}

std::vector<std::string> metricsWithGroup() {
    std::vector<std::string> m = core::requiredMetrics(hopper());
    core::addMetrics(m, core::instructionMetrics(hopper()));
    return m;
}

// A launch of 1 ms whose counts are distinct, non-zero and worked out by hand: 1000 loads of 4
// bytes per thread at stride 2 (8 sectors each, ideal 4), 500 coalesced stores, 200 shared loads
// with 4-way conflicts, 60% of threads active.
core::LaunchInfo stridedLaunch(const std::vector<std::string>& metrics) {
    const core::InstructionCounters& c = hopper().instructions;
    core::LaunchInfo l;
    l.launchIndex = 3;
    l.name = "strided(float const*, float*)";
    l.mangledName = "_Z7stridedPKfPf";
    l.grid = {264, 1, 1};
    l.block = {256, 1, 1};
    std::map<std::string, double> v;
    v[hopper().cyclesMetric] = 1.98e6;
    v[hopper().cycleRateMetric] = 1.98e9;
    v[c.warpInstructions] = 10000;
    v[c.threadInstructions] = 250000;
    v[c.threadInstructionsPredicated] = 192000; // 60% of 32 x 10000
    for (std::size_t k = 0; k < kInstructionClassCount; ++k)
        v[c.threadClasses[k]] = 1000.0 * static_cast<double>(k + 1);
    v[c.globalLoadRequests] = 1000;
    v[c.globalLoadSectors] = 8000;
    v[c.globalLoadBytes] = 128000;
    v[c.globalStoreRequests] = 500;
    v[c.globalStoreSectors] = 2000;
    v[c.globalStoreBytes] = 64000;
    v[c.sharedLoadRequests] = 200;
    v[c.sharedLoadConflicts] = 600; // 800 wavefronts
    v[c.sharedLoadBytes] = 25600;
    v[c.sharedStoreRequests] = 50;
    v[c.sharedStoreConflicts] = 0; // 50 wavefronts
    v[c.sharedStoreBytes] = 6400;
    v[c.l2Sectors] = 5000;
    v[c.dramSectors] = 2500;
    for (const std::string& m : metrics)
        l.values.push_back(v.count(m) ? v[m] : 1.0);
    return l;
}

Ceilings h100Ceilings() {
    return test::h100DatasheetCeilings();
}

void expectStridedCounts(const InstructionCounts& n) {
    ASSERT_TRUE(n.measured);
    EXPECT_EQ(n.warp, 10000);
    EXPECT_EQ(n.thread, 250000);
    EXPECT_EQ(n.threadPredicatedOn, 192000);
    EXPECT_EQ(n.classOf(InstructionClass::Integer), 1000);
    EXPECT_EQ(n.classOf(InstructionClass::Control), 6000);
    EXPECT_EQ(n.globalLoad.requests, 1000);
    EXPECT_EQ(n.globalLoad.transactions, 8000);
    EXPECT_EQ(n.globalLoad.bytes, 128000);
    EXPECT_EQ(n.globalStore.requests, 500);
    EXPECT_EQ(n.globalStore.transactions, 2000);
    EXPECT_EQ(n.globalStore.bytes, 64000);
    EXPECT_EQ(n.sharedLoad.requests, 200);
    EXPECT_EQ(n.sharedLoad.transactions, 800);
    EXPECT_EQ(n.sharedLoad.bytes, 25600);
    EXPECT_EQ(n.sharedStore.requests, 50);
    EXPECT_EQ(n.sharedStore.transactions, 50);
    EXPECT_EQ(n.sharedStore.bytes, 6400);
    EXPECT_EQ(n.l2Sectors, 5000);
    EXPECT_EQ(n.dramSectors, 2500);
}

const std::vector<std::string> kStridedVerdicts = {
    "uncoalesced loads: 8.0 sectors per request (ideal 4.0)",
    "4-way shared-memory bank conflicts on loads (4.0 wavefronts per request, ideal 1.0)",
    "predicated: 60% of threads active"};

} // namespace

TEST(InstructionRecord, ARecordingsValuesGiveTheCountsAndVerdicts) {
    const auto metrics = metricsWithGroup();
    // Through the recording format and back: every count survives.
    core::Recording rec;
    rec.libraryVersion = "0.1.0";
    rec.createdUtc = "2026-11-27T00:00:00Z";
    rec.mode = "iteration-replay";
    rec.chip = "GH100";
    rec.metrics = metrics;
    rec.launches = {stridedLaunch(metrics)};
    std::stringstream bytes;
    core::writeRecording(rec, bytes);
    const core::Recording back = core::readRecording(bytes, "strided.rfl");
    const KernelRecord r =
        core::recordFromLaunch(hopper(), back.launches.at(0), back.metrics, h100Ceilings());
    expectStridedCounts(r.instructions);
    EXPECT_EQ(r.instructionVerdicts, kStridedVerdicts);
    EXPECT_TRUE(r.lacks.empty()) << r.lacks;
}

TEST(InstructionRecord, WithoutTheGroupNothingIsClaimedAndPartOfItLacks) {
    // Not collected: not measured, no verdicts, nothing lacking.
    const auto plain = core::requiredMetrics(hopper());
    const KernelRecord none =
        core::recordFromLaunch(hopper(), stridedLaunch(plain), plain, h100Ceilings());
    EXPECT_FALSE(none.instructions.measured);
    EXPECT_TRUE(none.instructionVerdicts.empty());
    EXPECT_TRUE(none.lacks.empty());
    // Collected, and one counter not measured (a pass the job never ran): the group lacks.
    const auto metrics = metricsWithGroup();
    core::LaunchInfo l = stridedLaunch(metrics);
    const auto at =
        std::find(metrics.begin(), metrics.end(), hopper().instructions.sharedLoadConflicts);
    l.values[static_cast<std::size_t>(at - metrics.begin())] = std::nan("");
    const KernelRecord part = core::recordFromLaunch(hopper(), l, metrics, h100Ceilings());
    EXPECT_FALSE(part.instructions.measured);
    EXPECT_TRUE(part.instructionVerdicts.empty());
    EXPECT_EQ(part.lacks, "instructions");
}

TEST(InstructionRecord, GroupsSumTheCountsAndJudgeTheTotals) {
    const auto metrics = metricsWithGroup();
    const Ceilings ceilings = h100Ceilings();
    std::vector<KernelRecord> rs;
    for (int i = 0; i < 3; ++i) {
        core::LaunchInfo l = stridedLaunch(metrics);
        l.launchIndex = i;
        rs.push_back(core::recordFromLaunch(hopper(), l, metrics, ceilings));
    }
    const auto groups = groupRecords(rs, GroupBy::Kernel, ceilings);
    ASSERT_EQ(groups.size(), 1u);
    EXPECT_EQ(groups[0].instructions.warp, 30000);
    EXPECT_EQ(groups[0].instructions.globalLoad.transactions, 24000);
    EXPECT_EQ(groups[0].instructionVerdicts, kStridedVerdicts);
    // One launch of the group without the counters: the group has none.
    rs.push_back(core::recordFromLaunch(hopper(), stridedLaunch(core::requiredMetrics(hopper())),
                                        core::requiredMetrics(hopper()), ceilings));
    EXPECT_FALSE(groupRecords(rs, GroupBy::Kernel, ceilings)[0].instructions.measured);
}

TEST(InstructionRecord, CsvAndJsonCarryEveryCountAndFigure) {
    const auto metrics = metricsWithGroup();
    std::vector<KernelRecord> rs = {
        core::recordFromLaunch(hopper(), stridedLaunch(metrics), metrics, h100Ceilings())};
    KernelRecord late;
    late.name = "late";
    rs.push_back(late);
    std::ostringstream csv;
    writeCsv(rs, csv);
    std::istringstream lines(csv.str());
    std::string header, row, unmeasured;
    std::getline(lines, header);
    std::getline(lines, row);
    std::getline(lines, unmeasured);
    const auto cells = [](const std::string& s) {
        std::vector<std::string> out(1);
        bool quoted = false;
        for (char c : s) {
            if (c == '"')
                quoted = !quoted;
            else if (c == ',' && !quoted)
                out.emplace_back();
            else
                out.back() += c;
        }
        return out;
    };
    const auto heads = cells(header), values = cells(row), empty = cells(unmeasured);
    ASSERT_EQ(values.size(), heads.size());
    ASSERT_EQ(empty.size(), heads.size());
    std::map<std::string, std::string> at;
    for (std::size_t i = 0; i < heads.size(); ++i)
        at[heads[i]] = values[i];
    const std::map<std::string, std::string> expected = {
        {"inst_measured", "1"},
        {"warp_inst", "10000"},
        {"thread_inst", "250000"},
        {"thread_inst_pred_on", "192000"},
        {"thread_inst_integer", "1000"},
        {"thread_inst_fp32", "2000"},
        {"thread_inst_fp64", "3000"},
        {"thread_inst_fp16", "4000"},
        {"thread_inst_memory", "5000"},
        {"thread_inst_control", "6000"},
        {"global_ld_requests", "1000"},
        {"global_ld_sectors", "8000"},
        {"global_ld_bytes", "128000"},
        {"global_st_requests", "500"},
        {"global_st_sectors", "2000"},
        {"global_st_bytes", "64000"},
        {"shared_ld_requests", "200"},
        {"shared_ld_wavefronts", "800"},
        {"shared_ld_bytes", "25600"},
        {"shared_st_requests", "50"},
        {"shared_st_wavefronts", "50"},
        {"shared_st_bytes", "6400"},
        {"l2_sectors", "5000"},
        {"dram_sectors", "2500"},
        {"inst_rate", "10000000"},
        {"inst_intensity_l1", "0.9216589861751152"},
        {"inst_intensity_l2", "2"},
        {"inst_intensity_dram", "4"},
        {"global_ld_sectors_per_request", "8"},
        {"global_ld_ideal_sectors", "4"},
        {"global_st_sectors_per_request", "4"},
        {"global_st_ideal_sectors", "4"},
        {"shared_ld_wavefronts_per_request", "4"},
        {"shared_ld_ideal_wavefronts", "1"},
        {"shared_st_wavefronts_per_request", "1"},
        {"shared_st_ideal_wavefronts", "1"},
        {"thread_efficiency", "0.6"},
        {"inst_verdicts",
         kStridedVerdicts[0] + "; " + kStridedVerdicts[1] + "; " + kStridedVerdicts[2]}};
    for (const auto& [column, value] : expected) {
        ASSERT_TRUE(at.count(column)) << column;
        EXPECT_EQ(at[column], value) << column;
    }
    // Every instruction column but the flag is empty without the group.
    const auto first = std::find(heads.begin(), heads.end(), "inst_measured") - heads.begin();
    EXPECT_EQ(empty[static_cast<std::size_t>(first)], "0");
    for (auto i = static_cast<std::size_t>(first) + 1; i < heads.size(); ++i)
        EXPECT_EQ(empty[i], "") << heads[i];

    std::ostringstream json;
    writeJson(rs, json);
    const auto j = nlohmann::json::parse(json.str())["records"];
    const auto& n = j[0]["instructions"];
    EXPECT_EQ(n["warp"], 10000);
    EXPECT_EQ(n["thread"], 250000);
    EXPECT_EQ(n["thread_pred_on"], 192000);
    EXPECT_EQ(n["thread_by_class"]["memory"], 5000);
    EXPECT_EQ(n["global_ld"]["requests"], 1000);
    EXPECT_EQ(n["global_ld"]["sectors"], 8000);
    EXPECT_EQ(n["global_ld"]["bytes"], 128000);
    EXPECT_EQ(n["global_ld"]["sectors_per_request"], 8.0);
    EXPECT_EQ(n["global_ld"]["ideal_sectors_per_request"], 4.0);
    EXPECT_EQ(n["global_st"]["sectors_per_request"], 4.0);
    EXPECT_EQ(n["shared_ld"]["wavefronts"], 800);
    EXPECT_EQ(n["shared_st"]["bytes"], 6400);
    EXPECT_EQ(n["shared_ld"]["wavefronts_per_request"], 4.0);
    EXPECT_EQ(n["shared_ld"]["ideal_wavefronts_per_request"], 1.0);
    EXPECT_EQ(n["shared_st"]["wavefronts_per_request"], 1.0);
    EXPECT_EQ(n["l2_sectors"], 5000);
    EXPECT_EQ(n["dram_sectors"], 2500);
    EXPECT_EQ(n["rate"], 1e7);
    EXPECT_EQ(n["intensity"]["L2"], 2.0);
    EXPECT_EQ(n["intensity"]["DRAM"], 4.0);
    EXPECT_DOUBLE_EQ(n["thread_efficiency"].get<double>(), 0.6);
    EXPECT_EQ(n["verdicts"], kStridedVerdicts);
    EXPECT_TRUE(j[1]["instructions"].is_null());
}

TEST(InstructionRecord, TheTableShowsTheVerdictsAfterTheBound) {
    const auto metrics = metricsWithGroup();
    std::vector<KernelRecord> rs = {
        core::recordFromLaunch(hopper(), stridedLaunch(metrics), metrics, h100Ceilings())};
    TableOptions options;
    options.width = 400;
    std::ostringstream with;
    printTable(rs, with, options);
    EXPECT_NE(with.str().find("  instructions\n"), std::string::npos) << with.str();
    EXPECT_NE(with.str().find(kStridedVerdicts[0] + "; " + kStridedVerdicts[1]), std::string::npos)
        << with.str();
    EXPECT_NE(with.str().find("instructions: what the instruction counters say"),
              std::string::npos);
    // On a narrow line the verdicts are cut to it, and the legend says where they are whole.
    options.width = 120;
    std::ostringstream narrow;
    printTable(rs, narrow, options);
    std::istringstream lines(narrow.str());
    for (std::string line; std::getline(lines, line);)
        if (line.find("strided") != std::string::npos) {
            EXPECT_LE(line.size(), 120u) << line;
            EXPECT_EQ(line.substr(line.size() - 2), "..") << line;
        }
    EXPECT_NE(narrow.str().find("'..': cut to"), std::string::npos) << narrow.str();
    options.wide = true;
    std::ostringstream wide;
    printTable(rs, wide, options);
    EXPECT_NE(wide.str().find(kStridedVerdicts[2]), std::string::npos) << wide.str();
    options.wide = false;
    options.width = 200;
    // Without the group the table is as it was.
    const auto plain = core::requiredMetrics(hopper());
    rs = {core::recordFromLaunch(hopper(), stridedLaunch(plain), plain, h100Ceilings())};
    std::ostringstream without;
    printTable(rs, without, options);
    EXPECT_EQ(without.str().find("instructions"), std::string::npos) << without.str();
}

TEST(WarpIssueCeiling, FromTheShapeTheDevicePeaksAndAMeasuredFile) {
    const core::DeviceInfo d = test::h100Device();
    const Ceilings sheet = core::datasheetCeilings(d);
    EXPECT_DOUBLE_EQ(sheet.warpInstructionsPerSecond, 132 * 4 * 1.98e9);
    EXPECT_EQ(sheet.warpIssueSource, RoofSource::Datasheet);
    core::PeakClocks clocks;
    clocks.smHz = 1.755e9;
    const Ceilings device = core::deviceCeilings({}, {}, clocks, d);
    EXPECT_DOUBLE_EQ(device.warpInstructionsPerSecond, 132 * 4 * 1.755e9);
    EXPECT_EQ(device.warpIssueSource, RoofSource::Device);
    // A measured file's warp_issue roof comes first, and the table shows all three.
    core::MeasuredCeilings m;
    m.deviceName = d.name;
    m.createdUtc = "2026-11-27T00:00:00Z";
    m.roofs.push_back({"warp_issue", 1.0323e12, "FFMA (warp instructions: FFMAs / 32)",
                       "132 blocks x 256 threads, 16 chains", 1.98e9, 42, ""});
    const core::MeasuredCeilings back = core::ceilingsFromJson(core::toJson(m), "h100.json");
    const core::CeilingsChoice choice = core::choiceWith(d, back, "h100.json", device);
    EXPECT_DOUBLE_EQ(choice.used.warpInstructionsPerSecond, 1.0323e12);
    EXPECT_EQ(choice.used.warpIssueSource, RoofSource::Measured);
    std::ostringstream table;
    report::printCeilings(choice, table, true);
    EXPECT_NE(table.str().find("warp_issue   Tinst/s     1.032  measured        1.032       0.927 "
                               "    1.045  FFMA (warp instructions: FFMAs / 32)"),
              std::string::npos)
        << table.str();
    // The verdict uses the ceiling in use.
    InstructionCounts busy;
    busy.measured = true;
    busy.warp = 0.83 * 1.0323e12 * 1e-3;
    busy.threadPredicatedOn = 32 * busy.warp;
    EXPECT_EQ(core::instructionVerdicts(busy, 1e-3, choice.used),
              std::vector<std::string>{"issue-bound at 83% of the warp-issue ceiling"});
}

} // namespace roofline

namespace roofline {

TEST(InstructionRecord, ALaunchWhosePassesRanAnotherGridIsNotJudged) {
    // The counters of such a launch come from different launch shapes: a store count from one
    // grid over a request count from another is no access pattern.
    const auto metrics = metricsWithGroup();
    core::LaunchInfo l = stridedLaunch(metrics);
    l.replay = ReplayStatus::Differs;
    const KernelRecord r = core::recordFromLaunch(hopper(), l, metrics, h100Ceilings());
    EXPECT_TRUE(r.instructions.measured);
    EXPECT_EQ(r.instructionVerdicts, std::vector<std::string>{core::kPassesDiffer});
    const auto groups = groupRecords({r}, GroupBy::Kernel, h100Ceilings());
    EXPECT_EQ(groups.at(0).instructionVerdicts, std::vector<std::string>{core::kPassesDiffer});
}

} // namespace roofline

namespace roofline {

TEST(InstructionChart, EveryKernelWithTheCountersHasAPlaceAndItsWalls) {
    const auto metrics = metricsWithGroup();
    const Ceilings ceilings = h100Ceilings();
    std::vector<KernelRecord> rs = {
        core::recordFromLaunch(hopper(), stridedLaunch(metrics), metrics, ceilings)};
    // A copy with no floating-point work: no place on a FLOP roofline, one on this chart.
    core::LaunchInfo copy = stridedLaunch(metrics);
    copy.launchIndex = 4;
    copy.name = "copy(float const*, float*)";
    for (const auto& f : hopper().flops)
        for (const auto& t : f.terms)
            copy.values[static_cast<std::size_t>(
                std::find(metrics.begin(), metrics.end(), t.metric) - metrics.begin())] = 0;
    rs.push_back(core::recordFromLaunch(hopper(), copy, metrics, ceilings));
    core::assignKernelIds(rs);
    const std::string dir = ::testing::TempDir();
    const ChartFiles html = writeRooflineChart(rs, ceilings, dir + "/inst.html");
    ASSERT_EQ(html.files.size(), 1u);
    std::ifstream in(html.files[0]);
    const std::string page((std::istreambuf_iterator<char>(in)), {});
    for (const char* part :
         {"Instruction roofline", ">warp issue ", "1.05T instructions/s (datasheet)",
          "L1 1.05T transactions/s", "Memory walls", "stride 1", "32-way", "#1 copy", "#0 strided"})
        EXPECT_NE(page.find(part), std::string::npos) << part;
    // SVG files: the FLOP rooflines, and the instruction roofline beside them.
    const ChartFiles svg = writeRooflineChart(rs, ceilings, dir + "/inst.svg");
    ASSERT_FALSE(svg.files.empty());
    EXPECT_EQ(svg.files.back(), dir + "/inst-instructions.svg");
    // Only the copy: no FLOP chart, the instruction roofline alone at the path given.
    const ChartFiles alone = writeRooflineChart({rs[1]}, ceilings, dir + "/copy.svg");
    EXPECT_EQ(alone.files, std::vector<std::string>{dir + "/copy.svg"});
}

} // namespace roofline
