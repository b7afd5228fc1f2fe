// Sessions that go idle once their profile is complete (Options::idleWhenComplete, the default):
// launches after that get no records, CUPTI is detached, and the next session in the same process
// attaches it again and measures as the first did. Label: gpu.
#include "calibration/expected.hpp"
#include "calibration/kernels.cuh"
#include "gpu/gpu_test_support.hpp"

#include <roofline/roofline.hpp>

#include <cstddef>

using roofline::FlopKind;
namespace cal = calibration;

namespace {

constexpr std::size_t kSteps = 40; // well past what a 2-kernel step needs to complete

// One session over kSteps steps of an FFMA and a DFMA kernel, each step a ProfileScope.
void expectIdleSession(const cal::Buffers& buffers, int round) {
    SCOPED_TRACE("session " + std::to_string(round));
    roofline::Session session;
    ASSERT_TRUE(session.countersAvailable()) << session.status();
    for (std::size_t step = 0; step < kSteps; ++step) {
        roofline::ProfileScope scope{"step"};
        ASSERT_EQ(cal::launchFfma(buffers), cudaSuccess);
        ASSERT_EQ(cal::launchDfma(buffers), cudaSuccess);
    }
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    const auto& records = session.stop();
    // Idle before the loop's end: the launches after it were not followed.
    ASSERT_GE(records.size(), 2u);
    EXPECT_LT(records.size(), 2 * kSteps);
    EXPECT_EQ(records.size() % 2, 0u);
    for (std::size_t i = 0; i < records.size(); ++i) {
        const auto& r = records[i];
        ASSERT_TRUE(r.measured) << "record " << i << ": " << r.note;
        if (i % 2 == 0)
            EXPECT_DOUBLE_EQ(r.flopsOf(FlopKind::FP32), cal::kFfmaFlops) << "record " << i;
        else
            EXPECT_DOUBLE_EQ(r.flopsOf(FlopKind::FP64), cal::kDfmaFlops) << "record " << i;
    }
}

} // namespace

TEST(GpuIdle, EachSessionAfterADetachedOneMeasuresAgain) {
    ROOFLINE_REQUIRE_GPU();
    cal::Buffers buffers;
    for (int round = 0; round < 3; ++round)
        expectIdleSession(buffers, round);
    // The program's kernels still compute once no session is left.
    ASSERT_EQ(cal::launchFfma(buffers), cudaSuccess);
    EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
}
