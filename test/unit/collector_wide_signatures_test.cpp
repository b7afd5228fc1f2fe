// Ranges follow signatures (docs/design/0028), on the fake backend through the collector: a kernel
// at one launch configuration is measured once in each place it runs (its classes: scope path and
// place) and twice in all, and every launch takes the mean while those samples agree; where they
// do not, each class is measured on its own and keeps its own work.
#include "unit/collector_harness.hpp"
#include "unit/collector_steps.hpp"

#include <gtest/gtest.h>

#include <string>

using namespace roofline;
using namespace roofline::collect;
using namespace roofline::collect::testing;

namespace {

// Six layers of cast (3), gemm (5), relu (1), cast (3) -- the two casts one launch configuration
// at two places -- then an optimizer's cast of `optimizerCast` work: 25 launches.
void castingStep(Harness& h, int n, double optimizerCast) {
    h.push(("Train step " + std::to_string(n)).c_str());
    for (int layer = 0; layer < 6; ++layer) {
        h.push(("Layer " + std::to_string(layer)).c_str());
        h.launch("cast", 3);
        h.launch("gemm", 5);
        h.launch("relu", 1);
        h.launch("cast", 3);
        h.pop();
    }
    h.push("optimizer");
    h.launch("cast", optimizerCast);
    h.pop();
    h.pop();
}

std::size_t measuredOnTheirOwn(const std::vector<core::LaunchInfo>& l) {
    std::size_t n = 0;
    for (const auto& r : l)
        n += r.reusedSamples == 0 ? 1 : 0;
    return n;
}

} // namespace

TEST(CollectorWideSignatures, AKernelInManyPlacesDoingTheSameWorkIsMeasuredOnceInEach) {
    CollectorConfig c = reuseConfig(2, 2);
    c.metricNames = {"sm__sass_thread_inst_executed_op_ffma_pred_on.sum", "lts__t_bytes.sum"};
    c.options.idleWhenComplete = true;
    Harness h(CollectionMode::IterationReplay, 2, 96, c);
    int n = 0;
    while (!h.collector.takeCompletion() && n < 30)
        castingStep(h, n++, 3);
    EXPECT_LT(n, 30) << "never complete";
    auto& l = h.finish();
    ASSERT_EQ(l.size(), 25u);
    for (const auto& r : l) {
        SCOPED_TRACE(r.mangledName + " at " + std::to_string(r.position) + ": " + r.note);
        ASSERT_FALSE(r.values.empty());
        EXPECT_EQ(r.values, all(r.mangledName == "cast" ? 3.0 : r.mangledName == "gemm" ? 5 : 1));
    }
    // One window over the first layer and the second's cast, gemm and relu (a cast of each class,
    // gemm and relu twice; the cast between them rides along), and the optimizer's cast (its
    // class's one sample): 8. Each class of cast measured twice would take the second layer's
    // last cast too: 9.
    EXPECT_EQ(measuredOnTheirOwn(l), 8u);
    const auto& lastCast = l[l.size() - 2];
    EXPECT_EQ(lastCast.reusedSamples, 4u) << lastCast.note; // the mean of all of cast's samples
    EXPECT_EQ(h.collector.reusedDiffering(), 0u);
}

TEST(CollectorWideSignatures, AKernelThatWorksDifferentlyInOnePlaceKeepsItsWorkThere) {
    CollectorConfig c = reuseConfig(2, 2);
    c.metricNames = {"sm__sass_thread_inst_executed_op_ffma_pred_on.sum", "lts__t_bytes.sum"};
    c.options.idleWhenComplete = true;
    Harness h(CollectionMode::IterationReplay, 2, 96, c);
    int n = 0;
    while (!h.collector.takeCompletion() && n < 30)
        castingStep(h, n++, 9); // the optimizer's cast converts three times as much
    EXPECT_LT(n, 30) << "never complete";
    auto& l = h.finish();
    ASSERT_EQ(l.size(), 25u);
    for (const auto& r : l) {
        SCOPED_TRACE(r.mangledName + " at " + std::to_string(r.position) + ": " + r.note);
        ASSERT_FALSE(r.values.empty());
        const double work = r.mangledName == "gemm" ? 5 : r.mangledName == "relu" ? 1
                            : r.position == 24       ? 9
                                                     : 3;
        EXPECT_EQ(r.values, all(work));
    }
    EXPECT_EQ(l[24].reusedSamples, 0u); // measured where it runs
    EXPECT_EQ(h.collector.reusedDiffering(), 0u);
}
