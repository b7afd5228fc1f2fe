// Iterations as data: an iteration scope whose name carries its instance ("Train step 35") gives
// every iteration's launches one uniform scope path ("Train step #/..."), the raw path and the
// instance on each record; replay groups form across numbered iterations.
#include "core/scope_names.hpp"
#include "unit/collector_harness.hpp"

#include <gtest/gtest.h>

#include <string>

using namespace roofline;
using namespace roofline::collect;
using namespace roofline::collect::testing;

TEST(ScopeNames, TheTrailingNumberIsTheInstance) {
    EXPECT_EQ(core::uniformInstance("Train step 35"), "Train step #");
    EXPECT_EQ(core::uniformInstance("step"), "step");
    EXPECT_EQ(core::uniformInstance("iter_7"), "iter_#");
    EXPECT_EQ(core::instanceNumber("Train step 35"), 35);
    EXPECT_EQ(core::instanceNumber("step"), -1);
    EXPECT_EQ(core::instanceNumber("x99999999999999999999"), -1); // does not fit
    EXPECT_TRUE(core::isInstanceOf("Train step 35", "Train step"));
    EXPECT_TRUE(core::isInstanceOf("Train step 35", "Train step #"));
    EXPECT_TRUE(core::isInstanceOf("step", "step"));
    EXPECT_TRUE(core::isInstanceOf("step_3", "step"));
    EXPECT_FALSE(core::isInstanceOf("Train steps 3", "Train step"));
    EXPECT_FALSE(core::isInstanceOf("Validation 3", "Train step"));
    EXPECT_FALSE(core::isInstanceOf("steps", "step"));
    EXPECT_TRUE(core::separatedInstance("Train step 35"));
    EXPECT_TRUE(core::separatedInstance("iter_7"));
    EXPECT_TRUE(core::separatedInstance("epoch=2"));
    EXPECT_FALSE(core::separatedInstance("eng7"));
    EXPECT_FALSE(core::separatedInstance("c3.seer17"));
    EXPECT_FALSE(core::separatedInstance("7"));
    EXPECT_FALSE(core::separatedInstance("step"));
}

namespace {
void trainStep(Harness& h, int n) {
    h.push(("Train step " + std::to_string(n)).c_str());
    for (int layer = 0; layer < 2; ++layer) {
        h.push(("Layer " + std::to_string(layer)).c_str());
        h.launch("gemm", layer + 1.0);
        h.pop();
    }
    h.pop();
}
// Steps numbered from `first`, the first one always, then while the collector needs passes
// (until step 49 at most); the number the next step would have.
int trainWhileNeeded(Harness& h, int first) {
    int n = first;
    trainStep(h, n++);
    while (h.collector.needsPass() && n < 50)
        trainStep(h, n++);
    return n;
}
} // namespace

TEST(IterationScope, NumberedStepsShareOneScopePathAndKeepTheirInstance) {
    CollectorConfig c;
    c.options.iterationRange = "Train step";
    Harness h(CollectionMode::IterationReplay, 3, 8, c);
    EXPECT_EQ(trainWhileNeeded(h, 35), 38); // three passes, one numbered step each
    auto& l = h.finish();
    ASSERT_EQ(l.size(), 2u);
    EXPECT_EQ(l[0].scopePath, "Train step #/Layer 0");
    EXPECT_EQ(l[1].scopePath, "Train step #/Layer 1"); // layers stay distinct
    EXPECT_EQ(l[0].scopePathRaw, "Train step 35/Layer 0");
    EXPECT_EQ(l[0].iteration, 35);
    EXPECT_EQ(l[1].values, all(2)) << l[1].note;
    EXPECT_EQ(h.collector.mismatchedGroups(), 0u);
}

TEST(IterationScope, UnnumberedIterationsAreCounted) {
    Harness h(CollectionMode::KernelReplay, 1, 8);
    for (int i = 0; i < 3; ++i) {
        h.push("step");
        h.launch("k", 1);
        h.pop();
    }
    auto& l = h.finish();
    ASSERT_EQ(l.size(), 3u);
    for (int i = 0; i < 3; ++i) {
        EXPECT_EQ(l[i].iteration, i);
        EXPECT_EQ(l[i].scopePath, "step");
        EXPECT_EQ(l[i].scopePathRaw, ""); // same as scopePath: not stored twice
    }
}

