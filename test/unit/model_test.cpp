#include "core/roofline_model.hpp"
#include "core/string_distance.hpp"
#include "unit/h100_device.hpp"

#include <roofline/report.hpp>

#include <gtest/gtest.h>

#include <sstream>

#include <cmath>

using namespace roofline;

namespace {

core::DeviceInfo h100() {
    return roofline::test::h100Device();
}

core::MetricValues values(double cycles, double fp32Fma, double dramBytes, double l1Bytes) {
    core::MetricValues v;
    for (const auto& m : core::requiredMetrics(core::profileForChip("GH100")))
        v[m] = 0.0;
    v["sm__cycles_elapsed.avg"] = cycles;
    v["sm__cycles_elapsed.avg.per_second"] = 2e9;
    v["gpu__time_duration.sum"] = cycles / 2.0; // ns at 2 GHz
    v["sm__sass_thread_inst_executed_op_ffma_pred_on.sum"] = fp32Fma;
    v["dram__bytes.sum"] = dramBytes;
    v["lts__t_bytes.sum"] = dramBytes;
    v["l1tex__t_bytes.sum"] = l1Bytes;
    return v;
}

} // namespace

TEST(Ceilings, H100SxmDatasheetAtBoostClock) {
    const Ceilings c = core::datasheetCeilings(h100());
    EXPECT_NEAR(c.flopsPerSecond[static_cast<std::size_t>(FlopKind::FP32)], 66.9e12, 1e9);
    EXPECT_NEAR(c.flopsPerSecond[static_cast<std::size_t>(FlopKind::TensorFP16)], 989.4e12, 1e10);
    EXPECT_EQ(c.bytesPerSecond[static_cast<std::size_t>(MemoryLevel::DRAM)], 3.35e12);
    EXPECT_NEAR(c.bytesPerSecond[static_cast<std::size_t>(MemoryLevel::L1)], 128.0 * 132 * 1.98e9,
                1.0);
    EXPECT_EQ(c.bytesPerSecond[static_cast<std::size_t>(MemoryLevel::L2)],
              0.0); // no datasheet value
    EXPECT_NE(c.name.find("SXM5"), std::string::npos);
}

TEST(Ceilings, PcieAndScalingAndUnknownDevices) {
    core::DeviceInfo pcie = h100();
    pcie.name = "NVIDIA H100 PCIe";
    pcie.smCount = 114;
    pcie.smClockHz = 1.755e9;
    EXPECT_NEAR(core::datasheetCeilings(pcie).flopsPerSecond[1], 51.2e12, 1e9);
    core::DeviceInfo halfClock = h100();
    halfClock.smClockHz = 0.99e9;
    EXPECT_NEAR(core::datasheetCeilings(halfClock).flopsPerSecond[1], 66.9e12 / 2, 1e9);
    core::DeviceInfo unknown;
    unknown.name = "Some Future GPU";
    const Ceilings c = core::datasheetCeilings(unknown);
    for (double f : c.flopsPerSecond)
        EXPECT_EQ(f, 0.0);
    EXPECT_NE(c.source.find("unknown"), std::string::npos);
}

TEST(Model, RecordFromValues) {
    core::LaunchInfo launch;
    launch.launchIndex = 3;
    launch.name = "k";
    launch.scopePath = "a/b";
    const auto ceilings = core::datasheetCeilings(h100());
    // 1 ms at 2 GHz, 1e9 FFMA = 2e9 FLOPs, 2e8 DRAM bytes, 4e8 L1 bytes.
    const auto r = core::buildRecord(core::profileForChip("GH100"), launch,
                                     values(2e6, 1e9, 2e8, 4e8), ceilings);
    EXPECT_TRUE(r.measured);
    EXPECT_DOUBLE_EQ(r.timeSeconds, 1e-3);
    EXPECT_DOUBLE_EQ(r.gpuDurationSeconds, 1e-3);
    EXPECT_DOUBLE_EQ(r.totalFlops(), 2e9);
    EXPECT_DOUBLE_EQ(r.intensity(MemoryLevel::DRAM), 10.0);
    EXPECT_DOUBLE_EQ(r.intensity(MemoryLevel::L1), 5.0);
    EXPECT_DOUBLE_EQ(r.flopRate(), 2e12);
    EXPECT_DOUBLE_EQ(r.byteRate(MemoryLevel::DRAM), 2e11);
    // 2 TFLOP/s of 66.9 (3.0%) vs 0.2 TB/s of 3.35 (6.0%) vs 0.4 TB/s of 33.4 TB/s L1 (1.2%).
    EXPECT_EQ(r.bound.kind, Bound::Kind::Memory);
    EXPECT_EQ(r.bound.level, MemoryLevel::DRAM);
    EXPECT_NEAR(r.bound.fractionOfPeak, 0.2 / 3.35, 1e-9);
    EXPECT_EQ(r.scopePath, "a/b");
    EXPECT_EQ(r.metrics.at("dram__bytes.sum"), 2e8);
}

