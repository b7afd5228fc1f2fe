// collect::WindowPlacement: a replay window inside the iteration takes its passes only where the
// same launches ran before it.
#include "replay/window_placement.hpp"

#include <gtest/gtest.h>

#include <initializer_list>

using roofline::collect::Stack;
using roofline::collect::WindowPlacement;
using V = WindowPlacement::Verdict;

namespace {

// One iteration's launches up to the window at `offset` (their kernel names), then the verdict
// for pass `pass` there.
V iteration(WindowPlacement& w, std::initializer_list<const char*> kernels, std::size_t offset,
            std::size_t pass, bool positionsDecide = false) {
    w.iterationBegins();
    const Stack stack;
    for (const char* name : kernels) {
        roofline::core::Launch l;
        l.mangledName = name;
        w.launch(l, stack, stack.size());
    }
    return w.place(offset, pass, positionsDecide);
}

const std::initializer_list<const char*> kStep = {"embed", "layer", "layer", "loss"};
const std::initializer_list<const char*> kValidating = {"embed", "layer", "validate", "layer"};

} // namespace

TEST(WindowPlacement, PassZeroWaitsForAnIterationLikeTheOneBefore) {
    WindowPlacement w;
    w.groupBegins();
    EXPECT_EQ(iteration(w, kStep, 3, 0), V::Wait); // no iteration before it
    EXPECT_EQ(iteration(w, kStep, 3, 0), V::Start);
    EXPECT_EQ(iteration(w, kStep, 3, 1), V::Start);
    EXPECT_EQ(iteration(w, kStep, 3, 2), V::Start);
}

TEST(WindowPlacement, ALaterPassSkipsIterationsThatRanOtherLaunchesBeforeTheWindow) {
    WindowPlacement w;
    w.groupBegins();
    iteration(w, kStep, 3, 0);
    ASSERT_EQ(iteration(w, kStep, 3, 0), V::Start);
    EXPECT_EQ(iteration(w, kValidating, 3, 1), V::Wait);
    EXPECT_EQ(iteration(w, kStep, 3, 1), V::Start);
}

TEST(WindowPlacement, PassZeroOnAnOddIterationRestartsTheGroupAtMostTwice) {
    WindowPlacement w;
    w.groupBegins();
    // Pass 0 on a validating iteration after another: its prefix is the odd one.
    iteration(w, kValidating, 3, 0);
    ASSERT_EQ(iteration(w, kValidating, 3, 0), V::Start);
    for (std::size_t restart = 1; restart <= WindowPlacement::kRestarts; ++restart) {
        for (std::size_t i = 0; i < WindowPlacement::kWaits; ++i)
            EXPECT_EQ(iteration(w, kStep, 3, 1), V::Wait);
        EXPECT_EQ(iteration(w, kStep, 3, 1), V::Restart);
        EXPECT_EQ(w.waited(), WindowPlacement::kWaits);
        w.groupBegins();
        if (restart < WindowPlacement::kRestarts) {
            EXPECT_EQ(iteration(w, kValidating, 3, 0), V::Wait);  // not like the one before
            ASSERT_EQ(iteration(w, kValidating, 3, 0), V::Start); // odd again
        }
    }
    // After that positions decide.
    EXPECT_EQ(iteration(w, kValidating, 3, 0), V::Start);
    EXPECT_EQ(iteration(w, kStep, 3, 1), V::Start);
    // A completed window lets the next one restart again.
    w.windowDone();
    w.groupBegins();
    iteration(w, kStep, 2, 0);
    ASSERT_EQ(iteration(w, kStep, 2, 0), V::Start);
    EXPECT_EQ(iteration(w, kValidating, 2, 1), V::Start); // same prefix: embed, layer
    EXPECT_EQ(iteration(w, {"embed", "other"}, 2, 2), V::Wait);
}

TEST(WindowPlacement, ScopesBelowTheIterationArePartOfThePrefix) {
    WindowPlacement w;
    w.groupBegins();
    auto run = [&](const char* scope, std::size_t pass) {
        w.iterationBegins();
        Stack stack(2);
        stack[0].name = "Train step 4";
        stack[1].name = scope;
        roofline::core::Launch l;
        l.mangledName = "layer";
        w.launch(l, stack, 0);
        l.mangledName = "loss"; // the window's first launch
        w.launch(l, Stack(1, stack[0]), 0);
        return w.place(1, pass, false);
    };
    run("forward", 0);
    ASSERT_EQ(run("forward", 0), V::Start);
    EXPECT_EQ(run("validation", 1), V::Wait);
    EXPECT_EQ(run("forward", 1), V::Start);
}

TEST(WindowPlacement, LoopsDrivenByNeedsPassStartWhereTheyAre) {
    WindowPlacement w;
    w.groupBegins();
    EXPECT_EQ(iteration(w, kStep, 3, 0, true), V::Start);
    EXPECT_EQ(iteration(w, kValidating, 3, 1, true), V::Start);
}
