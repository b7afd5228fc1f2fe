// What a profile costs, predicted from its counts and the machine's parts (docs/methodology.md).
#include "core/cost_model.hpp"

#include <roofline/error.hpp>

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace roofline::core {
namespace {

CostParts h200() { // roofline-bench-pass-cost --parts on the H200 (full set)
    CostParts p;
    p.setupMs = 95;
    p.firstObjectMs = 60;
    p.objectMs = 200;
    p.objectRangeMs = 0.5;
    p.passMs = 14;
    p.rangeMs = 0.95;
    p.chip = "GH100";
    p.metrics = "full";
    return p;
}

TEST(CostModel, EachPartTimesItsCount) {
    CostCounts c;
    c.objects = 2;
    c.objectRanges = 61; // images of 32 and 29 ranges
    c.passes = 9;
    c.rangePasses = 138; // 46 ranges x 3 passes
    const CostPrediction p = predictCost(h200(), c);
    EXPECT_DOUBLE_EQ(p.setupMs, 95);
    EXPECT_DOUBLE_EQ(p.objectsMs, 60 + 2 * 200 + 61 * 0.5);
    EXPECT_DOUBLE_EQ(p.passesMs, 9 * 14);
    EXPECT_DOUBLE_EQ(p.rangesMs, 138 * 0.95);
    EXPECT_DOUBLE_EQ(p.total(), 95 + 490.5 + 126 + 131.1);
    EXPECT_DOUBLE_EQ(predictCost(h200(), CostCounts{}).total(), 95) << "no object: set-up only";
}

TEST(CostModel, PartsRoundTripEveryField) {
    const CostParts back = costPartsFromJson(toJson(h200()), "parts.json");
    EXPECT_DOUBLE_EQ(back.setupMs, 95);
    EXPECT_DOUBLE_EQ(back.firstObjectMs, 60);
    EXPECT_DOUBLE_EQ(back.objectMs, 200);
    EXPECT_DOUBLE_EQ(back.objectRangeMs, 0.5);
    EXPECT_DOUBLE_EQ(back.passMs, 14);
    EXPECT_DOUBLE_EQ(back.rangeMs, 0.95);
    EXPECT_EQ(back.chip, "GH100");
    EXPECT_EQ(back.metrics, "full");
}

TEST(CostModel, AFileThatIsNotPartsSaysHowToMakeIt) {
    for (const std::string& text : std::vector<std::string>{
             "", "{", "[]", "{\"format\": \"libroofline-ceilings\"}",
          "{\"format\": \"libroofline-cost-parts\", \"setup_ms\": 1}",
          "{\"format\": \"libroofline-cost-parts\", \"setup_ms\": -1, \"first_object_ms\": 1, "
          "\"object_ms\": 1, \"object_range_ms\": 1, \"pass_ms\": 1, \"range_ms\": 1}",
          "{\"format\": \"libroofline-cost-parts\", \"setup_ms\": \"1\", \"first_object_ms\": 1, "
          "\"object_ms\": 1, \"object_range_ms\": 1, \"pass_ms\": 1, \"range_ms\": 1}",
          "{\"format\": \"libroofline-cost-parts\", \"setup_ms\": 1, \"first_object_ms\": 1, "
          "\"object_ms\": 1, \"pass_ms\": 1, \"range_ms\": 1}",
          std::string(100, '[') + std::string(100, ']'), std::string((1 << 20) + 1, ' ')}) {
        try {
            costPartsFromJson(text, "p.json");
            ADD_FAILURE() << "accepted: " << text.substr(0, 80);
        } catch (const Error& e) {
            EXPECT_NE(std::string(e.what()).find("roofline-bench-pass-cost --parts p.json"),
                      std::string::npos)
                << e.what();
        }
    }
}

TEST(CostModel, CountsComeFromTheLastCostLine) {
    const std::string log =
        "[roofline info] libroofline: cost: set-up 1 ms (...); 3 passes: Start 9 ms (5 ms in the "
        "first Start of 1 profiler object(s), ...), Stop 1 ms; 4 ranges evaluated (12 "
        "range-passes: each range times its image's passes); 0 profiler re-creations 0 ms\n"
        "[roofline info] libroofline: cost: set-up 112 ms (injection in cuInit 3, devices 2); 9 "
        "passes: Start 968 ms (916 ms in the first Start of 2 profiler object(s) (61 image "
        "ranges), CUPTI's set-up of each; ...), inside passes 271 ms (...), Stop 46 ms; 46 ranges evaluated (138 "
        "range-passes: each range times its image's passes); 2 profiler re-creations 52 ms\n"
        "[roofline] process 2661: 216 records\n";
    CostCounts c;
    ASSERT_TRUE(countsFromCostLine(log, c));
    EXPECT_EQ(c.passes, 9u);
    EXPECT_EQ(c.objects, 2u);
    EXPECT_EQ(c.objectRanges, 61u);
    EXPECT_EQ(c.rangePasses, 138u);
    EXPECT_FALSE(countsFromCostLine("[roofline] process 1: 0 records\n", c));
}

} // namespace
} // namespace roofline::core
