// The step found in the launch stream (scopes/launch_cycle): streams built by hand, as programs
// with no NVTX range launch them -- identical layers inside a step, a different first step, a
// validation pass every few steps, a stream that never repeats -- and where each step begins.
#include "scopes/launch_cycle.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <vector>

using roofline::collect::LaunchCycle;
using Event = LaunchCycle::Event;
using Stream = std::vector<std::uint64_t>;

namespace {

void append(Stream& s, const Stream& part, int times = 1) {
    for (int i = 0; i < times; ++i)
        s.insert(s.end(), part.begin(), part.end());
}

// A step of a model of `layers` identical layers: an embedding, per layer 4 forward launches,
// a head and a loss, per layer 3 backward launches, the optimizer.
Stream step(int layers) {
    Stream s{1};
    append(s, Stream{10, 11, 12, 13}, layers);
    append(s, Stream{2, 3});
    append(s, Stream{20, 21, 22}, layers);
    append(s, Stream{4, 5});
    return s;
}

struct Fed {
    std::vector<std::size_t> begins; ///< launch indices where a step began
    std::vector<std::size_t> ends;   ///< launch indices before which a step ended (a break)
};

Fed feed(LaunchCycle& c, const Stream& s) {
    Fed f;
    for (std::size_t i = 0; i < s.size(); ++i) {
        const Event e = c.launch(s[i]);
        if (e == Event::Begins)
            f.begins.push_back(i);
        else if (e == Event::Ends)
            f.ends.push_back(i);
    }
    return f;
}

} // namespace

// Twelve identical layers repeat inside each step: their cycle breaks at the head before it is
// confirmed, and the step's is adopted after two steps, confirmed once the stream held it for
// kConfirmLaunches launches; steps then begin exactly at every step's first launch.
TEST(LaunchCycle, IdenticalLayersInsideAStepAreNotTheStep) {
    const Stream one = step(12); // 89 launches
    const std::size_t confirmed = (LaunchCycle::kConfirmLaunches + one.size() - 1) / one.size();
    Stream s;
    append(s, one, static_cast<int>(confirmed) + 5);
    LaunchCycle c;
    const Fed f = feed(c, s);
    ASSERT_FALSE(f.begins.empty());
    EXPECT_TRUE(f.ends.empty()) << "no step ever broke";
    EXPECT_EQ(c.length(), one.size());
    EXPECT_EQ(f.begins.front(), confirmed * one.size()) << "the first step given";
    for (std::size_t k = 0; k < f.begins.size(); ++k)
        EXPECT_EQ(f.begins[k], (confirmed + k) * one.size());
    EXPECT_EQ(c.steps(), 5u);
    EXPECT_TRUE(c.inStep());
    EXPECT_EQ(c.launchesInSteps(), 5 * one.size());
}

// A first step that also validates (more launches at its start) and a set-up before it: the
// cycle begins where the steady steps do.
TEST(LaunchCycle, AFirstStepThatDiffersIsLeftOut) {
    const Stream one = step(2);
    Stream s{90, 91, 92, 93};             // set-up
    append(s, Stream{1, 10, 11, 12, 13}); // validation inside step 0
    append(s, one, 240);
    LaunchCycle c;
    const Fed f = feed(c, s);
    ASSERT_GE(f.begins.size(), 2u);
    EXPECT_EQ((f.begins[0] - 9) % one.size(), 0u) << "a step begins at a step's first launch";
    EXPECT_EQ(f.begins[1] - f.begins[0], one.size());
}

// Validation every 4 steps (after a first stretch long enough to confirm the step) breaks the
// step; the known cycle resumes after one whole step matched
// it, at the next step's first launch. A validation pass that begins as a step does (the same
// forward launches) opens a step that ends where it diverges: the collector sees an iteration of
// another shape, as it does when a program's step range also validates.
TEST(LaunchCycle, AKnownStepResumesAfterAValidationPass) {
    const Stream one = step(3);
    const Stream validation{1, 10, 11, 12, 13, 10, 11, 12, 13, 10, 11, 12, 13, 2, 7};
    Stream s;
    std::vector<std::size_t> stepStarts, validationStarts;
    for (int n = 0; n < 200; ++n) {
        if (n > 170 && n % 4 == 0) {
            validationStarts.push_back(s.size());
            append(s, validation);
        }
        stepStarts.push_back(s.size());
        append(s, one);
    }
    const auto in = [](const std::vector<std::size_t>& v, std::size_t x) {
        return std::find(v.begin(), v.end(), x) != v.end();
    };
    LaunchCycle c;
    const Fed f = feed(c, s);
    EXPECT_FALSE(f.ends.empty()) << "the validation breaks the step";
    std::size_t steps = 0;
    for (std::size_t b : f.begins) {
        EXPECT_TRUE(in(stepStarts, b) || in(validationStarts, b))
            << "a step began at launch " << b << ", not a step's or a validation's first";
        steps += in(stepStarts, b) ? 1 : 0;
    }
    EXPECT_GE(steps, 30u) << "the steps between validations are given";
    for (std::size_t e : f.ends)
        EXPECT_TRUE(in(validationStarts, e - 14)) << "a step ends where the validation diverges";
    // Every step that follows a whole step after a validation is given.
    for (std::size_t k = 0; k + 1 < stepStarts.size(); ++k) {
        const bool afterValidation = in(validationStarts, stepStarts[k] - validation.size());
        if (stepStarts[k] > 165 * one.size() && !afterValidation) {
            EXPECT_TRUE(in(f.begins, stepStarts[k])) << "step at launch " << stepStarts[k];
        }
    }
}

