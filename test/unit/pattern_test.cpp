// Regular expressions of the name filters: linear-time matching with ECMAScript habits accepted.
#include "core/pattern.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

using roofline::core::Pattern;
using roofline::core::toPosixExtended;

TEST(Pattern, SearchesAndMatchesWhole) {
    const Pattern p("gemm|conv");
    EXPECT_TRUE(p.search("sm90_xmma_gemm_f16"));
    EXPECT_FALSE(p.search("elementwise_kernel"));
    EXPECT_FALSE(p.matchAll("sm90_xmma_gemm_f16"));
    EXPECT_TRUE(p.matchAll("conv"));
    EXPECT_TRUE(Pattern("Train step [0-9]+").matchAll("Train step 12"));
    EXPECT_FALSE(Pattern("Train step [0-9]+").matchAll("Train step 12 extra"));
}

TEST(Pattern, AcceptsEcmaScriptDigitsGroupsAndLazyQuantifiers) {
    EXPECT_EQ(toPosixExtended("step \\d+"), "step [0-9]+");
    EXPECT_EQ(toPosixExtended("[\\d_]x\\D"), "[0-9_]x[^0-9]");
    EXPECT_EQ(toPosixExtended("(?:a|b).*?c"), "(a|b).*c");
    EXPECT_EQ(toPosixExtended("a\\*?"), "a\\*?"); // an escaped star is a literal, '?' stays
    EXPECT_TRUE(Pattern("layer\\d{2}").search("encoder.layer12.mlp"));
    EXPECT_TRUE(Pattern("\\w+_kernel\\s").search("vectorized_kernel <"));
}

TEST(Pattern, LeadingLookaheadsExcludeAndRequire) {
    const Pattern noAllReduce("^(?!.*my_all_reduce)");
    EXPECT_TRUE(noAllReduce.search("gemm_kernel"));
    EXPECT_FALSE(noAllReduce.search("void my_all_reduce<float>(float*)"));
    const Pattern gemmNotSplit("^(?=.*gemm)(?!.*splitK).*tile");
    EXPECT_TRUE(gemmNotSplit.search("gemm_tile128"));
    EXPECT_FALSE(gemmNotSplit.search("gemm_splitK_tile128"));
    EXPECT_FALSE(gemmNotSplit.search("conv_tile128"));
    EXPECT_TRUE(Pattern("^(?!x)").matchAll(""));
}

TEST(Pattern, RefusesWhatItCannotMatchWithAReason) {
    try {
        Pattern("gemm(?!_splitK)");
        FAIL() << "a lookahead in the middle was accepted";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("only at the start"), std::string::npos) << e.what();
    }
    EXPECT_THROW(Pattern("(unclosed"), std::invalid_argument);
    EXPECT_THROW(Pattern("^(?!unclosed"), std::invalid_argument);
}

TEST(Pattern, LongNamesMatchWithoutRecursion) {
    // std::regex recursed once per character and overflowed the stack near 50 KB; these take
    // linear time and constant stack.
    std::string name(4u << 20, 'a');
    name += "_gemm_tile128x64";
    EXPECT_TRUE(Pattern(".*gemm.*(128|256)x64").search(name));
    EXPECT_FALSE(Pattern("(a|b)*c").search(name));
    EXPECT_TRUE(Pattern("^(?!.*all_reduce)").matchAll(name) == false); // not all of it
    EXPECT_TRUE(Pattern("^(?!.*all_reduce).*").matchAll(name));
}