TEST(Model, ComputeBoundAndZeroTimeAndUnmeasured) {
    const auto ceilings = core::datasheetCeilings(h100());
    const auto& p = core::profileForChip("GH100");
    const auto compute = core::buildRecord(p, {}, values(2e6, 3e10, 1e6, 1e6), ceilings);
    EXPECT_EQ(compute.bound.kind, Bound::Kind::Compute);
    EXPECT_EQ(compute.bound.flop, FlopKind::FP32);
    EXPECT_EQ(toString(compute.bound), "fp32 90%");
    const auto zero = core::buildRecord(p, {}, values(0, 0, 0, 0), ceilings);
    EXPECT_EQ(zero.timeSeconds, 0.0);
    EXPECT_EQ(zero.flopRate(), 0.0);
    EXPECT_EQ(zero.intensity(MemoryLevel::DRAM), 0.0);
    EXPECT_EQ(zero.bound.kind, Bound::Kind::Unknown);
    EXPECT_FALSE(zero.note.empty());
    const auto none = core::unmeasuredRecord({}, "why");
    EXPECT_FALSE(none.measured);
    EXPECT_EQ(none.note, "why");
    EXPECT_EQ(toString(none.bound), "unknown");
}

TEST(Model, LeanMetricSetsSayWhatWasNotCollected) {
    const auto& p = core::profileForChip("GH100");
    core::LaunchInfo launch;
    launch.name = "k";
    const auto metrics = core::requiredMetrics(p, MetricSet::Time);
    ASSERT_EQ(metrics.size(), 3u);
    launch.values = {2000.0, 2e9, 1000.0}; // cycles, cycles per second, duration (ns)
    const auto r = core::recordFromLaunch(p, launch, metrics, core::datasheetCeilings(h100()));
    EXPECT_TRUE(r.measured);
    EXPECT_DOUBLE_EQ(r.timeSeconds, 1e-6);
    EXPECT_EQ(r.totalFlops(), 0.0);
    EXPECT_EQ(r.metrics.size(), 3u); // only what was collected, not the zeros the formulas used
    EXPECT_EQ(r.note, "not collected by this metric set: FLOPs, tensor FLOPs, bytes");
}

// Counters collected but not measured (NaN: the job stopped before their pass) make a partial
// record: what was measured stands, what was not is unknown -- never zero -- and the table says so.
TEST(Model, APartialRecordSaysWhatItLacksAndTheTableShowsItAsUnknown) {
    const auto& p = core::profileForChip("GH100");
    const auto metrics = core::requiredMetrics(p, MetricSet::Full);
    core::LaunchInfo launch;
    launch.name = "gemm";
    launch.values.assign(metrics.size(), 1000.0);
    std::size_t tensor = 0;
    for (std::size_t i = 0; i < metrics.size(); ++i)
        if (metrics[i].rfind("sm__ops_path_tensor_src_", 0) == 0) {
            launch.values[i] = std::nan("");
            ++tensor;
        }
    ASSERT_GT(tensor, 0u);
    const auto r = core::recordFromLaunch(p, launch, metrics, core::datasheetCeilings(h100()));
    EXPECT_TRUE(r.measured);
    EXPECT_EQ(r.lacks, "tensor FLOPs");
    EXPECT_GT(r.flops[static_cast<std::size_t>(FlopKind::FP32)], 0.0); // what was measured stands
    EXPECT_NE(r.note.find("partial: no value for tensor FLOPs"), std::string::npos) << r.note;
    EXPECT_EQ(r.metrics.size(), metrics.size() - tensor);
    std::ostringstream table;
    TableOptions o;
    o.width = 160;
    printTable({r}, table, o);
    EXPECT_NE(table.str().find("partial: no tensor FLOPs"), std::string::npos) << table.str();
    EXPECT_NE(table.str().find("'?'"), std::string::npos) << table.str();
    const std::string row = table.str().substr(table.str().find("gemm"));
    EXPECT_NE(row.find(" ? "), std::string::npos) << row; // FLOP/s unknown, not 0
}

TEST(StringDistance, ClosestNames) {
    EXPECT_EQ(core::editDistance("kitten", "sitting"), 3u);
    EXPECT_EQ(core::editDistance("", "abc"), 3u);
    const auto close = core::closestNames("dram__byte", {"dram__bytes", "lts__t_bytes", "x"}, 2);
    ASSERT_EQ(close.size(), 2u);
    EXPECT_EQ(close[0], "dram__bytes");
}

