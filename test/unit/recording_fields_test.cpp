// Every field a recording stores survives writing and reading, each with a non-default value
// (an empty string, a zero or an empty list would pass a reader that drops the field). The
// platform's thread settings among them: runs under torchrun and Slurm always set some.
#include "core/recording.hpp"

#include <roofline/error.hpp>

#include "h100_device.hpp"

#include <gtest/gtest.h>

#include <sstream>

using namespace roofline;

namespace {

core::Recording everyField() {
    core::Recording r;
    r.libraryVersion = "9.8.7";
    r.createdUtc = "2026-11-25T01:02:03Z";
    r.mode = "iteration-replay";
    r.status = "timing only: counters are restricted to administrators";
    r.cacheFlush = "on";
    r.bytes = "ncu";
    r.chip = "GH100";
    r.device = test::everyDeviceField();
    r.metrics = {"sm__cycles_elapsed.avg", "dram__bytes.sum", "lts__t_bytes.sum"};
    r.passes = 7;
    r.droppedRanges = 5;
    r.coverage.known = true;
    r.coverage.launchesPerIteration = 497;
    r.coverage.launchesVaried = true;
    r.coverage.launchesPerImage = 96;
    r.coverage.passes = 7;
    r.coverage.iterationsPerPass = 2;
    r.coverage.iterationsNeeded = 43;
    r.coverage.windows = 6;
    r.coverage.windowAcrossEnd = true;
    r.coverage.iterationsRun = 51;
    r.coverage.launchesCovered = 480;
    r.coverage.firstIterationSkipped = true;
    r.coverage.signatures = 46;
    r.coverage.rangesMeasured = 1204;
    r.process = {"node7", 4242, 3, 1, 8, "RANK"};
    r.shareIndex = 3;
    r.shareCount = 8;
    r.devicePeaks = {{"dram__bytes.sum.peak_sustained", 1280},
                     {"lts__t_bytes.sum.peak_sustained", 7680.5}};
    r.configImage = {9, 8, 7, 6};
    r.counterData = {{1, 2, 3}, {4, 5}};
    r.sessionSeconds = 12.5;
    r.profilerSeconds = 2.25;
    r.hostRunSeconds = 10.75;
    HostScope h;
    h.scopePath = "Train step #/forward";
    h.threadId = 77;
    h.calls = 5;
    h.profiledCalls = 3;
    h.profiledTimes = true;
    h.firstWallSeconds = 0.75;
    h.firstProfiled = true;
    h.steadyCalls = 4;
    h.steadyWallSeconds = 0.125;
    h.steadyCpuSeconds = 0.0625;
    h.wallSeconds = 1.5;
    h.selfWallSeconds = 0.5;
    h.cpuSeconds = 1.25;
    h.selfCpuSeconds = 0.25;
    h.launches = 40;
    h.gpuSeconds = 0.75;
    h.kernels = 8;
    h.profilerSeconds = 0.125;
    r.hostScopes = {h};
    core::Platform& p = r.platform;
    p.hostName = "gpu-node-7";
    p.os = "Linux 6.8.0";
    p.cpu = {"x86_64", "GenuineIntel",      "Xeon Platinum 8480+", 2, 112, 224, 2,
             26,       {"avx2", "avx512f"}, {"amx-tile"}};
    p.settings = {{"OMP_NUM_THREADS", "1"}, {"CUDA_VISIBLE_DEVICES", "2,3"}};
    p.gpus = {{0, "NVIDIA H100 80GB HBM3", 132, 9, 0, 1.98e9, 2.619e9, 85ull << 30},
              {1, "NVIDIA H200", 132, 9, 0, 1.98e9, 3.2e9, 141ull << 30}};
    p.gpuNote = "two of eight visible";
    p.driverVersion = "580.159.04";
    p.cudaDriverApi = "13.0";
    p.cudaBuild = "13.0.88";
    p.cupti = "2025.3.1";
    p.cudnn = "9.14.0";
    p.counters = "yes";

    core::LaunchInfo l;
    l.launchIndex = 17;
    l.name = "void k<float>(int, float*)";
    l.mangledName = "_Z1kIfEviPf";
    l.scopePath = "Train step #/Layer #";
    l.scopePathRaw = "Train step 7/Layer 3";
    l.iteration = 7;
    l.position = 12;
    l.reusedSamples = 2;
    l.replay = ReplayStatus::Differs;
    l.grid = {2, 3, 4};
    l.block = {128, 2, 1};
    l.registersPerThread = 96;
    l.sharedMemBytes = 4096;
    l.stream = 77;
    l.threadId = 1234;
    l.device = 1;
    l.rank = 3;
    l.countersRank = 5;
    l.scopeRecord = true;
    l.kernels = 6;
    l.chunk = 1;
    l.range = 42;
    l.values = {1.5, 2.5e9, 3.25};
    l.note = "iteration replay: pass 2 ran it with another grid";
    l.timingSeconds = 1.25e-5;
    l.op = "aten::addmm";
    l.phase = "backward";
    l.module = "encoder.layers.3.linear1";
    l.shapes = "[[8, 256, 512], [2048, 512], [2048]]";
    r.launches = {l};
    r.framework = {{"torch", "2.11.0+cu130"}, {"tf32.matmul", "off"}};
    return r;
}

core::Recording roundTrip(const core::Recording& r) {
    std::stringstream file;
    core::writeRecording(r, file);
    return core::readRecording(file, "every-field.rfl");
}

} // namespace

