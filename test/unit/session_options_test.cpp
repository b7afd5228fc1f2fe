// What a Session refuses before it touches CUDA (so these run on the CPU-only CI machine): options
// that cannot work are errors that name the option and the fix, raised by the constructor.
#include <roofline/roofline.hpp>

#include <gtest/gtest.h>

#include <string>

using namespace roofline;

namespace {

std::string constructionError(const Options& options) {
    try {
        Session session{options};
    } catch (const Error& e) {
        EXPECT_EQ(e.code(), ErrorCode::InvalidArgument);
        return e.what();
    } catch (const std::exception& e) {
        return std::string("other error: ") + e.what();
    }
    return "no error";
}

} // namespace

TEST(SessionOptions, ABadOutputPatternIsRefusedBeforeTheRun) {
    Options options;
    options.outputPath = "run-%q{ROOFLINE_TEST_SURELY_UNSET_VARIABLE}.rfl";
    const std::string unset = constructionError(options);
    EXPECT_NE(unset.find("ROOFLINE_TEST_SURELY_UNSET_VARIABLE is not set"), std::string::npos)
        << unset;
    options.outputPath = "run-%z.rfl";
    EXPECT_NE(constructionError(options).find("unknown sequence %z"), std::string::npos);
}

TEST(SessionOptions, ZeroRangesPerImageIsRefused) {
    Options options;
    options.rangesPerImage = 0;
    EXPECT_NE(constructionError(options).find("rangesPerImage must be at least 1"),
              std::string::npos);
}
