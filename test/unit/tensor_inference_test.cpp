// Tensor counters by detection (docs/design/0008): which metrics are collected from the start and
// how a launch's tensor metrics follow from its MMA instruction counters.
#include "core/tensor_inference.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>

namespace roofline::core {
namespace {

const std::string kInst = "sm__inst_executed_pipe_tensor_op_";
const std::string kGmma = "sm__ops_path_tensor_op_hgmma_src_";
const std::string kBf16 = "sm__ops_path_tensor_src_bf16_dst_fp32.sum";
const std::string kFp64 = "sm__ops_path_tensor_src_fp64.sum";
const std::string kInt8 = "sm__ops_path_tensor_src_int8.sum";
const std::string kTf32 = "sm__ops_path_tensor_src_tf32_dst_fp32.sum";
const std::string kFp16 = "sm__ops_path_tensor_src_fp16.sum";

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

// Warp MMA of one type (design 0022): cuDNN's TF32 convolution kernels run m16n8k8, 2048 ops per
// warp MMA instruction -- TF32's largest shape -- so a TF32 count of 2048 x the instructions
// leaves no instruction for another type.
TEST(TensorInference, OneWarpMmaTypeThatAccountsForEveryInstructionRulesOutTheOthers) {
    Launch l;
    l[kInst + "hmma.sum"] = 100 + 12; // 100 HMMA and 12 HFMA2.MMA moves
    l[kInst + "hmma_type_hfma2.sum"] = 12;
    l[kTf32] = 2048.0 * 100; // collected after an expansion
    EXPECT_TRUE(l.infer().empty());
    EXPECT_EQ(l[kTf32], 2048.0 * 100);
    EXPECT_EQ(l[kBf16], 0.0);
    EXPECT_EQ(l[kFp16], 0.0);
    EXPECT_EQ(l[kInt8], 0.0); // no IMMA, and every warp MMA instruction is TF32
    EXPECT_EQ(soleWarpMmaType(l.hopper, l.metrics, l.values)->metric, kTf32);
}

TEST(TensorInference, WarpMmaOneTypeAccountsForOnlyInPartNeedsTheOtherTypes) {
    Launch l;
    l[kInst + "hmma.sum"] = 100;
    l[kTf32] = 2048.0 * 99; // one instruction of another type (or of a smaller TF32 shape)
    const auto unknown = l.infer();
    EXPECT_TRUE(has(unknown, kBf16));
    EXPECT_TRUE(has(unknown, kFp16));
    EXPECT_TRUE(has(unknown, kInt8));
    EXPECT_EQ(soleWarpMmaType(l.hopper, l.metrics, l.values), nullptr);
    // Warpgroup MMA beside it: its TF32 ops are the hgmma counter's, not the warp MMA's.
    Launch g;
    g[kInst + "gmma.sum"] = 10;
    g[kInst + "hmma.sum"] = 10 + 100;
    g[kGmma + "tf32_dst_fp32.sum"] = 1e6;
    g[kTf32] = 1e6 + 2048.0 * 100;
    EXPECT_TRUE(g.infer().empty());
    EXPECT_EQ(g[kBf16], 0.0);
    Launch missing = g;            // a fresh launch: the one above has its inferred values now
    missing[kTf32] = 2048.0 * 100; // the hgmma ops missing from the total: not explained
    missing[kBf16] = missing[kFp16] = missing[kInt8] = std::nan("");
    EXPECT_FALSE(missing.infer().empty());
}

// Which counters an expansion adds: one warp MMA type, guessed, where that is what is unknown.
struct Expansion {
    std::vector<Launch> launches;
    std::vector<std::string> kernels;
    std::set<std::string> unknown, collected;
    Launch& add(const std::string& kernel) {
        launches.emplace_back();
        kernels.push_back(kernel);
        Launch& l = launches.back();
        l[kInst + "hmma.sum"] = 64;
        return l;
    }
    std::vector<std::string> choose() {
        std::vector<TensorEvidence> evidence;
        for (std::size_t i = 0; i < launches.size(); ++i) {
            for (auto& m : launches[i].infer())
                unknown.insert(m);
            evidence.push_back({&launches[i].values, kernels[i]});
        }
        return tensorMetricsToCollect(launches[0].hopper, launches[0].metrics, unknown, evidence,
                                      collected);
    }
};

TEST(TensorInference, AnExpansionForWarpMmaAddsTheTypeTheKernelNameSuggests) {
    Expansion e;
    e.add("void flash_fwd_kernel<Flash_fwd_kernel_traits<64, 128, 128, 4, 0, 0, bfloat16_t>>");
    EXPECT_EQ(e.choose(), std::vector<std::string>{kBf16}); // INT8 waits: no IMMA ran
    Expansion h;
    h.add("void flash_fwd_kernel<Flash_fwd_kernel_traits<64, 128, 128, 4, 0, 0, half_t>>");
    EXPECT_EQ(h.choose(), std::vector<std::string>{kFp16});
    Expansion t;
    t.add("void cutlass__5x_cudnn::Kernel<cutlass_tensorop_s1688fprop_optimized_tf32_256x64>");
    EXPECT_EQ(t.choose(), std::vector<std::string>{kTf32});
}

TEST(TensorInference, WithoutANameTheProgramsGemmsSuggestTheTypeAndElseTf32) {
    Expansion e;
    e.add("fmha_cutlassF_f32_aligned_64x64_rf_sm80");
    EXPECT_EQ(e.choose(), std::vector<std::string>{kTf32});
    Expansion g;
    g.add("my_kernel");
    Launch& gemm = g.add("nvjet_hsh_128x256_64x4_2x1_v_bz_coopA_NTN");
    gemm[kInst + "hmma.sum"] = 64 + 1000;
    gemm[kInst + "gmma.sum"] = 1000;
    gemm[kGmma + "fp16.sum"] = 1e9;
    EXPECT_EQ(g.choose(), std::vector<std::string>{kFp16});
}

TEST(TensorInference, AnExpansionAfterAGuessOrForImmaCollectsEverythingUnknown) {
    Expansion again;
    again.add("my_kernel");
    again.collected = {kTf32}; // the guess did not account for every launch
    EXPECT_EQ(again.choose().size(), 4u);
    Expansion imma;
    imma.add("my_kernel")[kInst + "imma.sum"] = 8;
    const auto more = imma.choose();
    EXPECT_EQ(more.size(), 2u);
    EXPECT_TRUE(has(more, kTf32));
    EXPECT_TRUE(has(more, kInt8));
    Expansion integerGmma; // GMMA the hmma pipe does not count: INT8 cannot wait
    Launch& l = integerGmma.add("my_kernel");
    l[kInst + "hmma.sum"] = 0;
    l[kInst + "gmma.sum"] = 10;
    EXPECT_TRUE(has(integerGmma.choose(), kInt8));
    Expansion dmma; // FP64 alone: no guess involved
    Launch& d = dmma.add("dgemm");
    d[kInst + "hmma.sum"] = 0;
    d[kInst + "dmma.sum"] = 10;
    EXPECT_EQ(dmma.choose(), std::vector<std::string>{kFp64});
}

// Kernel names as CUPTI gives them on GH100 (H100, cuDNN 9 and PyTorch 2.11): what each program's
// steady iteration launches, and the type the first pass then collects.
const char* const kResnetConvs[] = {
    "sm80_xmma_fprop_implicit_gemm_tf32f32_tf32f32_f32_nhwckrsc_nchw_tilesize128x64x32_stage5_"
    "warpsize2x2x1_g1_tensor16x8x8_execute_kernel__5x_cudnn",
    "_ZN17cutlass__5x_cudnn6KernelI66cutlass_tensorop_s1688fprop_optimized_tf32_256x64_16x4_nhwc_"
    "align4EEvNT_6ParamsE",
    "sm90_xmma_fprop_implicit_gemm_f32f32_tf32f32_f32_nhwckrsc_nhwc_tilesize64x128x32_"
    "warpgroupsize1x1x1_g1_execute_segment_k_off_kernel__5x_cudnn",
    "sm80_xmma_gemm_f32f32_f32f32_f32_nt_n_tilesize32x32x8_stage3_warpsize1x2x1_ffma_aligna4_"
    "alignc4_execute_kernel__5x_cublas",
    "_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_11FillFunctorIfEESt5arrayIPcLm1EEEEviT0_"
    "T1_"};
const char* const kFp32Attention[] = {
    "_Z39fmha_cutlassF_f32_aligned_64x64_rf_sm80N22PyTorchMemEffAttention15AttentionKernelIfN7cut"
    "lass4arch4Sm80ELb1ELi64ELi64ELi64ELb1ELb1EE6ParamsE",
    "_ZN7cutlass7Kernel2I43cutlass_80_simt_sgemm_256x128_8x4_nt_align1EEvNT_6ParamsE"};
const char* const kBf16Flash[] = {
    "_ZN13pytorch_flash16flash_fwd_kernelI23Flash_fwd_kernel_traitsILi64ELi128ELi128ELi4ELb0ELb0EN"
    "7cutlass10bfloat16_tE19Flash_kernel_traitsILi64ELi128ELi128ELi4ES3_EELb0ELb1ELb0ELb0ELb1ELb1"
    "ELb0ELb0EEEvNS_16Flash_fwd_paramsE",
    "nvjet_sm90_tst_64x64_64x13_2x1_v_bz_bias_TNT", "nvjet_sm90_tst_128x128_64x6_2x1_v_bz_NNT"};
const char* const kWarpgroupOnly[] = {
    "nvjet_sm90_tst_64x64_64x13_2x1_v_bz_bias_TNT",
    "sm90_xmma_dgrad_implicit_gemm_f32f32_tf32f32_f32_nhwckrsc_nhwc_tilesize128x64x32_"
    "warpgroupsize1x1x1_g1_execute_segment_k_on_kernel__5x_cudnn",
    "cutlass3x_sm90_tensorop_gemm_bf16_bf16_f32_bf16_bf16_128x128x64_1x1x1_0_tnn_align8_"
    "warpspecialized",
    "_ZN7cutlass7Kernel2I41cutlass_80_simt_sgemm_64x64_8x5_nn_align1EEvNT_6ParamsE",
    "_Z13mmaTf32KernelPfPKf"}; // a kernel of the program's own, named for TF32: no marker

template <std::size_t N> std::vector<std::string> names(const char* const (&list)[N]) {
    return std::vector<std::string>(std::begin(list), std::end(list));
}

TEST(TensorInference, KernelsBuiltForWarpMmaSuggestTheirTypeBeforeAnythingIsMeasured) {
    const ChipProfile& hopper = profileForChip("GH100");
    std::string why;
    const WarpMmaType* resnet = anticipatedWarpMmaType(hopper, names(kResnetConvs), &why);
    ASSERT_NE(resnet, nullptr);
    EXPECT_EQ(resnet->metric, kTf32);
    EXPECT_EQ(why, kResnetConvs[0]); // the first name that suggested it
    const WarpMmaType* attention = anticipatedWarpMmaType(hopper, names(kFp32Attention));
    ASSERT_NE(attention, nullptr);
    EXPECT_EQ(attention->metric, kTf32); // fp32 attention on tensor cores: TF32
    const WarpMmaType* flash = anticipatedWarpMmaType(hopper, names(kBf16Flash));
    ASSERT_NE(flash, nullptr);
    EXPECT_EQ(flash->metric, kBf16);
    // Warpgroup GEMMs (their hgmma counters are in the set), SIMT GEMMs and names without an
    // architecture or library marker suggest nothing: the default set's passes stay.
    EXPECT_EQ(anticipatedWarpMmaType(hopper, names(kWarpgroupOnly)), nullptr);
    EXPECT_EQ(anticipatedWarpMmaType(hopper, {}), nullptr);
}

TEST(TensorInference, TheTypeMostWarpMmaKernelsSuggestIsTheGuess) {
    const ChipProfile& hopper = profileForChip("GH100");
    const std::vector<std::string> mixed = {
        "void flash_fwd_kernel<Flash_fwd_kernel_traits<64, 128, 128, 4, 0, 0, cutlass::half_t>>",
        "void flash_bwd_dq_dk_dv_loop_kernel<Flash_bwd_kernel_traits<64, cutlass::half_t>>",
        "sm80_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x32_stage4_warpsize2x2x1_"
        "tensor16x8x16"};
    const WarpMmaType* t = anticipatedWarpMmaType(hopper, mixed);
    ASSERT_NE(t, nullptr);
    EXPECT_EQ(t->metric, kFp16);
}

} // namespace
} // namespace roofline::core
