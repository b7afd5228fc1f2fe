// Kernels of torch.compile'd code named by the compiled graph's call sites, and kernels a CUDA
// graph replays named by what was current where they were captured. Range names as PyTorch 2.11
// pushes them on an H100 (emit_nvtx over test/gpu/torch_matrix.py --compile default): the
// compiled region, the autograd function around the graph, the graph's call, and one range per
// call site -- a Triton kernel's name, or the operator an extern kernel runs.
#include "core/compiled_sites.hpp"
#include "scopes/framework_context.hpp"
#include "unit/collector_harness.hpp"

#include <roofline/error.hpp>

#include <gtest/gtest.h>

#include <thread>

namespace roofline {
namespace {

namespace fw = collect::framework;

bool push(const char* name) {
    return fw::pushed("", name);
}
void pop(int n = 1) {
    for (int i = 0; i < n; ++i)
        fw::popped("");
}
core::LaunchInfo launchHere(const char* mangled, std::uint64_t node = 0) {
    core::LaunchInfo info;
    info.mangledName = mangled;
    fw::describe(info, node);
    return info;
}

// The forward graph's sites as the hook sends them: in call order, a Triton kernel reused for two
// layers is two sites of one range.
constexpr const char* kForward =
    "triton_poi_fused__to_copy_0\tinp\taten::_to_copy\n"
    "aten::addmm\tinp\taten::_to_copy+aten::view+aten::t+aten::addmm\n"
    "triton_per_fused__to_copy_native_layer_norm_view_3\tblocks.0.ln1\taten::_to_copy+"
    "aten::native_layer_norm+aten::view\n"
    "triton_poi_fused__to_copy_8\tblocks.0.mlp.0\taten::_to_copy\n"
    "triton_poi_fused__to_copy_8\tblocks.0.mlp.2\taten::_to_copy\n"
    "triton_poi_fused_gelu_view_10\tblocks.0.mlp.1\taten::gelu+aten::view\n";

// The forward graph's call, inside the compiled region and the autograd function; leaves 3 open.
void enterForwardGraph() {
    ASSERT_TRUE(push("Torch-Compiled Region: 0/0, op_id = 5627"));
    ASSERT_TRUE(push("CompiledFunction, seq = 196, op_id = 5630, sizes = [[256, 64], [256]]"));
    ASSERT_TRUE(push("## Call CompiledFxGraph fw7vetse ##, op_id = 5631"));
}

TEST(CompiledSites, ReadInCallOrderAndBounded) {
    const core::CompiledGraph g = core::CompiledGraph::parse(kForward);
    EXPECT_EQ(g.size(), 6u);
    ASSERT_NE(g.site("triton_poi_fused__to_copy_8", 1), nullptr);
    EXPECT_EQ(g.site("triton_poi_fused__to_copy_8", 1)->module, "blocks.0.mlp.2");
    EXPECT_EQ(g.site("aten::addmm", 0)->ops, "aten::_to_copy+aten::view+aten::t+aten::addmm");
    EXPECT_EQ(g.site("triton_poi_fused__to_copy_8", 2), nullptr);
    EXPECT_EQ(g.site("aten::mm", 0), nullptr);
    EXPECT_EQ(core::CompiledGraph::parse("\n\nk\t\t\n").site("k", 0)->module, "");
    for (const char* bad : {"k\tm", "k\tm\tops\textra", "\tm\tops"})
        EXPECT_THROW(core::CompiledGraph::parse(bad), Error) << bad;
    try {
        core::CompiledGraph::parse("k\t\t\n" + std::string(5000, 'x') + "\t\t\n");
        FAIL();
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("site 2: longer than 4096"), std::string::npos);
    }
    std::string many;
    for (std::size_t i = 0; i <= core::CompiledGraph::kMaxSites; ++i)
        many += "k\t\t\n";
    EXPECT_THROW(core::CompiledGraph::parse(many), Error);
    EXPECT_EQ(core::compiledGraphKey("## Call CompiledFxGraph fw7vetse ##"), "fw7vetse");
    EXPECT_EQ(core::compiledGraphKey("## Call CompiledFxGraph  ##"), "");
    EXPECT_EQ(core::compiledGraphKey("Torch-Compiled Region: 0/0"), "");
    EXPECT_EQ(core::compiledModule("", "blocks.0", "GPT"), "blocks.0");
    EXPECT_EQ(core::compiledModule("", "", "GPT"), "GPT");
    EXPECT_EQ(core::compiledModule("blocks.1", "attn", "blocks.1"), "blocks.1.attn");
    EXPECT_EQ(core::compiledModule("blocks.1", "", "blocks.1"), "blocks.1");
}

TEST(CompiledFramework, ForwardKernelsGetTheirSitesOperatorsAndModules) {
    fw::reset();
    fw::setCompiledGraph("fw7vetse", kForward);
    EXPECT_EQ(fw::compiledGraphs(), 1u);
    fw::moduleEnter("GPT", true); // the compiled module's wrapper call, then its own
    fw::moduleEnter("GPT", true);
    enterForwardGraph();
    ASSERT_TRUE(push("triton_poi_fused__to_copy_0, op_id = 5632, sizes = [[16, 128, 64]]"));
    core::LaunchInfo k = launchHere("triton_poi_fused__to_copy_0");
    EXPECT_EQ(k.op, "aten::_to_copy");
    EXPECT_EQ(k.module, "inp");
    EXPECT_EQ(k.phase, "forward");
    EXPECT_EQ(k.shapes, "[[16, 128, 64]]");
    pop();
    // An extern kernel: the operator it runs, not the autograd function around the graph.
    ASSERT_TRUE(push("aten::addmm, op_id = 5635, sizes = [[256], [2048, 64], [64, 256]]"));
    k = launchHere("nvjet_sm90_tst_128x64_64x8_1x2_h_bz_coopA_NNT");
    EXPECT_EQ(k.op, "aten::addmm");
    EXPECT_EQ(k.module, "inp");
    pop();
    ASSERT_TRUE(push("triton_per_fused__to_copy_native_layer_norm_view_3, op_id = 5636"));
    EXPECT_EQ(launchHere("triton_per_fused__to_copy_native_layer_norm_view_3").module,
              "blocks.0.ln1");
    pop();
    // One kernel, two layers: the n-th call of a range is the n-th site of that range.
    for (const char* module : {"blocks.0.mlp.0", "blocks.0.mlp.2"}) {
        ASSERT_TRUE(push("triton_poi_fused__to_copy_8, op_id = 5665"));
        k = launchHere("triton_poi_fused__to_copy_8");
        EXPECT_EQ(k.module, module);
        EXPECT_EQ(k.op, "aten::_to_copy");
        pop();
    }
    // A site of no table (a range the graph pushes beyond its output code): its own name.
    ASSERT_TRUE(push("aten::_foreach_copy_, op_id = 34183"));
    k = launchHere("_ZN2at6native18elementwise_kernel");
    EXPECT_EQ(k.op, "aten::_foreach_copy_");
    EXPECT_EQ(k.module, "GPT");
    pop();
    pop(3);
    // The graph called again: occurrences count from 0 in each call.
    enterForwardGraph();
    push("triton_poi_fused__to_copy_0, op_id = 6000");
    push("aten::addmm, op_id = 6001");
    pop(2);
    push("triton_per_fused__to_copy_native_layer_norm_view_3, op_id = 6002");
    pop();
    push("triton_poi_fused__to_copy_8, op_id = 6003");
    EXPECT_EQ(launchHere("triton_poi_fused__to_copy_8").module, "blocks.0.mlp.0");
    pop(4);
    fw::moduleExit();
    fw::moduleExit();
    EXPECT_EQ(fw::openOperators(), 0u);
}

TEST(CompiledFramework, BackwardKernelsGetTheirForwardModulesOnTheAutogradThread) {
    fw::reset();
    fw::setCompiledGraph("bw2", "triton_red_fused_gelu_gelu_backward_sum_view_5\tmlp\t"
                                "aten::gelu_backward+aten::gelu+aten::sum\n"
                                "aten::mm\tmlp.2\taten::mm\n");
    // A submodule compiled inside an eager model: its paths are under the submodule's.
    fw::moduleEnter("GPT", true);
    fw::moduleEnter("blocks.3", false);
    enterForwardGraph();
    pop(3);
    fw::moduleExit();
    fw::moduleExit();
    core::LaunchInfo fused, mm, outside;
    std::thread autograd([&] {
        push("autograd::engine::evaluate_function: CompiledFunctionBackward, op_id = 7000");
        push("CompiledFunctionBackward, seq = 196, op_id = 7001");
        push("## Call CompiledFxGraph bw2 ##, op_id = 7002");
        push("triton_red_fused_gelu_gelu_backward_sum_view_5, op_id = 7003");
        fused = launchHere("triton_red_fused_gelu_gelu_backward_sum_view_5");
        pop();
        push("aten::mm, op_id = 7004");
        mm = launchHere("nvjet_sm90_tst_64x8_64x16_4x1_v_bz_NNT");
        pop(2);
        outside = launchHere("_ZN2at6native18elementwise_kernel"); // after the graph's call
        pop(2);
    });
    autograd.join();
    EXPECT_EQ(fused.phase, "backward");
    EXPECT_EQ(fused.module, "blocks.3.mlp"); // the site's path under the compiled submodule's
    EXPECT_EQ(fused.op, "aten::gelu_backward+aten::gelu+aten::sum");
    EXPECT_EQ(mm.op, "aten::mm");
    EXPECT_EQ(mm.module, "blocks.3.mlp.2");
    EXPECT_EQ(outside.op, "CompiledFunction");
    EXPECT_EQ(outside.phase, "backward");
    EXPECT_EQ(outside.module, "blocks.3");
}

TEST(CompiledFramework, WithoutItsSitesAKernelKeepsWhatItsNameTells) {
    fw::reset();
    fw::setCompiledGraph("bad", "no tabs here"); // logged once, ignored
    EXPECT_EQ(fw::compiledGraphs(), 0u);
    fw::moduleEnter("Net", true);
    enterForwardGraph();
    push("triton_poi_fused_add_mul_0, op_id = 9");
    const core::LaunchInfo k = launchHere("triton_poi_fused_add_mul_0");
    EXPECT_EQ(k.op, "inductor::fused_add_mul");
    EXPECT_EQ(k.module, "Net");
    EXPECT_EQ(k.phase, "forward");
    pop(4);
    fw::moduleExit();
}

// reduce-overhead and graphed callables: the kernels run as graph nodes, launched where no range
// says what they are; where each node was captured does.
TEST(CompiledFramework, AGraphNodeIsNamedWhereItWasCaptured) {
    fw::reset();
    fw::setCompiledGraph("fw7vetse", kForward);
    fw::moduleEnter("GPT", true);
    enterForwardGraph();
    // CUDA graph trees record the graph's call inside a range of their own.
    ASSERT_TRUE(push("CUDAGraphNode.record, op_id = 3"));
    push("triton_poi_fused__to_copy_0, op_id = 1");
    fw::captured(42, "triton_poi_fused__to_copy_0");
    pop();
    push("aten::addmm, op_id = 2");
    push("aten::empty, op_id = 4"); // an operator inside the site's: still that site's
    fw::captured(43, "nvjet_sm90_tst_128x64_64x8_1x2_h_bz_coopA_NNT");
    pop(6);
    fw::moduleExit();
    fw::captured(0, "ignored");
    EXPECT_EQ(fw::capturedNodes(), 2u);
    // Replayed later, under whatever ranges are open then.
    push("## Call CompiledFxGraph fw7vetse ##, op_id = 50");
    push("aten::_foreach_copy_, op_id = 51");
    pop();
    core::LaunchInfo k = launchHere("triton_poi_fused__to_copy_0", 42);
    EXPECT_EQ(k.op, "aten::_to_copy");
    EXPECT_EQ(k.module, "inp");
    EXPECT_EQ(k.phase, "forward");
    k = launchHere("nvjet_sm90_tst_128x64_64x8_1x2_h_bz_coopA_NNT", 43);
    EXPECT_EQ(k.op, "aten::addmm");
    EXPECT_EQ(k.module, "inp");
    k = launchHere("_Z5otherv", 44); // a node captured nowhere we saw: what is current now
    EXPECT_EQ(k.module, "");
    pop();
}

// While a profiler of the program's own holds PyTorch's operator ranges, launches are measured
// with no operator named: their records take the reference step's, as they take its scopes.
TEST(CompiledFramework, LaunchesMeasuredWhileTheProgramProfilesKeepTheReferencesNames) {
    fw::reset();
    collect::CollectorConfig config; // the session's defaults: reuse, first iteration observed
    config.options.firstIteration = FirstIteration::Skip;
    config.reuseSamples = 2;
    config.options.iterationsPerPass = collect::testing::kAuto;
    config.options.idleWhenComplete = true;
    config.describe = &fw::describe;
    collect::testing::Harness h(CollectionMode::IterationReplay, 2, 8, config);
    int unnamed = 0;
    for (int step = 0; step < 12; ++step) {
        const bool named = step < 2 || step > 4; // steps 2 to 4 under the program's profiler
        unnamed += named ? 0 : 1;
        h.push(("step " + std::to_string(step)).c_str());
        if (named) {
            fw::moduleEnter("encoder.linear1", false);
            push("aten::addmm, seq = 7, op_id = 1");
        }
        h.launch("gemm", 2);
        if (named) {
            pop();
            fw::moduleExit();
        }
        h.launch("relu", 1);
        h.pop();
    }
    const auto& records = h.finish();
    ASSERT_FALSE(records.empty());
    for (const core::LaunchInfo& r : records) {
        EXPECT_FALSE(r.values.empty()) << r.note;
        const bool gemm = r.mangledName == "gemm";
        EXPECT_EQ(r.op, gemm ? "aten::addmm" : "");
        EXPECT_EQ(r.module, gemm ? "encoder.linear1" : "");
        EXPECT_EQ(r.phase, gemm ? "forward" : "");
    }
}

} // namespace
} // namespace roofline
