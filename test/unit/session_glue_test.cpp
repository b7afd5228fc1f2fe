// The session glue on the CPU: a SessionState wired as a Session wires it, with a fake counter
// backend in its device slot (its null primary context is the slot's), fed launch events as the
// driver callbacks feed them, with the ranges of a trainer already open when it starts. What it
// saves is read back and evaluated as `roofline report` does.
#include "session/session_state.hpp"
#include "core/recording.hpp"
#include "cupti/evaluate.hpp"
#include "cupti/graph_replay.hpp"
#include "report/recording_text.hpp"
#include "unit/collector_harness.hpp"
#include "unit/train_loop_shape.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <unistd.h>

using namespace roofline;
using namespace roofline::collect;
using namespace roofline::collect::testing;

namespace {

// kMetrics names the fake backend fills with a launch's work: time's cycles, FP32 FMAs (2 FLOPs
// each) and DRAM bytes.
const std::vector<std::string> kMetricNames = {"sm__cycles_elapsed.avg",
                                               "sm__sass_thread_inst_executed_op_ffma_pred_on.sum",
                                               "dram__bytes.sum"};

std::string tempPath(const std::string& name) {
    return (std::filesystem::temp_directory_path() /
            (name + "-" + std::to_string(::getpid()) + ".rfl"))
        .string();
}

// A session wired as a Session wires it on a device whose counter set-up found two passes and
// `configurations` backend configurations, the profiler released until its first pass where the
// settings ask for that; `config` is what its collector is to be given. Returns the fake backend.
FakeBackend* fakeDevice(SessionState& s, const std::string& path, Options options,
                        CollectorConfig& config, std::size_t configurations) {
    static_assert(kMetrics == 3, "one name per metric of the fake backend");
    options.flushOnExit = false;
    s.outputPath = path;
    s.process.pid = ::getpid();
    s.generation = nextGeneration();
    s.settings = resolveSettings(options, s.process, Capabilities{});
    config = collectorConfig(s.settings);
    config.passes = 2;
    config.metricNames = kMetricNames;
    auto backend =
        std::make_unique<FakeBackend>(2, s.settings.rangesPerImage, false, false, configurations);
    FakeBackend* fake = backend.get();
    if (config.profilerReleasedAtStart())
        fake->release(0);
    else
        fake->configure();
    SessionDevice d;
    d.info.ordinal = 0;
    d.info.name = "fake H100";
    d.info.chip = "GH100";
    d.backend = std::move(backend);
    s.devices.push_back(std::move(d));
    s.metrics = kMetricNames;
    s.passes = 2;
    return fake;
}

class SessionLoop : public TrainLoopShape {
public:
    SessionState s;
    FakeBackend* fake = nullptr;
    std::uint64_t launches = 0, seen = 0; ///< launched by the program, seen by the session
    int idleFromStep = -1;                ///< the first step whose launches were not followed

    explicit SessionLoop(const std::string& path, Options options = {}) {
        // Aligned replay available with two single-pass configurations.
        fake = fakeDevice(s, path, options, config, 2);
        config.alignAvailable = true;
        config.alignedPasses = 2;
    }
    ~SessionLoop() override { s.finish(); }

    void launchEvent(cupti::LaunchEvent e) {
        s.onLaunch(e);
        cupti::LaunchEvent exit;
        exit.exit = true;
        exit.context = e.context;
        s.onLaunch(exit);
    }

protected:
    void beforeFirstLaunch() override {
        s.begin(config, {s.devices[0].backend.get()}, Level::Counters);
    }
    void launch(const std::string& name, std::uint32_t gridX) override {
        ++launches;
        if (s.idleWallNs != 0) { // goIdle(): launches are no longer followed, CUPTI detaches
            if (idleFromStep < 0)
                idleFromStep = currentStep;
            return;
        }
        ++seen;
        cupti::LaunchEvent e;
        e.launch.mangledName = name.c_str();
        e.launch.grid = {gridX, 1, 1};
        e.launch.block = {128, 1, 1};
        e.launch.stream = 7;
        e.launch.correlationId = launches;
        s.onLaunch(e); // the driver's entry callback
        fake->kernel(1 + gridX);
        cupti::LaunchEvent exit;
        exit.exit = true;
        s.onLaunch(exit);
    }

private:
    CollectorConfig config;
};

double workOf(const std::string& name) {
    if (name.find("matmul") != std::string::npos)
        return 5;
    if (name.find("layernorm") != std::string::npos)
        return 3;
    if (name.find("classifier") != std::string::npos)
        return 9;
    return 17; // adamw
}

// A record without counters whose note is `note`.
KernelRecord unmeasuredWith(const std::string& note) {
    KernelRecord k;
    k.note = note;
    return k;
}

} // namespace