TEST(RecordingFields, EveryTopLevelAndDeviceFieldRoundTrips) {
    const core::Recording a = everyField();
    const core::Recording b = roundTrip(a);
    EXPECT_EQ(b.version, core::kRecordingVersion);
    EXPECT_EQ(b.libraryVersion, a.libraryVersion);
    EXPECT_EQ(b.createdUtc, a.createdUtc);
    EXPECT_EQ(b.mode, a.mode);
    EXPECT_EQ(b.status, a.status);
    EXPECT_EQ(b.cacheFlush, a.cacheFlush);
    EXPECT_EQ(b.bytes, a.bytes);
    EXPECT_EQ(b.chip, a.chip);
    EXPECT_EQ(b.metrics, a.metrics);
    EXPECT_EQ(b.passes, a.passes);
    EXPECT_EQ(b.droppedRanges, a.droppedRanges);
    EXPECT_EQ(b.shareIndex, a.shareIndex);
    EXPECT_EQ(b.shareCount, a.shareCount);
    EXPECT_EQ(b.configImage, a.configImage);
    EXPECT_EQ(b.counterData, a.counterData);
    test::expectSameDevice(a.device, b.device);
}

TEST(RecordingFields, CoverageProcessAndHostRoundTrip) {
    const core::Recording a = everyField();
    const core::Recording b = roundTrip(a);
    const core::Coverage &c = a.coverage, &d = b.coverage;
    EXPECT_EQ(d.known, c.known);
    EXPECT_EQ(d.launchesPerIteration, c.launchesPerIteration);
    EXPECT_EQ(d.launchesVaried, c.launchesVaried);
    EXPECT_EQ(d.launchesPerImage, c.launchesPerImage);
    EXPECT_EQ(d.passes, c.passes);
    EXPECT_EQ(d.iterationsPerPass, c.iterationsPerPass);
    EXPECT_EQ(d.iterationsNeeded, c.iterationsNeeded);
    EXPECT_EQ(d.windows, c.windows);
    EXPECT_EQ(d.windowAcrossEnd, c.windowAcrossEnd);
    EXPECT_EQ(d.iterationsRun, c.iterationsRun);
    EXPECT_EQ(d.launchesCovered, c.launchesCovered);
    EXPECT_EQ(d.firstIterationSkipped, c.firstIterationSkipped);
    EXPECT_EQ(d.signatures, 46u);
    EXPECT_EQ(d.rangesMeasured, 1204u);
    EXPECT_EQ(b.process.host, a.process.host);
    EXPECT_EQ(b.process.pid, a.process.pid);
    EXPECT_EQ(b.process.rank, a.process.rank);
    EXPECT_EQ(b.process.localRank, a.process.localRank);
    EXPECT_EQ(b.process.worldSize, a.process.worldSize);
    EXPECT_EQ(b.process.rankVariable, a.process.rankVariable);
    EXPECT_EQ(b.devicePeaks, a.devicePeaks);
    EXPECT_EQ(b.sessionSeconds, a.sessionSeconds);
    EXPECT_EQ(b.profilerSeconds, a.profilerSeconds);
    EXPECT_EQ(b.hostRunSeconds, a.hostRunSeconds);
    ASSERT_EQ(b.hostScopes.size(), 1u);
    const HostScope &h = a.hostScopes[0], &g = b.hostScopes[0];
    EXPECT_EQ(g.scopePath, h.scopePath);
    EXPECT_EQ(g.threadId, h.threadId);
    EXPECT_EQ(g.calls, h.calls);
    EXPECT_EQ(g.profiledCalls, h.profiledCalls);
    EXPECT_EQ(g.profiledTimes, h.profiledTimes);
    EXPECT_EQ(g.firstWallSeconds, h.firstWallSeconds);
    EXPECT_EQ(g.firstProfiled, h.firstProfiled);
    EXPECT_EQ(g.steadyCalls, h.steadyCalls);
    EXPECT_EQ(g.steadyWallSeconds, h.steadyWallSeconds);
    EXPECT_EQ(g.steadyCpuSeconds, h.steadyCpuSeconds);
    EXPECT_EQ(g.wallSeconds, h.wallSeconds);
    EXPECT_EQ(g.selfWallSeconds, h.selfWallSeconds);
    EXPECT_EQ(g.cpuSeconds, h.cpuSeconds);
    EXPECT_EQ(g.selfCpuSeconds, h.selfCpuSeconds);
    EXPECT_EQ(g.launches, h.launches);
    EXPECT_EQ(g.gpuSeconds, h.gpuSeconds);
    EXPECT_EQ(g.kernels, h.kernels);
    EXPECT_EQ(g.profilerSeconds, h.profilerSeconds);
}

