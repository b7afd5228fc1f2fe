// The metric catalog through the real CUPTI host API (no GPU needed): every name valid on every
// chip, pass counts known, and bad names rejected with the closest valid names.
#include "core/metric_catalog.hpp"
#include "core/tensor_inference.hpp"
#include "cupti/host.hpp"
#include "unit/cupti_host_guard.hpp"

#include <roofline/error.hpp>

#include <gtest/gtest.h>

#include <algorithm>

using namespace roofline;

TEST(Catalog, EveryMetricOfEveryChipIsValidInCupti) {
    ROOFLINE_NEEDS_CUPTI_HOST();
    const auto supported = cupti::Host::supportedChips();
    for (const auto& profile : core::chipProfiles()) {
        for (const auto& chip : profile.chips) {
            SCOPED_TRACE(chip);
            ASSERT_NE(std::find(supported.begin(), supported.end(), chip), supported.end());
            const cupti::Host host(chip);
            for (const auto& metric : core::requiredMetrics(profile))
                EXPECT_NO_THROW(host.properties(metric)) << metric;
            const auto image = host.configImage(core::requiredMetrics(profile));
            EXPECT_GT(image.bytes.size(), 0u);
            EXPECT_GE(image.passes, 1u);
        }
    }
}

TEST(Catalog, HopperSetNeedsSevenPasses) {
    ROOFLINE_NEEDS_CUPTI_HOST();
    const auto& hopper = core::profileForChip("GH100");
    const auto metrics = core::requiredMetrics(hopper);
    EXPECT_EQ(metrics.size(), 24u);
    const cupti::Host host("GH100");
    EXPECT_EQ(host.configImage(metrics).passes, 7u);
    // The DRAM read/write split costs no pass in any set.
    for (MetricSet set : {MetricSet::Full, MetricSet::Core, MetricSet::Memory}) {
        auto without = core::requiredMetrics(hopper, set);
        ASSERT_EQ(without.end() - std::remove_if(without.begin(), without.end(),
                                                 [](const std::string& m) {
                                                     return m.rfind("dram__bytes_", 0) == 0;
                                                 }),
                  2);
        without.resize(without.size() - 2);
        EXPECT_EQ(host.configImage(core::requiredMetrics(hopper, set)).passes,
                  host.configImage(without).passes)
            << static_cast<int>(set);
    }
    EXPECT_EQ(core::requiredMetrics(hopper, MetricSet::Core).size(), 18u);
    // Neither does the L2 clock the device-peak L2 roof needs.
    for (MetricSet set : {MetricSet::Full, MetricSet::Core, MetricSet::Memory}) {
        auto without = core::requiredMetrics(hopper, set);
        ASSERT_EQ(std::count(without.begin(), without.end(), hopper.l2CycleRateMetric), 1);
        without.erase(std::find(without.begin(), without.end(), hopper.l2CycleRateMetric));
        EXPECT_EQ(host.configImage(core::requiredMetrics(hopper, set)).passes,
                  host.configImage(without).passes)
            << static_cast<int>(set);
    }
}

// The instruction roofline's opt-in group (design 0023): valid on every chip of the catalog, and
// on GH100 packed into the passes the default set (tensor counters by detection) takes anyway.
TEST(Catalog, InstructionGroupIsValidEverywhereAndCostsNoPassOnHopper) {
    ROOFLINE_NEEDS_CUPTI_HOST();
    for (const auto& profile : core::chipProfiles()) {
        const auto group = core::instructionMetrics(profile);
        ASSERT_EQ(group.size(), 23u) << profile.family;
        for (const auto& chip : profile.chips) {
            SCOPED_TRACE(chip);
            const cupti::Host host(chip);
            for (const auto& metric : group)
                EXPECT_NO_THROW(host.properties(metric)) << metric;
        }
    }
    const auto& hopper = core::profileForChip("GH100");
    const cupti::Host host("GH100");
    const auto initial = core::initialMetrics(hopper, MetricSet::Full, true);
    auto with = initial;
    for (const auto& m : core::instructionMetrics(hopper))
        with.push_back(m);
    EXPECT_EQ(host.configImage(initial).passes, 3u);
    EXPECT_EQ(host.configImage(with).passes, 3u);
    // The L1 t-stage's request counters, which the warp-level instruction counts stand for,
    // would cost two passes more.
    with.push_back("l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum");
    with.push_back("l1tex__t_requests_pipe_lsu_mem_global_op_st.sum");
    EXPECT_EQ(host.configImage(with).passes, 5u);
}

// Aligned replay's configurations (design 0006): every metric exactly once, one pass each except
// the metrics CUPTI cannot collect in one pass even alone.
TEST(Catalog, HopperSetSplitsIntoSinglePassConfigurations) {
    ROOFLINE_NEEDS_CUPTI_HOST();
    const cupti::Host host("GH100");
    const auto metrics = core::requiredMetrics(core::profileForChip("GH100"));
    const auto groups = host.singlePassGroups(metrics);
    std::vector<std::string> all;
    std::size_t passes = 0;
    for (const auto& g : groups) {
        const std::size_t p = host.configImage(g).passes;
        passes += p;
        if (p > 1) {
            EXPECT_EQ(g.size(), 1u) << g.front() << " shares a multi-pass configuration";
        }
        all.insert(all.end(), g.begin(), g.end());
    }
    std::sort(all.begin(), all.end());
    auto expected = metrics;
    std::sort(expected.begin(), expected.end());
    EXPECT_EQ(all, expected);
    EXPECT_EQ(groups.size(), 6u);
    EXPECT_EQ(passes, 8u); // one more than CUPTI's own packing of the whole set (7)
}

