// Launches outside every step that got no record, by shape (collect/outside_shapes): how many ran
// a step's kernel at a launch shape a step's measured record has.
#include "collect/outside_shapes.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

using namespace roofline;
using roofline::collect::OutsideShapes;

namespace {

core::Launch launchOf(const char* name, std::uint32_t gridX, std::uint32_t shared = 0) {
    core::Launch l;
    l.mangledName = name;
    l.grid = {gridX, 1, 1};
    l.block = {128, 1, 1};
    l.dynamicSharedBytes = shared;
    return l;
}

core::LaunchInfo recordOf(const std::string& name, std::uint32_t gridX, std::int64_t iteration,
                          std::uint64_t shared = 0, bool measured = true) {
    core::LaunchInfo r;
    if (measured)
        r.values = {1.0};
    r.mangledName = name;
    r.grid = {gridX, 1, 1};
    r.block = {128, 1, 1};
    r.sharedMemBytes = shared;
    r.iteration = iteration;
    return r;
}

} // namespace

TEST(OutsideShapes, CountsTheLaunchesAStepsRecordHasTheShapeOf) {
    OutsideShapes shapes;
    shapes.add(launchOf("gemm", 8));
    shapes.add(launchOf("gemm", 8));
    shapes.add(launchOf("gemm", 16));       // another grid
    shapes.add(launchOf("gemm", 8, 4096));  // another shared memory size
    shapes.add(launchOf("init_weights", 8)); // set-up only
    EXPECT_EQ(shapes.launches(), 5u);
    const std::vector<core::LaunchInfo> records = {
        recordOf("gemm", 8, 0), recordOf("gemm", 16, -1), // a set-up window's record: no step
        recordOf("relu", 8, 1), recordOf("gemm", 8, 1, 4096),
        recordOf("init_weights", 8, 2, 0, false)}; // a step's record without counters
    EXPECT_EQ(shapes.alikeStep(records), 3u);
    EXPECT_EQ(shapes.alikeStep({}), 0u);
    EXPECT_EQ(OutsideShapes().alikeStep(records), 0u);
}

// Bounded: shapes past the limit are counted as launches, never as alike.
TEST(OutsideShapes, KeepsAtMostItsLimitOfShapes) {
    OutsideShapes shapes;
    for (std::uint32_t g = 1; g <= OutsideShapes::kMaxShapes + 10; ++g)
        shapes.add(launchOf("k", g));
    EXPECT_EQ(shapes.launches(), OutsideShapes::kMaxShapes + 10);
    const std::vector<core::LaunchInfo> past = {
        recordOf("k", static_cast<std::uint32_t>(OutsideShapes::kMaxShapes + 5), 0),
        recordOf("k", 1, 0)};
    EXPECT_EQ(shapes.alikeStep(past), 1u);
}