// Unmodified trainer, session defaults: the ranges open before the session are adopted, the step
// is found, one steady step is measured in program order, the session goes idle by itself, and
// what it saves reads back with the right values.
TEST(SessionGlue, ADefaultSessionOnATrainerIsCompleteIdleAndReadable) {
    const std::string path = tempPath("session-glue");
    std::remove(path.c_str());
    {
        SessionLoop loop(path);
        loop.run(30);
        EXPECT_EQ(loop.idleFromStep, 4) << "idle once the profile was complete";
        // Steps 0 (with its validation pass) to 3 were followed, nothing after.
        EXPECT_EQ(loop.seen, 2 * TrainLoopShape::kLayers + 1 + 4 * TrainLoopShape::kStepLaunches);
        EXPECT_NE(loop.s.idleWallNs, 0);
        EXPECT_NE(scopeTarget(), &loop.s.scopes) << "scopes are no longer followed";
        EXPECT_EQ(loop.s.devices[0].backend, nullptr) << "the backend goes once idle";
        EXPECT_FALSE(loop.s.profiler.has_value()) << "CUPTI's profiler too";
        loop.s.finish();
        ASSERT_EQ(loop.s.records.size(), TrainLoopShape::kStepLaunches);
        EXPECT_TRUE(loop.s.recorded.coverage.complete());
        EXPECT_FALSE(loop.s.recorded.hostScopes.empty());
    }
    const core::Recording r = core::loadRecording(path);
    EXPECT_EQ(r.chip, "GH100");
    EXPECT_EQ(r.metrics, kMetricNames);
    EXPECT_EQ(r.coverage.launchesPerIteration, TrainLoopShape::kStepLaunches);
    EXPECT_TRUE(r.coverage.complete()) << report::describe(r.coverage);
    expectOneStepInProgramOrder(r.launches);
    for (const core::LaunchInfo& l : r.launches) {
        EXPECT_EQ(l.device, 0);
        EXPECT_EQ(l.block.x, 128u);
        EXPECT_NE(l.threadId, 0u);
    }
    const std::vector<KernelRecord> records = cupti::evaluateRecording(r, Ceilings{});
    ASSERT_EQ(records.size(), TrainLoopShape::kStepLaunches);
    for (const KernelRecord& k : records) {
        ASSERT_TRUE(k.measured) << k.name << ": " << k.note;
        const double work = workOf(k.name);
        EXPECT_EQ(k.flops[static_cast<std::size_t>(FlopKind::FP32)], 2 * work) << k.name;
        EXPECT_EQ(k.bytes[static_cast<std::size_t>(MemoryLevel::DRAM)], work) << k.name;
    }
    std::remove(path.c_str());
}

