// The cuDNN benchmarks on the GPU: a small case of each workload runs, matches its reference, and
// carries hierarchical-roofline records whose measured FLOPs agree with the analytic count.
#include "cudnn/conv_runner.hpp"
#include "cudnn/cuda_util.hpp"
#include "cudnn/rnn_runner.hpp"
#include "gpu/gpu_test_support.hpp"
#include "seer/cases.hpp"

#include <roofline/session.hpp>

#include <gtest/gtest.h>

#include <memory>

using namespace roofline;
using workloads::CaseResult;
using workloads::CaseStatus;

namespace {

class BenchmarkTest : public ::testing::Test {
protected:
    void SetUp() override {
        useFreshJitCache(); // cuDNN's PTX kernels are compiled in every run, as on a new machine
        ROOFLINE_REQUIRE_GPU();
        ASSERT_EQ(cudaStreamCreate(&stream_), cudaSuccess);
        ASSERT_EQ(cudnnCreate(&handle_), CUDNN_STATUS_SUCCESS);
        ASSERT_EQ(cudnnSetStream(handle_, stream_), CUDNN_STATUS_SUCCESS);
        ctx_.handle = handle_;
        ctx_.stream = stream_;
        ctx_.settings.warmup = 1;
        ctx_.settings.repeats = 3;
    }
    void TearDown() override {
        if (handle_)
            cudnnDestroy(handle_);
        if (stream_)
            cudaStreamDestroy(stream_);
    }

    // Runs the cases under one Session and returns their results with records attached.
    template <class Case, class Run>
    std::vector<CaseResult> runProfiled(const std::vector<Case>& cases, Run run) {
        Session session;
        ctx_.session = &session;
        std::vector<CaseResult> results;
        for (std::size_t i = 0; i < cases.size(); ++i)
            for (auto& r : run(cases[i], static_cast<int>(i), ctx_))
                results.push_back(r);
        EXPECT_EQ(workloads::attachRecords(results, session.stop()), 0u);
        EXPECT_TRUE(session.countersAvailable()) << session.status();
        EXPECT_EQ(session.replayMismatches(), 0u);
        ctx_.session = nullptr;
        return results;
    }

    static void expectVerifiedAndMeasured(const CaseResult& r) {
        SCOPED_TRACE(r.scope + " " + r.pass + " " + r.precision + " " + r.layout + " " + r.shape +
                     " " + r.algorithm);
        EXPECT_EQ(r.status, CaseStatus::Passed) << r.reason;
        EXPECT_TRUE(r.verified);
        EXPECT_LE(r.maxError, r.tolerance);
        EXPECT_GT(r.eventMedianSeconds, 0.0);
        ASSERT_FALSE(r.records.empty());
        for (const auto& k : r.records) {
            EXPECT_TRUE(k.measured) << k.name << ": " << k.note;
            EXPECT_EQ(k.scopePath, r.scopePath());
        }
        EXPECT_GT(r.measuredFlops(), 0.0);
        EXPECT_GT(r.profiledSeconds(), 0.0);
    }

    cudaStream_t stream_ = nullptr;
    cudnnHandle_t handle_ = nullptr;
    bench::RunContext ctx_;
};

} // namespace

TEST_F(BenchmarkTest, Conv2dEveryPassAndPrecisionVerifies) {
    workloads::ConvDefaults d;
    d.precisions = workloads::parsePrecisionList("fp32,tf32,fp16,bf16", "test");
    d.layouts = workloads::parseConvLayouts("nchw,nhwc", "test");
    const auto cases = workloads::parseConvSpec("n=4 c=16 size=12 k=32 kernel=3 pad=1", d);
    const auto results = runProfiled(cases, bench::runConvCase);
    ASSERT_EQ(results.size(), 24u);
    for (const auto& r : results) {
        expectVerifiedAndMeasured(r);
        const double tensorShare = r.measuredTensorFlops() / r.measuredFlops();
        if (r.precision == "fp32") // fp32 engines never run on tensor cores
            EXPECT_LT(tensorShare, 0.01) << r.scope << " " << r.algorithm;
        if (r.precision == "tf32")
            EXPECT_GT(tensorShare, 0.4) << r.scope << " " << r.algorithm;
    }
}

