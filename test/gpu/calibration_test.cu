// Live calibration on the GPU: every formula of the catalog against kernels whose work is counted
// by hand (calibration/expected.hpp). Label: gpu.
#include "calibration/expected.hpp"
#include "calibration/kernels.cuh"
#include "gpu/gpu_test_support.hpp"

#include <roofline/roofline.hpp>

#include <cstdio>
#include <fstream>

using roofline::FlopKind;
using roofline::KernelRecord;
using roofline::MemoryLevel;
namespace cal = calibration;

namespace {

void expectOnlyKind(const roofline::KernelRecord& r, FlopKind kind, double expected) {
    EXPECT_EQ(r.flopsOf(kind), expected) << r.name;
    for (std::size_t k = 0; k < roofline::kFlopKindCount; ++k) {
        const auto other = static_cast<FlopKind>(k);
        // Hopper's compiler emits a few HFMA2.MMA as register moves (FACTS.md): tolerate FP16
        // noise of at most one instruction per thread on other kernels, nothing else.
        if (other == kind)
            continue;
        if (other == FlopKind::FP16)
            EXPECT_LE(r.flopsOf(other), 4.0 * cal::kThreads) << r.name;
        else
            EXPECT_EQ(r.flopsOf(other), 0.0) << r.name << " has " << toString(other) << " work";
    }
}

} // namespace

TEST(GpuCalibration, CountsMatchHandCountedWork) {
    ROOFLINE_REQUIRE_GPU();
    cal::Buffers buffers;
    roofline::Options options;
    options.mode = roofline::CollectionMode::KernelReplay;
    options.rangesPerImage = 8;
    roofline::Session session{options};
    EXPECT_EQ(session.chip(), "GH100") << "these expectations were calibrated on an H100";
    ASSERT_EQ(cal::runSuite(buffers), cudaSuccess);
    const auto& records = session.stop();
    ASSERT_EQ(records.size(), 5u);
    for (const auto& r : records) {
        ASSERT_TRUE(r.measured) << r.name << ": " << r.note;
        EXPECT_GT(r.timeSeconds, 0.0);
        EXPECT_GT(r.smClockHz, 0.5e9);
        EXPECT_LT(r.smClockHz, 2.2e9);
    }
    const auto* ffma = findByScope(records, "calibration/ffma");
    const auto* dfma = findByScope(records, "calibration/dfma");
    const auto* hfma = findByScope(records, "calibration/hfma2");
    const auto* mma = findByScope(records, "calibration/mma_fp16");
    const auto* copy = findByScope(records, "calibration/copy");
    ASSERT_TRUE(ffma && dfma && hfma && mma && copy);

    EXPECT_NE(ffma->name.find("fmaChains<float>"), std::string::npos) << ffma->name;
    EXPECT_EQ(ffma->grid.x, cal::kGrid);
    EXPECT_EQ(ffma->block.x, cal::kBlock);
    expectOnlyKind(*ffma, FlopKind::FP32, cal::kFfmaFlops);
    expectOnlyKind(*dfma, FlopKind::FP64, cal::kDfmaFlops);
    // HFMA2: counted instructions x 4; the compiler may add an HFMA2.MMA move per thread.
    EXPECT_GE(hfma->flopsOf(FlopKind::FP16), cal::kHfma2Flops);
    EXPECT_LE(hfma->flopsOf(FlopKind::FP16), cal::kHfma2Flops + 4.0 * cal::kThreads);
    EXPECT_EQ(hfma->flopsOf(FlopKind::FP32), 0.0);
    expectOnlyKind(*mma, FlopKind::TensorFP16, cal::kMmaFlops);

    EXPECT_NEAR(copy->bytesAt(MemoryLevel::DRAM), cal::kCopyTraffic, 0.02 * cal::kCopyTraffic);
    // The DRAM read/write split: the copy reads half its traffic and writes the other
    // half, and the two add up to dram__bytes.sum.
    const double read = copy->metrics.at("dram__bytes_read.sum");
    const double written = copy->metrics.at("dram__bytes_write.sum");
    EXPECT_NEAR(read, cal::kCopyTraffic / 2, 0.02 * cal::kCopyTraffic);
    EXPECT_NEAR(written, cal::kCopyTraffic / 2, 0.02 * cal::kCopyTraffic);
    EXPECT_NEAR(read + written, copy->bytesAt(MemoryLevel::DRAM),
                1e-3 * copy->bytesAt(MemoryLevel::DRAM));
    EXPECT_NEAR(copy->bytesAt(MemoryLevel::L1), cal::kCopyTraffic, 0.01 * cal::kCopyTraffic);
    EXPECT_GE(copy->bytesAt(MemoryLevel::L2), 0.98 * cal::kCopyTraffic);
    EXPECT_EQ(copy->bound.kind, roofline::Bound::Kind::Memory);
    EXPECT_EQ(ffma->bound.kind, roofline::Bound::Kind::Compute);
    std::printf("copy: DRAM read %.0f, written %.0f, dram__bytes.sum %.0f bytes\n", read, written,
                copy->bytesAt(MemoryLevel::DRAM));

    std::printf("calibration on %s (%s, %zu passes):\n", session.deviceName().c_str(),
                session.chip().c_str(), session.passes());
    roofline::printTable(records, std::cout);
}