// Launches the session does not measure: another context's, a module load inside the profiled
// context, a CUDA graph's kernels (named, placed in their scope, no counters).
TEST(SessionGlue, OtherContextsModuleLoadsAndGraphsReachTheRightPlaces) {
    const std::string path = tempPath("session-glue-graph");
    std::remove(path.c_str());
    Options o;
    o.firstIteration = FirstIteration::Measure;
    o.reuseSamples = 0;
    {
        SessionLoop loop(path, o);
        trackPush("", "Train step 0", true);
        loop.s.begin(collectorConfig(loop.s.settings), {loop.s.devices[0].backend.get()},
                     Level::Counters);
        int other = 0;
        cupti::LaunchEvent foreign;
        foreign.launch.mangledName = "foreign_kernel";
        foreign.context = &other; // not a profiled device's context
        loop.launchEvent(foreign);
        cupti::LaunchEvent load;
        load.kind = cupti::LaunchEvent::Kind::ModuleLoaded;
        loop.s.onLaunch(load);
        std::vector<cupti::GraphKernel> nodes(2);
        nodes[0].mangledName = "graph_gemm";
        nodes[0].grid = {4, 1, 1};
        nodes[1].mangledName = "graph_relu";
        cupti::LaunchEvent graph;
        graph.kind = cupti::LaunchEvent::Kind::Graph;
        graph.graphKernels = &nodes;
        loop.launchEvent(graph);
        trackPop("", true);
        loop.s.finish();
        ASSERT_EQ(loop.s.records.size(), 2u);
        EXPECT_EQ(loop.s.records[0].name, "graph_gemm");
        EXPECT_EQ(loop.s.records[0].grid.x, 4u);
        EXPECT_EQ(loop.s.records[1].name, "graph_relu");
        for (const KernelRecord& k : loop.s.records) {
            EXPECT_FALSE(k.measured);
            EXPECT_EQ(k.scopePath, "Train step 0"); // one step: no numbered family yet
        }
        // The exit line says why they have no counters, with the graph's reason when one ran as
        // it is while launches were replaced.
        cupti::noteGraphRanAsItIs("the graph has a conditional node");
        cupti::noteGraphRanAsItIs("a later reason"); // the first one stays
        EXPECT_EQ(loop.s.whyUnmeasured(2), "; 2 of them kernels of CUDA graphs that ran as they "
                                           "are (the graph has a conditional node)");
        EXPECT_EQ(loop.s.whyUnmeasured(0), "");
        // Every other kind of record without counters is accounted for too: one cut short, then
        // the most frequent remaining note, then how many are left.
        std::vector<KernelRecord> kept = loop.s.records;
        loop.s.records = {unmeasuredWith("not measured: the profile stopped before a launch of its "
                                         "signature was measured (run more iterations)"),
                          unmeasuredWith("no counters: the device's memory has no room; more"),
                          unmeasuredWith("no counters: the device's memory has no room"),
                          unmeasuredWith("timing only"), unmeasuredWith("")};
        EXPECT_EQ(loop.s.whyUnmeasured(5),
                  "; 1 of them not measured before the session stopped: run more steps; 2 of them: "
                  "no counters: the device's memory has no room; 2 more for other reasons "
                  "(`roofline report --group-by launch` gives each launch's note)");
        loop.s.records = {unmeasuredWith("")};
        EXPECT_EQ(loop.s.whyUnmeasured(1), "; 1 of them: no reason noted");
        loop.s.records = std::move(kept);
    }
    EXPECT_EQ(core::loadRecording(path).launches.size(), 2u);
    std::remove(path.c_str());
}

// A launch skip or count selects launches in program order: each selected one is measured (reuse
// off, as Nsight Compute's --launch-skip/--launch-count measure each), and the rest of the options
// go to the collector as they are.
TEST(SessionGlue, ALaunchSkipOrCountMeasuresEachSelectedLaunch) {
    const auto config = [](const Options& o) {
        return collectorConfig(resolveSettings(o, core::ProcessIdentity{}, Capabilities{}));
    };
    Options o;
    o.reuseSamples = 2;
    EXPECT_EQ(config(o).reuseSamples, 2u);
    o.launchCount = 10;
    EXPECT_EQ(config(o).reuseSamples, 0u);
    EXPECT_EQ(config(o).options.launchCount, 10u);
    o.launchCount = 0;
    o.launchSkip = 100;
    EXPECT_EQ(config(o).reuseSamples, 0u);
    EXPECT_EQ(config(o).options.launchSkip, 100u);
}

// A session begun as `roofline run` begins one (process-wide scopes) on the fake device, its
// recording going to `path`; returns the fake backend.
FakeBackend* startedAsRun(SessionState& s, const std::string& path) {
    std::remove(path.c_str());
    Options o;
    o.processScopes = true;
    CollectorConfig config;
    FakeBackend* fake = fakeDevice(s, path, o, config, 1);
    s.begin(config, {s.devices[0].backend.get()}, Level::Counters);
    return fake;
}

