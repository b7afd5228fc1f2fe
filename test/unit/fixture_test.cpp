// The committed H100 recording (test/fixtures/h100_calibration.rfl, see README there) evaluated
// on the CPU through the real CUPTI host API, checked against the hand-counted work of its kernels.
#include "calibration/expected.hpp"
#include "calibration/instruction_expected.hpp"
#include "core/bundled_ceilings.hpp"
#include "core/ceilings_file.hpp"
#include "core/recording.hpp"
#include "core/roofline_model.hpp"
#include "cupti/evaluate.hpp"
#include "cupti/host.hpp"
#include "unit/cupti_host_guard.hpp"

#include <cstdlib>
#include <sstream>

#include <roofline/error.hpp>

#include <gtest/gtest.h>

using namespace roofline;
namespace cal = calibration;

namespace {

const KernelRecord& byScope(const std::vector<KernelRecord>& rs, const std::string& scope) {
    for (const auto& r : rs)
        if (r.scopePath == scope)
            return r;
    throw std::runtime_error("no record for scope " + scope);
}

} // namespace

TEST(H100Fixture, EvaluatesToTheKnownWork) {
    ROOFLINE_NEEDS_CUPTI_HOST();
    const auto rec = core::loadRecording(ROOFLINE_FIXTURE_DIR "/h100_calibration.rfl");
    EXPECT_EQ(rec.chip, "GH100");
    EXPECT_EQ(rec.device.smCount, 132);
    EXPECT_EQ(rec.passes, 7u);
    const auto records = cupti::evaluateRecording(rec, core::datasheetCeilings(rec.device));
    ASSERT_EQ(records.size(), 5u);
    for (const auto& r : records) {
        EXPECT_TRUE(r.measured) << r.name << ": " << r.note;
        EXPECT_GT(r.timeSeconds, 0.0);
    }
    const auto& ffma = byScope(records, "calibration/ffma");
    const auto& dfma = byScope(records, "calibration/dfma");
    const auto& hfma = byScope(records, "calibration/hfma2");
    const auto& mma = byScope(records, "calibration/mma_fp16");
    const auto& copy = byScope(records, "calibration/copy");
    EXPECT_NE(ffma.name.find("fmaChains<float>"), std::string::npos) << ffma.name;
    EXPECT_EQ(ffma.grid.x, cal::kGrid);
    EXPECT_EQ(ffma.flopsOf(FlopKind::FP32), cal::kFfmaFlops);
    EXPECT_EQ(ffma.flopsOf(FlopKind::FP64), 0.0);
    EXPECT_EQ(dfma.flopsOf(FlopKind::FP64), cal::kDfmaFlops);
    EXPECT_EQ(dfma.flopsOf(FlopKind::FP32), 0.0);
    EXPECT_GE(hfma.flopsOf(FlopKind::FP16), cal::kHfma2Flops);
    EXPECT_LE(hfma.flopsOf(FlopKind::FP16), cal::kHfma2Flops + 4.0 * cal::kThreads);
    EXPECT_EQ(mma.flopsOf(FlopKind::TensorFP16), cal::kMmaFlops);
    EXPECT_EQ(mma.flopsOf(FlopKind::FP32), 0.0);
    EXPECT_NEAR(copy.bytesAt(MemoryLevel::DRAM), cal::kCopyTraffic, 0.02 * cal::kCopyTraffic);
    EXPECT_NEAR(copy.bytesAt(MemoryLevel::L1), cal::kCopyTraffic, 0.01 * cal::kCopyTraffic);
    EXPECT_EQ(copy.bound.kind, Bound::Kind::Memory);
    EXPECT_EQ(ffma.bound.kind, Bound::Kind::Compute);
}

TEST(H100Fixture, LaunchesThatDisagreeWithCuptiRangesAreFlagged) {
    ROOFLINE_NEEDS_CUPTI_HOST();
    auto rec = core::loadRecording(ROOFLINE_FIXTURE_DIR "/h100_calibration.rfl");
    core::LaunchInfo extra = rec.launches.back();
    extra.launchIndex = rec.launches.size();
    extra.range = static_cast<std::uint32_t>(rec.launches.size()); // CUPTI has no such range
    rec.launches.push_back(extra);
    const auto records = cupti::evaluateRecording(rec, core::datasheetCeilings(rec.device));
    ASSERT_EQ(records.size(), 6u);
    EXPECT_FALSE(records[5].measured);
    EXPECT_NE(records[5].note.find("no range"), std::string::npos) << records[5].note;
    EXPECT_TRUE(records[0].measured);
    EXPECT_NE(records[0].note.find("5 kernel ranges for 6 launches"), std::string::npos)
        << records[0].note;
}

