// Framework operators and modules: PyTorch's NVTX operator ranges read as operators, backward
// nodes linked to their forward operator by autograd's sequence number, module paths, and the
// reports by operator and module. Range names as PyTorch 2.11 writes them (emit_nvtx on an H100
// run of examples/pytorch/train_transformer.py).
#include "scopes/framework_context.hpp"
#include "core/framework_ops.hpp"
#include "core/recording.hpp"
#include "cupti/evaluate.hpp"
#include "report/aggregate.hpp"
#include "report/operators.hpp"
#include "report/ranks.hpp"

#include <roofline/chart.hpp>
#include <roofline/error.hpp>
#include <roofline/report.hpp>

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <iterator>
#include <sstream>
#include <thread>

namespace roofline {
namespace {

using core::FrameworkRange;
namespace fw = collect::framework;

TEST(FrameworkRanges, ForwardOperatorWithSeqAndShapes) {
    const FrameworkRange r = core::parseFrameworkRange(
        "aten::addmm, seq = 624, op_id = 6403, sizes = [[2048], [4096, 512], [512, 2048], [], []]");
    EXPECT_EQ(r.kind, FrameworkRange::Kind::Op);
    EXPECT_EQ(r.name, "aten::addmm");
    EXPECT_EQ(r.seq, 624);
    EXPECT_EQ(r.sizes, "[[2048], [4096, 512], [512, 2048], [], []]");
    const auto shapes = core::parseShapes(r.sizes);
    ASSERT_EQ(shapes.size(), 5u);
    EXPECT_EQ(shapes[1], (std::vector<std::int64_t>{4096, 512}));
    EXPECT_TRUE(shapes[3].empty());
}

TEST(FrameworkRanges, BackwardNodeOptimizerCollectiveAndOwnRanges) {
    const FrameworkRange b = core::parseFrameworkRange("AddmmBackward0, seq = 624, op_id = 7248");
    EXPECT_EQ(b.kind, FrameworkRange::Kind::Backward);
    EXPECT_EQ(b.name, "AddmmBackward0");
    EXPECT_EQ(b.seq, 624);
    EXPECT_EQ(core::parseFrameworkRange("MeanBackward1, seq = 699, op_id = 6713").kind,
              FrameworkRange::Kind::Backward);
    const FrameworkRange o = core::parseFrameworkRange("Optimizer.step#AdamW.step, op_id = 7486");
    EXPECT_EQ(o.kind, FrameworkRange::Kind::Op);
    EXPECT_EQ(o.seq, -1);
    EXPECT_EQ(core::optimizerOf(o.name), "AdamW");
    EXPECT_EQ(core::parseFrameworkRange("nccl:all_reduce, op_id = 12").kind,
              FrameworkRange::Kind::Op);
    // record_function ranges -- the program's, DDP's -- and operators without a namespace are
    // PyTorch's RecordFunctions too: never scopes (DDP's set-up runs "detach" before step 0).
    const FrameworkRange s = core::parseFrameworkRange("## forward ##, op_id = 88");
    EXPECT_EQ(s.kind, FrameworkRange::Kind::Op);
    EXPECT_EQ(s.name, "## forward ##");
    EXPECT_EQ(core::parseFrameworkRange("detach, op_id = 3, sizes = [[1536, 512]], input_op_ids = "
                                        "[(1,0)]")
                  .kind,
              FrameworkRange::Kind::Op);
    EXPECT_EQ(core::parseFrameworkRange("DistributedDataParallel.forward, op_id = 140").kind,
              FrameworkRange::Kind::Op);
    // Plain NVTX ranges stay as they are, "::" or not.
    const FrameworkRange plain = core::parseFrameworkRange("Train step 5");
    EXPECT_EQ(plain.kind, FrameworkRange::Kind::Scope);
    EXPECT_EQ(plain.name, "Train step 5");
    EXPECT_EQ(core::parseFrameworkRange("my::range").kind, FrameworkRange::Kind::Scope);
}

TEST(FrameworkRanges, TensorCoreOperatorsAndInductorKernels) {
    for (const char* op : {"aten::mm", "aten::addmm", "aten::bmm", "aten::linear", "aten::matmul",
                           "aten::cudnn_convolution", "aten::_convolution",
                           "aten::_scaled_dot_product_efficient_attention",
                           "aten::_scaled_dot_product_cudnn_attention", "aten::_cudnn_rnn",
                           "aten::lstm", "aten::baddbmm", "aten::_scaled_mm"})
        EXPECT_TRUE(core::tensorCoreOp(op)) << op;
    for (const char* op : {"aten::add", "aten::mul", "aten::native_layer_norm", "aten::relu",
                           "aten::_fused_adamw_", "aten::embedding", "aten::copy_"})
        EXPECT_FALSE(core::tensorCoreOp(op)) << op;
    EXPECT_EQ(core::inductorFusedOps("triton_poi_fused_add_mul_0"), "inductor::fused_add_mul");
    EXPECT_EQ(core::inductorFusedOps("triton_per_fused__log_softmax_12"),
              "inductor::fused__log_softmax");
    EXPECT_EQ(core::inductorFusedOps("sm90_xmma_gemm_bf16"), "");
    EXPECT_EQ(core::firstSizeNotMultiple("[[8, 256, 512], [512, 2048]]", 8), -1);
    EXPECT_EQ(core::firstSizeNotMultiple("[[8, 255, 512], [512, 2048]]", 8), 255);
    EXPECT_EQ(core::firstSizeNotMultiple("[[1001], [64, 64]]", 8), -1); // vectors do not count
    EXPECT_EQ(core::firstSizeNotMultiple("", 8), -1);
}

// Pushes `name` on this thread as the NVTX listener does; true when kept off the scope stacks.
bool push(const char* name) {
    return fw::pushed("", name);
}

core::LaunchInfo launchHere(const char* mangled = "_Z4gemmv") {
    core::LaunchInfo info;
    info.mangledName = mangled;
    fw::describe(info);
    return info;
}

TEST(FrameworkContext, ForwardKernelsGetTheirOperatorAndModule) {
    fw::reset();
    EXPECT_FALSE(push("Train step 3")); // a plain range: a scope, as named
    fw::moduleEnter("encoder.layers.0.linear1", false);
    EXPECT_TRUE(push("aten::linear, seq = 623, op_id = 6400"));
    EXPECT_TRUE(push("aten::t, seq = 623, op_id = 6401"));
    EXPECT_TRUE(fw::popped(""));
    EXPECT_TRUE(push("aten::addmm, seq = 624, op_id = 6403, sizes = [[2048], [4096, 512]]"));
    const core::LaunchInfo k = launchHere();
    EXPECT_EQ(k.op, "aten::addmm"); // the operator autograd numbered, not its caller
    EXPECT_EQ(k.phase, "forward");
    EXPECT_EQ(k.module, "encoder.layers.0.linear1");
    EXPECT_EQ(k.shapes, "[[2048], [4096, 512]]");
    EXPECT_TRUE(fw::popped(""));
    EXPECT_TRUE(fw::popped(""));
    fw::moduleExit();
    EXPECT_EQ(fw::openOperators(), 0u);
    EXPECT_FALSE(fw::popped(""));           // the step: a scope's pop, for the scope stacks
    EXPECT_EQ(fw::rememberedForward(), 2u); // seq 623 (aten::t won) and 624
}

TEST(FrameworkContext, BackwardOnAnotherThreadDifferentiatesTheForwardOperator) {
    fw::reset();
    fw::moduleEnter("encoder.layers.1.self_attn", false);
    ASSERT_TRUE(push("aten::_scaled_dot_product_cudnn_attention, seq = 618, op_id = 6380"));
    ASSERT_TRUE(push("aten::_cudnn_attention_forward, op_id = 6381"));
    EXPECT_EQ(launchHere().op, "aten::_scaled_dot_product_cudnn_attention");
    fw::popped("");
    fw::popped("");
    fw::moduleExit();
    core::LaunchInfo backward, unknown;
    std::thread autograd([&] { // PyTorch runs backward on its own thread
        push("ScaledDotProductCudnnAttentionBackward0, seq = 618, op_id = 7296");
        push("aten::_scaled_dot_product_cudnn_attention_backward, op_id = 7297");
        backward = launchHere();
        fw::popped("");
        fw::popped("");
        push("SelectBackward0, seq = 99999, op_id = 7363"); // its forward was never seen
        unknown = launchHere();
        fw::popped("");
    });
    autograd.join();
    EXPECT_EQ(backward.op, "aten::_scaled_dot_product_cudnn_attention");
    EXPECT_EQ(backward.phase, "backward");
    EXPECT_EQ(backward.module, "encoder.layers.1.self_attn");
    EXPECT_EQ(unknown.op, "SelectBackward0");
    EXPECT_EQ(unknown.phase, "backward");
    EXPECT_EQ(unknown.module, "");
}

TEST(FrameworkContext, OptimizerCollectivesAndCompiledKernels) {
    fw::reset();
    push("Optimizer.step#AdamW.step, op_id = 7486");
    push("aten::_fused_adamw_, op_id = 7488");
    const core::LaunchInfo adam = launchHere();
    EXPECT_EQ(adam.op, "aten::_fused_adamw_");
    EXPECT_EQ(adam.phase, "optimizer");
    EXPECT_EQ(adam.module, "optimizer.AdamW");
    fw::popped("");
    fw::popped("");
    push("nccl:all_reduce, op_id = 9001");
    const core::LaunchInfo comm = launchHere("ncclDevKernel_AllReduce_Sum_f32_RING_LL");
    EXPECT_EQ(comm.op, "nccl:all_reduce");
    EXPECT_EQ(comm.phase, "communication");
    fw::popped("");
    // A collective whose range never ends on this thread names no compute kernel after it.
    push("c10d::allgather_, seq = 0, op_id = 129");
    EXPECT_EQ(launchHere("ncclDevKernel_AllGather_RING_LL").phase, "communication");
    const core::LaunchInfo after = launchHere("_Z4gemmv");
    EXPECT_EQ(after.op, "");
    EXPECT_EQ(after.phase, "");
    fw::reset();
    const core::LaunchInfo compiled = launchHere("triton_poi_fused_add_mul_0");
    EXPECT_EQ(compiled.op, "inductor::fused_add_mul");
    EXPECT_EQ(compiled.phase, "");
    // Other domains' ranges are never operators.
    EXPECT_FALSE(fw::pushed("NCCL", "aten::fake, op_id = 1"));
    EXPECT_FALSE(fw::popped("NCCL"));
}

TEST(FrameworkContext, FactsAreBounded) {
    fw::reset();
    fw::setFact("torch", "2.11.0+cu130");
    fw::setFact("tf32.matmul", std::string(1000, 'x').c_str());
    fw::setFact("", "ignored");
    const auto facts = fw::facts();
    EXPECT_EQ(facts.size(), 2u);
    EXPECT_EQ(facts.at("torch"), "2.11.0+cu130");
    EXPECT_EQ(facts.at("tf32.matmul").size(), 256u);
    fw::reset();
}

KernelRecord record(const char* op, const char* phase, const char* module, double ms, FlopKind kind,
                    double flops) {
    KernelRecord r;
    r.name = "k";
    r.op = op;
    r.phase = phase;
    r.module = module;
    r.measured = true;
    r.timeSeconds = ms * 1e-3;
    r.flops[static_cast<std::size_t>(kind)] = flops;
    r.bytes[0] = 1e6;
    return r;
}

TEST(FrameworkReports, GroupByOperatorAndModuleWithDepth) {
    EXPECT_EQ(parseGroupBy("op"), GroupBy::Op);
    EXPECT_EQ(parseGroupBy("module"), GroupBy::Module);
    EXPECT_EQ(parseGroupBy("module:3"), GroupBy::Module);
    EXPECT_EQ(moduleDepthOf("module:3"), 3u);
    EXPECT_EQ(moduleDepthOf("module"), 0u);
    EXPECT_THROW(parseGroupBy("module:0"), Error);
    EXPECT_THROW(parseGroupBy("module:x"), Error);
    const std::vector<KernelRecord> rs = {
        record("aten::addmm", "forward", "encoder.layers.0.linear1", 1.0, FlopKind::TensorBF16,
               8e9),
        record("aten::addmm", "backward", "encoder.layers.0.linear1", 2.0, FlopKind::TensorBF16,
               16e9),
        record("aten::addmm", "forward", "encoder.layers.1.linear1", 1.0, FlopKind::TensorBF16,
               8e9),
        record("", "", "", 0.5, FlopKind::FP32, 1e6)};
    const auto byOp = report::aggregate(rs, GroupBy::Op);
    ASSERT_EQ(byOp.size(), 3u);
    EXPECT_EQ(byOp[0].name, "aten::addmm");
    EXPECT_EQ(byOp[0].launches, 2u);
    EXPECT_EQ(byOp[1].name, "aten::addmm [backward]");
    EXPECT_EQ(byOp[2].name, "(no operator)");
    const auto byModule = report::aggregate(rs, GroupBy::Module);
    ASSERT_EQ(byModule.size(), 3u);
    EXPECT_EQ(byModule[0].name, "encoder.layers.0.linear1");
    EXPECT_DOUBLE_EQ(byModule[0].seconds, 3e-3); // forward and backward together
    const auto byLayer = report::aggregate(cutModules(rs, 2), GroupBy::Module);
    ASSERT_EQ(byLayer.size(), 2u);
    EXPECT_EQ(byLayer[0].name, "encoder.layers");
    EXPECT_EQ(byLayer[0].launches, 3u);
    EXPECT_EQ(cutModules(rs, 3)[2].module, "encoder.layers.1");
    EXPECT_EQ(cutModules(rs, 9)[0].module, "encoder.layers.0.linear1");
}

TEST(FrameworkReports, WhyAnOperatorMissedTensorCores) {
    report::OperatorUse u;
    u.op = "aten::mm";
    u.tensorCoreOp = true;
    u.flops = u.fp32 = 1e9;
    EXPECT_NE(report::whyNotTensorCores(u, {{"tf32.matmul", "off"}})
                  .find("float32 without TF32: torch.backends.cuda.matmul.allow_tf32 is False"),
              std::string::npos);
    u.op = "aten::cudnn_convolution";
    EXPECT_NE(report::whyNotTensorCores(u, {{"tf32.cudnn", "off"}})
                  .find("torch.backends.cudnn.allow_tf32"),
              std::string::npos);
    u.op = "aten::bmm";
    u.fp32 = 0;
    u.fp16 = 1e9;
    u.shapes = "[[8, 255, 64], [8, 64, 255]]";
    EXPECT_NE(report::whyNotTensorCores(u, {}).find("(255) is not a multiple of 8"),
              std::string::npos);
    u.fp16 = 0;
    u.fp64 = 1e9;
    EXPECT_NE(report::whyNotTensorCores(u, {}).find("float64"), std::string::npos);
    u.tensorFlops = 9e9;
    u.flops = 1e10;
    EXPECT_EQ(report::whyNotTensorCores(u, {}), ""); // 90% on tensor cores
    u.op = "aten::add";
    u.tensorCoreOp = false;
    u.tensorFlops = 0;
    EXPECT_EQ(report::whyNotTensorCores(u, {}), "");

    std::vector<KernelRecord> rs = {
        record("aten::addmm", "forward", "head", 1.0, FlopKind::TensorBF16, 8e9),
        record("aten::mm", "forward", "proj", 3.0, FlopKind::FP32, 4e9),
        record("aten::add", "forward", "", 0.5, FlopKind::FP32, 1e6)};
    std::ostringstream out;
    report::printTensorCoreUse(rs, {{"tf32.matmul", "off"}}, out, 0);
    const std::string text = out.str();
    EXPECT_NE(text.find("66.7% of the operators' FLOPs ran on tensor cores"), std::string::npos)
        << text;
    EXPECT_NE(text.find("could run on tensor cores, did not (1)"), std::string::npos) << text;
    EXPECT_NE(text.find("aten::mm"), std::string::npos);
}

TEST(FrameworkReports, RanksComparedOnComputeNotOnWaits) {
    std::vector<KernelRecord> rs;
    for (int rank : {0, 1}) {
        KernelRecord gemm = record("aten::addmm", "forward", "l", 2.0, FlopKind::TensorBF16, 1e9);
        gemm.rank = rank;
        KernelRecord comm =
            record("nccl:all_reduce", "communication", "", rank ? 8.24 : 0.88, FlopKind::FP32, 0);
        comm.rank = rank;
        comm.mangledName = "ncclDevKernel_AllReduce_Sum_f32_RING_LL";
        rs.push_back(gemm);
        rs.push_back(comm);
    }
    std::ostringstream out;
    report::printRanks(rs, GroupBy::Kernel, out, 10);
    const std::string text = out.str();
    EXPECT_EQ(text.find("slowest"), std::string::npos) << text; // the wait names no straggler
    EXPECT_NE(text.find("compute time within 1% on every rank: no straggler"), std::string::npos)
        << text;
    EXPECT_NE(text.find("communication     8.240 ms (1 launches)"), std::string::npos) << text;
    EXPECT_NE(text.find("taken while the ranks were being profiled"), std::string::npos);
    EXPECT_TRUE(report::rankSpread(rs, GroupBy::Kernel).empty() ||
                report::rankSpread(rs, GroupBy::Kernel)[0].excessSeconds() == 0);
    rs[2].timeSeconds = 3e-3; // rank 1's GEMM takes longer: a straggler by compute
    std::ostringstream again;
    report::printRanks(rs, GroupBy::Kernel, again, 10);
    EXPECT_NE(again.str().find("slowest compute: +50.0% over the fastest"), std::string::npos)
        << again.str();
}

} // namespace
} // namespace roofline