// A platform with thread settings: the field every torchrun worker and Slurm task fills.
TEST(RecordingFields, PlatformWithSettingsRoundTrips) {
    const core::Recording a = everyField();
    const core::Recording b = roundTrip(a);
    const core::Platform &p = a.platform, &q = b.platform;
    EXPECT_EQ(q.hostName, p.hostName);
    EXPECT_EQ(q.os, p.os);
    EXPECT_EQ(q.cpu.architecture, p.cpu.architecture);
    EXPECT_EQ(q.cpu.vendor, p.cpu.vendor);
    EXPECT_EQ(q.cpu.model, p.cpu.model);
    EXPECT_EQ(q.cpu.sockets, p.cpu.sockets);
    EXPECT_EQ(q.cpu.cores, p.cpu.cores);
    EXPECT_EQ(q.cpu.threads, p.cpu.threads);
    EXPECT_EQ(q.cpu.numaNodes, p.cpu.numaNodes);
    EXPECT_EQ(q.cpu.allowedThreads, p.cpu.allowedThreads);
    EXPECT_EQ(q.cpu.isa, p.cpu.isa);
    EXPECT_EQ(q.cpu.isaDisabled, p.cpu.isaDisabled);
    EXPECT_EQ(q.settings, p.settings);
    ASSERT_EQ(q.gpus.size(), p.gpus.size());
    for (std::size_t i = 0; i < p.gpus.size(); ++i) {
        EXPECT_EQ(q.gpus[i].ordinal, p.gpus[i].ordinal);
        EXPECT_EQ(q.gpus[i].name, p.gpus[i].name);
        EXPECT_EQ(q.gpus[i].smCount, p.gpus[i].smCount);
        EXPECT_EQ(q.gpus[i].computeMajor, p.gpus[i].computeMajor);
        EXPECT_EQ(q.gpus[i].computeMinor, p.gpus[i].computeMinor);
        EXPECT_EQ(q.gpus[i].smClockHz, p.gpus[i].smClockHz);
        EXPECT_EQ(q.gpus[i].memoryClockHz, p.gpus[i].memoryClockHz);
        EXPECT_EQ(q.gpus[i].memoryBytes, p.gpus[i].memoryBytes);
    }
    EXPECT_EQ(q.gpuNote, p.gpuNote);
    EXPECT_EQ(q.driverVersion, p.driverVersion);
    EXPECT_EQ(q.cudaDriverApi, p.cudaDriverApi);
    EXPECT_EQ(q.cudaBuild, p.cudaBuild);
    EXPECT_EQ(q.cupti, p.cupti);
    EXPECT_EQ(q.cudnn, p.cudnn);
    EXPECT_EQ(q.counters, p.counters);
}

