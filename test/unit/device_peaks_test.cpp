// Roofs from the device's own peak rates (core/device_peaks.hpp): which counter each roof comes
// from and at what share, the clocks, the precedence measured > device peak > datasheet, and the
// peak rates CUPTI's host API gives for the H100 recordings' kept images.
#include "core/ceilings_file.hpp"
#include "core/device_peaks.hpp"
#include "core/recording.hpp"
#include "cupti/evaluate.hpp"
#include "unit/cupti_host_guard.hpp"
#include "unit/h100_device.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>

#include <gtest/gtest.h>

using namespace roofline;

namespace {

constexpr std::size_t kFp32 = static_cast<std::size_t>(FlopKind::FP32);
constexpr std::size_t kBf16 = static_cast<std::size_t>(FlopKind::TensorBF16);
constexpr std::size_t kTf64 = static_cast<std::size_t>(FlopKind::TensorFP64);
constexpr std::size_t kL1 = static_cast<std::size_t>(MemoryLevel::L1);
constexpr std::size_t kL2 = static_cast<std::size_t>(MemoryLevel::L2);
constexpr std::size_t kDram = static_cast<std::size_t>(MemoryLevel::DRAM);

const core::PeakRoof& roofOf(const std::vector<core::PeakRoof>& roofs, bool flop, std::size_t i) {
    for (const auto& r : roofs)
        if (r.roof.flop == flop && r.roof.index == i)
            return r;
    throw std::runtime_error("no such roof");
}

// GH100's peak_sustained values as CUPTI's host API evaluates them (checked below on the kept
// image of a real recording), in peakRoofs() order.
std::vector<double> gh100Peaks(const std::vector<core::PeakRoof>& roofs) {
    std::vector<double> v;
    for (const auto& r : roofs) {
        const std::string& m = r.metric;
        if (m.find("_dfma_") != std::string::npos)
            v.push_back(8448);
        else if (m.find("_ffma_") != std::string::npos || m.find("_hfma_") != std::string::npos)
            v.push_back(16896);
        else if (m.find("src_fp64") != std::string::npos)
            v.push_back(33792);
        else if (m.find("src_tf32") != std::string::npos)
            v.push_back(540672);
        else if (m.find("src_fp8") != std::string::npos || m.find("src_int8") != std::string::npos)
            v.push_back(2162688);
        else if (m.find("sm__ops_path_tensor") != std::string::npos)
            v.push_back(1081344);
        else if (m.rfind("l1tex__", 0) == 0)
            v.push_back(67584);
        else if (m.rfind("lts__", 0) == 0)
            v.push_back(7680);
        else
            v.push_back(1280); // dram__bytes
    }
    return v;
}

core::DeviceInfo h100() {
    return roofline::test::h100Device();
}

} // namespace

TEST(DevicePeaks, EachRoofHasItsCounterShareAndClock) {
    const auto roofs = core::peakRoofs(core::profileForChip("GH100"));
    const auto& fp32 = roofOf(roofs, true, kFp32);
    EXPECT_EQ(fp32.metric, "sm__sass_thread_inst_executed_op_ffma_pred_on.sum.peak_sustained");
    EXPECT_DOUBLE_EQ(fp32.perUnit, 2.0); // an FFMA is 2 FLOPs
    EXPECT_EQ(roofOf(roofs, true, static_cast<std::size_t>(FlopKind::FP16)).perUnit, 4.0);
    EXPECT_EQ(roofOf(roofs, true, kBf16).metric,
              "sm__ops_path_tensor_src_bf16_dst_fp32.sum.peak_sustained");
    EXPECT_DOUBLE_EQ(roofOf(roofs, true, kBf16).perUnit, 0.5); // counted at the sparse rate
    EXPECT_DOUBLE_EQ(roofOf(roofs, true, kTf64).perUnit, 1.0); // FP64 MMA has no sparse rate
    EXPECT_DOUBLE_EQ(roofOf(roofs, false, kL1).perUnit, 0.25);
    EXPECT_EQ(roofOf(roofs, false, kL1).clock, core::PeakClock::Sm);
    EXPECT_EQ(roofOf(roofs, false, kL2).metric, "lts__t_bytes.sum.peak_sustained");
    EXPECT_EQ(roofOf(roofs, false, kL2).clock, core::PeakClock::L2);
    EXPECT_EQ(roofOf(roofs, false, kDram).clock, core::PeakClock::Memory);
    EXPECT_EQ(core::peakMetrics(roofs).size(), roofs.size());
    // Volta's tensor roof is its instruction counter's peak times 512 FLOPs, undivided.
    const auto volta = core::peakRoofs(core::profileForChip("GV100"));
    EXPECT_DOUBLE_EQ(roofOf(volta, true, static_cast<std::size_t>(FlopKind::TensorFP16)).perUnit,
                     512.0);
}