// A program's launches into a session, as the driver callbacks feed them (entry, the kernel on
// the fake device, exit), with the step (`current`, the caller's) at which the session went idle.
struct ProgramLaunches {
    SessionState& s;
    FakeBackend* fake;
    std::uint64_t launches = 0;
    int idleFromStep = -1, current = 0;
    void operator()(const std::string& name, std::uint32_t gridX) {
        ++launches;
        if (s.idleWallNs != 0) {
            if (idleFromStep < 0)
                idleFromStep = current;
            return;
        }
        cupti::LaunchEvent e;
        e.launch.mangledName = name.c_str();
        e.launch.grid = {gridX, 1, 1};
        e.launch.block = {128, 1, 1};
        e.launch.correlationId = launches;
        s.onLaunch(e);
        // The step this launch ends may leave nothing to measure: the session goes idle inside
        // the launch's entry, its backend gone, and the kernel runs unfollowed.
        if (s.idleWallNs == 0)
            fake->kernel(1 + gridX);
        cupti::LaunchEvent exit;
        exit.exit = true;
        s.onLaunch(exit);
    }
};

// A program that opens no range at all (an eager PyTorch loop, a C++ trainer written for ncu):
// model set-up launches, then steps of identical layers with a first step that differs. Under
// `roofline run`'s process-wide scopes the step is found in the launch stream: one whole step
// is measured in program order, every launch with its values, and the session goes idle.
TEST(SessionGlue, AProgramWithNoRangeGetsItsStepFromTheLaunchStream) {
    const std::string path = tempPath("session-glue-no-nvtx");
    SessionState s;
    ProgramLaunches launch{s, startedAsRun(s, path)};
    ASSERT_NE(s.foundSteps, nullptr);
    int& idleFromStep = launch.idleFromStep;
    int& current = launch.current;
    constexpr int kLayers = 4;
    constexpr std::uint64_t kStep = 1 + 2 * kLayers + 1 + kLayers + 1;
    for (int i = 0; i < 5; ++i)
        launch("init_weights", 16); // set-up
    for (current = 0; current < 320; ++current) {
        launch("embedding", 4);
        for (int l = 0; l < kLayers; ++l) {
            launch("matmul_forward", 4);
            launch("layernorm_forward", 2);
        }
        launch("classifier", 8);
        for (int l = 0; l < kLayers; ++l)
            launch("matmul_backward", 4);
        if (current == 0)
            launch("adamw_init", 2); // lazy optimizer state in the first step
        launch("adamw", 8);
    }
    // Found once the stream held the step for LaunchCycle::kConfirmLaunches launches.
    EXPECT_GT(idleFromStep, static_cast<int>(LaunchCycle::kConfirmLaunches / kStep))
        << "idle once the profile was complete";
    EXPECT_LT(idleFromStep, static_cast<int>(LaunchCycle::kConfirmLaunches / kStep) + 20);
    const FoundSteps::Summary found = s.foundSteps->summary();
    EXPECT_EQ(found.cycle, kStep);
    EXPECT_FALSE(found.programRanges);
    s.finish();
    ASSERT_EQ(s.records.size(), kStep);
    EXPECT_TRUE(s.recorded.coverage.complete()) << report::describe(s.recorded.coverage);
    EXPECT_EQ(s.recorded.coverage.launchesPerIteration, kStep);
    for (const KernelRecord& k : s.records) {
        EXPECT_TRUE(k.measured) << k.name << ": " << k.note;
        EXPECT_EQ(k.scopePath, "step #") << k.name;
    }
    EXPECT_EQ(openProcessRanges(), 0u) << "the found step closes with the session";
    EXPECT_EQ(s.whyNoRecord(0), "") << "records: nothing to explain";
    std::remove(path.c_str());
}

