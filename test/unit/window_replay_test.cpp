// Window replay through the collector on the fake backend (replay/window_replay): each window
// runs once as the program runs it and is launched again for the other passes from the memory
// saved before it; the program's memory -- a number each kernel changes in order -- must end as
// the program computed it, whatever closes the window and whatever fails.
#include "unit/collector_harness.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

using namespace roofline;
using namespace roofline::collect;
using namespace roofline::collect::testing;

namespace {

std::vector<std::string> expectedWindow(std::size_t launches, std::size_t passes) {
    std::vector<std::string> log{"sync", "save0", "sync", "save1"};
    for (std::size_t p = 1; p < passes; ++p) {
        log.push_back("restore0");
        log.push_back("relaunch " + std::to_string(launches));
    }
    log.push_back("restore1");
    log.push_back("forget");
    return log;
}

} // namespace

// A one-shot program: five launches, three passes. One window: the program's own run is pass 0,
// passes 1 and 2 are relaunches from the memory saved before it; every launch gets its values,
// and the memory the program goes on with is its own.
TEST(WindowReplay, AOneShotProgramIsMeasuredFromOneRunAndItsRelaunches) {
    Harness h(CollectionMode::WindowReplay, 3, 16);
    const std::vector<double> works = {1, 2, 3, 4, 5};
    for (std::size_t i = 0; i < works.size(); ++i)
        EXPECT_TRUE(h.launch(("k" + std::to_string(i)).c_str(), works[i]));
    auto& l = h.finish();
    ASSERT_EQ(l.size(), works.size());
    for (std::size_t i = 0; i < l.size(); ++i) {
        EXPECT_EQ(l[i].values, all(works[i])) << i << ": " << l[i].note;
        EXPECT_TRUE(l[i].note.empty()) << l[i].note;
    }
    EXPECT_EQ(h.backend.memory, unprofiled(works)) << "the program's memory is its own";
    EXPECT_EQ(h.backend.windowLog, expectedWindow(works.size(), 3));
}

// A driver call that changes memory (a copy of the next batch) and a full image each close the
// window before them: three windows, every launch measured, the memory the program's own.
TEST(WindowReplay, MemoryOperationsAndFullImagesCloseTheWindow) {
    Harness h(CollectionMode::WindowReplay, 2, 4);
    std::vector<double> works;
    for (int i = 0; i < 3; ++i) {
        works.push_back(10 + i);
        h.launch("before_copy", works.back());
    }
    h.collector.onMemoryOperation(0);
    h.backend.memory += 7; // the copy
    for (int i = 0; i < 6; ++i) {
        works.push_back(20 + i);
        h.launch("after_copy", works.back());
    }
    auto& l = h.finish();
    ASSERT_EQ(l.size(), 9u);
    for (std::size_t i = 0; i < l.size(); ++i)
        EXPECT_EQ(l[i].values, all(works[i])) << i << ": " << l[i].note;
    std::uint64_t expected = 1;
    for (std::size_t i = 0; i < 3; ++i)
        expected = expected * 3 + static_cast<std::uint64_t>(works[i]);
    expected += 7;
    for (std::size_t i = 3; i < works.size(); ++i)
        expected = expected * 3 + static_cast<std::uint64_t>(works[i]);
    EXPECT_EQ(h.backend.memory, expected);
    EXPECT_EQ(std::count(h.backend.windowLog.begin(), h.backend.windowLog.end(), "forget"), 3)
        << "windows of 3, 4 and 2 launches";
}

// A launch that cannot be launched again runs unmeasured, the window closed before it: it says
// why, and the launches around it are measured.
TEST(WindowReplay, ALaunchThatCannotBeRecordedRunsUnmeasuredAndSaysWhy) {
    Harness h(CollectionMode::WindowReplay, 2, 16);
    h.launch("a", 1);
    h.launch("b", 2);
    EXPECT_FALSE(h.launch("unrecordable_kernel", 3));
    h.launch("c", 4);
    auto& l = h.finish();
    ASSERT_EQ(l.size(), 4u);
    EXPECT_EQ(l[0].values, all(1));
    EXPECT_EQ(l[1].values, all(2));
    EXPECT_TRUE(l[2].values.empty() || std::isnan(l[2].values[0])) << "no counters";
    EXPECT_NE(l[2].note.find("cannot launch it again: its arguments are not readable"),
              std::string::npos)
        << l[2].note;
    EXPECT_EQ(l[3].values, all(4));
    EXPECT_EQ(h.backend.memory, unprofiled({1, 2, 3, 4}));
}

