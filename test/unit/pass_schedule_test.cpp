// The pass schedule alone, driven by tables of program events: what it emits at each iteration
// and launch (start a pass, measure a launch into range r, end the pass), with a listener that
// does what a strategy minimally does (a pass started; a pass stopped, the next one, the group
// complete after its passes).
#include "replay/pass_schedule.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace roofline::collect {
namespace {

struct Recorder final : PassSchedule::Listener {
    PassSchedule& schedule;
    std::size_t passes;         // passes per group
    bool windowMayStart = true; // WindowPlacement's answer
    std::string events;

    Recorder(PassSchedule& s, std::size_t p) : schedule(s), passes(p) {}
    void put(const std::string& e) { events += (events.empty() ? "" : " ") + e; }
    bool mayStartWindow(std::size_t begin, std::size_t pass) override {
        put("ask" + std::to_string(begin) + "/" + std::to_string(pass));
        return windowMayStart;
    }
    void startPass() override {
        put("start");
        schedule.passStarted();
    }
    void endPass() override {
        put("end");
        schedule.passStopped();
        schedule.nextPass();
        if (schedule.pass() == passes) {
            schedule.groupCompleted();
            put("complete");
        }
    }
    void measure(std::size_t range, std::size_t position, bool inside) override {
        put((inside ? "m" : "b") + std::to_string(range) + "@" + std::to_string(position));
    }
};

// The program, one character an event: '[' an iteration begins, 'k' a launch inside it, ']' it
// ends, 'o' a launch between iterations. Returns what the schedule emitted, iteration by
// iteration ("|" between them).
std::string run(PassSchedule& schedule, Recorder& r, const std::string& program,
                std::size_t capacity, PassSchedule::PassLength length = {1, true}) {
    std::string out;
    for (char c : program) {
        switch (c) {
        case '[':
            schedule.iterationBegins();
            schedule.startOfIteration(r);
            break;
        case 'k':
            schedule.launch(capacity, r);
            break;
        case 'o':
            schedule.launchBetween(capacity, r);
            break;
        case ']':
            schedule.iterationEnds(capacity, schedule.launches(), length, r);
            out += (out.empty() ? "" : " | ") + r.events;
            r.events.clear();
            break;
        }
    }
    return out;
}

TEST(PassSchedule, AWindowFromTheStartIsOnePassPerIteration) {
    PassSchedule s;
    Recorder r(s, 2);
    s.beginGroup(Window{}, 1);
    EXPECT_EQ(run(s, r, "[kkk][kkk][kkk]", 8),
              "start m0@0 m1@1 m2@2 end | start m0@0 m1@1 m2@2 end complete | ");
    EXPECT_FALSE(s.inGroup());
    EXPECT_FALSE(s.completedThisIteration()); // the third iteration completed nothing
}

TEST(PassSchedule, AWindowInsideTheIterationStartsAndEndsAtItsBounds) {
    PassSchedule s;
    Recorder r(s, 2);
    s.beginGroup(Window{2, 4}, 1);
    EXPECT_EQ(run(s, r, "[kkkkk][kkkkk]", 8),
              "ask2/0 start m0@2 m1@3 end | ask2/1 start m0@2 m1@3 end complete");
}

// A window across the iteration's end: each pass starts at the tail (launch 3), takes the launch
// between iterations and the next iteration's head (launches 0 and 1), and ends there; the next
// pass starts at the tail of that same iteration.
TEST(PassSchedule, AWindowAcrossTheIterationsEndTakesTheTailAndTheNextHead) {
    PassSchedule s;
    Recorder r(s, 2);
    s.beginGroup(Window{3, Window::kOpen, 2}, 1, 1);
    EXPECT_EQ(run(s, r, "[kkkkk]o[kkkkk]o[kkkkk]", 8),
              "ask3/0 start m0@3 m1@4 | b2@0 m3@0 m4@1 end ask3/1 start m0@3 m1@4 | b2@0 m3@0 "
              "m4@1 end complete");
    EXPECT_FALSE(s.inGroup());
    EXPECT_TRUE(s.completedThisIteration());
}

// A group that completed at a launch is followed by one chained there: its pass 0 starts at its
// window, on the same iteration -- at that very launch when the window begins there.
TEST(PassSchedule, AChainedGroupStartsOnTheIterationItsPredecessorCompleted) {
    struct Chaining final : PassSchedule::Listener {
        PassSchedule& schedule;
        std::vector<Window> next;
        std::string events;
        explicit Chaining(PassSchedule& s) : schedule(s) {}
        void startPass() override {
            events += "start ";
            schedule.passStarted();
        }
        void endPass() override {
            events += "end ";
            schedule.passStopped();
            schedule.nextPass();
            schedule.groupCompleted(); // one pass a group
            if (!next.empty()) {
                schedule.chainGroup(next.front(), 1, 1);
                next.erase(next.begin());
            }
        }
        void measure(std::size_t range, std::size_t position, bool) override {
            events += "m" + std::to_string(range) + "@" + std::to_string(position) + " ";
        }
    };
    PassSchedule s;
    Chaining c(s);
    c.next = {Window{2, 3}, Window{4, 6}};
    s.beginGroup(Window{0, 2}, 1, 1);
    s.iterationBegins();
    s.startOfIteration(c);
    for (int k = 0; k < 6; ++k)
        s.launch(8, c);
    s.iterationEnds(8, s.launches(), {1, true}, c);
    EXPECT_EQ(c.events, "start m0@0 m1@1 end start m0@2 end start m0@4 m1@5 end ");
    EXPECT_TRUE(s.completedThisIteration());
    EXPECT_FALSE(s.inGroup());
}

TEST(PassSchedule, AWindowWaitsForItsPlacement) {
    PassSchedule s;
    Recorder r(s, 1);
    s.beginGroup(Window{1, Window::kOpen}, 1);
    r.windowMayStart = false;
    EXPECT_EQ(run(s, r, "[kk]", 8), "ask1/0");
    r.windowMayStart = true;
    EXPECT_EQ(run(s, r, "[kk]", 8), "ask1/0 start m0@1 end complete");
}

TEST(PassSchedule, AFullImageEndsThePassBeforeTheNextLaunch) {
    PassSchedule s;
    Recorder r(s, 1);
    s.beginGroup(Window{}, 1, 0);
    EXPECT_EQ(run(s, r, "[kkk]", 2, {0, true}), "start m0@0 m1@1 end complete");
    EXPECT_EQ(s.iterationsPerPass(), 1u); // one iteration fills an image
}

TEST(PassSchedule, ShortIterationsShareAPassAndLaunchesBetweenThemCount) {
    PassSchedule s;
    Recorder r(s, 1);
    s.beginGroup(Window{}, 1, 0);
    // 8 ranges, 2 launches an iteration: half an image holds two iterations.
    EXPECT_EQ(run(s, r, "[kk]o[kk]", 8, {0, true}),
              "start m0@0 m1@1 | b2@0 m3@0 m4@1 end complete");
    EXPECT_EQ(s.iterationsPerPass(), 2u);
}

TEST(PassSchedule, TheReplayHelperKeepsOneIterationPerPass) {
    PassSchedule s;
    Recorder r(s, 1);
    s.beginGroup(Window{}, 1, 0);
    EXPECT_EQ(run(s, r, "[kk]", 8, {0, false}), "start m0@0 m1@1 end complete");
}

TEST(PassSchedule, AnAbandonedGroupIsRestartedLater) {
    PassSchedule s;
    Recorder r(s, 2);
    s.beginGroup(Window{}, 1);
    run(s, r, "[kk]", 8);
    s.abandon();
    EXPECT_FALSE(s.inGroup());
    EXPECT_TRUE(s.restartPending());
    EXPECT_EQ(run(s, r, "[kk]", 8), ""); // nothing until the strategy begins it again
    s.beginGroup(Window{}, 3);
    EXPECT_FALSE(s.restartPending());
    EXPECT_EQ(s.groupStart(), 3u);
    EXPECT_EQ(run(s, r, "[kk][kk]", 8), "start m0@0 m1@1 end | start m0@0 m1@1 end complete");
}

} // namespace
} // namespace roofline::collect