// A program that changes its step for good (training, then evaluation on a loop of its own): the
// followed step breaks where the stream leaves it, and the new one is found as in a fresh stream
// -- what the finder skips while it follows a confirmed step is made up at the break.
TEST(LaunchCycle, ANewStepAfterAFollowedOneIsFound) {
    Stream train = step(3), evaluate;
    for (std::uint64_t k = 0; k < 41; ++k) // longer: a cycle that broke bars shorter ones
        evaluate.push_back(k % 3 == 0 ? 10 : 100 + k); // shares a kernel with the training step
    Stream s;
    append(s, train, 200);
    const std::size_t switched = s.size();
    std::vector<std::size_t> evaluateStarts;
    for (int n = 0; n < 600; ++n) {
        evaluateStarts.push_back(s.size());
        append(s, evaluate);
    }
    LaunchCycle c;
    const Fed f = feed(c, s);
    ASSERT_FALSE(f.ends.empty());
    EXPECT_EQ(f.ends.front(), switched);
    std::vector<std::size_t> after;
    for (std::size_t b : f.begins)
        if (b >= switched)
            after.push_back(b);
    ASSERT_FALSE(after.empty()) << "the evaluation loop gives steps";
    EXPECT_EQ(c.length(), evaluate.size());
    for (std::size_t b : after)
        EXPECT_EQ((b - switched) % evaluate.size(), 0u) << "a step began at launch " << b;
    // Once confirmed (kConfirmLaunches launches), every evaluation step is given.
    const auto first = std::find(evaluateStarts.begin(), evaluateStarts.end(), after.front());
    ASSERT_NE(first, evaluateStarts.end());
    EXPECT_EQ(static_cast<std::size_t>(evaluateStarts.end() - first), after.size());
    EXPECT_LE(after.front() - switched, LaunchCycle::kConfirmLaunches + 4 * evaluate.size());
}

// A short step with nothing repeated inside it must span kConfirmLaunches launches before it
// gives steps; a loop of one kernel too.
TEST(LaunchCycle, AShortStepIsConfirmedOverManyLaunches) {
    const Stream one{1, 2, 3, 4, 5, 6, 7, 8};
    Stream s;
    append(s, one, 600);
    LaunchCycle c;
    const Fed f = feed(c, s);
    ASSERT_FALSE(f.begins.empty());
    EXPECT_EQ(f.begins.front(), LaunchCycle::kConfirmLaunches);
    EXPECT_EQ(c.length(), 8u);

    LaunchCycle single;
    const Fed g = feed(single, Stream(5000, 42));
    ASSERT_FALSE(g.begins.empty());
    EXPECT_EQ(single.length(), 1u);
    EXPECT_EQ(g.begins.front(), LaunchCycle::kConfirmLaunches);
}

// A stream that never repeats (a one-shot program, a benchmark of distinct cases) gives no step.
TEST(LaunchCycle, AStreamThatNeverRepeatsGivesNoStep) {
    Stream s;
    for (std::uint64_t i = 0; i < 5000; ++i)
        s.push_back(1000 + i);
    LaunchCycle c;
    const Fed f = feed(c, s);
    EXPECT_TRUE(f.begins.empty());
    EXPECT_EQ(c.length(), 0u);
    EXPECT_EQ(c.launchesInSteps(), 0u);
}

// Steps longer than the longest cycle searched are not found; a shorter limit finds shorter ones.
TEST(LaunchCycle, StepsLongerThanTheLimitAreNotFound) {
    const Stream one = step(12); // 1 + 48 + 2 + 36 + 2 = 89 launches
    Stream s;
    append(s, one, 60);
    LaunchCycle small(64);
    const Fed f = feed(small, s);
    EXPECT_TRUE(f.begins.empty());
    LaunchCycle enough(128);
    EXPECT_FALSE(feed(enough, s).begins.empty());
}

