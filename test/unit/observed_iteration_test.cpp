// Repeated launches (docs/design/0009): signatures of an iteration's launches from their scope
// instances, with blocks repeated inside one instance labelled by phase.
#include "replay/reuse/observed_iteration.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <deque>
#include <set>

namespace roofline::collect {
namespace {

struct Iteration {
    ObservedIteration observed;
    ReusePlan plan{2, 16};
    std::vector<std::uint32_t> sigs, families;
    std::vector<std::string> labels;
    std::deque<std::string> names;
    void launch(const std::string& kernel, std::uint32_t grid, const std::string& scope,
                std::uint64_t instance, bool admitted = true, std::uint64_t parent = 0) {
        names.push_back(kernel); // the driver's name text, at an address of its own
        observed.add(names.back().c_str(), {grid, 1, 1}, {128, 1, 1}, 0, observed.scope(scope),
                     instance, parent, admitted);
    }
    void assign() { observed.assign(plan, sigs, families, labels); }
};

TEST(ObservedIteration, LayersWithTheirOwnScopesShareSignaturesByOrder) {
    Iteration it;
    for (std::uint64_t layer = 1; layer <= 3; ++layer) {
        it.launch("matmul", 4, "step #/Layer #", layer);
        it.launch("matmul", 4, "step #/Layer #", layer); // again: its own place
    }
    it.assign();
    EXPECT_EQ(it.sigs[0], it.sigs[2]);
    EXPECT_EQ(it.sigs[1], it.sigs[3]);
    EXPECT_NE(it.sigs[0], it.sigs[1]);
    EXPECT_EQ(it.labels[1], "1");
}

TEST(ObservedIteration, ABlockRepeatedInsideOneScopeSharesSignaturesByPhase) {
    Iteration it;
    it.launch("loss", 1, "step #/backward", 7);
    for (int layer = 0; layer < 4; ++layer) { // four times: a loop (twice could be chance)
        it.launch("matmulGrad", 4, "step #/backward", 7);
        it.launch("geluGrad", 8, "step #/backward", 7);
    }
    it.launch("other", 1, "step #/backward", 7, false); // not admitted: keeps its place
    it.assign();
    EXPECT_EQ(it.labels[1], "~2:0");
    EXPECT_EQ(it.sigs[1], it.sigs[7]);
    EXPECT_EQ(it.sigs[2], it.sigs[8]);
    EXPECT_NE(it.sigs[1], it.sigs[2]);
    EXPECT_EQ(it.sigs[9], ReusePlan::kNotMeasured);
    EXPECT_EQ(it.labels[9], "+0");
    // The windows: the loss and two layers, nothing of layers 3 and 4.
    const auto w = it.plan.next(it.sigs, 0, 96);
    ASSERT_TRUE(w);
    EXPECT_EQ(w->begin, 0u);
    EXPECT_EQ(w->end, 5u);
}

// Later iterations launch what the first did: the same signatures (their repeats come from a
// cache keyed by the launch sequence, not from a new search).
// A step with no scope (a PyTorch loop with no NVTX range): its forward's layers and its
// backward's each share signatures by phase, so two layers' launches sample every layer.
TEST(ObservedIteration, AStepWithNoScopeSharesItsForwardsAndItsBackwardsLayers) {
    Iteration it;
    for (int layer = 0; layer < 6; ++layer) {
        it.launch("layernorm", 4, "step #", 1);
        it.launch("gemm", 16, "step #", 1);
        it.launch("gelu", 8, "step #", 1);
    }
    it.launch("loss", 1, "step #", 1);
    for (int layer = 0; layer < 6; ++layer) {
        it.launch("geluGrad", 8, "step #", 1);
        it.launch("gemm", 16, "step #", 1); // the forward's kernel and grid: another phase
        it.launch("layernormGrad", 4, "step #", 1);
    }
    it.assign();
    EXPECT_EQ(it.sigs[0], it.sigs[15]); // layer 0's and layer 5's forward layernorm
    EXPECT_EQ(it.sigs[19], it.sigs[19 + 12]); // backward gemms of two layers
    EXPECT_NE(it.sigs[1], it.sigs[20]); // a forward gemm is not a backward one
    std::set<std::uint32_t> distinct(it.sigs.begin(), it.sigs.end());
    EXPECT_EQ(distinct.size(), 7u); // 3 forward phases, the loss, 3 backward phases
}

TEST(ObservedIteration, TheNextIterationGetsTheSameSignatures) {
    Iteration it;
    const auto backward = [&](std::uint64_t instance, int layers) {
        it.observed.clear();
        for (int layer = 0; layer < layers; ++layer) {
            it.launch("matmulGrad", 4, "step #/backward", instance);
            it.launch("geluGrad", 8, "step #/backward", instance);
        }
        it.assign();
        return it.sigs;
    };
    const auto first = backward(1, 5);
    EXPECT_EQ(backward(2, 5), first);
    EXPECT_EQ(it.labels[9], "~2:1");
    const auto fewer = backward(3, 4); // another sequence: searched anew
    EXPECT_EQ(fewer, std::vector<std::uint32_t>(first.begin(), first.begin() + 8));
}

// The name's address is a hint: the same text elsewhere is the same kernel, other text at a
// reused address another one.
TEST(ObservedIteration, KernelsAreKnownByTheirNameNotItsAddress) {
    ObservedIteration o;
    ReusePlan plan(2, 16);
    std::vector<std::uint32_t> sigs, families;
    std::vector<std::string> labels;
    const std::uint32_t scope = o.scope("step #");
    char a[16] = "gemm", b[16] = "gemm";
    o.add(a, {4, 1, 1}, {128, 1, 1}, 0, scope, 1, 0, true);
    o.add(b, {4, 1, 1}, {128, 1, 1}, 0, scope, 2, 0, true); // another address, same kernel
    std::snprintf(a, sizeof a, "gelu");                     // the address now names another
    o.add(a, {4, 1, 1}, {128, 1, 1}, 0, scope, 3, 0, true);
    o.assign(plan, sigs, families, labels);
    EXPECT_EQ(o.shape(0), o.shape(1));
    EXPECT_NE(o.shape(0), o.shape(2));
    EXPECT_EQ(sigs[0], sigs[1]);
    EXPECT_NE(sigs[0], sigs[2]);
}

TEST(ObservedIteration, ADataDependentGridKeepsItsFamilyAndTheSameLaunchItsShape) {
    Iteration it;
    it.launch("emb", 100, "step #", 1);
    it.launch("emb", 100, "step #", 1);
    it.assign();
    const std::uint32_t first = it.sigs[0], family = it.families[0];
    const std::uint64_t shape = it.observed.shape(0);
    EXPECT_EQ(it.observed.shape(1), shape);
    it.observed.clear(); // the next iteration
    it.launch("emb", 101, "step #", 2);
    it.assign();
    EXPECT_NE(it.sigs[0], first);
    EXPECT_EQ(it.families[0], family);
    EXPECT_NE(it.observed.shape(0), shape);
    // The launch at the place it has: its own signature; at another place, another one.
    EXPECT_EQ(it.observed.signatureAt(it.plan, 0, "0"), it.sigs[0]);
    EXPECT_NE(it.observed.signatureAt(it.plan, 0, "~2:1"), it.sigs[0]);
}

} // namespace
} // namespace roofline::collect