TEST(H100Fixture, UnsupportedChipInARecordingIsAClearError) {
    auto rec = core::loadRecording(ROOFLINE_FIXTURE_DIR "/h100_calibration.rfl");
    rec.chip = "GX999";
    try {
        cupti::evaluateRecording(rec, core::datasheetCeilings(rec.device));
        FAIL();
    } catch (const Error& e) {
        EXPECT_EQ(e.code(), ErrorCode::UnsupportedChip);
    }
}

// h100_iteration.rfl: the same kernels under iteration replay (format v2, values stored per
// launch, the raw image kept beside them).
TEST(H100IterationFixture, StoredValuesGiveTheKnownWork) {
    const auto rec = core::loadRecording(ROOFLINE_FIXTURE_DIR "/h100_iteration.rfl");
    EXPECT_EQ(rec.version, 2u);
    EXPECT_EQ(rec.mode, "iteration-replay");
    EXPECT_EQ(rec.status, "counters");
    EXPECT_EQ(rec.cacheFlush, "off");
    ASSERT_EQ(rec.launches.size(), 5u);
    const auto records = cupti::evaluateRecording(rec, core::datasheetCeilings(rec.device));
    ASSERT_EQ(records.size(), 5u);
    for (const auto& r : records) {
        EXPECT_TRUE(r.measured) << r.name << ": " << r.note;
        EXPECT_TRUE(r.note.empty()) << r.note; // no replay mismatch
        EXPECT_GT(r.smClockHz, 1e9);
        EXPECT_NE(r.threadId, 0u);
    }
    const auto& ffma = byScope(records, "step/calibration/ffma");
    EXPECT_EQ(ffma.flopsOf(FlopKind::FP32), cal::kFfmaFlops);
    EXPECT_EQ(byScope(records, "step/calibration/dfma").flopsOf(FlopKind::FP64), cal::kDfmaFlops);
    EXPECT_EQ(byScope(records, "step/calibration/mma_fp16").flopsOf(FlopKind::TensorFP16),
              cal::kMmaFlops);
    const auto& copy = byScope(records, "step/calibration/copy");
    EXPECT_NEAR(copy.bytesAt(MemoryLevel::DRAM), cal::kCopyTraffic, 0.02 * cal::kCopyTraffic);
}

TEST(H100IterationFixture, KeptImageReEvaluatesToTheStoredValues) {
    ROOFLINE_NEEDS_CUPTI_HOST();
    // The CUPTI host API, run here on the CPU, must give back exactly what the session stored.
    const auto rec = core::loadRecording(ROOFLINE_FIXTURE_DIR "/h100_iteration.rfl");
    ASSERT_EQ(rec.counterData.size(), 1u);
    const cupti::Host host(rec.chip);
    ASSERT_EQ(host.rangeCount(rec.counterData[0]), 5u);
    for (const auto& l : rec.launches) {
        ASSERT_EQ(l.chunk, 0);
        EXPECT_EQ(host.evaluateValues(rec.counterData[0], l.range, rec.metrics), l.values);
    }
}

TEST(H100IterationFixture, SurvivesAWriteReadRoundTrip) {
    const auto rec = core::loadRecording(ROOFLINE_FIXTURE_DIR "/h100_iteration.rfl");
    std::stringstream buffer;
    core::writeRecording(rec, buffer);
    const auto again = core::readRecording(buffer, "round trip");
    ASSERT_EQ(again.launches.size(), rec.launches.size());
    for (std::size_t i = 0; i < rec.launches.size(); ++i) {
        EXPECT_EQ(again.launches[i].values, rec.launches[i].values);
        EXPECT_EQ(again.launches[i].threadId, rec.launches[i].threadId);
        EXPECT_EQ(again.launches[i].scopePath, rec.launches[i].scopePath);
    }
}

