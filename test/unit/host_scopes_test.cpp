// Host time per scope on the CPU: scopes of known sleep and busy time, nesting (self
// against total time), threads, process-wide scopes, the GPU time of records inside a scope, the
// bound each scope gets, and the recording, table and CSV that carry it.
#include "scopes/host_timing.hpp"
#include "core/host_scopes.hpp"
#include "core/recording.hpp"
#include "unit/minimal_recording.hpp"

#include <roofline/host_scope.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <mutex>
#include <sstream>
#include <thread>

using namespace roofline;
using collect::HostFrame;
using collect::HostTimes;

namespace {

double threadCpuSeconds() {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

double wallSeconds() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

// Spins until this thread has used `d` of CPU time: exact CPU time however loaded the machine is
// (other processes only stretch its wall time).
void busy(std::chrono::milliseconds d) {
    const double end = threadCpuSeconds() + 1e-3 * static_cast<double>(d.count());
    volatile double x = 1;
    while (threadCpuSeconds() < end)
        x = x * 1.0000001 + 1e-9;
}

// Runs `f` and adds its wall time, as this thread's clock saw it, to `total`.
template <class F> void timed(double& total, F&& f) {
    const double t0 = wallSeconds();
    f();
    total += wallSeconds() - t0;
}

const HostScope* find(const std::vector<HostScope>& scopes, const std::string& path,
                      std::uint64_t thread) {
    for (const auto& s : scopes)
        if (s.scopePath == path && s.threadId == thread)
            return &s;
    return nullptr;
}

// The truths the library's times are held to are the test's own readings of the same clocks. A
// wall time the library reads lies between two brackets: the known work inside it (a sleep, or a
// busy loop of exact CPU time, whose wall time is at least its CPU time) below, and the test's
// readings around the calls that bound it above -- whatever the machine's load, since a
// preemption between the test's reading and the library's only widens the outer bracket. (A
// nearness check of two wall readings fails whenever the scheduler runs something else between
// them: on a loaded 2-core machine under AddressSanitizer that was 6 ms.) kClockSlack is left for
// CPU times, read on one thread's clock. CPU times on a loaded virtual machine come out up to ~15%
// above the CPU the busy loops counted themselves (seen on the 2-core CI machine): 20%.
constexpr double kClockSlack = 0.003;
constexpr double kRounding = 1e-6; // nanoseconds to seconds, both sides
constexpr double kCpuSlack = 0.2;

} // namespace

TEST(HostTimes, SleepAndBusyScopesGetTheirWallAndCpuTime) {
    HostTimes times(HostTiming::Cpu, false);
    const std::uint64_t thread = 7;
    double loadWall = 0, computeWall = 0;
    for (int step = 0; step < 3; ++step) {
        HostFrame outer, sleeping, working;
        times.push(outer, nullptr, "step " + std::to_string(step), thread);
        timed(loadWall, [&] {
            times.push(sleeping, &outer, "load", thread);
            std::this_thread::sleep_for(std::chrono::milliseconds(30));
            times.pop(sleeping, &outer, thread);
        });
        timed(computeWall, [&] {
            times.push(working, &outer, "compute", thread);
            busy(std::chrono::milliseconds(30));
            times.pop(working, &outer, thread);
        });
        times.pop(outer, nullptr, thread);
    }
    const auto scopes = times.collect();
    ASSERT_EQ(scopes.size(), 3u); // "step #" made uniform: one scope for the three steps
    const HostScope* step = find(scopes, "step #", thread);
    const HostScope* load = find(scopes, "step #/load", thread);
    const HostScope* compute = find(scopes, "step #/compute", thread);
    ASSERT_TRUE(step && load && compute);
    EXPECT_EQ(step->calls, 3u);
    EXPECT_EQ(load->calls, 3u);
    EXPECT_GE(load->wallSeconds, 0.090); // the sleeps
    EXPECT_LE(load->wallSeconds, loadWall + kRounding);
    EXPECT_GE(compute->wallSeconds, 0.090); // the loops' CPU time, hence at least their wall
    EXPECT_LE(compute->wallSeconds, computeWall + kRounding);
    EXPECT_GE(step->wallSeconds, load->wallSeconds + compute->wallSeconds);
    EXPECT_NEAR(step->selfWallSeconds, step->wallSeconds - load->wallSeconds - compute->wallSeconds,
                1e-9); // self = total - children
    EXPECT_NEAR(compute->cpuSeconds, 0.090, kCpuSlack * 0.090 + kClockSlack); // the loops' CPU
    EXPECT_LE(compute->cpuSeconds, compute->wallSeconds + 0.002);
    EXPECT_LE(load->cpuSeconds, 0.2 * load->wallSeconds); // asleep
    EXPECT_NEAR(step->cpuSeconds, load->cpuSeconds + compute->cpuSeconds,
                kCpuSlack * step->cpuSeconds + kClockSlack);
    EXPECT_EQ(hostBound(*load), "wait"); // no kernels, the host asleep
    // No kernels, the host busy -- on this machine when it had a CPU to itself (a loaded one
    // stretches the loop's wall time past twice its CPU time: then it was waiting for a CPU).
    // (The bound reads the steady state: the median of the instances after the first.)
    ASSERT_EQ(compute->steadyCalls, 2u);
    if (compute->steadyCpuSeconds >= 0.9 * compute->steadyWallSeconds) {
        EXPECT_EQ(hostBound(*compute), "cpu");
    }
    HostScope unloaded = *compute;
    unloaded.wallSeconds = unloaded.cpuSeconds;
    unloaded.steadyWallSeconds = unloaded.steadyCpuSeconds;
    EXPECT_EQ(hostBound(unloaded), "cpu");
}

// libroofline's own work on the application's thread (a pass ending, decoding) is measured and
// taken out of the scope it ran in, and its parents, so a profiled run's table shows the
// application's time; a measure of `false` (no counters collected) reads no clock.
TEST(HostTimes, LibrooflineWorkIsTakenOutOfTheScopesItRanIn) {
    HostTimes times(HostTiming::Cpu, false);
    const std::uint64_t thread = 7;
    // libroofline's, as the test timed it around the calls that bound it; `gaps`: the step's own
    // time outside "compute" and outside libroofline's, timed around the calls that bound it
    double inCompute = 0, atBoundary = 0, between = 0, gaps = 0;
    for (int step = 0; step < 2; ++step) {
        HostFrame outer, working;
        const double opening = wallSeconds();
        times.push(outer, nullptr, "step", thread);
        times.push(working, &outer, "compute", thread);
        gaps += wallSeconds() - opening;
        busy(std::chrono::milliseconds(20)); // the application's
        timed(inCompute, [&] {
            const auto ours = times.profilerStart(true);
            busy(std::chrono::milliseconds(20)); // libroofline's, inside "compute"
            times.profilerEnd(ours, &working, thread);
        });
        const double closing = wallSeconds();
        times.pop(working, &outer, thread);
        const auto boundary = times.profilerStart(true);
        const double waiting = wallSeconds();
        std::this_thread::sleep_for(std::chrono::milliseconds(20)); // waiting at the boundary
        const double waited = wallSeconds();
        times.profilerEnd(boundary, &outer, thread);
        times.pop(outer, nullptr, thread);
        const double closed = wallSeconds();
        gaps += (waiting - closing) + (closed - waited);
        atBoundary += closed - closing;
        timed(between, [&] {
            const auto outside = times.profilerStart(true);
            std::this_thread::sleep_for(std::chrono::milliseconds(10)); // between steps
            times.profilerEnd(outside, nullptr, thread);
        });
    }
    const auto unmeasured = times.profilerStart(false);
    EXPECT_LT(unmeasured.wallNs, 0);
    times.profilerEnd(unmeasured, nullptr, thread); // nothing
    const auto scopes = times.collect();
    const HostScope* step = find(scopes, "step", thread);
    const HostScope* compute = find(scopes, "step/compute", thread);
    ASSERT_TRUE(step && compute);
    EXPECT_GE(compute->profilerSeconds, 0.040); // two busy loops of 20 ms of CPU
    EXPECT_LE(compute->profilerSeconds, inCompute + kRounding);
    EXPECT_GE(step->profilerSeconds, compute->profilerSeconds + 0.040); // and two 20 ms sleeps
    EXPECT_LE(step->profilerSeconds, inCompute + atBoundary + kRounding);
    // What remains is the application's: the busy loops' 40 ms of CPU, ours taken out of it.
    EXPECT_NEAR(compute->cpuSeconds, 0.040, kCpuSlack * 0.040 + kClockSlack);
    EXPECT_GE(compute->wallSeconds, compute->cpuSeconds - 0.002);
    EXPECT_LE(compute->cpuSeconds, compute->wallSeconds + 0.002);
    // The step's own time is the calls around "compute" and ours, nothing of ours (40 ms).
    EXPECT_GE(step->wallSeconds, compute->wallSeconds);
    EXPECT_GE(step->selfWallSeconds, 0.0);
    EXPECT_LE(step->selfWallSeconds, gaps + kRounding);
    EXPECT_NEAR(step->selfCpuSeconds, 0.0, kCpuSlack * step->cpuSeconds + kClockSlack);
    EXPECT_NEAR(times.profilerInScopesSeconds(), step->profilerSeconds, 1e-9);
    EXPECT_GE(times.profilerSeconds(), step->profilerSeconds + 0.020); // and two 10 ms sleeps
    EXPECT_LE(times.profilerSeconds(), inCompute + atBoundary + between + kRounding);
}

// At a scope boundary one clock reading ends libroofline's work and starts (or ends) the
// instance: the scope tracker reads the clocks once there, and no time falls between the two.
TEST(HostTimes, AScopeBoundaryReadsTheClocksOnce) {
    HostTimes times(HostTiming::Cpu, false);
    const std::uint64_t thread = 7;
    HostFrame outer, inner;
    times.push(outer, nullptr, "step", thread);
    const auto before = times.profilerStart(true); // a pass beginning at the push
    const auto started = times.profilerEnd(before, &outer, thread);
    ASSERT_GE(started.wallNs, before.wallNs);
    ASSERT_GE(started.cpuNs, before.cpuNs);
    times.push(inner, &outer, "work", thread, started);
    EXPECT_EQ(inner.wallStartNs, started.wallNs);
    EXPECT_EQ(inner.cpuStartNs, started.cpuNs);
    busy(std::chrono::milliseconds(5));
    const auto closed = times.pop(inner, &outer, thread);
    EXPECT_GE(closed.wallNs, started.wallNs + 5000000);
    EXPECT_GE(closed.cpuNs, started.cpuNs);
    const auto after = times.profilerStart(true, closed); // a pass ending at the pop
    EXPECT_EQ(after.wallNs, closed.wallNs);
    EXPECT_EQ(after.cpuNs, closed.cpuNs);
    times.profilerEnd(after, &outer, thread);
    times.pop(outer, nullptr, thread);
    // Popped on another thread: no CPU end for the instance, so the work after it reads its own.
    HostFrame moved;
    times.push(moved, nullptr, "moved", thread);
    const auto elsewhere = times.pop(moved, nullptr, thread + 1);
    EXPECT_GE(elsewhere.wallNs, 0);
    EXPECT_LT(elsewhere.cpuNs, 0);
    EXPECT_GE(times.profilerStart(true, elsewhere).cpuNs, 0);
    // No counters collected: nothing is measured, and the push reads its own clocks.
    EXPECT_LT(times.profilerEnd(times.profilerStart(false), &outer, thread).wallNs, 0);
}

// Instances in which kernels ran under the profiler (a pass) are left out of a scope's times
// when it has others, and the profiled outermost ones out of the shares' base; a scope seen
// only profiled keeps those times, marked.
TEST(HostTimes, ProfiledInstancesAreLeftOutWhenThereAreOthers) {
    HostTimes times(HostTiming::Wall, false);
    const std::uint64_t thread = 3;
    // each instance, as the test timed it around its push and pop and between them
    double stepWall[4] = {}, stepInside[4] = {}, workWall[4] = {};
    const std::int64_t start = HostTimes::wallNow();
    for (int step = 0; step < 4; ++step) {
        HostFrame outer, inner;
        const bool pass = step == 1 || step == 2;
        timed(stepWall[step], [&] {
            times.push(outer, nullptr, "step", thread);
            const double pushed = wallSeconds();
            timed(workWall[step], [&] {
                times.push(inner, &outer, "work", thread);
                std::this_thread::sleep_for(std::chrono::milliseconds(pass ? 40 : 10));
                if (pass) // a launch under the profiler marks every open instance
                    outer.profiled = inner.profiled = true;
                times.pop(inner, &outer, thread);
            });
            if (step == 3) { // a scope only ever seen in a profiled instance
                HostFrame only;
                times.push(only, &outer, "only in a pass", thread);
                only.profiled = true;
                times.pop(only, &outer, thread);
            }
            stepInside[step] = wallSeconds() - pushed;
            times.pop(outer, nullptr, thread);
        });
    }
    const std::int64_t end = HostTimes::wallNow();
    const auto scopes = times.collect();
    const HostScope* step = find(scopes, "step", thread);
    const HostScope* work = find(scopes, "step/work", thread);
    const HostScope* only = find(scopes, "step/only in a pass", thread);
    ASSERT_TRUE(step && work && only);
    EXPECT_EQ(work->calls, 2u);
    EXPECT_EQ(work->profiledCalls, 2u);
    EXPECT_FALSE(work->profiledTimes);
    // Steps 0 and 3's instances, not the 40 ms profiled ones.
    EXPECT_GE(work->wallPerCall(), 0.010);
    EXPECT_LE(work->wallPerCall(), (workWall[0] + workWall[3]) / 2 + kRounding);
    EXPECT_EQ(step->calls, 1u); // step 3 is profiled too: its nested instance was
    EXPECT_EQ(step->profiledCalls, 3u);
    EXPECT_EQ(only->calls, 1u);
    EXPECT_TRUE(only->profiledTimes);
    // The base: the session without steps 1, 2 and 3.
    const double whole = 1e-9 * static_cast<double>(end - start);
    const double run = times.runSeconds(start, end);
    EXPECT_GE(run, whole - stepWall[1] - stepWall[2] - stepWall[3] - kRounding);
    EXPECT_LE(run, whole - stepInside[1] - stepInside[2] - stepInside[3] + kRounding);
    // Step 0 and the loop around the steps.
    EXPECT_GE(run, step->wallSeconds);
    EXPECT_LE(run - step->wallSeconds,
              whole - stepInside[0] - stepInside[1] - stepInside[2] - stepInside[3] + kRounding);
}

// The steady state: the first instance (warm-up) apart, profiled instances out, the median of the
// clean ones -- a slow outlier among them does not move it as it moves the mean.
TEST(HostTimes, TheSteadyStateIsTheMedianOfCleanInstancesAfterTheFirst) {
    HostTimes times(HostTiming::Cpu, false);
    const std::uint64_t thread = 4;
    double wall[7] = {};
    // first 60 ms (warm-up), two profiled 40 ms, then 10, 10, 10 and one 50 ms outlier
    const int sleepMs[7] = {60, 40, 40, 10, 10, 50, 10};
    for (int i = 0; i < 7; ++i) {
        HostFrame step;
        timed(wall[i], [&] {
            times.push(step, nullptr, "step " + std::to_string(i), thread);
            std::this_thread::sleep_for(std::chrono::milliseconds(sleepMs[i]));
            step.profiled = i == 1 || i == 2;
            times.pop(step, nullptr, thread);
        });
    }
    const auto scopes = times.collect();
    const HostScope* step = find(scopes, "step #", thread);
    ASSERT_TRUE(step);
    // A scope's time lies between its sleep and the time around its push and pop (the first
    // push creates the scope: under AddressSanitizer that took 6 ms), whatever the machine's load.
    EXPECT_GE(step->firstWallSeconds, 0.060);
    EXPECT_LE(step->firstWallSeconds, wall[0]);
    EXPECT_FALSE(step->firstProfiled);
    EXPECT_EQ(step->steadyCalls, 4u); // 3, 4, 5, 6
    std::vector<double> clean = {wall[3], wall[4], wall[5], wall[6]};
    std::sort(clean.begin(), clean.end());
    // The median of 4 grows with each of them: between the sleeps' median and the outer times'.
    EXPECT_GE(step->steadyWallSeconds, 0.010);
    EXPECT_LE(step->steadyWallSeconds, (clean[1] + clean[2]) / 2);
    // The outlier does not pull it past the instances that are not one (a mean would: ~20 ms and
    // more, against ~10): the median's upper middle value is at most the largest of the other
    // three, whichever instance the machine's load stretched.
    EXPECT_LE(step->steadyWallSeconds, std::max({wall[3], wall[4], wall[6]}) + kRounding);
    EXPECT_GE(step->steadyCpuSeconds, 0.0);
    EXPECT_LT(step->steadyCpuSeconds, 0.5 * step->steadyWallSeconds); // asleep
    EXPECT_EQ(step->hostWallPerCall(), step->steadyWallSeconds);
    EXPECT_EQ(step->calls, 5u); // every clean instance, the first included, in the sums
}

// Kernel replay profiles every instance: the scope keeps their times (marked), and the base
// keeps them too, less libroofline's work outside scopes.
TEST(HostTimes, AScopeProfiledInEveryInstanceStaysInTheBase) {
    HostTimes times(HostTiming::Wall, false);
    const std::int64_t start = HostTimes::wallNow();
    for (int step = 0; step < 2; ++step) {
        HostFrame outer;
        times.push(outer, nullptr, "step", 1);
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
        outer.profiled = true;
        times.pop(outer, nullptr, 1);
    }
    double oursWall = 0;
    timed(oursWall, [&] {
        const auto ours = times.profilerStart(true);
        std::this_thread::sleep_for(std::chrono::milliseconds(20)); // outside scopes
        times.profilerEnd(ours, nullptr, 1);
    });
    const std::int64_t end = HostTimes::wallNow();
    const auto scopes = times.collect();
    ASSERT_EQ(scopes.size(), 1u);
    EXPECT_TRUE(scopes[0].profiledTimes);
    EXPECT_EQ(scopes[0].calls, 2u);
    const double whole = 1e-9 * static_cast<double>(end - start);
    EXPECT_GE(times.runSeconds(start, end), whole - oursWall - kRounding);
    EXPECT_LE(times.runSeconds(start, end), whole - 0.020 + kRounding); // ours: a 20 ms sleep
    EXPECT_GE(times.runSeconds(start, end), scopes[0].wallSeconds);
}

TEST(HostTimes, EachThreadHasItsOwnScopesAndProcessScopesAreOne) {
    for (const bool process : {false, true}) {
        SCOPED_TRACE(process ? "process scopes" : "thread scopes");
        HostTimes times(HostTiming::Wall, process);
        // Process-wide scopes are pushed and popped under the process stack's lock (HostTimes'
        // contract): the two threads' instances overlap, their boundaries do not.
        std::mutex processStack;
        auto run = [&](std::uint64_t thread) {
            HostFrame f;
            {
                std::unique_lock<std::mutex> lock(processStack, std::defer_lock);
                if (process)
                    lock.lock();
                times.push(f, nullptr, "worker", thread);
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
            std::unique_lock<std::mutex> lock(processStack, std::defer_lock);
            if (process)
                lock.lock();
            times.pop(f, nullptr, thread);
        };
        std::thread a(run, 1), b(run, 2);
        a.join();
        b.join();
        const auto scopes = times.collect();
        if (process) {
            ASSERT_EQ(scopes.size(), 1u);
            EXPECT_EQ(scopes[0].threadId, 0u);
            EXPECT_EQ(scopes[0].calls, 2u);
        } else {
            ASSERT_EQ(scopes.size(), 2u);
            EXPECT_TRUE(find(scopes, "worker", 1) && find(scopes, "worker", 2));
        }
        for (const auto& s : scopes)
            EXPECT_LT(s.cpuSeconds, 0); // wall-only timing: CPU time not measured
    }
}

TEST(HostTimes, AScopeClosedOnAnotherThreadHasNoCpuTime) {
    HostTimes times(HostTiming::Cpu, true);
    HostFrame f;
    times.push(f, nullptr, "handed over", 1);
    times.pop(f, nullptr, 2); // process-wide scope popped by another thread
    const auto scopes = times.collect();
    ASSERT_EQ(scopes.size(), 1u);
    EXPECT_EQ(scopes[0].calls, 1u);
    EXPECT_LT(scopes[0].cpuSeconds, 0);
    EXPECT_EQ(hostBound(scopes[0]), "host");
}

TEST(HostTimes, OffMeasuresNothing) {
    HostTimes times(HostTiming::Off, false);
    HostFrame f;
    times.push(f, nullptr, "x", 1);
    times.pop(f, nullptr, 1);
    EXPECT_FALSE(times.on());
    EXPECT_TRUE(times.collect().empty());
}

TEST(HostScopes, KernelTimeGoesToTheScopeAndItsParentsOnTheLaunchingThread) {
    std::vector<HostScope> scopes(4);
    scopes[0].scopePath = "step #";
    scopes[0].threadId = 5;
    scopes[1].scopePath = "step #/fwd";
    scopes[1].threadId = 5;
    scopes[2].scopePath = "step #/fwdx"; // a prefix that is not a parent
    scopes[2].threadId = 5;
    scopes[3].scopePath = "step #/fwd";
    scopes[3].threadId = 0; // process-wide: any thread
    std::vector<KernelRecord> records(3);
    records[0].scopePath = "step #/fwd";
    records[0].scopePathRaw = "step 3/fwd";
    records[0].threadId = 5;
    records[0].timeSeconds = 2e-3;
    records[1].scopePath = "step #/fwd/gemm";
    records[1].threadId = 9; // another thread
    records[1].timeSeconds = 1e-3;
    records[2].scopePath = "step #/fwd";
    records[2].threadId = 5;
    records[2].timeSeconds = 1e-3;        // sm cycles: less than the kernel's duration
    records[2].gpuDurationSeconds = 4e-3; // the GPU's elapsed time is what is added
    core::attachKernelTime(scopes, records);
    EXPECT_DOUBLE_EQ(scopes[0].gpuSeconds, 6e-3);
    EXPECT_EQ(scopes[0].kernels, 2u);
    // Per call: the records' mean GPU time times the kernels launched per call (records sample
    // the launches): 3 ms x 40 launches / 10 calls.
    scopes[0].calls = 10;
    scopes[0].launches = 40;
    EXPECT_DOUBLE_EQ(scopes[0].gpuPerCall(), 12e-3);
    EXPECT_DOUBLE_EQ(scopes[1].gpuSeconds, 6e-3);
    EXPECT_DOUBLE_EQ(scopes[2].gpuSeconds, 0.0);
    EXPECT_DOUBLE_EQ(scopes[3].gpuSeconds, 7e-3);
    EXPECT_EQ(core::hostScopeKey("Train step 12/layer 3"), "Train step #/layer 3");
    EXPECT_EQ(core::hostScopeKey("conv2/x"), "conv2/x"); // an identifier, not an instance
}

TEST(HostScopes, BoundsFollowThePerCallTimes) {
    HostScope s;
    s.calls = 10;
    s.wallSeconds = 10e-3; // 1 ms per call
    s.cpuSeconds = 9e-3;
    s.launches = 10;
    s.kernels = 10;
    s.gpuSeconds = 9e-3; // 0.9 ms of kernels per call
    EXPECT_EQ(hostBound(s), "gpu");
    EXPECT_NEAR(s.gpuIdleShare(), 0.1, 1e-12);
    s.gpuSeconds = 2e-3;
    EXPECT_EQ(hostBound(s), "launch");
    s.cpuSeconds = 1e-3;
    EXPECT_EQ(hostBound(s), "wait");
    s.gpuSeconds = 30e-3; // kernels outlast the host's time in the scope
    EXPECT_EQ(hostBound(s), "gpu");
    EXPECT_EQ(s.gpuIdleShare(), 0.0);
    s.kernels = 0; // launched 10 kernels, none with a record: the GPU's share is not known
    EXPECT_FALSE(s.gpuKnown());
    EXPECT_EQ(hostBound(s), "unmeasured");
    s.launches = 0; // launched none
    EXPECT_TRUE(s.gpuKnown());
    EXPECT_EQ(hostBound(s), "wait");
    s.cpuSeconds = 9e-3;
    EXPECT_EQ(hostBound(s), "cpu");
}

TEST(HostScopes, RecordingTableAndCsvCarryThem) {
    core::Recording rec = test::minimalRecording();
    rec.sessionSeconds = 2.5;
    HostScope s;
    s.scopePath = "step #/data, load";
    s.threadId = 42;
    s.calls = 4;
    s.wallSeconds = 1.0;
    s.selfWallSeconds = 0.5;
    s.cpuSeconds = 0.25;
    s.selfCpuSeconds = 0.125;
    s.gpuSeconds = 0.2;
    s.launches = 8;
    s.kernels = 2;
    s.profilerSeconds = 0.75;
    s.profiledCalls = 3;
    rec.hostScopes = {s};
    rec.hostRunSeconds = 2.0;
    rec.profilerSeconds = 0.875;
    std::stringstream file;
    core::writeRecording(rec, file);
    const core::Recording back = core::readRecording(file, "test");
    EXPECT_DOUBLE_EQ(back.sessionSeconds, 2.5);
    ASSERT_EQ(back.hostScopes.size(), 1u);
    const HostScope& b = back.hostScopes[0];
    EXPECT_EQ(b.scopePath, s.scopePath);
    EXPECT_EQ(b.threadId, 42u);
    EXPECT_EQ(b.calls, 4u);
    EXPECT_DOUBLE_EQ(b.selfCpuSeconds, 0.125);
    EXPECT_EQ(b.launches, 8u);
    EXPECT_EQ(b.kernels, 2u);
    EXPECT_DOUBLE_EQ(b.profilerSeconds, 0.75);
    EXPECT_DOUBLE_EQ(back.profilerSeconds, 0.875);
    EXPECT_DOUBLE_EQ(back.hostRunSeconds, 2.0);
    EXPECT_EQ(b.profiledCalls, 3u);
    EXPECT_FALSE(b.profiledTimes);
    std::ostringstream table, csv;
    printHostTable(back.hostScopes, back.hostRunSeconds, table, 0, 220); // every column
    EXPECT_NE(table.str().find("1000.000  50.0%"), std::string::npos) << table.str();
    EXPECT_NE(table.str().find(" 4+3 "), std::string::npos) << table.str(); // 3 left out
    EXPECT_NE(table.str().find("calls 5+3: 5 instances timed, 3 left out"), std::string::npos);
    EXPECT_NE(table.str().find("250.000"), std::string::npos) << table.str(); // wall per call
    EXPECT_NE(table.str().find("200.000"), std::string::npos) << table.str(); // GPU per call
    std::vector<HostScope> two = back.hostScopes;
    two.push_back(s);
    two.back().scopePath = "other";
    two.back().wallSeconds = 0.1;
    std::ostringstream top;
    printHostTable(two, back.sessionSeconds, top, 1);
    EXPECT_EQ(top.str().find("other"), std::string::npos) << top.str();
    EXPECT_NE(top.str().find("... 1 more (--top 0: all)"), std::string::npos) << top.str();
    writeHostCsv(back.hostScopes, back.sessionSeconds, csv);
    EXPECT_NE(csv.str().find("\"step #/data, load\",42,4,0.5,1,0.125,0.25,0.4,0.25,8,2,0.2,0.2,"),
              std::string::npos)
        << csv.str();
    EXPECT_NE(csv.str().find(",gpu,0.75,3,0,,0,0,,\n"), std::string::npos) << csv.str();
    std::vector<HostScope> profiled = back.hostScopes; // every instance profiled: marked
    profiled[0].profiledTimes = true;
    std::ostringstream marked;
    printHostTable(profiled, back.sessionSeconds, marked, 0, 220);
    EXPECT_NE(marked.str().find("gpu*"), std::string::npos) << marked.str();
    EXPECT_NE(marked.str().find("bound*: every instance ran kernels under the profiler"),
              std::string::npos);
    // An outermost scope's libroofline time is named under the table ("step #/data, load" is
    // nested: its time is inside its parent's, so a table of it alone names none).
    EXPECT_EQ(table.str().find("libroofline's own work"), std::string::npos) << table.str();
    std::vector<HostScope> outer = back.hostScopes;
    outer[0].scopePath = "step #";
    std::ostringstream withOurs;
    printHostTable(outer, back.sessionSeconds, withOurs, 0, 220);
    EXPECT_NE(withOurs.str().find("libroofline's own work inside these scopes (counter "
                                  "collection on the application's threads), 750.000 ms"),
              std::string::npos)
        << withOurs.str();
    const std::string svg = hostBarsSvg(back.hostScopes, 16);
    EXPECT_NE(svg.find("<svg"), std::string::npos);
    EXPECT_NE(svg.find("GPU idle (host only)"), std::string::npos);
}

// A recording with the steady state (H200, the training step under `roofline run`): the step's
// first instance (validation, lazy loading) apart, three profiled ones out, the clean one after
// them the per-call time -- 2.3 ms, against 94.8 ms of wall time over the two timed instances.
TEST(HostScopes, TheBundledSteadyStateRecording) {
    const core::Recording rec = core::loadRecording(ROOFLINE_FIXTURE_DIR "/h200_host_steady.rfl");
    const HostScope* step = nullptr;
    for (const HostScope& s : rec.hostScopes)
        if (s.scopePath == "Train step #")
            step = &s;
    ASSERT_TRUE(step);
    EXPECT_EQ(step->calls, 2u);
    EXPECT_EQ(step->profiledCalls, 3u);
    EXPECT_DOUBLE_EQ(step->firstWallSeconds, 0.092491548);
    EXPECT_FALSE(step->firstProfiled);
    EXPECT_EQ(step->steadyCalls, 1u);
    EXPECT_DOUBLE_EQ(step->steadyWallSeconds, 0.002304205);
    EXPECT_DOUBLE_EQ(step->steadyCpuSeconds, 0.001554442);
    EXPECT_DOUBLE_EQ(step->hostWallPerCall(), 0.002304205);
    EXPECT_NEAR(step->wallPerCall(), 0.0474, 0.0001); // the mean, warm-up included
    EXPECT_EQ(hostBound(*step), "gpu");               // 2.18 ms of kernels per 2.30 ms step
    std::ostringstream table;
    printHostTable(rec.hostScopes, rec.hostRunSeconds, table, 3, 120);
    EXPECT_NE(table.str().find("Train step #  "), std::string::npos) << table.str();
    EXPECT_NE(table.str().find(
                  " process      2+3        2.304     92.492       1.554       2.179    5% gpu"),
              std::string::npos)
        << table.str();
}