// The signature tells kernels, blocks and shared memory apart, not grids: a step whose grids
// follow its data (an embedding's backward) is the same step.
TEST(LaunchCycle, SignaturesTellLaunchesApart) {
    roofline::core::Launch a;
    a.mangledName = "_Z4gemmv";
    a.grid = {4, 1, 1};
    a.block = {128, 1, 1};
    roofline::core::Launch b = a;
    EXPECT_EQ(roofline::collect::launchSignature(a), roofline::collect::launchSignature(b));
    b.grid.y = 2;
    EXPECT_EQ(roofline::collect::launchSignature(a), roofline::collect::launchSignature(b));
    b.block.y = 2;
    EXPECT_NE(roofline::collect::launchSignature(a), roofline::collect::launchSignature(b));
    b = a;
    b.dynamicSharedBytes = 1024;
    EXPECT_NE(roofline::collect::launchSignature(a), roofline::collect::launchSignature(b));
    b = a;
    b.mangledName = "_Z4gemmi";
    EXPECT_NE(roofline::collect::launchSignature(a), roofline::collect::launchSignature(b));
}

// An eager PyTorch loop as it launches (a 4-block GPT measured on the H100): weight
// initialisation in pairs of kernels per layer, then steps whose forward blocks (12 launches)
// and backward blocks (41) each repeat, AdamW's state created in the first step. Neither the
// initialisation's little cycles nor a block's make the step: the whole step does. It begins
// where the periodic stretch began: the first step's optimizer ends as every step's does, so
// the found step begins with the optimizer's last 4 launches (its phase, not its length, is off).
TEST(LaunchCycle, AnEagerPyTorchLoopGivesItsWholeStep) {
    Stream s;
    append(s, Stream{900, 901}, 12); // normal_ and zero_ per Linear
    append(s, Stream{902, 903, 904});
    Stream fwdBlock, bwdBlock;
    for (std::uint64_t i = 0; i < 12; ++i)
        fwdBlock.push_back(100 + i % 7); // kernels repeat inside a block too
    for (std::uint64_t i = 0; i < 41; ++i)
        bwdBlock.push_back(200 + i % 9);
    Stream one{1, 2};
    append(one, fwdBlock, 4);
    append(one, Stream{3, 4, 5});
    append(one, bwdBlock, 4);
    append(one, Stream{6, 7, 8, 9});
    Stream first = one;
    first.insert(first.end() - 4, {50, 51, 50, 51}); // AdamW's state, step 0 only
    std::vector<std::size_t> starts;
    append(s, first);
    for (int n = 1; n < 30; ++n) {
        starts.push_back(s.size());
        append(s, one);
    }
    LaunchCycle c;
    const Fed f = feed(c, s);
    ASSERT_FALSE(f.begins.empty());
    EXPECT_EQ(c.length(), one.size());
    for (std::size_t b : f.begins)
        EXPECT_EQ((b + 4 - starts.front()) % one.size(), 0u) << "a step began at launch " << b;
    EXPECT_TRUE(f.ends.empty());
}

// The runs the search keeps sparse are every period's runs, as comparing each launch with the one
// P before it for every P gives them: on random streams over small and large alphabets, with a
// short reach so that occurrences fall out of it and forgotten signatures come back.
TEST(PeriodRuns, EqualEveryPeriodsRunComparedLaunchByLaunch) {
    using roofline::collect::PeriodRuns;
    for (const std::uint64_t alphabet : {2u, 3u, 7u, 1000u}) {
        constexpr std::size_t kReach = 40;
        PeriodRuns sparse(kReach);
        std::vector<std::uint32_t> dense(kReach + 1, 0);
        Stream history;
        std::uint64_t x = 12345 + alphabet;
        for (int i = 0; i < 3000; ++i) {
            x = x * 6364136223846793005ull + 1442695040888963407ull;
            // Stretches of a repeated block now and then, so that long runs occur.
            const std::uint64_t sig = (i / 200) % 2 == 0 && history.size() > 12
                                          ? history[history.size() - 12]
                                          : (x >> 33) % alphabet;
            for (std::size_t p = 1; p <= kReach; ++p)
                dense[p] =
                    p <= history.size() && history[history.size() - p] == sig ? dense[p] + 1 : 0;
            history.push_back(sig);
            sparse.add(sig);
            for (std::size_t p = 1; p <= kReach; ++p)
                ASSERT_EQ(sparse.run(p), dense[p])
                    << "alphabet " << alphabet << ", launch " << i << ", period " << p;
            std::size_t active = 0; // the runs kept: those of 2 and more
            for (std::size_t p = 1; p <= kReach; ++p)
                active += dense[p] > 1;
            ASSERT_EQ(sparse.active().size(), active);
            ASSERT_TRUE(std::is_sorted(sparse.active().begin(), sparse.active().end()));
        }
    }
}