namespace roofline {
namespace {

// The autograd engine's range around a node: a backward frame whose kernels after the node
// (gradient accumulation) differentiate the node's forward operator.
TEST(FrameworkContext, EngineRangeAroundANodeTakesItsForwardOperator) {
    fw::reset();
    fw::moduleEnter("encoder.layers.0.linear2", false);
    ASSERT_TRUE(push("aten::add, seq = 627, op_id = 6408"));
    fw::popped("");
    fw::moduleExit();
    const FrameworkRange e = core::parseFrameworkRange(
        "autograd::engine::evaluate_function: AddBackward0, op_id = 6734");
    EXPECT_EQ(e.kind, FrameworkRange::Kind::Backward);
    EXPECT_EQ(e.name, "AddBackward0");
    ASSERT_TRUE(push("autograd::engine::evaluate_function: AddBackward0, op_id = 6734"));
    ASSERT_TRUE(push("AddBackward0, seq = 627, op_id = 6735"));
    fw::popped("");
    const core::LaunchInfo accumulate = launchHere();
    fw::popped("");
    EXPECT_EQ(accumulate.op, "aten::add");
    EXPECT_EQ(accumulate.phase, "backward");
    EXPECT_EQ(accumulate.module, "encoder.layers.0.linear2");
}

} // namespace
} // namespace roofline

namespace roofline {
namespace {

// The chart of a recording grouped by operator labels its points with the operators' names.
TEST(FrameworkReports, ChartLabelsAreOperators) {
    const auto rec = core::loadRecording(ROOFLINE_FIXTURE_DIR "/h100_torch_ops.rfl");
    const auto records = cupti::evaluateRecording(rec, core::datasheetCeilings(rec.device));
    ChartOptions options;
    options.groupBy = GroupBy::Op;
    options.labels = 5;
    const std::string path = ::testing::TempDir() + "framework_ops_chart.svg";
    const ChartFiles files =
        writeRooflineChart(records, core::datasheetCeilings(rec.device), path, options);
    bool found = false;
    for (const std::string& f : files.files) {
        std::ifstream in(f);
        const std::string text((std::istreambuf_iterator<char>(in)),
                               std::istreambuf_iterator<char>());
        found = found || text.find("aten::addmm [backward]") != std::string::npos;
        std::remove(f.c_str());
    }
    EXPECT_TRUE(found);
}

} // namespace
} // namespace roofline