// A program that opens no range, whose framework tells where each step ends (PyTorch's hook at
// an optimizer's step): the step is the launches from one end to the next -- known at the
// second step, long before the launch stream would have held a cycle for
// LaunchCycle::kConfirmLaunches launches -- and the set-up before the first end is no step.
TEST(SessionGlue, AProgramWithNoRangeGetsItsStepFromItsFramework) {
    const std::string path = tempPath("session-glue-framework-step");
    SessionState s;
    ProgramLaunches launch{s, startedAsRun(s, path)};
    ASSERT_NE(s.foundSteps, nullptr);
    int& idleFromStep = launch.idleFromStep;
    int& current = launch.current;
    for (int i = 0; i < 5; ++i)
        launch("init_weights", 16); // set-up
    constexpr int kLayers = 3;
    constexpr std::uint64_t kStep = 1 + kLayers + kLayers + 1;
    for (current = 0; current < 20 && idleFromStep < 0; ++current) {
        launch("embedding", 4);
        for (int l = 0; l < kLayers; ++l)
            launch("matmul_forward", 4);
        for (int l = 0; l < kLayers; ++l)
            launch("matmul_backward", 4);
        launch("adamw", 8);
        if (s.idleWallNs == 0)
            frameworkStepEnds("torch.optim.AdamW");
    }
    EXPECT_GE(idleFromStep, 2) << "steps 1 and 2 are the first whole ones";
    EXPECT_LE(idleFromStep, 8) << "idle once the profile was complete, not searched for";
    const FoundSteps::Summary found = s.foundSteps->summary();
    EXPECT_EQ(found.cycle, 0u) << "no cycle confirmed in so few launches";
    EXPECT_GE(found.frameworkSteps, 2u);
    EXPECT_EQ(found.source, "torch.optim.AdamW's step");
    s.finish();
    ASSERT_EQ(s.records.size(), kStep);
    EXPECT_TRUE(s.recorded.coverage.complete()) << report::describe(s.recorded.coverage);
    for (const KernelRecord& k : s.records) {
        EXPECT_TRUE(k.measured) << k.name << ": " << k.note;
        EXPECT_EQ(k.scopePath, "step #") << k.name;
        EXPECT_NE(k.name, "init_weights") << "set-up is no step";
    }
    EXPECT_EQ(s.records.front().name, "embedding") << "a step begins after the last one's end";
    EXPECT_EQ(s.records.back().name, "adamw");
    EXPECT_EQ(openProcessRanges(), 0u);
    std::remove(path.c_str());
}

// A step found in the launch stream that stops repeating once measuring began (a decoding loop
// whose kernels change as its cache grows): its records have no counters, and running more steps
// would not help -- the exit line says so, and what measures such a program.
TEST(SessionGlue, AStepThatStopsRepeatingSaysSoAtExit) {
    const std::string path = tempPath("session-glue-stops-repeating");
    SessionState s;
    ProgramLaunches launch{s, startedAsRun(s, path)};
    ASSERT_NE(s.foundSteps, nullptr);
    constexpr int kStep = 16;
    const auto step = [&] {
        for (int k = 0; k < kStep; ++k)
            launch("kernel_" + std::to_string(k), 4);
    };
    // Until the second found step (the first is observed only) has run whole.
    for (int i = 0; i < 1000 && s.foundSteps->summary().steps < 2; ++i)
        step();
    ASSERT_EQ(s.foundSteps->summary().steps, 2u);
    for (int i = 0; i < 3000; ++i)
        launch("decode_" + std::to_string(i), 4); // never the same launches again
    s.finish();
    ASSERT_EQ(s.records.size(), static_cast<std::size_t>(kStep));
    std::size_t unmeasured = 0;
    for (const KernelRecord& k : s.records)
        unmeasured += k.measured ? 0 : 1;
    ASSERT_EQ(unmeasured, s.records.size());
    const std::string why = s.whyNoRecord(unmeasured);
    EXPECT_NE(why.find("stopped repeating after 2 steps"), std::string::npos) << why;
    EXPECT_NE(why.find("--mode window"), std::string::npos) << why;
    EXPECT_EQ(s.whyNoRecord(unmeasured - 1), "") << "some counters: said launch by launch";
    // Some with counters: those without are not said to want more steps of the same program.
    s.records.front().measured = true;
    const std::string some = s.whyUnmeasured(unmeasured - 1);
    EXPECT_NE(some.find("; 15 of them not measured: the step found in the launch stream (16 "
                        "launches) stopped repeating after 2 steps"),
              std::string::npos)
        << some;
    EXPECT_NE(some.find("--mode window"), std::string::npos) << some;
    EXPECT_EQ(some.find("run more steps"), std::string::npos) << some;
    std::remove(path.c_str());
}

