// The realistic training step (examples/training_step) under iteration replay: what a real
// training job does that our calibration loops do not -- lazily loaded cuBLASLt kernels, a first
// step with a validation pass and optimizer state created on first use, a grid that follows the
// data, backward launched from a second thread -- and the records must still be one clean record
// per launch of a steady-state step, with exact FLOPs and an unchanged computation.
#include "gpu/gpu_test_support.hpp"
#include "train_step.hpp"

#include <roofline/roofline.hpp>

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <set>
#include <string>
#include <vector>

using roofline::FlopKind;
using roofline::KernelRecord;
using roofline::ReplayStatus;
using roofline::example::TrainConfig;
using roofline::example::Trainer;

namespace {

// The program's own kernels (everything else it launches is a cuBLASLt GEMM).
const std::set<std::string> kOwnKernels = {"embeddingForward",
                                           "layernormForward",
                                           "geluForward",
                                           "crossEntropy",
                                           "layernormBackward",
                                           "layernormParamGrad",
                                           "castToBf16",
                                           "geluBackward",
                                           "embeddingBackward",
                                           "adamw",
                                           "fill"};

std::string shortName(const KernelRecord& r) {
    std::string n = r.name; // "roofline::example::(anonymous namespace)::adamw(float*, ...)"
    for (std::size_t at; (at = n.find("(anonymous namespace)")) != std::string::npos;)
        n.erase(at, std::string("(anonymous namespace)").size());
    const auto paren = n.find('(');
    if (paren != std::string::npos)
        n = n.substr(0, paren);
    const auto colon = n.rfind("::");
    return colon == std::string::npos ? n : n.substr(colon + 2);
}

bool own(const KernelRecord& r) {
    return kOwnKernels.count(shortName(r)) > 0;
}

struct Outcome {
    std::vector<float> losses;
    std::uint64_t fingerprint = 0;
    std::vector<KernelRecord> records;
};

// Steps under an iteration-replay session until the replay needs no more passes.
Outcome profiled(const TrainConfig& config, roofline::Options options) {
    Outcome run;
    Trainer trainer(config);
    roofline::Session session(options);
    int n = 0;
    do
        run.losses.push_back(trainer.step(n++));
    while (session.needsPass() && n < 60);
    run.records = session.stop();
    EXPECT_TRUE(session.countersAvailable()) << session.status();
    run.fingerprint = roofline::example::fingerprint(trainer.parameters());
    return run;
}

Outcome plain(const TrainConfig& config, int steps) {
    Outcome run;
    Trainer trainer(config);
    for (int n = 0; n < steps; ++n)
        run.losses.push_back(trainer.step(n));
    run.fingerprint = roofline::example::fingerprint(trainer.parameters());
    return run;
}

roofline::Options iterationReplay(bool processScopes,
                                  roofline::AlignPasses align = roofline::AlignPasses::Auto) {
    roofline::Options o;
    o.mode = roofline::CollectionMode::IterationReplay;
    o.processScopes = processScopes;
    o.alignPasses = align;
    o.flushOnExit = false;
    o.reuseSamples = 0; // every launch of one step measured (TrainStep.Reused* tests reuse)
    return o;
}

// Checks shared by both ways the first step is left out: one measured record per launch of a
// single steady-state step, clean except the data-dependent embedding backward (values kept,
// noted), and the work the program asks for.
void expectOneSteadyStep(const Outcome& run, const Trainer& shape) {
    const TrainConfig& config = shape.config();
    ASSERT_EQ(run.records.size(), shape.launchesPerStep());
    const std::int64_t step = run.records.front().iteration;
    EXPECT_GE(step, 1); // never step 0 (validation, optimizer state)
    const roofline::example::AnalyticWork work = shape.analytic();
    double gemmFlops = 0, gemms = 0;
    std::map<std::string, int> ownCounts;
    for (const auto& r : run.records) {
        SCOPED_TRACE(r.name + " in " + r.scopePath);
        EXPECT_TRUE(r.measured) << r.note;
        EXPECT_EQ(r.iteration, step);
        EXPECT_EQ(r.scopePath.rfind("Train step #/", 0), 0u);
        EXPECT_EQ(r.scopePath.find("Validation"), std::string::npos);
        if (shortName(r) == "embeddingBackward") {
            EXPECT_NE(r.replay, ReplayStatus::Unmatched) << r.note;
            // Its grid is the batch's distinct-token count, different in every step; its FP32
            // adds are not: tokens x C, whichever step each pass ran.
            EXPECT_EQ(r.flopsOf(FlopKind::FP32), work.embeddingAdds);
        } else {
            EXPECT_EQ(r.replay, ReplayStatus::Clean) << r.note;
        }
        if (own(r)) {
            ++ownCounts[shortName(r)];
            EXPECT_EQ(r.tensorFlops(), 0.0);
        } else {
            ++gemms;
            gemmFlops += r.flopsOf(FlopKind::TensorBF16);
        }
    }
    EXPECT_EQ(gemms, work.gemmLaunches);
    EXPECT_NEAR(gemmFlops / work.gemmFlops, 1.0, 0.01)
        << "measured " << gemmFlops << " tensor BF16 FLOPs, analytic " << work.gemmFlops;
    EXPECT_EQ(ownCounts["layernormForward"], config.layers + 1);
    EXPECT_EQ(ownCounts["adamw"], 1);
    EXPECT_EQ(ownCounts["fill"], 0); // optimizer state is created in step 0 only
}

void expectSameComputation(const Outcome& a, const Outcome& b) {
    ASSERT_EQ(a.losses.size(), b.losses.size());
    EXPECT_EQ(std::memcmp(a.losses.data(), b.losses.data(), a.losses.size() * sizeof(float)), 0)
        << "losses differ: profiled " << a.losses.back() << ", plain " << b.losses.back();
    EXPECT_EQ(a.fingerprint, b.fingerprint);
}

} // namespace