// Below kBelowEveryRoof of every roof no roof bounds a kernel: its launch shape says what does.
TEST(Model, BelowEveryRoofTheLaunchShapeSaysWhatLimitsTheKernel) {
    core::DeviceInfo d = h100();
    d.occupancy.maxThreadsPerSm = 2048;
    d.occupancy.maxBlocksPerSm = 32;
    d.occupancy.registersPerSm = 65536;
    d.occupancy.sharedBytesPerSm = 233472;
    d.occupancy.reservedSharedPerBlock = 1024;
    const auto ceilings = core::datasheetCeilings(d);
    const auto& p = core::profileForChip("GH100");
    // 1 ms, 3.4e8 DRAM bytes: ~10% of the 3.35 TB/s roof, nothing else near a roof.
    auto slow = [&](Dim3 grid, Dim3 block, int registers, std::uint64_t shared) {
        core::LaunchInfo launch;
        launch.grid = grid;
        launch.block = block;
        launch.registersPerThread = registers;
        launch.sharedMemBytes = shared;
        std::vector<KernelRecord> rs = {
            core::buildRecord(p, launch, values(2e6, 1e6, 3.4e8, 3.4e8), ceilings)};
        rs[0].registersPerThread = registers;
        rs[0].sharedMemBytes = shared;
        core::addOccupancy(rs, d);
        return rs[0];
    };
    const auto fewBlocks = slow({64, 1, 1}, {256, 1, 1}, 32, 0);
    EXPECT_EQ(fewBlocks.bound.limiter, Limiter::FewBlocks); // fewer blocks than SMs
    EXPECT_EQ(fewBlocks.bound.kind, Bound::Kind::Memory);   // the nearest roof stays
    EXPECT_EQ(toString(fewBlocks.bound), "few blocks (DRAM 10%)");
    // 8 blocks of 256 threads fit on an SM: 400 blocks are under half of one 1056-block wave.
    EXPECT_EQ(slow({400, 1, 1}, {256, 1, 1}, 32, 0).bound.limiter, Limiter::FewBlocks);
    // 255 registers x 256 threads: one block (8 of 64 warps) per SM.
    const auto occupancy = slow({13200, 1, 1}, {256, 1, 1}, 255, 0);
    EXPECT_EQ(occupancy.residentBlocksPerSm, 1);
    EXPECT_EQ(occupancy.bound.limiter, Limiter::Occupancy);
    const auto latency = slow({13200, 1, 1}, {256, 1, 1}, 32, 0);
    EXPECT_EQ(latency.bound.limiter, Limiter::Latency);
    EXPECT_EQ(toString(latency.bound), "latency (DRAM 10%)");
    // Unknown resources: the grid against the SMs only, and no guess beyond it.
    EXPECT_EQ(slow({64, 1, 1}, {256, 1, 1}, -1, 0).bound.limiter, Limiter::FewBlocks);
    const auto unknown = slow({13200, 1, 1}, {256, 1, 1}, -1, 0);
    EXPECT_EQ(unknown.bound.limiter, Limiter::ShapeUnknown);
    EXPECT_EQ(toString(unknown.bound), "no shape (DRAM 10%)");
    // At a roof the roof bounds it, whatever the shape.
    std::vector<KernelRecord> fast = {
        core::buildRecord(p, {}, values(2e6, 3e10, 1e6, 1e6), ceilings)};
    fast[0].grid = {1, 1, 1};
    core::addOccupancy(fast, d);
    EXPECT_EQ(fast[0].bound.limiter, Limiter::None);
    EXPECT_EQ(toString(fast[0].bound), "fp32 90%");
}

// A copy with a few compiler-generated FP instructions does no FP work, as one with none does;
// an elementwise kernel's 1 FLOP per 12 bytes is FP work.
TEST(Model, StrayFlopsOfACopyAreNoFloatingPointWork) {
    KernelRecord copy;
    copy.measured = true;
    copy.timeSeconds = 2e-4;
    copy.flops[static_cast<std::size_t>(FlopKind::FP32)] = 9.2e3;
    copy.bytes = {6.6e8, 6.6e8, 6.6e8};
    EXPECT_TRUE(copy.noFloatingPointWork());
    KernelRecord add = copy;
    add.flops[static_cast<std::size_t>(FlopKind::FP32)] = 6.6e8 / 12;
    EXPECT_FALSE(add.noFloatingPointWork());
    KernelRecord none = copy;
    none.flops = {};
    EXPECT_TRUE(none.noFloatingPointWork());
    KernelRecord onlyFlops = copy; // no bytes measured: any FLOP is work
    onlyFlops.bytes = {};
    EXPECT_FALSE(onlyFlops.noFloatingPointWork());
}