// A JAX program (no range of its own): XLA annotates each run of a jitted executable ("XlaModule"
// in NVTX domain "TSL") and each operation in it ("Thunk"). Those are not the program's steps; the
// step is a run of the executable that ran twice with the most launches -- not JAX's eager
// operations (each an executable of a launch or two, run over and over at set-up and between
// steps), nor set-up run once, nor an evaluation that runs now and then with fewer launches. The
// operations name the launches' operator, phase and module, and stay out of their scope paths.
TEST(SessionGlue, AJaxProgramsStepIsARunOfItsJittedStep) {
    const std::string path = tempPath("session-glue-xla-step");
    SessionState s;
    ProgramLaunches launch{s, startedAsRun(s, path)};
    ASSERT_NE(s.foundSteps, nullptr);
    // As the NVTX listener hands them on.
    const auto push = [](const std::string& name) { nvtxPushed("TSL", name.c_str()); };
    const auto pop = [] { nvtxPopped("TSL"); };
    // A kernel "k" runs in operation "Thunk:#name=jit(<fn>)/<where>,hlo_op=k.1,...#".
    const auto run = [&](const std::string& fn, const std::vector<std::string>& kernels,
                         const std::string& where) {
        push("XlaModule:#hlo_module=jit_" + fn + ",program_id=7#");
        for (const std::string& k : kernels) {
            push("Thunk:#name=jit(" + fn + ")/" + where + ",hlo_op=" + k +
                 ".1,unique_hlo_op_id=4#");
            launch(k, 4);
            pop();
        }
        pop();
    };
    for (int layer = 0; layer < 6; ++layer) { // initialisation, eager
        run("_normal", {"rng_fusion", "rng_fusion", "multiply_fusion"}, "mul");
        run("convert_element_type", {"convert_fusion"}, "convert_element_type");
    }
    run("init_optimizer", std::vector<std::string>(9, "broadcast"), "broadcast_in_dim");
    std::vector<std::string> step;
    for (int layer = 0; layer < 3; ++layer)
        for (const char* k : {"gemm_fusion", "loop_gelu_fusion", "input_reduce_fusion"})
            step.push_back(k);
    step.push_back("loop_subtract_fusion");
    for (launch.current = 0; launch.current < 30 && launch.idleFromStep < 0; ++launch.current) {
        run("split", {"threefry"}, "threefry2x32"); // a fresh key each step, eager
        run("step", step, "transpose(jvp(MLP))/Dense_0/dot_general");
        if (launch.current % 4 == 3)
            run("eval", std::vector<std::string>(8, "gemm_fusion"), "MLP/Dense_0/dot_general");
    }
    EXPECT_GE(launch.idleFromStep, 2);
    EXPECT_LE(launch.idleFromStep, 12) << "idle once the profile was complete";
    const FoundSteps::Summary found = s.foundSteps->summary();
    EXPECT_FALSE(found.programRanges) << "XLA's annotations are not the program's ranges";
    EXPECT_EQ(found.source, "a run of XLA executable jit_step");
    s.finish();
    std::vector<std::string> measured{"threefry"}; // a step begins after the last one's end
    measured.insert(measured.end(), step.begin(), step.end());
    ASSERT_EQ(s.records.size(), measured.size());
    EXPECT_TRUE(s.recorded.coverage.complete()) << report::describe(s.recorded.coverage);
    for (std::size_t i = 0; i < measured.size(); ++i) {
        const KernelRecord& k = s.records[i];
        EXPECT_EQ(k.name, measured[i]);
        EXPECT_TRUE(k.measured) << k.name << ": " << k.note;
        EXPECT_EQ(k.scopePath, "step #") << "XLA's ranges are no scopes";
        if (i == 0) {
            EXPECT_EQ(k.op, "jax::threefry2x32");
            EXPECT_EQ(k.module, "split");
            continue;
        }
        EXPECT_EQ(k.op, "jax::dot_general") << k.name;
        EXPECT_EQ(k.phase, "backward") << k.name;
        EXPECT_EQ(k.module, "MLP.Dense_0") << k.name;
    }
    EXPECT_EQ(openProcessRanges(), 0u);
    std::remove(path.c_str());
}

// Notes that differ only in the figures they quote (the free memory at each window) are one
// reason on the exit line, given as the latest of them.
TEST(SessionGlue, TheExitLineCountsNotesThatDifferOnlyInAFigureAsOneReason) {
    SessionState s;
    s.records = {unmeasuredWith("no counters: no room (105.4 GiB in use, 34.4 GiB free)"),
                 unmeasuredWith("no counters: no room (105.5 GiB in use, 34.3 GiB free)"),
                 unmeasuredWith("no counters: no room (99 GiB in use, 7 GiB free)"),
                 unmeasuredWith("timing only")};
    EXPECT_EQ(s.whyUnmeasured(4),
              "; 3 of them: no counters: no room (99 GiB in use, 7 GiB free); 1 more for other "
              "reasons (`roofline report --group-by launch` gives each launch's note)");
}