TEST(TrainStep, TheDataDecidesTheEmbeddingGrid) {
    ROOFLINE_REQUIRE_GPU();
    Trainer t{TrainConfig{}};
    std::set<int> grids;
    for (int n = 0; n < 8; ++n)
        grids.insert(t.distinctTokens(n));
    EXPECT_GE(grids.size(), 4u);
}

// Fresh process: cuBLASLt loads its kernels during step 0 (the profiler is re-created, design
// 0005); worker-thread launches attributed through process-wide scopes.
TEST(TrainStep, EveryLaunchOfASteadyStepHasOneRecordAndNothingChanges) {
    ROOFLINE_REQUIRE_GPU();
    const TrainConfig config;
    const Outcome run = profiled(config, iterationReplay(true));
    Trainer shape(config);
    expectOneSteadyStep(run, shape);
    // The backward pass was launched from the backward thread, inside the main thread's range.
    int backward = 0;
    for (const auto& r : run.records)
        backward += r.scopePath.find("/backward") != std::string::npos ? 1 : 0;
    EXPECT_EQ(backward, 11 * config.layers + 5);
    expectSameComputation(run, plain(config, static_cast<int>(run.losses.size())));
}

// Every kernel loaded before the session (a warmed-up process): step 0 is then the replay
// group's pass 0, and the first-iteration check must see that step 1 launches other kernels.
TEST(TrainStep, AFirstStepWithValidationIsSkippedNotMerged) {
    ROOFLINE_REQUIRE_GPU();
    const TrainConfig config;
    plain(config, 2); // loads every kernel the steps use
    const Outcome run = profiled(config, iterationReplay(true));
    Trainer shape(config);
    expectOneSteadyStep(run, shape);
}

// Aligned passes from the start (ROOFLINE_ALIGN_PASSES=on: one configuration per pass, a fresh
// profiler each): the same records. (The default, auto, stays positional on this program: its
// steps insert nothing, and data-dependent grids keep their values either way.)
TEST(TrainStep, AlignedPassesGiveTheSameRecords) {
    ROOFLINE_REQUIRE_GPU();
    const TrainConfig config;
    const Outcome run = profiled(config, iterationReplay(true, roofline::AlignPasses::On));
    Trainer shape(config);
    expectOneSteadyStep(run, shape);
}