// Nsight Compute's byte definitions exist on GH100 and replace only L1 and L2.
TEST(Catalog, HopperHasNsightComputeByteDefinitions) {
    ROOFLINE_NEEDS_CUPTI_HOST();
    const auto& hopper = core::profileForChip("GH100");
    const auto ncu = core::withBytes(hopper, ByteDefinition::Ncu);
    const auto metrics = core::requiredMetrics(ncu, MetricSet::Memory);
    EXPECT_NE(std::find(metrics.begin(), metrics.end(), "lts__lts2xbar_cycles_active.sum"),
              metrics.end());
    EXPECT_EQ(std::find(metrics.begin(), metrics.end(), "lts__t_bytes.sum"), metrics.end());
    EXPECT_GE(cupti::Host("GH100").configImage(metrics).passes, 1u);
    EXPECT_EQ(core::describe(ncu.bytes[2]), "dram__bytes.sum");
    EXPECT_THROW(core::withBytes(core::profileForChip("GV100"), ByteDefinition::Ncu), Error);
}

TEST(Catalog, VoltaFormulaIsNeverUsedBeyondVolta) {
    for (const auto& profile : core::chipProfiles()) {
        const bool volta = profile.family == "Volta";
        bool usesPipeTensor = false;
        for (const auto& f : profile.flops)
            for (const auto& t : f.terms)
                usesPipeTensor |= t.metric.find("inst_executed_pipe_tensor") != std::string::npos;
        EXPECT_EQ(usesPipeTensor, volta) << profile.family;
    }
    const auto& volta = core::profileForChip("GV100");
    const auto& f = volta.flops[static_cast<std::size_t>(FlopKind::TensorFP16)];
    ASSERT_EQ(f.terms.size(), 1u);
    EXPECT_EQ(f.terms[0].coefficient, 512.0);
}

TEST(Catalog, UnknownMetricNamesTheChipAndClosestNames) {
    ROOFLINE_NEEDS_CUPTI_HOST();
    const cupti::Host host("GH100");
    try {
        host.properties("dram__byte.sum");
        FAIL() << "accepted an unknown metric";
    } catch (const Error& e) {
        EXPECT_EQ(e.code(), ErrorCode::UnknownMetric);
        const std::string what = e.what();
        EXPECT_NE(what.find("'dram__byte.sum'"), std::string::npos) << what;
        EXPECT_NE(what.find("GH100"), std::string::npos) << what;
        EXPECT_NE(what.find("dram__bytes.sum"), std::string::npos) << what;
    }
    EXPECT_THROW(host.configImage({"sm__cycles_elapsed.avg", "not_a_metric.sum"}), Error);
}

TEST(Catalog, UnknownChipsAreRefusedWithTheKnownOnes) {
    ROOFLINE_NEEDS_CUPTI_HOST();
    try {
        core::profileForChip("GB202");
        FAIL();
    } catch (const Error& e) {
        EXPECT_EQ(e.code(), ErrorCode::UnsupportedChip);
        EXPECT_NE(std::string(e.what()).find("GH100"), std::string::npos);
    }
    try {
        cupti::Host host("XX100");
        FAIL();
    } catch (const Error& e) {
        EXPECT_EQ(e.code(), ErrorCode::UnsupportedChip);
        EXPECT_NE(std::string(e.what()).find("GH100"), std::string::npos);
    }
}

TEST(Catalog, FormulasEvaluateByName) {
    const auto& p = core::profileForChip("GH100");
    core::MetricValues v;
    for (const auto& m : core::requiredMetrics(p))
        v[m] = 0.0;
    v["sm__sass_thread_inst_executed_op_fadd_pred_on.sum"] = 3;
    v["sm__sass_thread_inst_executed_op_fmul_pred_on.sum"] = 5;
    v["sm__sass_thread_inst_executed_op_ffma_pred_on.sum"] = 7;
    v["sm__sass_thread_inst_executed_op_hfma_pred_on.sum"] = 10;
    v["sm__sass_thread_inst_executed_op_hadd_pred_on.sum"] = 1;
    EXPECT_EQ(core::evaluate(p.flops[static_cast<std::size_t>(FlopKind::FP32)], v), 3 + 5 + 14);
    EXPECT_EQ(core::evaluate(p.flops[static_cast<std::size_t>(FlopKind::FP16)], v), 40 + 2);
    v.erase("sm__sass_thread_inst_executed_op_fmul_pred_on.sum");
    EXPECT_THROW(core::evaluate(p.flops[static_cast<std::size_t>(FlopKind::FP32)], v), Error);
    EXPECT_EQ(core::describe(p.bytes[static_cast<std::size_t>(MemoryLevel::DRAM)]),
              "dram__bytes.sum");
    EXPECT_EQ(core::describe(core::Formula{}), "-");
}