// A steady-state step of examples/training_step (see test/fixtures/README.md): iteration replay on
// a real program -- numbered step scopes made uniform, a data-dependent launch flagged, the first
// step left out, coverage recorded -- checked on the CPU against the program's analytic work.
TEST(H100TrainStepFixture, OneSteadyStepWithTheAnalyticWork) {
    const auto rec = core::loadRecording(ROOFLINE_FIXTURE_DIR "/h100_train_step.rfl");
    ASSERT_TRUE(rec.coverage.known);
    EXPECT_EQ(rec.coverage.launchesPerIteration, 59u);
    EXPECT_TRUE(rec.coverage.complete());
    const auto records = cupti::evaluateRecording(rec, core::datasheetCeilings(rec.device));
    ASSERT_EQ(records.size(), 59u);
    // Width 768, 1024 tokens, 4 layers, vocabulary 1024: 27 GEMMs, 2MNK each.
    const double M = 1024, C = 768, H = 3072, V = 1024;
    double tensor = 0;
    std::size_t differs = 0, backward = 0;
    for (const auto& r : records) {
        SCOPED_TRACE(r.name);
        EXPECT_TRUE(r.measured) << r.note;
        EXPECT_EQ(r.iteration, records.front().iteration);
        EXPECT_GE(r.iteration, 1); // not step 0: its code loads restarted the group
        EXPECT_EQ(r.scopePath.rfind("Train step #/", 0), 0u) << r.scopePath;
        EXPECT_NE(r.replay, ReplayStatus::Unmatched);
        tensor += r.flopsOf(FlopKind::TensorBF16);
        backward += r.scopePath == "Train step #/backward" ? 1 : 0; // launched by a second thread
        if (r.replay == ReplayStatus::Differs) {
            ++differs;
            EXPECT_NE(r.name.find("embeddingBackward"), std::string::npos);
            EXPECT_EQ(r.flopsOf(FlopKind::FP32), M * C); // one add per token and column
        }
    }
    EXPECT_EQ(tensor, 4 * 12 * M * C * H + 6 * M * C * V);
    EXPECT_EQ(differs, 1u);
    EXPECT_EQ(backward, 37u);
}

// With no ceilings file and no cache, a report of an H100 recording uses the roofs measured on
// that GPU model and bundled with libroofline: every record's bound (L2 included) is the one the
// measured ceilings file gives, and none is marked as possibly another level's.
TEST(BundledCeilings, DefaultVerdictsOnTheH100RecordingsAreTheMeasuredCeilingsOnes) {
    const char* savedFile = std::getenv("ROOFLINE_CEILINGS");
    const char* savedDir = std::getenv("ROOFLINE_CEILINGS_DIR");
    const std::string keepFile = savedFile ? savedFile : "", keepDir = savedDir ? savedDir : "";
    ::unsetenv("ROOFLINE_CEILINGS");
    ::setenv("ROOFLINE_CEILINGS_DIR", "/nonexistent/roofline-ceilings-cache", 1);
    const core::MeasuredCeilings measured = core::loadCeilings(
        ROOFLINE_SOURCE_DIR "/libroofline/data/ceilings/NVIDIA_H100_80GB_HBM3.json");
    for (const char* file : {"h100_train_step.rfl", "h100_iteration.rfl", "h100_host_step.rfl"}) {
        SCOPED_TRACE(file);
        const auto rec = core::loadRecording(std::string(ROOFLINE_FIXTURE_DIR "/") + file);
        const core::CeilingsChoice byDefault = core::chooseCeilings(rec.device);
        EXPECT_EQ(byDefault.path, "bundled: NVIDIA_H100_80GB_HBM3.json");
        EXPECT_GT(byDefault.used.bytesPerSecond[static_cast<std::size_t>(MemoryLevel::L2)], 0.0);
        const core::CeilingsChoice explicitFile =
            core::choiceWith(rec.device, measured, "measured.json");
        const auto a = cupti::evaluateRecording(rec, byDefault.used);
        const auto b = cupti::evaluateRecording(rec, explicitFile.used);
        ASSERT_EQ(a.size(), b.size());
        std::size_t measuredRecords = 0;
        for (std::size_t i = 0; i < a.size(); ++i) {
            EXPECT_EQ(toString(a[i].bound), toString(b[i].bound)) << a[i].name;
            measuredRecords += a[i].measured ? 1 : 0;
        }
        EXPECT_GT(measuredRecords, 0u);
    }
    if (savedFile)
        ::setenv("ROOFLINE_CEILINGS", keepFile.c_str(), 1);
    if (savedDir)
        ::setenv("ROOFLINE_CEILINGS_DIR", keepDir.c_str(), 1);
    else
        ::unsetenv("ROOFLINE_CEILINGS_DIR");
}

