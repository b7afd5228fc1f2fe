// Reporters against golden output.
#include <roofline/error.hpp>
#include <roofline/report.hpp>

#include "report/aggregate.hpp"
#include "report/columns.hpp"
#include "report/format.hpp"
#include "report/kernel_names.hpp"
#include "report/roofline_chart.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <iostream>
#include <sstream>

using namespace roofline;

namespace {

std::vector<KernelRecord> records() {
    KernelRecord a;
    a.launchIndex = 0;
    a.name = "void scale<float, 2>(float*, int)";
    a.mangledName = "_Z5scale";
    a.scopePath = "train/step";
    a.grid = {4, 1, 1};
    a.block = {256, 1, 1};
    a.measured = true;
    a.timeSeconds = 1e-3;
    a.gpuDurationSeconds = 1.1e-3;
    a.smClockHz = 1.98e9;
    a.flops[static_cast<std::size_t>(FlopKind::FP32)] = 2e9;
    a.flops[static_cast<std::size_t>(FlopKind::TensorFP16)] = 1e9;
    a.bytes = {4e8, 2e8, 1e8};
    a.bound = {Bound::Kind::Memory, FlopKind::FP32, MemoryLevel::DRAM, 0.5};
    a.metrics = {{"dram__bytes.sum", 1e8}};
    KernelRecord b;
    b.launchIndex = 1;
    b.name = "late";
    b.note = "counter-data image full";
    return {a, b};
}

} // namespace

TEST(Report, Table) {
    std::ostringstream out;
    TableOptions options;
    options.width = 100;
    printTable(records(), out, options);
    // Columns as wide as their longest cell: no blank space at width 100.
    const std::string expected =
        "    #  kernel          scope        time(us)    FLOP/s  TC%   AI(L1)   AI(L2) AI(DRAM)  "
        "bound\n"
        "    0  scale<float, 2> train/step    1000.00        3T   33      7.5       15       30  "
        "DRAM 50%\n"
        "    1  late            -                   - not measured [1]\n"
        "  [1] counter-data image full (1 row)\n";
    EXPECT_EQ(out.str(), expected);
    std::ostringstream top;
    options.maxRows = 1;
    options.sortByTime = true;
    printTable(records(), top, options);
    // The unmeasured record has no time: the rest is 0% of it.
    EXPECT_NE(top.str().find("1 more rows: 0.0% of the time (--top 0 shows all)"),
              std::string::npos)
        << top.str();
}

// Repeated launches (design 0009): a reused record is flagged 'r' and counted.
TEST(Report, ReusedRecordsAreFlagged) {
    auto r = records();
    r[0].reusedSamples = 2;
    r[0].note = "reused: mean of 2 measured launches of the same signature (positions 3, 7)";
    std::ostringstream out;
    TableOptions options;
    options.width = 100;
    printTable(r, out, options);
    EXPECT_NE(out.str().find("    0r scale"), std::string::npos) << out.str();
    EXPECT_NE(
        out.str().find("flags: 'r' 1 row: the mean of measured launches of the same signature"),
        std::string::npos)
        << out.str();
    // Grouped, the reused launches and the spread of the launches' times are in the row's note.
    auto twice = r;
    twice.push_back(r[0]);
    twice.back().timeSeconds = 3e-3;
    const auto grouped = groupRecords(twice, GroupBy::Kernel, Ceilings{});
    ASSERT_EQ(grouped.size(), 2u);
    EXPECT_NE(grouped[0].note.find("2 of 2 launches reuse the mean"), std::string::npos)
        << grouped[0].note;
    EXPECT_NE(grouped[0].note.find("launches took 1e+03..3e+03 us"), std::string::npos)
        << grouped[0].note;
}

TEST(Report, DisplayNamesDropReturnTypeNamespacesAndArguments) {
    EXPECT_EQ(report::displayName("void calibration::(anonymous namespace)::fmaChains<float>(float "
                                  "const*, float*, float, float)"),
              "fmaChains<float>");
    EXPECT_EQ(report::displayName("void at::native::vectorized_elementwise_kernel<4, "
                                  "at::native::Functor<c10::Half>>(int, float)"),
              "vectorized_elementwise_kernel<4, at::native::Functor<c10::Half>>");
    EXPECT_EQ(report::displayName("saxpy(int, float, float const*, float*)"), "saxpy");
    EXPECT_EQ(report::displayName("plain_c_kernel"), "plain_c_kernel");
}