TEST(DevicePeaks, RoofsArePeakTimesShareTimesClock) {
    const auto roofs = core::peakRoofs(core::profileForChip("GH100"));
    core::PeakClocks clocks{1.98e9, 1.6e9, 2.619e9};
    const Ceilings c = core::deviceCeilings(roofs, gh100Peaks(roofs), clocks, h100());
    EXPECT_DOUBLE_EQ(c.flopsPerSecond[kFp32], 16896 * 2 * 1.98e9); // 66.9 TFLOP/s
    EXPECT_DOUBLE_EQ(c.flopsPerSecond[kBf16], 1081344 * 0.5 * 1.98e9);
    EXPECT_DOUBLE_EQ(c.bytesPerSecond[kL1], 67584 * 0.25 * 1.98e9); // 33.5 TB/s
    EXPECT_DOUBLE_EQ(c.bytesPerSecond[kL2], 7680 * 0.59 * 1.6e9);
    EXPECT_DOUBLE_EQ(c.bytesPerSecond[kDram], 1280 * 2.619e9); // 3.35 TB/s
    EXPECT_EQ(c.flopSource[kFp32], RoofSource::Device);
    EXPECT_EQ(c.byteSource[kL2], RoofSource::Device);
    EXPECT_EQ(c.name, "NVIDIA H100 80GB HBM3 (device peaks)");
    EXPECT_NE(c.source.find("L2 clock 1600 MHz"), std::string::npos) << c.source;

    // No L2 clock (a recording made before it was collected): no L2 roof, and the source says so.
    clocks.l2Hz = 0;
    std::vector<double> values = gh100Peaks(roofs);
    values[0] = std::numeric_limits<double>::quiet_NaN(); // a peak CUPTI could not evaluate
    const Ceilings without = core::deviceCeilings(roofs, values, clocks, h100());
    EXPECT_EQ(without.bytesPerSecond[kL2], 0.0);
    EXPECT_EQ(without.byteSource[kL2], RoofSource::None);
    EXPECT_EQ(without.flopsPerSecond[0], 0.0);
    EXPECT_NE(without.source.find("none for L2 (no L2 clock in this recording"), std::string::npos)
        << without.source;
}

TEST(DevicePeaks, MeasuredBeatsDeviceBeatsDatasheet) {
    Ceilings measured, device, datasheet;
    measured.name = "M";
    measured.source = "measured";
    measured.flopsPerSecond[kFp32] = 66e12;
    measured.flopSource[kFp32] = RoofSource::Measured;
    device.name = "D";
    device.source = "device";
    device.flopsPerSecond[kFp32] = 67e12;
    device.flopSource[kFp32] = RoofSource::Device;
    device.bytesPerSecond[kL2] = 12e12;
    device.byteSource[kL2] = RoofSource::Device;
    datasheet.name = "S";
    datasheet.source = "datasheet";
    datasheet.flopsPerSecond[kFp32] = 67e12;
    datasheet.flopsPerSecond[kBf16] = 989e12;
    datasheet.flopSource[kFp32] = datasheet.flopSource[kBf16] = RoofSource::Datasheet;
    const Ceilings c = core::combineCeilings(measured, device, datasheet);
    EXPECT_EQ(c.flopsPerSecond[kFp32], 66e12);
    EXPECT_EQ(c.flopSource[kFp32], RoofSource::Measured);
    EXPECT_EQ(c.bytesPerSecond[kL2], 12e12);
    EXPECT_EQ(c.byteSource[kL2], RoofSource::Device);
    EXPECT_EQ(c.flopsPerSecond[kBf16], 989e12);
    EXPECT_EQ(c.flopSource[kBf16], RoofSource::Datasheet);
    EXPECT_EQ(c.bytesPerSecond[kDram], 0.0);
    EXPECT_EQ(c.name, "M");
    EXPECT_EQ(c.source, "measured; device peaks: device; datasheet: datasheet");
    EXPECT_EQ(core::describeSources(c), "measured: fp32; device peak: L2; datasheet: tensor_bf16");
    // Without measured roofs the device's name leads.
    EXPECT_EQ(core::combineCeilings({}, device, datasheet).name, "D");
}