// The exit line gives what the profile cost: its ranges, its passes and the seconds libroofline
// spent (set-up, passes, profiler objects, decoding, windows' memory and waits); nothing where no
// range was measured.
TEST(SessionGlue, TheExitLineSaysWhatTheProfileCost) {
    SessionState s;
    s.setupMs = 100;
    CollectionCounts c;
    c.level = Level::Counters;
    BackendCost cost;
    cost.ranges = 1204;
    cost.starts = 15;
    cost.startMs = 1000;
    cost.passMs = 800;
    cost.stopMs = 50;
    cost.evaluationMs = 40;
    cost.memoryMs = 10;
    const double injected = collect::injectionMs(); // the injection's own set-up, if any
    char expected[96];
    std::snprintf(expected, sizeof expected, "; 1204 ranges in 15 passes, %.1f s",
                  (2000 + injected) / 1000.0);
    EXPECT_EQ(s.profileCost(c, cost), expected);
    c.level = Level::TimingOnly;
    EXPECT_EQ(s.profileCost(c, cost), "");
    c.level = Level::Counters;
    EXPECT_EQ(s.profileCost(c, BackendCost{}), "") << "no range measured";
}

// The exit line's launches outside every step: the records no window measured, how many took
// the step's counters and why the others have none; beyond the records' bound, how many got no
// record and how many of those ran the step's kernels at its launch shapes.
TEST(SessionGlue, TheExitLineCountsLaunchesOutsideTheStepsAndWhatTheyRan) {
    SessionState s;
    CollectionCounts c;
    EXPECT_EQ(s.unrecordedOutside(c), "") << "none";
    c.tally.outsideIterations = 1025;
    EXPECT_EQ(s.unrecordedOutside(c), "") << "no record at all: whyNoRecord says why";
    s.records.resize(1);
    EXPECT_EQ(s.unrecordedOutside(c),
              "; 1025 launches outside every step (set-up, warm-up, between steps) got no record");
    c.outsideAlikeStep = 980;
    c.outsideWhy = "the process allocated pinned memory";
    EXPECT_EQ(s.unrecordedOutside(c),
              "; 1025 launches outside every step (set-up, warm-up, between steps) got no "
              "record, 980 of them the step's kernels at its launch shapes, measured in the step "
              "(the process allocated pinned memory)");
    c.tally.outsideIterations = 0;
    c.tally.outsideRecords = 99;
    c.tally.outsideLent = 99;
    EXPECT_EQ(s.unrecordedOutside(c),
              "; 99 records of launches outside every step (set-up, warm-up, between steps) that "
              "no window measured: each took the counters its signature has in the step");
    c.tally.outsideLent = 96;
    EXPECT_EQ(s.unrecordedOutside(c),
              "; 99 records of launches outside every step (set-up, warm-up, between steps) that "
              "no window measured: 96 took the counters their signature has in the step, 3 have "
              "none (the process allocated pinned memory)");
    c.tally.outsideLent = 50;
    c.tally.outsideAwaiting = 46; // where ranks share the profile
    EXPECT_EQ(s.unrecordedOutside(c),
              "; 99 records of launches outside every step (set-up, warm-up, between steps) that "
              "no window measured: 50 took the counters their signature has in the step, 46 take "
              "them from another rank's step (`roofline merge`), 3 have none (the process "
              "allocated pinned memory)");
    c.tally.outsideLent = 0;
    c.tally.outsideAwaiting = 0;
    EXPECT_EQ(s.unrecordedOutside(c),
              "; 99 records of launches outside every step (set-up, warm-up, between steps) that "
              "no window measured: none took counters from the step (the process allocated "
              "pinned memory)");
    // Their notes are accounted for there, not again among the other reasons.
    const KernelRecord k = unmeasuredWith(
        "no counters: ran outside every step (between steps), where no window measured it");
    const KernelRecord elsewhere =
        unmeasuredWith("counters measured on rank 1 (the ranks share the profile): `roofline "
                       "merge` of the ranks' recordings fills them in");
    s.records = {k, k, k, elsewhere};
    EXPECT_EQ(s.whyUnmeasured(4), "") << "the records measured on other ranks are said apart";
}
