// The stop of an iteration-replay profile that came before its groups completed (a short job),
// through the collector on the fake backend: the records of a group cut short keep the counters
// of the passes that ran -- a pass stopped halfway included, for the launches it reached -- and
// the reused records of their signatures take them; a job that ends on an evaluation keeps what
// its steps measured; and a job of any length leaves one record per launch.
#include "unit/collector_harness.hpp"
#include "unit/collector_steps.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <set>
#include <string>

using namespace roofline;
using namespace roofline::collect;
using namespace roofline::collect::testing;

namespace {

// Pass p measures metric p (3 metrics, 3 passes): its value, or -1 for NaN.
std::vector<double> shown(const std::vector<double>& values) {
    std::vector<double> out;
    for (double v : values)
        out.push_back(std::isnan(v) ? -1.0 : v);
    return out;
}

} // namespace

// Passes 0 and 1 on steps 0 and 1; the job ends inside step 2, whose pass 2 ran k0 and k1.
TEST(CollectorStop, APassStoppedHalfwayGivesItsCountersToTheLaunchesItReached) {
    CollectorConfig c;
    c.options.iterationRange = "step";
    Harness h(CollectionMode::IterationReplay, 3, 8, c);
    for (int s = 0; s < 2; ++s) {
        h.push("step");
        for (int k = 0; k < 4; ++k)
            h.launch(("k" + std::to_string(k)).c_str(), k + 1);
        h.pop();
    }
    h.push("step");
    h.launch("k0", 1);
    h.launch("k1", 2);
    auto& l = h.finish();
    ASSERT_EQ(l.size(), 4u);
    for (std::size_t k = 0; k < 4; ++k) {
        const double work = static_cast<double>(k + 1);
        EXPECT_EQ(shown(l[k].values), (std::vector<double>{work, work, k < 2 ? work : -1.0}))
            << l[k].mangledName;
        EXPECT_NE(l[k].note.find("replay cut short: the session stopped after 2 of 3 passes and "
                                 "part of the next; the counters those passes collected stand"),
                  std::string::npos)
            << l[k].note;
        EXPECT_EQ(l[k].replay, ReplayStatus::Clean);
    }
}

// Step 0 is observed, steps 1 and 2 plan the cycle; its window across the iteration's end runs
// pass 0 from step 2's head launch into step 3's first layers, and pass 1 from step 3's head
// launch when the job ends. Every launch keeps pass 0's counter (the layers' repeated launches
// through their signatures' samples), the head pass 1's too, and none has pass 2's.
TEST(CollectorStop, AShortJobKeepsWhatItsPassesReachedForEveryLaunchOfTheirSignatures) {
    Harness h(CollectionMode::IterationReplay, 3, 96, reuseConfig(2, 2));
    for (int s = 0; s < 4; ++s)
        layeredTrainStep(h);
    auto& l = h.finish();
    ASSERT_EQ(l.size(), 14u);
    for (const auto& r : l) {
        const double work = layeredWork(r.mangledName);
        const bool head = r.mangledName == "head";
        EXPECT_EQ(shown(r.values), (std::vector<double>{work, head ? work : -1.0, -1.0}))
            << r.mangledName << " at " << r.position << ": " << r.note;
        const bool reused = r.position >= 5 && !head;
        EXPECT_EQ(r.reusedSamples, reused ? 2u : 0u) << r.position;
        EXPECT_NE(r.note.find(reused ? "reused: mean of 2"
                                     : "replay cut short: the session "
                                       "stopped after 1 of 3 passes"),
                  std::string::npos)
            << r.note;
    }
}

// Steps 0-2 plan the cycle and start its window across the iteration's end; the program then
// evaluates (an outermost scope of 3 launches, none inside the window) and ends. The cycle is
// dropped, and still every launch of the step it referred to has a record.
TEST(CollectorStop, AJobThatEndsWithAnEvaluationKeepsARecordOfEveryLaunchOfItsStep) {
    Harness h(CollectionMode::IterationReplay, 3, 96, reuseConfig(2, 2));
    for (int s = 0; s < 3; ++s)
        layeredTrainStep(h);
    evaluation(h);
    auto& l = h.finish();
    ASSERT_EQ(l.size(), 14u);
    for (std::size_t i = 0; i < l.size(); ++i) {
        EXPECT_EQ(l[i].position, static_cast<std::int64_t>(i));
        EXPECT_EQ(l[i].iteration, 1) << "the cycle's reference step";
        EXPECT_TRUE(l[i].values.empty());
        EXPECT_NE(l[i].note.find("not measured: the profile stopped before a launch of its "
                                 "signature was measured"),
                  std::string::npos)
            << l[i].note;
    }
    EXPECT_EQ(l[0].mangledName, "embedding");
    EXPECT_EQ(l[13].mangledName, "head");
}

