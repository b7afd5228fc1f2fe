// Tensor counters by detection (docs/design/0008): which metrics are collected from the start and
// how a launch's tensor metrics follow from its MMA instruction counters.
#include "core/tensor_inference.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

namespace roofline::core {
namespace {

const std::string kInst = "sm__inst_executed_pipe_tensor_op_";
const std::string kGmma = "sm__ops_path_tensor_op_hgmma_src_";
const std::string kBf16 = "sm__ops_path_tensor_src_bf16_dst_fp32.sum";
const std::string kFp64 = "sm__ops_path_tensor_src_fp64.sum";
const std::string kInt8 = "sm__ops_path_tensor_src_int8.sum";

bool has(const std::vector<std::string>& v, const std::string& m) {
    return std::find(v.begin(), v.end(), m) != v.end();
}

struct Launch {
    const ChipProfile& hopper = profileForChip("GH100");
    std::vector<std::string> metrics = sessionMetrics(hopper, MetricSet::Full, true);
    std::vector<std::string> initial = initialMetrics(hopper, MetricSet::Full, true);
    std::vector<double> values;
    Launch() {
        // As the collector sees a launch: collected metrics have values, the others are NaN.
        for (const auto& m : metrics)
            values.push_back(has(initial, m) ? 0.0 : std::nan(""));
    }
    double& operator[](const std::string& m) {
        return values[static_cast<std::size_t>(std::find(metrics.begin(), metrics.end(), m) -
                                               metrics.begin())];
    }
    std::vector<std::string> infer() { return inferTensorMetrics(hopper, metrics, values); }
};

TEST(TensorInference, HopperStartsWithoutThePerTypeCountersDetectionCanStandIn) {
    Launch l;
    EXPECT_FALSE(has(l.initial, kBf16));
    EXPECT_FALSE(has(l.initial, kFp64));
    EXPECT_FALSE(has(l.initial, kInt8));
    EXPECT_TRUE(has(l.initial, "sm__ops_path_tensor_src_fp8.sum")); // no cheaper stand-in
    EXPECT_TRUE(has(l.initial, kInst + "hmma_type_hfma2.sum"));
    EXPECT_TRUE(has(l.metrics, kBf16)); // still reported: the session's order holds every metric
    EXPECT_EQ(l.metrics.size(), requiredMetrics(l.hopper).size() + 8);
}

TEST(TensorInference, WithoutDetectionOrForOtherSetsNothingChanges) {
    const ChipProfile& hopper = profileForChip("GH100");
    EXPECT_EQ(initialMetrics(hopper, MetricSet::Full, false), requiredMetrics(hopper));
    EXPECT_EQ(initialMetrics(hopper, MetricSet::Core, true),
              requiredMetrics(hopper, MetricSet::Core));
    const ChipProfile& ampere = profileForChip("GA100"); // no rules: the full set
    EXPECT_EQ(initialMetrics(ampere, MetricSet::Full, true), requiredMetrics(ampere));
}

TEST(TensorInference, ALaunchWithoutMmaHasNoTensorWork) {
    Launch l;
    l[kInst + "hmma.sum"] = 4224; // HFMA2.MMA register moves only: no MMA work
    l[kInst + "hmma_type_hfma2.sum"] = 4224;
    EXPECT_TRUE(l.infer().empty());
    EXPECT_EQ(l[kBf16], 0.0);
    EXPECT_EQ(l[kFp64], 0.0);
    EXPECT_EQ(l[kInt8], 0.0);
}

// Warpgroup MMA (GMMA, cuBLASLt's Hopper GEMMs): the hmma instruction counter counts it too, and
// its per-type tensor work is the hgmma op counters' (equal to the src counters on the H100).
TEST(TensorInference, WarpgroupMmaTakesItsHgmmaOps) {
    Launch l;
    l[kInst + "gmma.sum"] = 147456;
    l[kInst + "hmma.sum"] = 147456;
    l[kGmma + "bf16_dst_fp32.sum"] = 4831838208.0;
    EXPECT_TRUE(l.infer().empty());
    EXPECT_EQ(l[kBf16], 4831838208.0);
    EXPECT_EQ(l["sm__ops_path_tensor_src_fp16.sum"], 0.0);
    EXPECT_EQ(l["sm__ops_path_tensor_src_tf32_dst_fp32.sum"], 0.0);
    EXPECT_EQ(l[kFp64], 0.0);
    EXPECT_EQ(l[kInt8], 0.0);
}

TEST(TensorInference, WarpgroupMmaWithWarpMmaBesideItNeedsThePerTypeCounters) {
    Launch l;
    l[kInst + "gmma.sum"] = 1000;
    l[kInst + "hmma.sum"] = 1000 + 64 + 8; // GMMA, HFMA2.MMA moves, and 8 HMMA
    l[kInst + "hmma_type_hfma2.sum"] = 64;
    l[kGmma + "bf16_dst_fp32.sum"] = 2.0 * 512 * 512 * 512;
    const auto unknown = l.infer();
    EXPECT_TRUE(has(unknown, kBf16));
    EXPECT_TRUE(has(unknown, "sm__ops_path_tensor_src_fp16.sum"));
    EXPECT_TRUE(has(unknown, kInt8)); // not ruled out either: the HMMA count is not explained
    EXPECT_FALSE(has(unknown, kFp64));
    EXPECT_TRUE(std::isnan(l[kBf16]));
}

// A warpgroup MMA the hmma pipe does not count (integer): hmma - hfma2 - gmma < 0.
TEST(TensorInference, UnexplainedWarpgroupMmaNeedsEveryPerTypeCounter) {
    Launch l;
    l[kInst + "gmma.sum"] = 1000;
    const auto unknown = l.infer();
    EXPECT_TRUE(has(unknown, kBf16));
    EXPECT_TRUE(has(unknown, kInt8));
}

TEST(TensorInference, WarpMmaDmmaAndImmaNeedTheirCounters) {
    Launch l;
    l[kInst + "hmma.sum"] = 5000; // more than the HFMA2.MMA moves: real HMMA
    l[kInst + "hmma_type_hfma2.sum"] = 100;
    l[kInst + "dmma.sum"] = 10;
    auto unknown = l.infer();
    EXPECT_TRUE(has(unknown, kBf16));
    EXPECT_TRUE(has(unknown, "sm__ops_path_tensor_src_fp16.sum"));
    EXPECT_TRUE(has(unknown, "sm__ops_path_tensor_src_tf32_dst_fp32.sum"));
    EXPECT_TRUE(has(unknown, kFp64));
    EXPECT_TRUE(std::isnan(l[kBf16]));
    Launch imma;
    imma[kInst + "imma.sum"] = 10;
    unknown = imma.infer();
    EXPECT_EQ(unknown, std::vector<std::string>{kInt8});
    EXPECT_EQ(imma[kBf16], 0.0);
}

TEST(TensorInference, CollectedValuesAreKeptAndMissingDetectionIsUnknown) {
    Launch l;
    l[kInst + "dmma.sum"] = 10;
    l[kFp64] = 640;                       // collected after an expansion
    l[kInst + "imma.sum"] = std::nan(""); // not collected: cannot conclude
    const auto unknown = l.infer();
    EXPECT_EQ(l[kFp64], 640.0);
    EXPECT_TRUE(has(unknown, kInt8));
}

} // namespace
} // namespace roofline::core