TEST(GpuSession, RangesAccumulateAcrossScopeWindowsAndUnscopedKernelsAreSkipped) {
    ROOFLINE_REQUIRE_GPU();
    cal::Buffers buffers;
    roofline::Options options;
    options.mode = roofline::CollectionMode::KernelReplay;
    options.rangesPerImage = 4;
    roofline::Session session{options};
    {
        roofline::ProfileScope s{"first"};
        ASSERT_EQ(cal::launchFfma(buffers), cudaSuccess);
    }
    ASSERT_EQ(cal::launchDfma(buffers), cudaSuccess); // outside every scope: not profiled
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    {
        roofline::ProfileScope s{"second"};
        ASSERT_EQ(cal::launchDfma(buffers), cudaSuccess);
    }
    const auto& records = session.stop();
    ASSERT_EQ(records.size(), 2u);
    ASSERT_TRUE(records[0].measured && records[1].measured) << records[1].note;
    EXPECT_EQ(records[0].scopePath, "first");
    EXPECT_EQ(records[1].scopePath, "second");
    EXPECT_EQ(records[0].flopsOf(FlopKind::FP32), cal::kFfmaFlops);
    EXPECT_EQ(records[1].flopsOf(FlopKind::FP64), cal::kDfmaFlops);
}

TEST(GpuSession, FullImagesAreEvaluatedAndReusedInsideTheLaunchCallback) {
    ROOFLINE_REQUIRE_GPU();
    cal::Buffers buffers;
    roofline::Options options;
    options.mode = roofline::CollectionMode::KernelReplay;
    options.rangesPerImage = 2;
    roofline::Session session{options};
    {
        roofline::ProfileScope s{"over"};
        for (int i = 0; i < 3; ++i)
            ASSERT_EQ(i == 1 ? cal::launchDfma(buffers) : cal::launchFfma(buffers), cudaSuccess);
    }
    const auto& records = session.stop();
    ASSERT_EQ(records.size(), 3u);
    for (const auto& r : records)
        EXPECT_TRUE(r.measured) << r.note;
    EXPECT_EQ(session.droppedKernels(), 0u);
    EXPECT_EQ(session.droppedRanges(), 0u);
    EXPECT_EQ(records[0].flopsOf(FlopKind::FP32), cal::kFfmaFlops);
    EXPECT_EQ(records[1].flopsOf(FlopKind::FP64), cal::kDfmaFlops);
    EXPECT_EQ(records[2].flopsOf(FlopKind::FP32), cal::kFfmaFlops);
}

TEST(GpuSession, SecondSessionIsRefusedAndSaveWritesARecording) {
    ROOFLINE_REQUIRE_GPU();
    cal::Buffers buffers;
    roofline::Options options;
    options.mode = roofline::CollectionMode::KernelReplay;
    options.rangesPerImage = 2;
    roofline::Session session{options};
    try {
        roofline::Session second{options};
        ADD_FAILURE() << "a second active Session was accepted";
    } catch (const roofline::Error& e) {
        EXPECT_EQ(e.code(), roofline::ErrorCode::ProfilerBusy);
    }
    EXPECT_THROW(session.save("never.rfl"), roofline::Error); // before stop()
    {
        roofline::ProfileScope s{"one"};
        ASSERT_EQ(cal::launchFfma(buffers), cudaSuccess);
    }
    session.stop();
    const std::string path = ::testing::TempDir() + "gpu_session.rfl";
    session.save(path);
    std::ifstream in(path, std::ios::binary | std::ios::ate);
    EXPECT_GT(in.tellg(), 1000);
}