TEST(Report, CsvQuotesAndColumns) {
    std::ostringstream out;
    writeCsv(records(), out);
    const std::string csv = out.str();
    std::istringstream lines(csv);
    std::string header, row0, row1;
    std::getline(lines, header);
    std::getline(lines, row0);
    std::getline(lines, row1);
    EXPECT_EQ(header.rfind("launch_index,name,mangled_name,scope,grid_x", 0), 0u);
    EXPECT_NE(header.find(",flops_tensor_fp16,"), std::string::npos);
    EXPECT_NE(header.find(",intensity_dram,"), std::string::npos);
    EXPECT_EQ(row0.rfind("0,\"void scale<float, 2>(float*, "
                         "int)\",_Z5scale,train/step,4,1,1,256,1,1,0,0,0,0,1,1,,0.001,",
                         0),
              0u)
        << row0;
    EXPECT_NE(row0.find(",3000000000,1000000000,400000000,200000000,100000000,7.5,15,30,"),
              std::string::npos)
        << row0;
    EXPECT_NE(row0.find(",DRAM 50%,0.5"), std::string::npos);
    const auto columns = [](const std::string& s) {
        std::size_t n = 1;
        bool quoted = false;
        for (char c : s)
            quoted ^= (c == '"'), n += (c == ',' && !quoted);
        return n;
    };
    EXPECT_EQ(columns(row0), columns(header));
    EXPECT_EQ(columns(row1), columns(header));
}

TEST(Report, JsonHasDerivedValuesAndNoNonFiniteNumbers) {
    auto rs = records();
    rs[1].timeSeconds = 0.0; // rates must come out 0, never NaN/inf
    std::ostringstream out;
    writeJson(rs, out);
    const auto j = nlohmann::json::parse(out.str());
    ASSERT_EQ(j["records"].size(), 2u);
    const auto& a = j["records"][0];
    EXPECT_EQ(a["scope"], "train/step");
    EXPECT_EQ(a["total_flops"], 3e9);
    EXPECT_EQ(a["tensor_flops"], 1e9);
    EXPECT_EQ(a["intensity"]["DRAM"], 30.0);
    EXPECT_EQ(a["bound"]["kind"], "memory");
    EXPECT_EQ(a["bound"]["roof"], "DRAM");
    EXPECT_EQ(a["metrics"]["dram__bytes.sum"], 1e8);
    EXPECT_EQ(j["records"][1]["measured"], false);
    EXPECT_EQ(j["records"][1]["flop_rate"], 0.0);
    EXPECT_EQ(out.str().find("nan"), std::string::npos);
    EXPECT_EQ(out.str().find("inf"), std::string::npos);
}

TEST(Report, PathWritersReportUnwritablePaths) {
    EXPECT_THROW(writeCsv(records(), "/nonexistent-dir/x.csv"), Error);
    const std::string path = ::testing::TempDir() + "report_test.json";
    writeJson(records(), path);
    std::ifstream in(path);
    EXPECT_TRUE(nlohmann::json::parse(in).contains("records"));
}

namespace {
KernelRecord flaggedRecord(std::uint64_t index, const char* name, ReplayStatus replay) {
    KernelRecord r;
    r.launchIndex = index;
    r.name = name;
    r.scopePath = "Train step #/Layer 0";
    r.replay = replay;
    r.measured = replay != ReplayStatus::Unmatched;
    r.timeSeconds = r.measured ? 1e-5 : 0.0;
    r.flops[static_cast<std::size_t>(FlopKind::FP32)] = r.measured ? 1e6 : 0.0;
    r.note = replay == ReplayStatus::Clean ? "" : "iteration replay mismatch: ...";
    return r;
}
} // namespace