namespace roofline::collect {
namespace {

// A backward pass of one range, each GEMM in a range of its own (a `matmul` per call): the GEMMs
// sit alone in their instances, so their places there are all "0"; their instances' places in
// the backward range's repeated block tell the projection (phase 1) from the MLP's (phase 3), and
// layers apart from nothing.
TEST(ObservedIteration, ParentPlacesTellLaunchesAloneInTheirOwnScopesApart) {
    Iteration it;
    const std::uint64_t backward = 100;
    std::uint64_t call = 1;
    for (int layer = 0; layer < 4; ++layer) {
        it.launch("cast", 1, "step/backward", backward);
        it.launch("gemm", 8, "step/backward/matmul", call++, true, backward); // K = C
        it.launch("gelu", 1, "step/backward", backward);
        it.launch("gemm", 8, "step/backward/matmul", call++, true, backward); // K = 4C
    }
    it.assign();
    const std::vector<std::string> places = it.observed.parentPlaces();
    ASSERT_EQ(places.size(), 16u);
    EXPECT_EQ(it.labels[1], it.labels[3]); // alone in their instances: the same place there
    EXPECT_EQ(it.sigs[1], it.sigs[3]);     // so one signature
    EXPECT_NE(places[1], places[3]);       // their instances' places differ
    EXPECT_EQ(places[1], places[5]);       // and repeat layer by layer
    EXPECT_EQ(places[3], places[7]);
    EXPECT_EQ(places[0], ""); // a launch of the backward range itself: no parent place
    it.plan.split(it.sigs[1]);
    EXPECT_EQ(it.plan.resolve(it.sigs[1], 1, places[1]), it.plan.resolve(it.sigs[5], 5, places[5]));
    EXPECT_NE(it.plan.resolve(it.sigs[1], 1, places[1]), it.plan.resolve(it.sigs[3], 3, places[3]));
    const std::uint32_t refined = it.plan.resolve(it.sigs[1], 1, places[1]);
    it.plan.split(refined); // still different work: by position
    EXPECT_NE(it.plan.resolve(it.sigs[1], 1, places[1]), it.plan.resolve(it.sigs[5], 5, places[5]));
    EXPECT_TRUE(it.plan.isPositional(it.plan.resolve(it.sigs[1], 1, places[1])));
}

} // namespace
} // namespace roofline::collect