TEST_F(BenchmarkTest, Conv3dGroupedAndDilatedVerify) {
    workloads::ConvDefaults d;
    d.passes = workloads::parseConvPasses("all", "test");
    d.layouts = workloads::parseConvLayouts("ncdhw,ndhwc", "test");
    auto cases = workloads::parseConvSpec("dims=3 n=2 c=8 size=10 k=16 kernel=2 pad=same", d);
    d.precisions = {workloads::Precision::FP16};
    const auto grouped =
        workloads::parseConvSpec("n=2 c=16 size=14 k=32 kernel=3 pad=2 dilation=2 groups=4", d);
    cases.insert(cases.end(), grouped.begin(), grouped.end());
    for (const auto& r : runProfiled(cases, bench::runConvCase))
        expectVerifiedAndMeasured(r);
}

TEST_F(BenchmarkTest, Conv2dFp32ImplicitGemmFlopsMatchTheAnalyticCount) {
    // Forward, fp32, a shape whose tiles divide evenly: the engine does the direct convolution's
    // 2 N K C R S P Q FLOPs, measured by the SASS counters (FMA = 2) to within tile rounding.
    workloads::ConvDefaults d;
    d.passes = {workloads::ConvPass::Forward};
    const auto cases = workloads::parseConvSpec("n=8 c=32 size=28 k=64 kernel=3 pad=1", d);
    const auto results = runProfiled(cases, bench::runConvCase);
    ASSERT_EQ(results.size(), 1u);
    expectVerifiedAndMeasured(results[0]);
    if (results[0].algorithm.find("winograd") == std::string::npos &&
        results[0].algorithm.find("fft") == std::string::npos) {
        EXPECT_NEAR(results[0].measuredFlops() / results[0].analyticFlops, 1.0, 0.05)
            << results[0].algorithm;
    }
}

TEST_F(BenchmarkTest, EveryEngineIsItsOwnCaseAndRefusalsAreReported) {
    ctx_.settings.algo = bench::AlgoMode::Every;
    workloads::ConvDefaults d;
    d.passes = {workloads::ConvPass::Forward};
    const auto cases = workloads::parseConvSpec("n=2 c=8 size=8 k=16 kernel=3 pad=1", d);
    const auto results = runProfiled(cases, bench::runConvCase);
    std::size_t passed = 0, unsupported = 0;
    for (const auto& r : results) {
        EXPECT_FALSE(workloads::isFailure(r.status)) << r.scope << ": " << r.reason;
        if (r.status == CaseStatus::Passed) {
            ++passed;
            expectVerifiedAndMeasured(r);
        }
        if (r.status == CaseStatus::Unsupported) {
            ++unsupported;
            EXPECT_FALSE(r.reason.empty());
        }
    }
    EXPECT_GE(passed, 2u);
    EXPECT_GE(unsupported, 1u);
}