TEST(BundledCeilings, OnlyTheMeasuredModelGetsThem) {
    std::string path;
    EXPECT_TRUE(core::bundledCeilings("NVIDIA H100 80GB HBM3", path).has_value());
    EXPECT_EQ(path, "bundled: NVIDIA_H100_80GB_HBM3.json");
    EXPECT_FALSE(core::bundledCeilings("NVIDIA H100 PCIe", path).has_value());
    EXPECT_FALSE(core::bundledCeilings("", path).has_value());
    for (const auto& f : core::bundledCeilingsFiles()) // each file parses and names its GPU
        EXPECT_FALSE(core::ceilingsFromJson(f.json, f.name).deviceName.empty()) << f.name;
}

// A PyTorch trainer (examples/pytorch/train_transformer.py: bf16 autocast, fused AdamW) recorded
// unmodified under `roofline run` on the H100 (test/fixtures/README.md): every launch carries its
// operator, backward kernels the forward operator and module they differentiate.
TEST(H100TorchOpsFixture, EveryLaunchCarriesItsOperatorAndModule) {
    const auto rec = core::loadRecording(ROOFLINE_FIXTURE_DIR "/h100_torch_ops.rfl");
    EXPECT_EQ(rec.framework.at("autocast"), "bfloat16");
    EXPECT_EQ(rec.framework.at("tf32.matmul"), "off");
    EXPECT_EQ(rec.framework.count("torch"), 1u);
    const auto records = cupti::evaluateRecording(rec, core::datasheetCeilings(rec.device));
    ASSERT_EQ(records.size(), 174u);
    std::size_t backwardInLayers = 0, forwardInLayers = 0, optimizer = 0, attentionBackward = 0;
    double addmmTensor = 0;
    for (const auto& r : records) {
        EXPECT_TRUE(r.measured) << r.name;
        EXPECT_FALSE(r.op.empty()) << r.name;
        // Per-call fields never in a scope (cub's own NVTX ranges stay, in their domain).
        EXPECT_EQ(r.scopePath.rfind("Train step #", 0), 0u) << r.scopePath;
        EXPECT_EQ(r.scopePath.find("op_id"), std::string::npos) << r.scopePath;
        const bool layer = r.module.rfind("encoder.layers.", 0) == 0;
        backwardInLayers += r.phase == "backward" && layer ? 1 : 0;
        forwardInLayers += r.phase == "forward" && layer ? 1 : 0;
        optimizer += r.module == "optimizer.AdamW" ? 1 : 0;
        if (r.phase == "backward" && r.op == "aten::_scaled_dot_product_cudnn_attention") {
            ++attentionBackward;
            EXPECT_NE(r.module.find("self_attn"), std::string::npos) << r.module;
        }
        if (r.op == "aten::addmm")
            addmmTensor += r.flopsOf(FlopKind::TensorBF16);
    }
    EXPECT_EQ(forwardInLayers, 46u);
    EXPECT_EQ(backwardInLayers, 82u);
    EXPECT_EQ(optimizer, 3u);
    EXPECT_EQ(attentionBackward, 6u);
    EXPECT_GT(addmmTensor, 1e11); // the linear layers' GEMMs, forward and backward, on tensor cores
}

// The instruction calibration kernels recorded on the H100 with ROOFLINE_METRICS=+instructions
// (test/fixtures/README.md): every count and verdict as worked out by hand, and the instruction
// roofline drawn for all ten, the integer kernel (no floating-point work) among them.
TEST(H100InstructionFixture, CountsAndVerdictsAsWorkedOutByHand) {
    const auto rec = core::loadRecording(ROOFLINE_FIXTURE_DIR "/h100_instructions.rfl");
    EXPECT_EQ(rec.chip, "GH100");
    std::string bundled;
    auto measured = core::bundledCeilings(rec.device.name, bundled);
    ASSERT_TRUE(measured.has_value());
    const Ceilings ceilings =
        core::mergeCeilings(core::datasheetCeilings(rec.device), *measured, bundled);
    EXPECT_EQ(ceilings.warpIssueSource, RoofSource::Measured);
    const auto records = cupti::evaluateRecording(rec, ceilings);
    cal::expectInstructionCalibration(records);
}
