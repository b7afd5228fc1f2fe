// Framework operator labels cut to a column by whole operators (report/operator_names): the
// first operators that fit then "+..", a lone operator without its namespace then without whole
// words at its end, the phase suffix always kept; two labels that start alike keep the operator
// where they differ.
#include "report/kernel_names.hpp"
#include "report/operator_names.hpp"

#include <gtest/gtest.h>

using namespace roofline::report;

TEST(OperatorNames, WhatIsALabel) {
    EXPECT_TRUE(operatorLabel("aten::addmm"));
    EXPECT_TRUE(operatorLabel("aten::addmm [backward]"));
    EXPECT_TRUE(operatorLabel("aten::_to_copy+aten::native_layer_norm+aten::add.Tensor"));
    EXPECT_TRUE(operatorLabel("inductor::fused_add_mul"));
    EXPECT_FALSE(operatorLabel("void at::native::vectorized_elementwise_kernel<4>"));
    EXPECT_FALSE(operatorLabel("at::native::reduce_kernel"));
    EXPECT_FALSE(operatorLabel("vectorized_elementwise_kernel[FillFunctor]"));
    EXPECT_FALSE(operatorLabel("aten::addmm+"));
    EXPECT_FALSE(operatorLabel(""));
}

TEST(OperatorNames, FusedOperatorsDropWholeOperators) {
    const std::string fused =
        "aten::_to_copy+aten::native_layer_norm_backward+aten::native_layer_norm+aten::add "
        "[backward]";
    EXPECT_EQ(fitOperators(fused, 200), fused);
    EXPECT_EQ(fitOperators(fused, 61),
              "aten::_to_copy+aten::native_layer_norm_backward+.. [backward]");
    EXPECT_EQ(fitOperators(fused, 40), "aten::_to_copy+.. [backward]");
    EXPECT_EQ(fitOperators(fused, 24), "_to_copy+.. [backward]");
    EXPECT_EQ(fitOperators(fused, 20), "_to..+.. [backward]") << "a word, never letters";
    // Through the table's abbreviation too.
    EXPECT_EQ(abbreviateName(fused, 40), "aten::_to_copy+.. [backward]");
}

TEST(OperatorNames, ALoneOperatorLosesItsNamespaceThenWholeWords) {
    const std::string sdpa = "aten::_scaled_dot_product_cudnn_attention_backward [backward]";
    EXPECT_EQ(fitOperators(sdpa, 55), "_scaled_dot_product_cudnn_attention_backward [backward]");
    EXPECT_EQ(fitOperators(sdpa, 52), "_scaled_dot_product_cudnn_attention.. [backward]");
    EXPECT_EQ(fitOperators(sdpa, 40), "_scaled_dot_product_cudnn.. [backward]");
    EXPECT_EQ(fitOperators("aten::native_layer_norm", 14), "native_layer..");
    EXPECT_EQ(fitOperators("aten::native_layer_norm", 8), "native..");
    EXPECT_EQ(fitOperators("aten::native_layer_norm", 6), "nati..") << "not even a word: cut";
}

TEST(OperatorNames, LabelsThatStartAlikeKeepWhereTheyDiffer) {
    const std::vector<std::string> names = {
        "aten::_to_copy+aten::native_layer_norm+aten::mul+aten::add [backward]",
        "aten::_to_copy+aten::native_layer_norm+aten::gelu+aten::add [backward]"};
    EXPECT_EQ(firstOperatorDifference(names[0], names[1]), 2u);
    const std::vector<std::string> out = abbreviateNames(names, names, 44);
    EXPECT_EQ(out[0], "aten::_to_copy+..+aten::mul+.. [backward]");
    EXPECT_EQ(out[1], "aten::_to_copy+..+aten::gelu+.. [backward]");
    for (const std::string& s : out)
        EXPECT_LE(s.size(), 44u) << s;
}
