// Workload files, sweep expansion, FLOP formulas and case reporting of the cuDNN benchmarks.
#include "workloads/case_result.hpp"
#include "workloads/conv_case.hpp"
#include "workloads/csv_rows.hpp"
#include "workloads/rnn_case.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

using namespace roofline::workloads;

namespace {

std::string readAll(const std::string& path) {
    std::ifstream in(path);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

ConvDefaults fwdOnly() {
    ConvDefaults d;
    d.passes = {ConvPass::Forward};
    return d;
}

} // namespace

TEST(CsvRows, ListCellsExpandToTheCartesianProductLastColumnFastest) {
    const auto rows =
        readCsvRows("# comment\nname,n,k\n\nx,16;32,a;b\n", "t.csv", {"name", "n", "k"});
    ASSERT_EQ(rows.size(), 4u);
    EXPECT_EQ(rows[0].cells.at("n"), "16");
    EXPECT_EQ(rows[0].cells.at("k"), "a");
    EXPECT_EQ(rows[1].cells.at("k"), "b");
    EXPECT_EQ(rows[3].cells.at("n"), "32");
    EXPECT_EQ(rows[3].source, "t.csv:4");
}

TEST(CsvRows, ErrorsNameTheFileLineAndFix) {
    try {
        readCsvRows("name,bogus\nx,1\n", "w.csv", {"name", "n"});
        FAIL();
    } catch (const WorkloadError& e) {
        EXPECT_STREQ(e.what(), "w.csv:1: unknown column 'bogus' (known columns: name, n)");
    }
    try {
        readCsvRows("name,n\nx,1,2\n", "w.csv", {"name", "n"});
        FAIL();
    } catch (const WorkloadError& e) {
        EXPECT_STREQ(e.what(), "w.csv:2: 3 cells but the header has 2 columns");
    }
    EXPECT_THROW(readCsvRows("# only a comment\n", "e.csv", {"n"}), WorkloadError);
    try {
        parseInteger("12x", "f.csv:3: column 'n'", 1);
        FAIL();
    } catch (const WorkloadError& e) {
        EXPECT_STREQ(e.what(), "f.csv:3: column 'n': '12x' is not an integer");
    }
    EXPECT_THROW(parseInteger("0", "n", 1), WorkloadError);
}

TEST(ConvCase, OutputExtentAndFlopsMatchHandCounts) {
    // 2 x 4 x 8x8 input, 8 filters 3x3, pad 1: output 8x8; 2 N K C R S P Q = 2*2*8*4*9*64.
    const auto cases = parseConvSpec("n=2 c=4 size=8 k=8 kernel=3 pad=1", fwdOnly());
    ASSERT_EQ(cases.size(), 1u);
    const ConvCase& c = cases[0];
    EXPECT_EQ(c.spatialDims, 2);
    EXPECT_EQ(c.output()[1], 8);
    EXPECT_EQ(c.output()[2], 8);
    EXPECT_DOUBLE_EQ(c.flops(), 2.0 * 2 * 8 * 4 * 9 * 64);
    EXPECT_EQ(c.inputElements(), 2 * 4 * 64);
    EXPECT_EQ(c.filterElements(), 8 * 4 * 9);
    EXPECT_EQ(c.outputElements(), 2 * 8 * 64);
    EXPECT_TRUE(c.invalidReason().empty());
    EXPECT_EQ(c.shape(), "n2 c4 8x8 k8 3x3 p1x1");

    // Stride 2, dilation 2, 4 groups: extent 5, out = (16 + 2 - 5) / 2 + 1 = 7; C/g = 2.
    const auto g = parseConvSpec("n=1 c=8 size=16 k=8 kernel=3 pad=1 stride=2 dilation=2 groups=4",
                                 fwdOnly())[0];
    EXPECT_EQ(g.output()[2], 7);
    EXPECT_DOUBLE_EQ(g.flops(), 2.0 * 1 * 8 * 2 * 9 * 49);
    EXPECT_EQ(g.filterElements(), 8 * 2 * 9);
}

TEST(ConvCase, SamePaddingPutsTheOddZeroAfterAsTensorFlowDoes) {
    // CosmoFlow: kernel 2, 'same' -> pre 0, post 1, output extent = input extent.
    const auto c = parseConvSpec("dims=3 n=1 c=4 size=16 k=8 kernel=2 pad=same", fwdOnly())[0];
    EXPECT_EQ(c.spatialDims, 3);
    for (std::size_t i = 0; i < 3; ++i) {
        EXPECT_EQ(c.padPre[i], 0);
        EXPECT_EQ(c.padPost[i], 1);
        EXPECT_EQ(c.output()[i], 16);
    }
    EXPECT_DOUBLE_EQ(c.flops(), 2.0 * 8 * 4 * 8 * 4096);
    // Stride 2, kernel 3, 'same' on 15: out 8, total padding (8-1)*2 + 3 - 15 = 2 -> 1 + 1.
    const auto s = parseConvSpec("n=1 c=1 size=15 k=1 kernel=3 stride=2 pad=same", fwdOnly())[0];
    EXPECT_EQ(s.output()[2], 8);
    EXPECT_EQ(s.padPre[2], 1);
    EXPECT_EQ(s.padPost[2], 1);
}

TEST(ConvCase, ToleranceGrowsWithTheTermsEachPassSums) {
    // VGG-16 conv1_2 at batch 128: 64 -> 64 channels, 3x3, 224x224, pad 1.
    ConvDefaults all;
    all.passes = {ConvPass::Forward, ConvPass::BackwardData, ConvPass::BackwardFilter};
    const auto cases = parseConvSpec("n=128 c=64 size=224 k=64 kernel=3 pad=1", all);
    ASSERT_EQ(cases.size(), 3u);
    EXPECT_DOUBLE_EQ(cases[0].reductionLength(), 64.0 * 9);          // C R S
    EXPECT_DOUBLE_EQ(cases[1].reductionLength(), 64.0 * 9);          // K R S
    EXPECT_DOUBLE_EQ(cases[2].reductionLength(), 128.0 * 224 * 224); // N P Q
    // Short reductions keep the precision's tolerance; 6.4 million terms in fp32 give
    // 8 * 2^-24 * sqrt(6422528) = 1.208e-3, above the 3.9e-4 correct engines reached on the H100.
    EXPECT_DOUBLE_EQ(accumulationTolerance(Precision::FP32, cases[0].reductionLength()), 1e-4);
    EXPECT_NEAR(accumulationTolerance(Precision::FP32, cases[2].reductionLength()), 1.208e-3, 1e-6);
    EXPECT_DOUBLE_EQ(accumulationTolerance(Precision::FP16, cases[2].reductionLength()), 1e-2);
    // Groups divide the channels summed.
    const auto g = parseConvSpec("n=1 c=8 size=16 k=12 kernel=3 pad=1 groups=4", all);
    EXPECT_DOUBLE_EQ(g[0].reductionLength(), 2.0 * 9);
    EXPECT_DOUBLE_EQ(g[1].reductionLength(), 3.0 * 9);
    EXPECT_DOUBLE_EQ(g[2].reductionLength(), 256.0);
}

TEST(ConvCase, ImpossibleShapesBecomeCasesWithAReason) {
    const auto groups = parseConvSpec("n=1 c=6 size=8 k=8 kernel=3 groups=4", fwdOnly())[0];
    EXPECT_EQ(groups.invalidReason(), "input channels 6 are not divisible by groups 4");
    const auto big = parseConvSpec("n=1 c=1 size=4 k=1 kernel=7", fwdOnly())[0];
    EXPECT_NE(big.invalidReason().find("larger than the padded input"), std::string::npos);
    EXPECT_DOUBLE_EQ(big.flops(), 0.0);
}

TEST(ConvCase, DefaultsAndListsMultiplyInOrder) {
    ConvDefaults d;
    d.precisions = parsePrecisionList("fp32,fp16", "--precision");
    d.layouts = parseConvLayouts("nchw,nhwc", "--layout");
    const auto cases = parseConvSpec("name=x n=8;16 c=3 size=32 k=8 kernel=3 pad=1", d);
    ASSERT_EQ(cases.size(), 2u * 2 * 2 * 3);
    EXPECT_EQ(cases[0].n, 8);
    EXPECT_EQ(cases[0].precision, Precision::FP32);
    EXPECT_EQ(cases[0].pass, ConvPass::Forward);
    EXPECT_EQ(cases[1].pass, ConvPass::BackwardData);
    EXPECT_EQ(cases[2].pass, ConvPass::BackwardFilter);
    EXPECT_EQ(cases[3].layout, ConvLayout::ChannelsLast);
    EXPECT_EQ(cases[6].precision, Precision::FP16);
    EXPECT_EQ(cases[12].n, 16);
    EXPECT_EQ(toString(cases[3].layout, 2), "NHWC");
    EXPECT_EQ(toString(ConvLayout::ChannelsLast, 3), "NDHWC");
    // A column in the file wins over the flag.
    const auto fixed =
        parseConvWorkload("n,c,size,k,kernel,precision,pass\n1,1,8,1,1,bf16,wgrad\n", "f.csv", d);
    ASSERT_EQ(fixed.size(), 2u); // two layouts
    EXPECT_EQ(fixed[0].precision, Precision::BF16);
    EXPECT_EQ(fixed[0].pass, ConvPass::BackwardFilter);
    EXPECT_THROW(parsePrecisionList("fp8", "--precision"), WorkloadError);
    EXPECT_THROW(parseConvSpec("n=1 c=1 size=8 k=1 kernel=3 pass=sideways", d), WorkloadError);
    EXPECT_THROW(parseConvSpec("n=1 c=1 k=1 kernel=3", d), WorkloadError); // no input extent
    EXPECT_THROW(parseConvSpec("n=1,2 c=1 size=8 k=1 kernel=3", d), WorkloadError);
}

TEST(ConvCase, SeerOneLineFormatIsReadAndItsOutputWidthChecked) {
    const std::string text = "# batch in_ch in_w out_ch out_w kernel stride pad\n"
                             "32 3 224 32 112 3 2 1\n"
                             "8 16 56 32 57 3 1 1\n";
    const auto cases = parseConvWorkload(text, "seer.txt", fwdOnly());
    ASSERT_EQ(cases.size(), 2u);
    EXPECT_EQ(cases[0].n, 32);
    EXPECT_EQ(cases[0].c, 3);
    EXPECT_EQ(cases[0].k, 32);
    EXPECT_EQ(cases[0].input[2], 224);
    EXPECT_EQ(cases[0].input[1], 224);
    EXPECT_EQ(cases[0].filter[1], 3);
    EXPECT_EQ(cases[0].stride[2], 2);
    EXPECT_EQ(cases[0].output()[2], 112);
    EXPECT_TRUE(cases[0].invalidReason().empty());
    EXPECT_EQ(cases[0].name, "seer2");
    EXPECT_EQ(
        cases[1].invalidReason(),
        "the line says out_width 57 but in_width 56, kernel 3, stride 1 and padding 1 give 56");
    try {
        parseConvWorkload("32 3 224 32 112 3 2 1\n32 3 224 32 112 3 2\n", "s.txt", fwdOnly());
        FAIL();
    } catch (const WorkloadError& e) {
        EXPECT_NE(std::string(e.what()).find("s.txt:2: expected 8 integers"), std::string::npos);
    }
}

TEST(RnnCase, FlopsCountEveryLayerAndDirection) {
    RnnDefaults d;
    d.passes = {RnnPass::Forward};
    const auto c =
        parseRnnSpec("cell=lstm layers=2 hidden=4 input=3 seq=5 batch=2 direction=bi", d)[0];
    EXPECT_EQ(c.gates(), 4);
    EXPECT_EQ(c.directions(), 2);
    // Layer 0: 2 dirs x 2 T N G H (I + H) = 2*2*5*2*4*4*7; layer 1 sees 2H = 8 inputs.
    EXPECT_DOUBLE_EQ(c.flops(), 2.0 * 2 * 5 * 2 * 4 * 4 * 7 + 2.0 * 2 * 5 * 2 * 4 * 4 * 12);
    const auto gru = parseRnnSpec("cell=gru hidden=8 seq=3 batch=1", d)[0];
    EXPECT_EQ(gru.input, 8); // input defaults to hidden
    EXPECT_DOUBLE_EQ(gru.flops(), 2.0 * 3 * 1 * 3 * 8 * 16);
    const auto relu = parseRnnSpec("cell=relu hidden=8 input=2 seq=3 batch=4", d)[0];
    EXPECT_EQ(relu.cell, RnnCell::Relu);
    EXPECT_DOUBLE_EQ(relu.flops(), 2.0 * 3 * 4 * 1 * 8 * 10);
    EXPECT_EQ(relu.shape(), "rnn-relu L1 H8 I2 T3 N4 uni");
}

TEST(RnnCase, SweepsAndBadInput) {
    const auto cases = parseRnnWorkload("name,cell,hidden,seq,batch\nh,lstm;gru,64;128,10,4\n",
                                        "r.csv", RnnDefaults{});
    ASSERT_EQ(cases.size(), 2u * 2 * 3);
    EXPECT_EQ(cases[0].cell, RnnCell::Lstm);
    EXPECT_EQ(cases[0].pass, RnnPass::Forward);
    EXPECT_EQ(cases[2].pass, RnnPass::BackwardWeights);
    EXPECT_EQ(cases[3].hidden, 128);
    EXPECT_EQ(cases[6].cell, RnnCell::Gru);
    EXPECT_THROW(parseRnnSpec("cell=transformer hidden=8 seq=1 batch=1", {}), WorkloadError);
    EXPECT_THROW(parseRnnSpec("cell=lstm hidden=8 seq=1 batch=1 direction=both", {}),
                 WorkloadError);
    EXPECT_THROW(parseRnnSpec("cell=lstm seq=1 batch=1", {}), WorkloadError); // no hidden
}

TEST(Presets, EveryBundledWorkloadParsesIntoRunnableCases) {
    const std::string dir = ROOFLINE_BENCH_CONFIG_DIR;
    struct Expect {
        const char* file;
        std::size_t shapes;
    } conv[] = {{"conv2d_nersc.csv", 15}, {"cosmoflow.csv", 5},    {"resnet50.csv", 23},
                {"deepcam.csv", 19},      {"seer_example.txt", 5}, {"seer_random.txt", 1200},
                {"seer_large.txt", 200},  {"vgg16.csv", 9},        {"mobilenetv2.csv", 30}};
    for (const auto& e : conv) {
        const auto cases = parseConvWorkload(readAll(dir + "/" + e.file), e.file, fwdOnly());
        EXPECT_EQ(cases.size(), e.shapes) << e.file;
        for (const auto& c : cases)
            EXPECT_EQ(c.invalidReason(), "") << e.file << " " << c.source;
    }
    // The networks' presets list each distinct shape once with its layer count: the counts add
    // up to the networks' convolutions, and their analytic work to the networks' published
    // figures (ResNet-50 ~4.1 GMAC, VGG-16 ~15.4 GMAC, MobileNetV2 ~0.30 GMAC per image).
    struct Network {
        const char* file;
        long long layers;
        double gmacsPerImage;
    } networks[] = {
        {"resnet50.csv", 53, 4.1}, {"vgg16.csv", 13, 15.4}, {"mobilenetv2.csv", 52, 0.30}};
    for (const auto& n : networks) {
        long long layers = 0;
        double flops = 0;
        for (const auto& c : parseConvWorkload(readAll(dir + "/" + n.file), n.file, fwdOnly())) {
            layers += c.count;
            flops += static_cast<double>(c.count) * c.flops() / static_cast<double>(c.n);
        }
        EXPECT_EQ(layers, n.layers) << n.file;
        EXPECT_NEAR(flops / 2e9, n.gmacsPerImage, 0.06 * n.gmacsPerImage) << n.file;
    }
    const auto cosmo = parseConvWorkload(readAll(dir + "/cosmoflow.csv"), "c", fwdOnly());
    EXPECT_EQ(cosmo[0].spatialDims, 3);
    EXPECT_EQ(cosmo[0].output()[0], 128);
    RnnDefaults d;
    d.passes = {RnnPass::Forward};
    const auto rnn = parseRnnWorkload(readAll(dir + "/rnn1d_nersc.csv"), "rnn1d", d);
    EXPECT_EQ(rnn.size(), 13u);
    EXPECT_EQ(rnn[4].hidden, 1024);
    EXPECT_EQ(rnn[4].input, 1024);
}

namespace {
roofline::KernelRecord record(const std::string& name, const std::string& scope, double seconds,
                              double fp32, double tensor) {
    roofline::KernelRecord r;
    r.name = name;
    r.scopePath = scope;
    r.measured = true;
    r.timeSeconds = seconds;
    r.flops[static_cast<std::size_t>(roofline::FlopKind::FP32)] = fp32;
    r.flops[static_cast<std::size_t>(roofline::FlopKind::TensorFP16)] = tensor;
    return r;
}
} // namespace

TEST(CaseResult, RecordsAttachByScopeAndGroupByKernel) {
    std::vector<CaseResult> cases(2);
    cases[0].index = 0;
    cases[0].scope = "c0.a";
    cases[0].pass = "fwd";
    cases[0].analyticFlops = 100;
    cases[1].index = 1;
    cases[1].scope = "c1.b";
    cases[1].pass = "bwd-data";
    const std::size_t orphans = attachRecords(
        cases,
        {record("gemm", "c0.a/fwd", 1e-3, 10, 80), record("pack", "c0.a/fwd", 4e-3, 5, 0),
         record("gemm", "c0.a/fwd", 2e-3, 10, 80), record("x", "c1.b/bwd-data/inner", 1e-3, 1, 0),
         record("y", "elsewhere", 1e-3, 0, 0)});
    EXPECT_EQ(orphans, 1u);
    ASSERT_EQ(cases[0].records.size(), 3u);
    EXPECT_EQ(cases[1].records.size(), 1u);
    EXPECT_DOUBLE_EQ(cases[0].measuredFlops(), 185);
    EXPECT_DOUBLE_EQ(cases[0].measuredTensorFlops(), 160);
    EXPECT_DOUBLE_EQ(cases[0].profiledSeconds(), 7e-3);
    const auto groups = cases[0].kernelGroups();
    ASSERT_EQ(groups.size(), 2u);
    EXPECT_EQ(groups[0].name, "pack"); // 4 ms in one launch beats gemm's 1 + 2 ms
    EXPECT_EQ(groups[1].launches, 2u);
    EXPECT_DOUBLE_EQ(groups[1].seconds, 3e-3);
    EXPECT_FALSE(isFailure(CaseStatus::Unsupported));
    EXPECT_TRUE(isFailure(CaseStatus::VerifyFailed));
    EXPECT_TRUE(isFailure(CaseStatus::Crashed));
}

TEST(CaseResult, EnginesProfiledInsideTheirConfigurationsScopeAttachToTheirOwnCase) {
    std::vector<CaseResult> cases(3);
    for (int e = 0; e < 3; ++e) {
        cases[static_cast<std::size_t>(e)].scope = "c4.seer9/eng" + std::to_string(e);
        cases[static_cast<std::size_t>(e)].pass = "fwd";
    }
    const std::size_t orphans =
        attachRecords(cases, {record("gemm", "c4.seer9/eng0/fwd", 1e-3, 10, 0),
                              record("fft", "c4.seer9/eng2/fwd", 2e-3, 20, 0),
                              record("fft2", "c4.seer9/eng2/fwd", 3e-3, 30, 0),
                              record("lost", "c4.seer9/eng7/fwd", 1e-3, 1, 0),
                              record("bare", "c4.seer9", 1e-3, 1, 0)});
    EXPECT_EQ(orphans, 2u);
    EXPECT_EQ(cases[0].records.size(), 1u);
    EXPECT_TRUE(cases[1].records.empty());
    ASSERT_EQ(cases[2].records.size(), 2u);
    EXPECT_DOUBLE_EQ(cases[2].measuredFlops(), 50);
}

TEST(CaseResult, TableCsvAndJsonCarryEveryCase) {
    std::vector<CaseResult> cases(2);
    cases[0].scope = "c0.a";
    cases[0].pass = "fwd";
    cases[0].name = "a";
    cases[0].verified = true;
    cases[0].maxError = 1e-6;
    cases[0].records.push_back(record("gemm", "c0.a/fwd", 1e-3, 10, 0));
    cases[1].index = 1;
    cases[1].scope = "c1.b";
    cases[1].pass = "fwd";
    cases[1].status = CaseStatus::Invalid;
    cases[1].reason = "no output";
    cases[1].layerCount = 6; // six layers of the network have this shape
    std::ostringstream table;
    printCaseTable(cases, table);
    EXPECT_NE(table.str().find("c0.a"), std::string::npos);
    EXPECT_NE(table.str().find("gemm 100% [unknown]"), std::string::npos) << table.str();
    EXPECT_NE(table.str().find("invalid"), std::string::npos);
    EXPECT_NE(table.str().find(": no output"), std::string::npos);
    EXPECT_EQ(progressLine(cases[1], 2).rfind("[2/2] c1.b fwd", 0), 0u);

    const auto dir = std::filesystem::temp_directory_path();
    const std::string casesCsv = (dir / "roofline_cases.csv").string();
    const std::string recordsCsv = (dir / "roofline_records.csv").string();
    const std::string json = (dir / "roofline_cases.json").string();
    writeCasesCsv(cases, casesCsv);
    writeRecordsCsv(cases, recordsCsv);
    writeJson(cases, "test", "none", json);
    std::istringstream c(readAll(casesCsv));
    std::string header, line;
    std::getline(c, header);
    EXPECT_EQ(header.rfind("case,scope,name,workload,shape,pass,precision,layout,algorithm,status,"
                           "reason",
                           0),
              0u);
    EXPECT_EQ(header.substr(header.size() - 6), ",count");
    int rows = 0;
    while (std::getline(c, line)) {
        ++rows;
        EXPECT_EQ(line.substr(line.rfind(',')), rows == 1 ? ",1" : ",6") << line;
    }
    EXPECT_EQ(rows, 2);
    std::istringstream r(readAll(recordsCsv));
    std::getline(r, header);
    EXPECT_NE(header.find(",status,launch_index,name"), std::string::npos);
    rows = 0;
    while (std::getline(r, line)) {
        ++rows;
        EXPECT_EQ(line.rfind("0,c0.a,a,", 0), 0u);
    }
    EXPECT_EQ(rows, 1);
    const std::string j = readAll(json);
    EXPECT_NE(j.find("\"status\": \"invalid\""), std::string::npos);
    EXPECT_NE(j.find("\"records\""), std::string::npos);
    EXPECT_NE(j.find("\"count\": 6"), std::string::npos);
    EXPECT_THROW(writeJson(cases, "t", "d", "/nonexistent-dir/x.json"), WorkloadError);
}