// Thread-scoped ranges (the default, as in Nsight Compute): the backward thread's own ranges are
// the GEMMs' "matmul" ones, so of its launches only the GEMMs get records, in "matmul" alone --
// none is attributed to the main thread's ranges.
TEST(TrainStep, WithoutProcessScopesWorkerLaunchesAreNotAttributed) {
    ROOFLINE_REQUIRE_GPU();
    const TrainConfig config;
    const Outcome run = profiled(config, iterationReplay(false));
    const std::size_t forwardAndOptimizer = 6 * config.layers + 4 + 2;
    const std::size_t backwardGemms = 6 * config.layers + 2;
    ASSERT_EQ(run.records.size(), forwardAndOptimizer + backwardGemms);
    std::size_t alone = 0;
    for (const auto& r : run.records) {
        EXPECT_TRUE(r.measured) << r.name << ": " << r.note;
        EXPECT_EQ(r.scopePath.find("backward"), std::string::npos) << r.scopePath;
        alone += r.scopePath == "matmul" ? 1 : 0;
    }
    EXPECT_EQ(alone, backwardGemms);
}

// The own kernels' FP32 work, per launch, against kernel replay of the same step (each launch
// measured alone, serialized, as Nsight Compute does): equal to the FLOP.
TEST(TrainStep, FlopsPerLaunchEqualKernelReplayOfTheSameStep) {
    ROOFLINE_REQUIRE_GPU();
    const TrainConfig config;
    const Outcome run = profiled(config, iterationReplay(true));
    ASSERT_FALSE(run.records.empty());
    const int step = static_cast<int>(run.records.front().iteration);
    Trainer trainer(config);
    for (int n = 0; n < step; ++n)
        trainer.step(n);
    roofline::Options o;
    o.mode = roofline::CollectionMode::KernelReplay;
    o.processScopes = true;
    o.flushOnExit = false;
    std::vector<KernelRecord> alone;
    {
        roofline::Session session(o);
        trainer.step(step);
        alone = session.stop();
    }
    ASSERT_EQ(alone.size(), run.records.size());
    int compared = 0;
    for (std::size_t i = 0; i < alone.size(); ++i) {
        const KernelRecord& a = run.records[i];
        const KernelRecord& b = alone[i];
        SCOPED_TRACE(std::to_string(i) + ": " + a.name);
        ASSERT_EQ(a.name, b.name);
        ASSERT_TRUE(b.measured) << b.note;
        for (FlopKind k : {FlopKind::FP32, FlopKind::FP64, FlopKind::FP16, FlopKind::TensorBF16})
            EXPECT_EQ(a.flopsOf(k), b.flopsOf(k)) << toString(k);
        compared += own(a) ? 1 : 0;
    }
    EXPECT_EQ(compared, 40);
}