TEST(RecordingFields, EveryLaunchFieldRoundTrips) {
    const core::Recording a = everyField();
    const core::Recording b = roundTrip(a);
    ASSERT_EQ(b.launches.size(), 1u);
    const core::LaunchInfo &l = a.launches[0], &m = b.launches[0];
    EXPECT_EQ(m.launchIndex, l.launchIndex);
    EXPECT_EQ(m.name, l.name);
    EXPECT_EQ(m.mangledName, l.mangledName);
    EXPECT_EQ(m.scopePath, l.scopePath);
    EXPECT_EQ(m.scopePathRaw, l.scopePathRaw);
    EXPECT_EQ(m.iteration, l.iteration);
    EXPECT_EQ(m.position, l.position);
    EXPECT_EQ(m.reusedSamples, l.reusedSamples);
    EXPECT_EQ(m.replay, l.replay);
    EXPECT_EQ(m.grid.x, l.grid.x);
    EXPECT_EQ(m.grid.y, l.grid.y);
    EXPECT_EQ(m.grid.z, l.grid.z);
    EXPECT_EQ(m.block.x, l.block.x);
    EXPECT_EQ(m.block.y, l.block.y);
    EXPECT_EQ(m.block.z, l.block.z);
    EXPECT_EQ(m.registersPerThread, l.registersPerThread);
    EXPECT_EQ(m.sharedMemBytes, l.sharedMemBytes);
    EXPECT_EQ(m.stream, l.stream);
    EXPECT_EQ(m.threadId, l.threadId);
    EXPECT_EQ(m.device, l.device);
    EXPECT_EQ(m.rank, l.rank);
    EXPECT_EQ(m.countersRank, l.countersRank);
    EXPECT_EQ(m.scopeRecord, l.scopeRecord);
    EXPECT_EQ(m.kernels, l.kernels);
    EXPECT_EQ(m.chunk, l.chunk);
    EXPECT_EQ(m.range, l.range);
    EXPECT_EQ(m.values, l.values);
    EXPECT_EQ(m.note, l.note);
    EXPECT_EQ(m.timingSeconds, l.timingSeconds);
    EXPECT_EQ(m.op, l.op);
    EXPECT_EQ(m.phase, l.phase);
    EXPECT_EQ(m.module, l.module);
    EXPECT_EQ(m.shapes, l.shapes);
    EXPECT_EQ(b.framework, a.framework);
}

// A recording written under a launcher's environment reads back: the settings this process
// itself reports, whatever they are, plus one set here.
TEST(RecordingFields, ThisMachinesPlatformWithAThreadSettingReadsBack) {
    core::Recording a = everyField();
    a.platform = core::readHostPlatform();
    a.platform.settings.emplace_back("OMP_NUM_THREADS", "4");
    const core::Recording b = roundTrip(a);
    EXPECT_EQ(b.platform.settings, a.platform.settings);
    EXPECT_EQ(b.platform.cpu.model, a.platform.cpu.model);
}

// A share that names a rank outside its ranks is refused as damage, not read as a share.
TEST(RecordingFields, AShareOutsideItsRanksIsCorrupt) {
    core::Recording a = everyField();
    a.shareIndex = 8;
    a.shareCount = 8;
    try {
        roundTrip(a);
        FAIL() << "read back";
    } catch (const Error& e) {
        EXPECT_EQ(e.code(), ErrorCode::CorruptRecording);
        EXPECT_NE(std::string(e.what()).find("its share names rank 8 of 8"), std::string::npos)
            << e.what();
    }
}