// Code loaded while a window is open (the next kernel's lazy load) leaves that profiler unsafe
// (design 0005): the window's every pass is relaunched on a fresh one, none measured on it.
TEST(WindowReplay, CodeLoadedDuringAWindowIsMeasuredOnAFreshProfiler) {
    Harness h(CollectionMode::WindowReplay, 3, 16);
    h.launch("a", 1);
    h.launch("b", 2);
    h.firstLaunch("lazily_loaded", 3);
    h.launch("c", 4);
    auto& l = h.finish();
    ASSERT_EQ(l.size(), 4u);
    for (std::size_t i = 0; i < l.size(); ++i)
        EXPECT_EQ(l[i].values, all(static_cast<double>(i + 1))) << i << ": " << l[i].note;
    EXPECT_EQ(h.backend.hazards, 0) << "nothing measured on a profiler that saw code loaded";
    EXPECT_EQ(h.backend.memory, unprofiled({1, 2, 3, 4}));
    const auto& log = h.backend.windowLog;
    const auto first = std::find(log.begin(), log.end(), "forget");
    EXPECT_EQ(std::count(log.begin(), first, "relaunch 2"), 3) << "all three passes relaunched";
}

// A pass that fails (the profiler refuses to start) turns the device to timing only -- and the
// program still goes on with the memory it computed.
TEST(WindowReplay, AFailedPassGivesTheProgramItsMemoryBack) {
    Harness h(CollectionMode::WindowReplay, 3, 16);
    h.backend.failStartAt = 2; // pass 1's start
    h.launch("a", 1);
    h.launch("b", 2);
    h.launch("c", 3);
    auto& l = h.finish();
    ASSERT_EQ(l.size(), 3u);
    EXPECT_EQ(h.backend.memory, unprofiled({1, 2, 3}));
    const auto& log = h.backend.windowLog;
    EXPECT_NE(std::find(log.begin(), log.end(), "restore1"), log.end());
    EXPECT_EQ(log.back(), "forget");
}

// A window that cannot open (its first pass refused) keeps nothing: no checkpoint stays in memory
// the program could need, the launch runs as it is, and the device gives timing from then on.
TEST(WindowReplay, AWindowThatCannotOpenKeepsNothing) {
    Harness h(CollectionMode::WindowReplay, 3, 16);
    h.backend.failStartAt = 1;
    h.launch("a", 1);
    h.launch("b", 2);
    auto& l = h.finish();
    ASSERT_EQ(l.size(), 2u);
    EXPECT_EQ(h.backend.memory, unprofiled({1, 2}));
    EXPECT_EQ(h.backend.windowLog, (std::vector<std::string>{"sync", "save0", "forget"}));
    for (const auto& r : l)
        EXPECT_TRUE(r.values.empty() || std::isnan(r.values[0])) << "no counters";
}

// A failure saving the memory after the window changes nothing the program has: no restore.
TEST(WindowReplay, AFailedSaveLeavesTheProgramsMemoryAlone) {
    Harness h(CollectionMode::WindowReplay, 3, 16);
    h.backend.failSaveAfter = true;
    h.launch("a", 1);
    h.launch("b", 2);
    h.finish();
    EXPECT_EQ(h.backend.memory, unprofiled({1, 2}));
    const auto& log = h.backend.windowLog;
    EXPECT_EQ(std::find(log.begin(), log.end(), "restore0"), log.end());
}

// One pass holds every metric: the program's own run is the whole measurement, nothing is
// launched again and no memory is restored.
TEST(WindowReplay, ASinglePassSetRelaunchesNothing) {
    Harness h(CollectionMode::WindowReplay, 1, 16);
    h.launch("a", 1);
    h.launch("b", 2);
    auto& l = h.finish();
    ASSERT_EQ(l.size(), 2u);
    EXPECT_EQ(l[1].values, all(2));
    EXPECT_EQ(h.backend.windowLog, (std::vector<std::string>{"sync", "save0", "forget"}));
}
