#include "core/nvtx_filter.hpp"

#include <roofline/error.hpp>

#include <gtest/gtest.h>

using roofline::Error;
using roofline::core::KernelFilter;
using roofline::core::NvtxExpression;
using roofline::core::NvtxRange;

namespace {
std::vector<NvtxRange> stack(std::initializer_list<const char*> names, const char* domain = "") {
    std::vector<NvtxRange> s;
    for (const char* n : names)
        s.push_back({domain, n});
    return s;
}
bool match(const char* expr, const std::vector<NvtxRange>& pushPop,
           const std::vector<NvtxRange>& startEnd = {}) {
    return NvtxExpression::parse(expr).matches(pushPop, startEnd);
}
std::string errorOf(const char* expr) {
    try {
        NvtxExpression::parse(expr);
    } catch (const Error& e) {
        return e.what();
    }
    return "";
}
} // namespace

TEST(NvtxFilter, PushPopRangeAnywhereOnTheStack) {
    EXPECT_TRUE(match("step/", stack({"train", "step", "conv1"})));
    EXPECT_TRUE(match("train/", stack({"train", "step", "conv1"})));
    EXPECT_FALSE(match("fwd/", stack({"train", "step", "conv1"})));
    EXPECT_FALSE(match("step/", {}));
}

TEST(NvtxFilter, DirectAndWildcardNesting) {
    const auto s = stack({"train", "step", "conv1", "fwd"});
    EXPECT_TRUE(match("step/conv1", s));
    EXPECT_FALSE(match("train/conv1", s)); // not directly nested
    EXPECT_TRUE(match("train/*/conv1", s));
    EXPECT_TRUE(match("train/*/fwd", s));
    EXPECT_TRUE(match("step/*/conv1", s)); // '*' may stand for no range at all
    EXPECT_FALSE(match("conv1/*/step", s));
}

TEST(NvtxFilter, BottomAndTopAnchors) {
    const auto s = stack({"train", "step", "conv1"});
    EXPECT_TRUE(match("[train", s));
    EXPECT_FALSE(match("[step", s));
    EXPECT_TRUE(match("conv1]", s));
    EXPECT_FALSE(match("step]", s));
    EXPECT_TRUE(match("[train/step/conv1]", s));
    EXPECT_TRUE(match("[train/*/conv1]", s));
}

TEST(NvtxFilter, DomainsAreSeparateStacks) {
    std::vector<NvtxRange> s = {{"", "train"}, {"cudnn", "conv"}, {"", "step"}};
    EXPECT_TRUE(match("cudnn@conv/", s));
    EXPECT_FALSE(match("conv/", s));     // default domain only
    EXPECT_TRUE(match("train/step", s)); // directly nested within the default domain
    EXPECT_FALSE(match("cudnn@train/", s));
}

TEST(NvtxFilter, StartEndRanges) {
    const std::vector<NvtxRange> open = {{"", "epoch 3"}, {"io", "load"}};
    EXPECT_TRUE(match("epoch 3", {}, open));
    EXPECT_TRUE(match("io@load", {}, open));
    EXPECT_FALSE(match("load", {}, open));
    EXPECT_FALSE(match("epoch 3/", {}, open)); // that is a push/pop expression
}

TEST(NvtxFilter, RegexAndEscapes) {
    EXPECT_TRUE(match("regex:step [0-9]+/", stack({"train", "step 12"})));
    EXPECT_FALSE(match("regex:step [0-9]+/", stack({"train", "step x"})));
    EXPECT_TRUE(match("regex:cu.*@conv[12]/", {{"cudnn", "conv2"}}));
    EXPECT_TRUE(match("a\\/b/", stack({"a/b"})));
    EXPECT_TRUE(match("x\\@y/", stack({"x@y"})));
    EXPECT_TRUE(match("regex:\\d+/", stack({"42"})));
}

TEST(NvtxFilter, MalformedExpressionsPointAtTheCharacter) {
    EXPECT_NE(errorOf("A//B").find("empty range name before '/' at character 3"),
              std::string::npos);
    EXPECT_NE(errorOf("A//B").find("\n    A//B\n      ^"), std::string::npos);
    EXPECT_NE(errorOf("A/[B").find("'[' (bottom of stack) may only start"), std::string::npos);
    EXPECT_NE(errorOf("A]/B").find("at character 2"), std::string::npos);
    EXPECT_NE(errorOf("@A/").find("empty domain name"), std::string::npos);
    EXPECT_NE(errorOf("D@E@A/").find("a second '@'"), std::string::npos);
    EXPECT_NE(errorOf("A\\").find("backslash"), std::string::npos);
    EXPECT_NE(errorOf("regex:(/").find("invalid regular expression"), std::string::npos);
    EXPECT_NE(errorOf("").find("empty expression"), std::string::npos);
    EXPECT_NE(errorOf("A*/").find("'*' stands for whole ranges"), std::string::npos);
    EXPECT_NE(errorOf("*").find("matches everything"), std::string::npos);
}

TEST(KernelFilter, IncludesExcludesAndNames) {
    const KernelFilter f({"step/", "eval/"}, {"warmup/"}, "");
    EXPECT_TRUE(f.nvtxAdmits(stack({"train", "step"}), {}));
    EXPECT_TRUE(f.nvtxAdmits(stack({"eval"}), {}));
    EXPECT_FALSE(f.nvtxAdmits(stack({"train"}), {}));
    EXPECT_FALSE(f.nvtxAdmits(stack({"warmup", "step"}), {}));

    const KernelFilter exact({}, {}, "saxpy");
    EXPECT_TRUE(exact.nameAdmits("void ns::saxpy<float>(int, float*)", "_Z5saxpy"));
    EXPECT_TRUE(exact.nameAdmits("saxpy(int, float, float const*, float*)", "_Z5saxpyifPKfPf"));
    EXPECT_FALSE(exact.nameAdmits("saxpy_v2(int)", "_Z8saxpy_v2i"));
    const KernelFilter re({}, {}, "regex:^gemm|conv");
    EXPECT_TRUE(re.nameAdmits("gemm_kernel(int)", "x"));
    EXPECT_TRUE(re.nameAdmits("implicit_conv(int)", "x"));
    EXPECT_FALSE(re.nameAdmits("copy(int)", "y"));
    EXPECT_THROW(KernelFilter({}, {}, "regex:("), Error);
    EXPECT_THROW(KernelFilter({"A//"}, {}, ""), Error);
}