// Steps 0-3 and then an evaluation of 3 launches: the cycle's window across the iteration's end
// ran pass 0 over step 2's head launch and step 3's first layers, pass 1 from step 3's head
// launch into the evaluation, whose launches took the first layers' places. The iteration of
// another shape drops the cycle; the group's passes ran on steady steps, so its records stand
// -- the head launch with two passes' counters, the first layers without values (the evaluation
// ran in their places: the mismatch says so) -- and every launch has one record.
TEST(CollectorStop, AGroupAnEvaluationEndsKeepsWhatItsPassesCollectedOnSteadySteps) {
    for (const int steps : {4, 5}) {
        SCOPED_TRACE(std::to_string(steps) + " steps");
        Harness h(CollectionMode::IterationReplay, 3, 96, reuseConfig(2, 2));
        for (int s = 0; s < steps; ++s)
            layeredTrainStep(h);
        evaluation(h);
        auto& l = h.finish();
        ASSERT_EQ(l.size(), 14u);
        std::set<std::int64_t> positions;
        for (const auto& r : l) {
            positions.insert(r.position);
            if (r.position <= 4) {
                EXPECT_TRUE(r.values.empty());
                EXPECT_EQ(r.note.find("iteration replay mismatch: pass " +
                                      std::to_string(steps - 3) + " "),
                          0u)
                    << r.note;
                EXPECT_EQ(r.note.find("replay cut short"), std::string::npos) << r.note;
            } else if (r.position < 13) {
                EXPECT_NE(r.note.find("not measured: the profile stopped before"),
                          std::string::npos)
                    << r.note;
            }
        }
        EXPECT_EQ(positions.size(), 14u) << "one record per launch";
        const auto& head = l.back();
        ASSERT_EQ(head.position, 13);
        if (steps == 4) {
            EXPECT_EQ(shown(head.values), (std::vector<double>{7, 7, -1}));
            EXPECT_NE(head.note.find("replay cut short: an iteration of another shape ended the "
                                     "replay group after 2 of 3 passes"),
                      std::string::npos)
                << head.note;
        } else { // its group completed on step 4
            EXPECT_EQ(head.values, all(7));
        }
    }
}

namespace {

// A layered training job of `steps` steps, ending on an evaluation or not: every launch of the step
// has exactly one record, and each value it has is its own work (NaN where its passes did not
// reach).
void expectOneRecordPerLaunch(int steps, bool evaluates, bool aligned, bool mma) {
    SCOPED_TRACE(std::to_string(steps) + " steps" + (mma ? ", MMA found" : "") +
                 (aligned ? ", aligned" : "") + (evaluates ? "" : ", no evaluation"));
    CollectorConfig c = reuseConfig(2, 2);
    c.alignFromStart = aligned;
    bool grown = false;
    if (mma)
        matmulNeedsTensorCounters(c, grown);
    Harness h(CollectionMode::IterationReplay, 3, 96, c, aligned ? 3 : 0);
    for (int s = 0; s < steps; ++s) {
        if (h.collector.metricExpansions() > 0)
            grown = true;
        layeredTrainStep(h);
    }
    if (evaluates)
        evaluation(h);
    auto& l = h.finish();
    std::set<std::int64_t> positions;
    for (const auto& r : l) {
        EXPECT_NE(r.mangledName, "evaluate");
        EXPECT_TRUE(positions.insert(r.position).second)
            << "a second record at " << r.position << ": " << r.note;
        const double work = layeredWork(r.mangledName);
        for (double v : r.values) {
            if (!std::isnan(v)) {
                EXPECT_EQ(v, work) << r.mangledName << " at " << r.position << ": " << r.note;
            }
        }
    }
    EXPECT_EQ(l.size(), 14u);
}

} // namespace

// However long the job -- a cycle just planned, a window in its passes, one measured again for
// the tensor counters its MMA work needs, the profile complete -- in positional and aligned
// passes. (One step: the evaluation would be the second iteration, the reference.)
TEST(CollectorStop, AJobOfAnyLengthLeavesOneRecordPerLaunchWithItsOwnWork) {
    for (const bool evaluates : {true, false})
        for (const bool aligned : {false, true})
            for (const bool mma : {false, true})
                for (int steps = 2; steps <= 10; ++steps)
                    expectOneRecordPerLaunch(steps, evaluates, aligned, mma);
}
