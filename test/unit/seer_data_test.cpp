// The SEER data set's collection on the CPU: the random configurations a sweep draws, what a
// resumed sweep still has to run, and the compressed data set bundled with the sources.
#include "seer/cases.hpp"
#include "seer/networks.hpp"
#include "seer/sample.hpp"
#include "seer/selection.hpp"
#include "workloads/conv_case.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <set>
#include <sstream>

namespace roofline::seer {
namespace {

std::string fixture(const std::string& name) {
    return std::string(ROOFLINE_FIXTURE_DIR) + "/" + name;
}

TEST(SeerSample, DrawsDistinctValidConfigurationsWithinTheBoundsTheSameOnEveryRun) {
    SampleOptions o;
    o.count = 400;
    o.seed = 7;
    const auto configs = sampleConfigs(o);
    ASSERT_EQ(configs.size(), 400u);
    std::set<std::string> keys;
    std::set<double> kernels, strides, batches;
    for (const auto& c : configs) {
        SCOPED_TRACE(c.key());
        keys.insert(c.key());
        EXPECT_GE(c.macs(), o.minMacs);
        EXPECT_LE(c.macs(), o.maxMacs);
        EXPECT_LE(4.0 * c.batch * c.inChannels * c.inWidth * c.inWidth, o.maxTensorBytes);
        EXPECT_EQ(c.outWidth,
                  std::floor((c.inWidth + 2 * c.padding - c.kernelWidth) / c.stride) + 1);
        EXPECT_GE(c.outWidth, 1);
        EXPECT_GE(c.inWidth, 7);
        EXPECT_LE(c.inWidth, 224);
        EXPECT_LE(c.padding, std::floor(c.kernelWidth / 2));
        kernels.insert(c.kernelWidth);
        strides.insert(c.stride);
        batches.insert(c.batch);
    }
    EXPECT_EQ(keys.size(), 400u);
    EXPECT_EQ(kernels, (std::set<double>{1, 3, 5, 7}));
    EXPECT_EQ(strides, (std::set<double>{1, 2}));
    EXPECT_EQ(batches.size(), 9u); // 1, 2, 4, ..., 256
    // The same seed draws the same set (the stream is ours, not the standard library's).
    const auto again = sampleConfigs(o);
    for (std::size_t i = 0; i < configs.size(); ++i)
        ASSERT_EQ(again[i].key(), configs[i].key());
    o.seed = 8;
    EXPECT_NE(sampleConfigs(o)[0].key(), configs[0].key());
    // Written in SEER's one-line format, the file reads back as the same configurations.
    std::ostringstream out;
    writeSeerConfigs(configs, o, out);
    std::istringstream in(out.str());
    const auto back = readSeerConfigs(in, "sample.txt");
    ASSERT_EQ(back.size(), configs.size());
    EXPECT_EQ(back.back().key(), configs.back().key());
    // Bounds nothing can meet are refused by name.
    o.minMacs = 1e15;
    o.maxMacs = 2e15;
    try {
        sampleConfigs(o);
        FAIL() << "impossible bounds were accepted";
    } catch (const SeerError& e) {
        EXPECT_NE(std::string(e.what()).find("--min-macs"), std::string::npos) << e.what();
    }
}

TEST(SeerResume, CasesAlreadyInTheDataSetAreSkippedByConfigurationPassAndPrecision) {
    workloads::ConvDefaults d;
    d.passes = {workloads::ConvPass::Forward, workloads::ConvPass::BackwardData};
    auto cases = workloads::parseConvSpec("n=8 c=32 size=28 k=64 kernel=3 pad=1", d);
    const auto other = workloads::parseConvSpec("n=4 c=64 size=14 k=32 kernel=1 stride=2", d);
    const auto grouped = workloads::parseConvSpec("n=4 c=64 size=14 k=64 kernel=3 groups=64", d);
    cases.insert(cases.end(), other.begin(), other.end());
    cases.insert(cases.end(), grouped.begin(), grouped.end());
    ASSERT_EQ(cases.size(), 6u);
    EXPECT_EQ(resumeKey(cases[0]), "8 32 28 64 28 3 1 1|fwd|fp32");
    EXPECT_EQ(resumeKey(cases[4]), ""); // grouped: no SEER form

    // The data set holds the first configuration's forward pass (two engines) and the second's
    // backward-data pass, and a row of another precision.
    SeerRow a;
    a.conv = parseSeerLine("8 32 28 64 28 3 1 1", "t");
    a.engine = "eng0";
    a.timeSeconds = 1e-4;
    SeerRow b = a;
    b.engine = "eng1";
    SeerRow c;
    c.conv = parseSeerLine("4 64 14 32 7 1 2 0", "t");
    c.pass = "bwd-data";
    c.engine = "eng0";
    c.timeSeconds = 2e-4;
    SeerRow half = c;
    half.pass = "fwd";
    half.precision = "fp16";
    std::ostringstream data;
    writeDataset({a, b, c, half}, data);
    std::istringstream in(data.str());
    const auto left = casesNotIn(cases, readDataset(in, "seer.csv"));
    ASSERT_EQ(left.size(), 4u);
    EXPECT_EQ(resumeKey(left[0]), "8 32 28 64 28 3 1 1|bwd-data|fp32");
    EXPECT_EQ(resumeKey(left[1]), "4 64 14 32 7 1 2 0|fwd|fp32"); // fp16's row does not count
    EXPECT_EQ(left[2].groups, 64);                                // always runs
    EXPECT_EQ(left[3].groups, 64);
}

// The bundled H100 data sets (test/fixtures/README.md): what each holds.
struct BundledSet {
    const char* file;
    std::size_t rows, configs, engines; // engines per pass ("bwd-data/eng1")
    const char* precision;
    std::size_t tensorRows; // rows whose kernels ran tensor-core FLOPs
};

TEST(SeerData, TheBundledH100DataSetsDecompressAndRead) {
    for (const BundledSet& set :
         {BundledSet{"h100_seer_random.csv.zst", 8244, 1200, 9, "fp32", 0},
          BundledSet{"h100_seer_bwd.csv.zst", 3825, 300, 16, "fp32", 0},
          BundledSet{"h100_seer_fp16.csv.zst", 6322, 300, 24, "fp16", 4049},
          BundledSet{"h100_seer_large_fwd.csv.zst", 933, 132, 9, "fp32", 0},
          BundledSet{"h100_seer_large_bwd.csv.zst", 610, 68, 16, "fp32", 0},
          BundledSet{"h100_seer_networks.csv.zst", 2044, 104, 25, "fp32", 0}}) {
        const auto rows = readDatasetFile(fixture(set.file));
        std::set<std::string> configs, engines;
        std::size_t named = 0, tensor = 0;
        for (const auto& r : rows) {
            configs.insert(r.conv.key());
            engines.insert(modelKey(r));
            named += r.kernel.empty() ? 0 : 1;
            tensor += r.tensorFlops > 0 ? 1 : 0;
            EXPECT_GT(r.timeSeconds, 0) << set.file << ": " << r.conv.key();
            EXPECT_EQ(r.precision, set.precision) << set.file;
        }
        EXPECT_EQ(rows.size(), set.rows) << set.file;
        EXPECT_EQ(configs.size(), set.configs) << set.file;
        EXPECT_EQ(engines.size(), set.engines) << set.file;
        EXPECT_EQ(tensor, set.tensorRows) << set.file;
        EXPECT_EQ(named, rows.size()) << set.file; // every row names its dominant kernel
    }
}

TEST(SeerData, DamagedOrOversizedCompressedFilesAreRefusedByName) {
    const std::string path = fixture("h100_seer_random.csv.zst");
    std::ifstream whole(path, std::ios::binary);
    std::ostringstream bytes;
    bytes << whole.rdbuf();
    const std::string dir = ::testing::TempDir();
    auto refused = [&](const std::string& name, const std::string& content, std::size_t limit,
                       const std::string& says) {
        const std::string file = dir + "/" + name;
        std::ofstream(file, std::ios::binary) << content;
        try {
            readDataFile(file, limit);
            ADD_FAILURE() << name << " was read";
        } catch (const SeerError& e) {
            EXPECT_NE(std::string(e.what()).find(name), std::string::npos) << e.what();
            EXPECT_NE(std::string(e.what()).find(says), std::string::npos) << e.what();
        }
        std::remove(file.c_str());
    };
    refused("truncated.csv.zst", bytes.str().substr(0, bytes.str().size() / 2), 1u << 30,
            "ends early");
    refused("plain.csv.zst", "batch,in_channels\n1,2\n", 1u << 30, "not a zstd file");
    refused("big.csv.zst", bytes.str(), 1u << 20, "more than 1 MiB");
    refused("big.csv", std::string(2u << 20, 'x'), 1u << 20, "larger than 1 MiB");
    try {
        readDataFile(dir + "/absent.csv");
        ADD_FAILURE() << "an absent file was read";
    } catch (const SeerError& e) {
        EXPECT_NE(std::string(e.what()).find("absent.csv"), std::string::npos);
    }
}

// A network's conv time per iteration: each layer's pick (the least predicted time) summed with
// the layer's count, against the measured best and the heuristic, per batch; a layer missing a
// pass takes that pass out of the batch's complete passes, and grouped layers are counted apart.
TEST(SeerNetworks, ANetworksTimeSumsEachLayersPickTimesItsCount) {
    // Two engines whose predicted times are c x MACs (log-linear models with only that term).
    Model m;
    auto engine = [](double secondsPerMac) {
        EngineModel e;
        e.trainingRows = 100;
        e.logLinear.assign(kLogFeatures, 0.0);
        e.logLinear[0] = std::log(secondsPerMac);
        e.logLinear[1] = 1; // log MACs
        return e;
    };
    for (const char* pass : {"", "bwd-data/"}) {
        m.engines[std::string(pass) + "eng0"] = engine(1e-12); // picked: predicted fastest
        m.engines[std::string(pass) + "eng1"] = engine(2e-12); // measured fastest
    }
    const NetworkLayers net = readNetworkLayers("name,n,c,size,k,kernel,stride,pad,groups,count\n"
                                                "a,32,64,28,64,3,1,1,1,3\n"
                                                "b,32,64,28,128,1,2,0,1,1\n"
                                                "dw,32,64,28,64,3,1,1,64,2\n",
                                                "configs/tiny_net.csv");
    EXPECT_EQ(net.network, "tiny_net");
    ASSERT_EQ(net.layers.size(), 2u);
    EXPECT_EQ(net.undescribed, 2);
    std::vector<SeerRow> rows;
    for (double batch : {32.0, 128.0})
        for (const char* pass : {"fwd", "bwd-data"})
            for (const auto& layer : net.layers) {
                if (batch == 128 && std::string(pass) == "bwd-data" && layer.name == "b")
                    continue; // not measured
                SeerRow r;
                r.conv = layer.conv;
                r.conv.batch = batch;
                r.pass = pass;
                r.engine = "eng0";
                r.timeSeconds = 1.1e-12 * r.conv.macs();
                r.heuristicRank = 1;
                rows.push_back(r);
                r.engine = "eng1";
                r.timeSeconds = 0.9e-12 * r.conv.macs();
                r.heuristicRank = 0;
                rows.push_back(r);
            }
    const auto figures = evaluateNetwork(m, net, rows);
    ASSERT_EQ(figures.size(), 2u);
    const double macs32 = 3 * net.layers[0].conv.macs() + net.layers[1].conv.macs();
    const NetworkFigures& f = figures[0];
    EXPECT_EQ(f.batch, 32);
    EXPECT_EQ(f.passes, (std::set<std::string>{"bwd-data", "fwd"}));
    EXPECT_EQ(f.layers, 8); // (3 + 1) layers x 2 passes
    EXPECT_EQ(f.missing, 0);
    EXPECT_NEAR(f.predicted, 2 * 1e-12 * macs32, 1e-9 * f.predicted);
    EXPECT_NEAR(f.picked, 2 * 1.1e-12 * macs32, 1e-9 * f.picked);
    EXPECT_NEAR(f.best, 2 * 0.9e-12 * macs32, 1e-9 * f.best);
    EXPECT_NEAR(f.heuristic, f.best, 1e-9 * f.best);
    const NetworkFigures& g = figures[1];
    EXPECT_EQ(g.batch, 128);
    EXPECT_EQ(g.passes, (std::set<std::string>{"fwd"})); // bwd-data lacks layer b: left out
    EXPECT_EQ(g.incomplete, (std::set<std::string>{"bwd-data"}));
    EXPECT_EQ(g.layers, 4);
    EXPECT_EQ(g.missing, 1);
    const double macs128 = 4 * macs32;
    EXPECT_NEAR(g.predicted, 1e-12 * macs128, 1e-9 * g.predicted);
    std::ostringstream out;
    printNetworkFigures(figures, out);
    EXPECT_NE(out.str().find("tiny_net          32  bwd-data,fwd"), std::string::npos) << out.str();
    EXPECT_NE(out.str().find("-9.1%"), std::string::npos)
        << out.str(); // predicted 1/1.1 of measured
    EXPECT_NE(out.str().find("left out: bwd-data (1 layers without a measured row in it)"),
              std::string::npos)
        << out.str();
    EXPECT_NE(out.str().find("2 layers are outside SEER's parameters"), std::string::npos);
}

} // namespace
} // namespace roofline::seer