// Repeated launches (the default, docs/design/0009): identical layers are measured twice and the
// other layers reuse the mean -- except GEMMs of one kernel and grid and different depth (each in
// its own "matmul" range, so alike in every other way), which are each measured (design 0018).
// Every launch of a step still has a record, and its FLOPs per kind equal those of the step
// measured launch by launch.
TEST(TrainStep, ReusedRecordsCoverTheStepWithTheSameFlops) {
    ROOFLINE_REQUIRE_GPU();
    TrainConfig config; // 8 layers, images of 32 ranges: the runs of reused layers are longer
    config.layers = 8;  // than a window holds, so they are left out of every window
    const Outcome exact = profiled(config, iterationReplay(true));
    roofline::Options o = iterationReplay(true);
    o.reuseSamples = 2;
    o.rangesPerImage = 32;
    const Outcome reused = profiled(config, o);
    Trainer shape(config);
    ASSERT_EQ(reused.records.size(), shape.launchesPerStep());
    ASSERT_EQ(exact.records.size(), shape.launchesPerStep());
    std::map<std::int64_t, const KernelRecord*> byPosition;
    for (const auto& r : exact.records)
        byPosition[r.position] = &r;
    int reusedRecords = 0;
    for (const auto& r : reused.records) {
        SCOPED_TRACE(r.name + " at " + std::to_string(r.position));
        ASSERT_TRUE(r.measured) << r.note;
        ASSERT_EQ(byPosition.count(r.position), 1u);
        const KernelRecord& e = *byPosition[r.position];
        EXPECT_EQ(r.name, e.name);
        EXPECT_EQ(r.scopePath, e.scopePath);
        for (std::size_t k = 0; k < roofline::kFlopKindCount; ++k)
            EXPECT_NEAR(r.flops[k], e.flops[k], 1e-9 * std::max(1.0, e.flops[k]))
                << toString(static_cast<FlopKind>(k));
        if (r.reusedSamples > 0) {
            ++reusedRecords;
            EXPECT_NE(r.note.find("reused: mean of"), std::string::npos) << r.note;
        }
    }
    EXPECT_GE(reusedRecords, 3 * config.layers); // six layers forward and backward, at least
    std::printf("train step, %d layers: %zu launches per step, %d reused; %zu steps with reuse, "
                "%zu measuring every launch\n",
                config.layers, shape.launchesPerStep(), reusedRecords, reused.losses.size(),
                exact.losses.size());
}

// A job that ends before its replay group completes: step 0 observed, pass 0 on step 1, pass 1
// on step 2, then the stop. Every launch of the step keeps what those passes collected -- its
// time and L1 bytes equal to a complete profile's, within the run-to-run spread -- and names
// what it lacks; the computation is the plain run's.
TEST(TrainStep, AJobStoppedMidGroupKeepsTheCountersOfItsPasses) {
    ROOFLINE_REQUIRE_GPU();
    TrainConfig config;
    const roofline::Options o = iterationReplay(true); // one window holds the whole step
    const Outcome exact = profiled(config, o);
    Outcome cut;
    {
        Trainer trainer(config);
        roofline::Session session(o);
        for (int n = 0; n < 3; ++n)
            cut.losses.push_back(trainer.step(n));
        cut.records = session.stop();
        cut.fingerprint = roofline::example::fingerprint(trainer.parameters());
    }
    expectSameComputation(cut, plain(config, 3));
    Trainer shape(config);
    ASSERT_EQ(cut.records.size(), shape.launchesPerStep());
    std::map<std::int64_t, const KernelRecord*> byPosition;
    for (const auto& r : exact.records)
        byPosition[r.position] = &r;
    int partial = 0;
    for (const auto& r : cut.records) {
        SCOPED_TRACE(r.name + " at " + std::to_string(r.position));
        ASSERT_TRUE(r.measured) << r.note;
        EXPECT_NE(r.note.find("replay cut short: the session stopped after 2 of"),
                  std::string::npos)
            << r.note;
        ASSERT_EQ(byPosition.count(r.position), 1u);
        const KernelRecord& e = *byPosition[r.position];
        EXPECT_GT(r.timeSeconds, 0.0);
        EXPECT_NEAR(r.timeSeconds, e.timeSeconds, 0.5 * e.timeSeconds + 5e-6); // a few us each
        partial += r.lacks.empty() ? 0 : 1;
        if (shortName(r) == "embeddingBackward") // its grid follows the data
            continue;
        EXPECT_NEAR(r.bytesAt(roofline::MemoryLevel::L1), e.bytesAt(roofline::MemoryLevel::L1),
                    0.01 * e.bytesAt(roofline::MemoryLevel::L1));
        if (r.lacks.find("FLOPs") == std::string::npos) // "FLOPs" or "tensor FLOPs": unknown
            for (std::size_t k = 0; k < roofline::kFlopKindCount; ++k)
                EXPECT_NEAR(r.flops[k], e.flops[k], 1e-9 * std::max(1.0, e.flops[k]))
                    << toString(static_cast<FlopKind>(k));
    }
    std::printf("a job of 3 steps: %zu launches, every one with time and bytes, %d partial "
                "(lacks: %s)\n",
                cut.records.size(), partial, cut.records.front().lacks.c_str());
}