TEST(Report, ReplayFlagsShowInTheTableHeaderRowsAndChartHover) {
    const std::vector<KernelRecord> rs = {
        flaggedRecord(0, "gemm", ReplayStatus::Clean),
        flaggedRecord(1, "embedding_backward", ReplayStatus::Differs),
        flaggedRecord(2, "adamw", ReplayStatus::Unmatched)};
    std::ostringstream table;
    printTable(rs, table);
    const std::string t = table.str();
    EXPECT_NE(t.find("flags: '~' 1 row: a replay pass ran it with another grid or block (values "
                     "kept); '!' 1 row: replay passes ran other kernels at its place (no values)"),
              std::string::npos)
        << t;
    EXPECT_NE(t.find("    1~ embedding_backward"), std::string::npos) << t;
    EXPECT_NE(t.find("    2! adamw"), std::string::npos) << t;
    EXPECT_NE(t.find("    0  gemm"), std::string::npos) << t;
    const auto groups = report::aggregate(rs, report::GroupBy::NameScope);
    ASSERT_EQ(groups.size(), 3u);
    EXPECT_EQ(groups[1].differing, 1u);
    EXPECT_EQ(groups[2].unmatched, 1u);
    const auto kernels =
        report::chartKernels(groups, report::Family::FP32, Ceilings{}, 2e-5, /*labels=*/3);
    ASSERT_FALSE(kernels.empty());
    bool flaggedShown = false;
    for (const auto& k : kernels)
        if (k.name.rfind("[!] ", 0) == 0) {
            flaggedShown = true;
            EXPECT_NE(k.detail.find("flagged: 1 launch(es) whose replay passes ran another grid"),
                      std::string::npos)
                << k.detail;
        }
    EXPECT_TRUE(flaggedShown);
}

// Header lines fit the terminal: broken at spaces, continued under the text after their key.
TEST(Report, HeaderLinesWrapUnderTheirKey) {
    const std::string header = "coverage  one iteration = 59 launches: 7 iterations needed (1 "
                               "window of 96 ranges x 7 passes)\nkernels   59\n";
    const std::string wrapped = report::wrapLines(header, 40);
    EXPECT_EQ(wrapped, "coverage  one iteration = 59 launches: 7\n"
                       "          iterations needed (1 window of\n"
                       "          96 ranges x 7 passes)\n"
                       "kernels   59\n");
    EXPECT_EQ(report::wrapLines(header, 0), header);                              // --wide
    EXPECT_EQ(report::wrapLines("a_very_long_word x", 5), "a_very_long_word\nx"); // kept whole
    // The bar chart's legend entries: the same breaking, no indent.
    EXPECT_EQ(report::wrapWords("GPU unknown (its kernels have no records)", 24),
              (std::vector<std::string>{"GPU unknown (its kernels", "have no records)"}));
    EXPECT_EQ(report::wrapWords("", 24), (std::vector<std::string>{""}));
    for (std::size_t at = 0, end; (end = wrapped.find('\n', at)) != std::string::npos; at = end + 1)
        EXPECT_LE(end - at, 40u);
}

TEST(Report, NamesAreCutKeepingWhatTellsThemApart) {
    EXPECT_EQ(report::shorten("nvjet_sm90_tss_192x96_64x5_1x2_h_bz_NTT", 24),
              "nvjet_sm90_...2_h_bz_NTT");
    EXPECT_EQ(report::shorten("kernel<float, 128, true, Policy<4>>", 16), "kernel<...>");
    std::vector<KernelRecord> rs(3);
    rs[0].name = "void k<float, 128, cute::Layout<16, 8>>(int)";
    rs[1].name = "void k<double, 128, cute::Layout<16, 8>>(int)";
    rs[2].name = "nvjet_sm90_tss_192x96_64x5_1x2_h_bz_coopB_NNT";
    for (auto& r : rs)
        r.note = "counter-data image full";
    std::ostringstream out;
    TableOptions options;
    options.width = 80;
    printTable(rs, out, options);
    const std::string t = out.str();
    EXPECT_EQ(t.find("k<...>"), std::string::npos) << t; // k<float...> and k<double...> collide
    EXPECT_NE(t.find("k<float, "), std::string::npos) << t;
    EXPECT_NE(t.find("k<double,"), std::string::npos) << t;
    for (std::size_t at = 0, end; (end = t.find('\n', at)) != std::string::npos; at = end + 1) {
        if (t.compare(at, 4, "  [1") != 0) { // the note line is as long as the note
            EXPECT_LE(end - at, 80u) << t.substr(at, end - at);
        }
    }
    EXPECT_NE(t.find("nvjet..192x96_64x5_1x2_h..NNT"), std::string::npos) << t; // tile, layout
    // Library kernels of one family keep the parts that tell them apart, the layout last.
    const std::vector<std::string> family = {"nvjet_sm90_tst_128x64_64x8_1x2_h_bz_NTT",
                                             "nvjet_sm90_tst_128x128_64x6_2x1_v_bz_NNT"};
    EXPECT_EQ(report::abbreviateName(family[0], 20, family), "nvjet..128x64..NTT");
    EXPECT_EQ(report::abbreviateName(family[0], 16, family), "nvjet..64x8..NTT");
    EXPECT_EQ(report::abbreviateName(
                  "cudnn_generated_fort_native_sdpa_sm90_flash_bprop_wgmma_f16_knob_26_64x64x64_"
                  "1x4x1_cga1x1x1_kernel0_0",
                  16,
                  {"cudnn_generated_fort_native_sdpa_sm90_flash_fprop_wgmma_f16_knob_7_64x128x64_"
                   "4x1x1_cga1x1x1_kernel0_0"}),
              "cudnn..bprop..0");
    // Generic kernels keep their functor; the base gives way first.
    EXPECT_EQ(report::abbreviateName("vectorized_elementwise_kernel[FillFunctor]", 22),
              "vect_elem[FillFunctor]");
    EXPECT_EQ(report::abbreviateName("multi_tensor_apply_kernel[FusedAdamMathFunctor]", 24),
              "mul..[FusedAdamMathFu..]");
    EXPECT_NE(t.find("[1] counter-data image full (3 rows)"), std::string::npos) << t;
}