TEST(DevicePeaks, L2ClockIsTheMedianOfTheLaunches) {
    std::vector<core::LaunchInfo> launches(4);
    const std::vector<std::string> metrics = {"a", "lts__cycles_elapsed.avg.per_second"};
    launches[0].values = {1, 1.5e9};
    launches[1].values = {1, 1.6e9};
    launches[2].values = {1, 1.7e9};
    launches[3].values = {}; // unmeasured
    EXPECT_DOUBLE_EQ(core::medianMetric(launches, metrics, metrics[1]), 1.6e9);
    EXPECT_EQ(core::medianMetric(launches, metrics, "missing"), 0.0);
    EXPECT_EQ(core::medianMetric({}, metrics, metrics[1]), 0.0);
}

TEST(DevicePeaks, OnlyRoofsMeasuredCeilingsLackAskForThem) {
    const char* saved = std::getenv("ROOFLINE_CEILINGS");
    const std::string keep = saved ? saved : "";
    ::unsetenv("ROOFLINE_CEILINGS");
    core::DeviceInfo d = h100();
    core::CeilingsChoice choice = core::chooseCeilings(d); // bundled: every roof measured
    EXPECT_FALSE(core::wantsDevicePeaks(choice));
    d.name = "NVIDIA H100 PCIe"; // nothing bundled
    choice = core::chooseCeilings(d);
    EXPECT_TRUE(core::wantsDevicePeaks(choice));
    Ceilings device;
    device.bytesPerSecond[kL2] = 12e12;
    device.byteSource[kL2] = RoofSource::Device;
    choice = core::chooseCeilings(d, device);
    EXPECT_EQ(choice.used.byteSource[kL2], RoofSource::Device);
    EXPECT_EQ(choice.device.bytesPerSecond[kL2], 12e12);
    ::setenv("ROOFLINE_CEILINGS", "datasheet", 1);
    EXPECT_FALSE(core::wantsDevicePeaks(core::chooseCeilings(d, device)));
    EXPECT_EQ(core::chooseCeilings(d, device).used.bytesPerSecond[kL2], 0.0);
    ::setenv("ROOFLINE_CEILINGS", "device", 1);
    EXPECT_EQ(core::chooseCeilings(h100(), device).used.byteSource[kL2], RoofSource::Device);
    if (saved)
        ::setenv("ROOFLINE_CEILINGS", keep.c_str(), 1);
    else
        ::unsetenv("ROOFLINE_CEILINGS");
}

// CUPTI's host API evaluates the peak rates from a recording's kept counter-data image on the
// CPU: the values GH100 reports, and roofs within a few percent of what `roofline ceilings`
// measured on that H100 where both count the same work.
TEST(DevicePeaks, TheH100RecordingsKeptImageGivesGh100sPeaks) {
    ROOFLINE_NEEDS_CUPTI_HOST();
    const auto rec = core::loadRecording(ROOFLINE_FIXTURE_DIR "/h100_train_step.rfl");
    const Ceilings c = cupti::devicePeakCeilings(rec, true);
    const auto roofs = core::peakRoofs(core::profileForChip("GH100"));
    const core::PeakClocks clocks{rec.device.smClockHz, 0, rec.device.memoryClockHz};
    const Ceilings expected = core::deviceCeilings(roofs, gh100Peaks(roofs), clocks, rec.device);
    for (std::size_t k = 0; k < kFlopKindCount; ++k)
        EXPECT_DOUBLE_EQ(c.flopsPerSecond[k], expected.flopsPerSecond[k]) << k;
    EXPECT_DOUBLE_EQ(c.bytesPerSecond[kL1], expected.bytesPerSecond[kL1]);
    EXPECT_DOUBLE_EQ(c.bytesPerSecond[kDram], expected.bytesPerSecond[kDram]);
    const core::MeasuredCeilings m = core::loadCeilings(
        ROOFLINE_SOURCE_DIR "/libroofline/data/ceilings/NVIDIA_H100_80GB_HBM3.json");
    EXPECT_NEAR(c.flopsPerSecond[kFp32] / m.find("fp32")->perSecond, 1.0, 0.02);
    EXPECT_NEAR(c.flopsPerSecond[kTf64] / m.find("tensor_fp64")->perSecond, 1.0, 0.02);
    EXPECT_NEAR(c.bytesPerSecond[kL1] / m.find("L1")->perSecond, 1.0, 0.02);
    EXPECT_NEAR(c.bytesPerSecond[kDram] / m.find("DRAM")->perSecond, 1.0, 0.1);
    // Dense MMA at the maximum clock: above what the sweep reached at its throttled clock.
    EXPECT_NEAR(c.flopsPerSecond[kBf16] / m.find("tensor_bf16")->perSecond, 1.1, 0.1);
}