// Nsight Compute's byte definitions (ROOFLINE_BYTES=ncu) against NERSC's on the same kernels,
// measured one after the other. DRAM is the same counter; the copy moves 2 x 256 MiB, which
// bounds what each definition may report at L1 and L2. The figures printed here are the
// calibration in docs/methodology.md ("Two byte definitions").
TEST(GpuCalibration, NsightComputeByteDefinitionsOnTheCalibrationKernels) {
    ROOFLINE_REQUIRE_GPU();
    cal::Buffers buffers;
    std::vector<KernelRecord> by[2];
    for (int d = 0; d < 2; ++d) {
        roofline::Options options;
        options.mode = roofline::CollectionMode::KernelReplay;
        options.metrics = roofline::MetricSet::Memory;
        options.bytes = d == 0 ? roofline::ByteDefinition::Nersc : roofline::ByteDefinition::Ncu;
        options.flushOnExit = false;
        roofline::Session session{options};
        ASSERT_TRUE(session.countersAvailable()) << session.status();
        ASSERT_EQ(cal::runSuite(buffers), cudaSuccess);
        by[d] = session.stop();
        ASSERT_EQ(by[d].size(), 5u);
    }
    std::printf("%-22s %14s %14s %14s %14s %14s %14s\n", "kernel", "L1 nersc", "L1 ncu", "L2 nersc",
                "L2 ncu", "DRAM nersc", "DRAM ncu");
    for (std::size_t i = 0; i < 5; ++i) {
        const KernelRecord &a = by[0][i], &b = by[1][i];
        ASSERT_TRUE(a.measured && b.measured) << a.note << b.note;
        std::printf("%-22s %14.6g %14.6g %14.6g %14.6g %14.6g %14.6g\n", a.scopePath.c_str(),
                    a.bytesAt(MemoryLevel::L1), b.bytesAt(MemoryLevel::L1),
                    a.bytesAt(MemoryLevel::L2), b.bytesAt(MemoryLevel::L2),
                    a.bytesAt(MemoryLevel::DRAM), b.bytesAt(MemoryLevel::DRAM));
        EXPECT_TRUE(b.metrics.count("lts__lts2xbar_cycles_active.sum"));
        EXPECT_FALSE(b.metrics.count("lts__t_bytes.sum"));
    }
    const auto* copy = findByScope(by[1], "calibration/copy");
    ASSERT_TRUE(copy);
    EXPECT_NEAR(copy->bytesAt(MemoryLevel::DRAM), cal::kCopyTraffic, 0.02 * cal::kCopyTraffic);
    // L2 <-> crossbar traffic of a copy: every byte crosses once each way, give or take.
    EXPECT_GT(copy->bytesAt(MemoryLevel::L2), 0.45 * cal::kCopyTraffic);
    EXPECT_LT(copy->bytesAt(MemoryLevel::L2), 2.5 * cal::kCopyTraffic);
    EXPECT_GT(copy->bytesAt(MemoryLevel::L1), 0.0);
    EXPECT_LT(copy->bytesAt(MemoryLevel::L1), 2.5 * cal::kCopyTraffic);
}

// Tensor counters by detection (docs/design/0008): every FLOP kind of every calibration kernel --
// CUDA-core FMA of three types and WMMA on five input types (HMMA FP16/BF16/TF32, DMMA, IMMA) --
// equals the hand count, with detection (the set grows to what the kernels need) as with every
// tensor counter from the start.
TEST(GpuTensorDetection, EveryFlopKindExactOnTheCalibrationKernels) {
    ROOFLINE_REQUIRE_GPU();
    cal::Buffers buffers;
    for (const auto counters : {roofline::TensorCounters::Detect, roofline::TensorCounters::All}) {
        SCOPED_TRACE(toString(counters));
        const auto records = measureEveryLaunch(counters, [&] {
            for (auto launch :
                 {cal::launchFfma, cal::launchDfma, cal::launchMmaFp16, cal::launchMmaBf16,
                  cal::launchMmaTf32, cal::launchMmaFp64, cal::launchMmaInt8})
                ASSERT_EQ(launch(buffers), cudaSuccess);
        });
        ASSERT_EQ(records.size(), 7u);
        for (const auto& r : records)
            ASSERT_TRUE(r.measured) << r.name << ": " << r.note;
        const auto kind = [](const KernelRecord& r, FlopKind k) { return r.flopsOf(k); };
        EXPECT_EQ(kind(records[0], FlopKind::FP32), cal::kFfmaFlops);
        EXPECT_EQ(kind(records[1], FlopKind::FP64), cal::kDfmaFlops);
        const struct {
            FlopKind kind;
            double flops;
        } mma[] = {{FlopKind::TensorFP16, cal::kMmaFlops},
                   {FlopKind::TensorBF16, cal::kMmaBf16Flops},
                   {FlopKind::TensorTF32, cal::kMmaTf32Flops},
                   {FlopKind::TensorFP64, cal::kMmaFp64Flops},
                   {FlopKind::TensorINT8, cal::kMmaInt8Ops}};
        for (std::size_t i = 0; i < records.size(); ++i)
            for (std::size_t k = 0; k < roofline::kFlopKindCount; ++k) {
                const auto other = static_cast<FlopKind>(k);
                if (!roofline::isTensor(other))
                    continue;
                const double expected = i >= 2 && mma[i - 2].kind == other ? mma[i - 2].flops : 0.0;
                EXPECT_EQ(kind(records[i], other), expected)
                    << records[i].name << " " << toString(other);
            }
    }
}