TEST(Report, GroupsSumLaunchesAndFiltersMatch) {
    auto rs = records();
    rs.push_back(rs[0]);
    rs.back().launchIndex = 2;
    Ceilings c;
    c.bytesPerSecond[static_cast<std::size_t>(MemoryLevel::DRAM)] = 1e12;
    const auto groups = groupRecords(rs, GroupBy::NameScope, c);
    ASSERT_EQ(groups.size(), 2u);
    EXPECT_EQ(groups[0].kernels, 2u);
    EXPECT_DOUBLE_EQ(groups[0].timeSeconds, 2 * rs[0].timeSeconds);
    EXPECT_DOUBLE_EQ(groups[0].intensity(MemoryLevel::DRAM), rs[0].intensity(MemoryLevel::DRAM));
    EXPECT_FALSE(groups[1].measured);
    EXPECT_NE(groups[1].note.find("1 of 1 launches not measured"), std::string::npos);
    EXPECT_EQ(groupRecords(rs, GroupBy::Launch, c).size(), 3u);
    EXPECT_EQ(filterRecords(rs, "scale", "").size(), 2u);
    EXPECT_EQ(filterRecords(rs, "regex:^l", "").size(), 1u);
    EXPECT_EQ(filterRecords(rs, "", "train/").size(), 2u);
    EXPECT_THROW(filterRecords(rs, "regex:([", ""), Error);
    EXPECT_EQ(parseGroupBy("launch"), GroupBy::Launch);
    EXPECT_EQ(parseGroupBy("kernel"), GroupBy::Kernel);
    EXPECT_THROW(parseGroupBy("kernels"), Error);
    std::ostringstream out;
    TableOptions options;
    options.grouped = true;
    options.sortBy = "time";
    options.width = 120;
    printTable(groups, out, options);
    EXPECT_NE(out.str().find("launches"), std::string::npos) << out.str();
    EXPECT_NE(out.str().find("total"), std::string::npos) << out.str();
    EXPECT_THROW(checkSortKey("bogus"), Error);
}