// A recording made by this libroofline stores the peaks CUPTI gave while recording and the L2
// clock its launches ran at: every roof from the device itself, and verdicts that agree with
// those under the ceilings `roofline ceilings` measured on that H100 (the PyTorch transformer
// step: 68 of 69 launches, 99.6% of the time; the one left is a DRAM/L2 near tie).
TEST(DevicePeaks, VerdictsAgreeWithTheMeasuredCeilingsOnes) {
    const auto rec = core::loadRecording(ROOFLINE_FIXTURE_DIR "/h100_torch_transformer.rfl");
    ASSERT_FALSE(rec.devicePeaks.empty());
    EXPECT_TRUE(rec.counterData.empty()); // no image kept: the stored peaks are what counts
    const auto roofs = core::peakRoofs(core::profileForChip(rec.chip));
    const std::vector<double> expected = gh100Peaks(roofs);
    for (std::size_t i = 0; i < roofs.size(); ++i) {
        const auto at = std::find_if(rec.devicePeaks.begin(), rec.devicePeaks.end(),
                                     [&](const auto& p) { return p.first == roofs[i].metric; });
        ASSERT_NE(at, rec.devicePeaks.end()) << roofs[i].metric;
        EXPECT_EQ(at->second, expected[i]) << roofs[i].metric;
    }
    const double l2Hz = core::medianMetric(rec.launches, rec.metrics,
                                           core::profileForChip(rec.chip).l2CycleRateMetric);
    EXPECT_NEAR(l2Hz, 1.696e9, 0.05e9);

    const Ceilings device = cupti::devicePeakCeilings(rec, true);
    for (std::size_t k = 0; k < kFlopKindCount; ++k)
        EXPECT_EQ(device.flopSource[k], RoofSource::Device) << k;
    for (std::size_t l = 0; l < kMemoryLevelCount; ++l)
        EXPECT_EQ(device.byteSource[l], RoofSource::Device) << l;
    const core::MeasuredCeilings m = core::loadCeilings(
        ROOFLINE_SOURCE_DIR "/libroofline/data/ceilings/NVIDIA_H100_80GB_HBM3.json");
    EXPECT_NEAR(device.bytesPerSecond[kL2] / m.find("L2")->perSecond, 1.0, 0.03);

    const Ceilings measured = core::choiceWith(rec.device, m, "measured.json").used;
    const auto a = cupti::evaluateRecording(rec, device);
    const auto b = cupti::evaluateRecording(rec, measured);
    ASSERT_EQ(a.size(), b.size());
    std::size_t same = 0;
    double sameSeconds = 0, seconds = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
        const bool agree =
            a[i].bound.kind == b[i].bound.kind && a[i].bound.flop == b[i].bound.flop &&
            a[i].bound.level == b[i].bound.level && a[i].bound.limiter == b[i].bound.limiter;
        same += agree ? 1 : 0;
        sameSeconds += agree ? b[i].timeSeconds : 0;
        seconds += b[i].timeSeconds;
    }
    EXPECT_EQ(a.size(), 69u);
    EXPECT_GE(same, 68u);
    EXPECT_GE(sameSeconds / seconds, 0.99);
}
