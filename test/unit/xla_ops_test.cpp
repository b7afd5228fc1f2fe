// XLA's per-operation NVTX ranges read as a JAX operation (core/xla_ops): the primitive, forward
// or backward (under transpose), the modules and transformations it went through, the HLO
// instruction; ranges without a name, a command buffer's, and names that are not XLA's.
#include "core/xla_ops.hpp"

#include <gtest/gtest.h>

using roofline::core::parseXlaOperation;
using roofline::core::XlaOperation;

TEST(XlaOps, APrimitiveOfTheStepForwardAndBackward) {
    XlaOperation x;
    ASSERT_TRUE(parseXlaOperation("Thunk:#name=jit(step)/jvp()/dot_general,hlo_op=custom-call.2,"
                                  "unique_hlo_op_id=68719476738#",
                                  x));
    EXPECT_EQ(x.op, "jax::dot_general");
    EXPECT_EQ(x.phase, "forward");
    EXPECT_EQ(x.module, "step") << "no module: the jitted function";
    EXPECT_EQ(x.hlo, "custom-call.2");
    ASSERT_TRUE(
        parseXlaOperation("Thunk:#name=jit(step)/transpose(jvp())/dot_general,hlo_op=custom-call.0,"
                          "unique_hlo_op_id=68719476736#",
                          x));
    EXPECT_EQ(x.op, "jax::dot_general");
    EXPECT_EQ(x.phase, "backward");
}

TEST(XlaOps, FlaxModulesMakeTheModulePath) {
    XlaOperation x;
    ASSERT_TRUE(parseXlaOperation("Thunk:#name=jit(train_step)/transpose(jvp(Model))/Dense_0/"
                                  "dot_general,hlo_op=gemm_fusion_dot.4,unique_hlo_op_id=9#",
                                  x));
    EXPECT_EQ(x.op, "jax::dot_general");
    EXPECT_EQ(x.phase, "backward");
    EXPECT_EQ(x.module, "Model.Dense_0");
    // A fusion whose operations share only a prefix: no primitive, the instruction names it.
    ASSERT_TRUE(parseXlaOperation(
        "Thunk:#name=jit(train_step)/jvp(Model)/Dense_1,hlo_op=loop_multiply_fusion.1,"
        "unique_hlo_op_id=3#",
        x));
    EXPECT_EQ(x.op, "xla::loop_multiply_fusion");
    EXPECT_EQ(x.phase, "forward");
    EXPECT_EQ(x.module, "Model.Dense_1");
}

TEST(XlaOps, RangesWithoutANameAndOthers) {
    XlaOperation x;
    ASSERT_TRUE(parseXlaOperation("Thunk:#hlo_op=input_reduce_fusion.12,unique_hlo_op_id=7#", x));
    EXPECT_EQ(x.op, "xla::input_reduce_fusion");
    EXPECT_EQ(x.module, "");
    ASSERT_TRUE(parseXlaOperation("Thunk:#hlo_op=command_buffer_1#", x));
    EXPECT_EQ(x.op, "") << "a command buffer runs many operations";
    EXPECT_EQ(x.hlo, "command_buffer_1");
    EXPECT_FALSE(parseXlaOperation("XlaModule:#hlo_module=jit_step,program_id=3#", x));
    EXPECT_FALSE(parseXlaOperation("Train step 3", x));
    // Commas inside the name stay in it.
    ASSERT_TRUE(parseXlaOperation("Thunk:#name=jit(f)/custom_jvp_call(a,b)/exp,hlo_op=exp.3#", x));
    EXPECT_EQ(x.op, "jax::exp");
    EXPECT_EQ(x.module, "a,b");
}