// The default view: numbered instances merged at every scope level, the levels every row shares
// named once above the table, each row's path without them.
TEST(Report, NumberedScopesMergeAndSharedLevelsAreNamedOnce) {
    EXPECT_EQ(report::mergedInstances("Train step 7/forward/Layer 11/attn"),
              "Train step #/forward/Layer #/attn");
    EXPECT_EQ(report::mergedInstances("net/conv2/block_3"), "net/conv2/block_#");
    EXPECT_EQ(report::mergedInstances(""), "");
    Ceilings c;
    c.bytesPerSecond[static_cast<std::size_t>(MemoryLevel::DRAM)] = 1e12;
    const KernelRecord base = records()[0];
    std::vector<KernelRecord> rs;
    for (int layer = 0; layer < 12; ++layer) {
        rs.push_back(base);
        rs.back().name = "ln";
        rs.back().scopePath = "Train step #/forward/Layer " + std::to_string(layer);
    }
    rs.push_back(base);
    rs.back().name = "adamw";
    rs.back().scopePath = "Train step #/optimizer";
    const auto merged = groupRecords(rs, GroupBy::Kernel, c);
    ASSERT_EQ(merged.size(), 2u);
    EXPECT_EQ(merged[0].scopePath, "Train step #/forward/Layer #");
    EXPECT_EQ(merged[0].kernels, 12u);
    EXPECT_EQ(groupRecords(rs, GroupBy::NameScope, c).size(), 13u);
    std::ostringstream out;
    TableOptions options;
    options.grouped = true;
    options.width = 200;
    printTable(merged, out, options);
    EXPECT_NE(out.str().find("scopes below are inside 'Train step #/'"), std::string::npos);
    EXPECT_NE(out.str().find(" forward/Layer # "), std::string::npos) << out.str();
    EXPECT_NE(out.str().find(" optimizer "), std::string::npos);
    EXPECT_EQ(out.str().find(" Train step #/optimizer"), std::string::npos);
    // A row whose whole path is a shared level keeps it: nothing is named above the table.
    rs.push_back(base);
    rs.back().name = "loss";
    rs.back().scopePath = "Train step #";
    std::ostringstream kept;
    printTable(groupRecords(rs, GroupBy::Kernel, c), kept, options);
    EXPECT_EQ(kept.str().find("scopes below"), std::string::npos) << kept.str();
    EXPECT_NE(kept.str().find(" Train step #/optimizer "), std::string::npos) << kept.str();
}

// Generic kernel templates are named after the operation they were instantiated for.
TEST(Report, DisplayNamesKeepTheOperationOfGenericKernels) {
    EXPECT_EQ(report::displayName(
                  "void at::native::vectorized_elementwise_kernel<4, "
                  "at::native::BinaryFunctor<float, float, float, "
                  "at::native::binary_internal::MulFunctor<float> >, std::array<char*, 3ul> >(int, "
                  "at::native::BinaryFunctor<float, float, float, "
                  "at::native::binary_internal::MulFunctor<float> >, std::array<char*, 3ul>)"),
              "vectorized_elementwise_kernel[MulFunctor]");
    EXPECT_EQ(report::displayName(
                  "void at::native::elementwise_kernel<128, 2, "
                  "at::native::gpu_kernel_impl_nocast<at::native::direct_copy_kernel_cuda(at::"
                  "TensorIteratorBase&)::{lambda()#3}::operator()() const::{lambda(float)#1}>(at::"
                  "TensorIteratorBase&, ...)::{lambda(int)#1}>(int, ...)"),
              "elementwise_kernel[direct_copy_kernel_cuda]");
    EXPECT_EQ(report::displayName(
                  "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, "
                  "at::native::MeanOps<float, float, float, float>, unsigned int, float, 4, 4> "
                  ">(at::native::ReduceOp<float, at::native::MeanOps<float, float, float, float>, "
                  "unsigned int, float, 4, 4>)"),
              "reduce_kernel[MeanOps]");
    EXPECT_EQ(
        report::displayName(
            "void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::("
            "anonymous namespace)::TensorListMetadata<2>, at::native::(anonymous "
            "namespace)::TernaryOpScalarFunctor<float, 2, 2, 0>, at::native::LerpFunctor<float>, "
            "float>(at::native::(anonymous namespace)::TensorListMetadata<2>)"),
        "multi_tensor_apply_kernel[LerpFunctor]");
    EXPECT_EQ(
        report::displayName("void cutlass::Kernel2<cutlass_80_simt_sgemm_256x128_8x4_nn_align1>("
                            "cutlass_80_simt_sgemm_256x128_8x4_nn_align1::Params)"),
        "cutlass_80_simt_sgemm_256x128_8x4_nn_align1");
    // Short template lists and lists without an operation stay as they are.
    EXPECT_EQ(report::displayName("void at::native::(anonymous namespace)::vectorized_layer_norm_"
                                  "kernel<float, float, false>(int, float)"),
              "vectorized_layer_norm_kernel<float, float, false>");
    EXPECT_EQ(report::displayName("void scale<float, 2>(float*, int)"), "scale<float, 2>");
}