// SEER's collection path: --algo every on a square case gives one row per verified
// engine, with the heuristic's pick ranked 0, its kernels' blocks, resident blocks and waves.
TEST_F(BenchmarkTest, EveryEngineOfASquareCaseBecomesASeerRow) {
    ctx_.settings.algo = bench::AlgoMode::Every;
    workloads::ConvDefaults d;
    d.passes = {workloads::ConvPass::Forward};
    // Two configurations: each one's engines are profiled together, in the same replay passes,
    // under the configuration's scope; every record must still reach its own engine's case.
    auto cases = workloads::parseConvSpec("n=8 c=32 size=28 k=64 kernel=3 pad=1", d);
    const auto pointwise = workloads::parseConvSpec("n=4 c=64 size=14 k=32 kernel=1 stride=2", d);
    cases.insert(cases.end(), pointwise.begin(), pointwise.end());
    const auto results = runProfiled(cases, bench::runConvCase);
    std::map<std::string, std::size_t> skipped;
    const auto rows = seer::rowsFromCases(results, &skipped);
    std::size_t passed = 0, picks = 0;
    std::map<std::string, std::size_t> perConfig;
    for (const auto& r : results) {
        passed += r.status == CaseStatus::Passed && r.verified ? 1 : 0;
        if (r.status == CaseStatus::Passed)
            for (const auto& k : r.records)
                EXPECT_TRUE(k.measured) << r.scope << ' ' << k.name << ": " << k.note;
    }
    ASSERT_GE(rows.size(), 4u);
    EXPECT_EQ(rows.size(), passed);
    for (const auto& row : rows) {
        SCOPED_TRACE(row.engine + " @ " + row.conv.key());
        ++perConfig[row.conv.key()];
        EXPECT_TRUE(row.conv.key() == "8 32 28 64 28 3 1 1" ||
                    row.conv.key() == "4 64 14 32 7 1 2 0");
        EXPECT_FALSE(row.kernel.empty());
        EXPECT_GT(row.timeSeconds, 0.0);
        EXPECT_GT(row.flops, 0.0);
        // DRAM may see nothing: the case's tensors stay in L2 between the timed runs.
        EXPECT_GT(row.l2Bytes, 0.0);
        EXPECT_NEAR(row.dramReadBytes + row.dramWriteBytes, row.dramBytes,
                    1e-3 * row.dramBytes + 64);
        EXPECT_GT(row.blocks, 0.0);
        EXPECT_GT(row.residentBlocks, 0.0);
        EXPECT_GE(row.waves, 1.0);
        picks += row.heuristicRank == 0 ? 1 : 0;
    }
    EXPECT_EQ(perConfig.size(), 2u);
    EXPECT_LE(picks, 2u); // each configuration's heuristic pick, when it verified
}

TEST_F(BenchmarkTest, ImpossibleShapesAndWorkspaceLimitsAreStatusesNotErrors) {
    ctx_.settings.maxWorkspace = 1; // one byte: only engines without workspace may run
    workloads::ConvDefaults d;
    d.passes = {workloads::ConvPass::Forward};
    auto cases = workloads::parseConvSpec("n=1 c=6 size=8 k=8 kernel=3 groups=4", d);
    const auto fine = workloads::parseConvSpec("n=2 c=8 size=8 k=16 kernel=3 pad=1", d);
    cases.insert(cases.end(), fine.begin(), fine.end());
    const auto results = runProfiled(cases, bench::runConvCase);
    ASSERT_EQ(results.size(), 2u);
    EXPECT_EQ(results[0].status, CaseStatus::Invalid);
    EXPECT_EQ(results[0].reason, "input channels 6 are not divisible by groups 4");
    EXPECT_TRUE(results[1].status == CaseStatus::Passed ||
                results[1].status == CaseStatus::NoMemory)
        << results[1].reason;
    if (results[1].status == CaseStatus::Passed)
        EXPECT_EQ(results[1].workspaceBytes, 0.0);
}

TEST_F(BenchmarkTest, RnnEveryCellDirectionAndPassVerifies) {
    workloads::RnnDefaults d;
    const auto cases = workloads::parseRnnSpec(
        "cell=relu;tanh;lstm;gru layers=2 hidden=32 input=24 seq=6 batch=3 direction=uni;bi", d);
    const auto results = runProfiled(cases, bench::runRnnCase);
    ASSERT_EQ(results.size(), 24u);
    for (const auto& r : results)
        expectVerifiedAndMeasured(r);
}

TEST_F(BenchmarkTest, RnnHalfPrecisionRunsOnTensorCoresAndWeightGradFlopsMatch) {
    workloads::RnnDefaults d;
    d.precisions = workloads::parsePrecisionList("fp32,fp16", "test");
    const auto cases = workloads::parseRnnSpec("cell=lstm hidden=256 seq=20 batch=16", d);
    const auto results = runProfiled(cases, bench::runRnnCase);
    ASSERT_EQ(results.size(), 6u);
    for (const auto& r : results) {
        expectVerifiedAndMeasured(r);
        if (r.precision == "fp16")
            EXPECT_GT(r.measuredTensorFlops() / r.measuredFlops(), 0.9) << r.pass;
        if (r.pass == "bwd-weights") // dW = dg x^T, dR = dg h^T: GEMMs of exactly that size
            EXPECT_NEAR(r.measuredFlops() / r.analyticFlops, 1.0, 0.15) << r.precision;
    }
}