TEST(IterationScope, ScopeReplayMatchesNumberedStepsAcrossPasses) {
    Harness h(CollectionMode::ScopeReplay, 3, 8);
    trainStep(h, 7);
    trainStep(h, 8);
    trainStep(h, 9);
    auto& l = h.finish();
    ASSERT_EQ(l.size(), 1u);
    EXPECT_EQ(l[0].scopePath, "Train step #");
    EXPECT_EQ(l[0].name, "Train step #");
    EXPECT_EQ(l[0].iteration, 7);
    EXPECT_EQ(l[0].values, all(3)) << l[0].note;
    EXPECT_EQ(h.collector.mismatchedGroups(), 0u);
}

TEST(IterationScope, OneOffNumberedScopesKeepTheirNamesUnlessConfigured) {
    // Benchmark cases ("c3.seer17") and one-off outermost scopes are not iteration instances:
    // without ROOFLINE_ITERATION_RANGE, a trailing number counts as one only when at least
    // three differently numbered scopes share the rest of the name.
    for (const bool configured : {false, true}) {
        CollectorConfig c;
        if (configured)
            c.options.iterationRange = "conv";
        Harness h(CollectionMode::KernelReplay, 1, 8, c);
        for (const char* name : {"conv1", "conv2", "c3.seer17"}) {
            h.push(name);
            h.launch("k", 1);
            h.pop();
        }
        auto& l = h.finish();
        ASSERT_EQ(l.size(), 3u);
        EXPECT_EQ(l[0].scopePath, configured ? "conv#" : "conv1");
        EXPECT_EQ(l[0].scopePathRaw, configured ? "conv1" : "");
        EXPECT_EQ(l[1].iteration, 2);           // the number in its name either way
        EXPECT_EQ(l[2].scopePath, "c3.seer17"); // not an instance of 'conv'
    }
}

TEST(IterationScope, NumberedIdentifiersAreNotIterations) {
    // The benchmarks name one case per cuDNN engine ("c0.conv0.eng0", "...eng1", ...): many
    // numbered scopes sharing a name, but identifiers, not iterations (their records are matched
    // to their cases by path). Found on the GPU: they were merged into "c0.conv0.eng#".
    Harness h(CollectionMode::KernelReplay, 1, 8);
    for (int e = 0; e < 4; ++e) {
        h.push(("c0.conv0.eng" + std::to_string(e)).c_str());
        h.launch("k", 1);
        h.pop();
    }
    for (int n = 0; n < 3; ++n) {
        h.push(("step " + std::to_string(n)).c_str());
        h.launch("k", 1);
        h.pop();
    }
    auto& l = h.finish();
    ASSERT_EQ(l.size(), 7u);
    EXPECT_EQ(l[3].scopePath, "c0.conv0.eng3");
    EXPECT_EQ(l[3].scopePathRaw, "");
    EXPECT_EQ(l[6].scopePath, "step #");
    EXPECT_EQ(l[6].scopePathRaw, "step 2");
}

// A library's range left open around the loop (NCCL's "ncclCommInitRankConfig", whose pop
// libroofline never sees) is neither the iteration nor part of the steps' scope paths: the steps
// inside it are the iterations.
TEST(IterationScope, ALibrarysRangeAroundTheLoopIsNotTheIteration) {
    Harness h(CollectionMode::IterationReplay, 3, 8);
    h.push("ncclCommInitRankConfig", "NCCL");
    h.launch("broadcast", 1);
    EXPECT_EQ(trainWhileNeeded(h, 0), 3); // three passes, one numbered step each
    auto& l = h.finish();
    ASSERT_EQ(l.size(), 2u) << "the launch outside every step has no record";
    EXPECT_EQ(l.front().scopePath, "Train step #/Layer 0");
    EXPECT_EQ(l.front().iteration, 0);
    EXPECT_EQ(l.back().scopePath, "Train step #/Layer 1");
    EXPECT_EQ(l.back().values, all(2)) << l.back().note;
    EXPECT_TRUE(libraryDomain("NCCL"));
    EXPECT_TRUE(libraryDomain("TSL")); // XLA's per-operation annotations
    EXPECT_FALSE(libraryDomain(""));
    EXPECT_FALSE(libraryDomain("MyTrainer"));
}
