// The sampled job's recording (docs/design/0029): streamed batch by batch, read back after the
// writer was killed at any point.
#include "core/json_number.hpp"
#include "core/recording_file.hpp"
#include "core/sampled_recording.hpp"
#include "h100_device.hpp"

#include <roofline/error.hpp>

#include <gtest/gtest.h>

#include <csignal>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

using namespace roofline;
using namespace roofline::core;

namespace {

SampledHeader header() {
    SampledHeader h;
    h.libraryVersion = "0.1.0";
    h.device = test::everyDeviceField();
    h.counters = {"sm__cycles_elapsed.avg", "dram__bytes.sum"};
    h.periodNs = 100000;
    h.ringSteps = 16;
    h.pid = 4242;
    h.rank = 3;
    h.worldSize = 8;
    h.startedUnixNs = 1790000000123456789ull;
    return h;
}

SampledBatch batch(std::uint64_t first) {
    SampledBatch b;
    b.writtenUnixNs = 1790000001000000000ull + first;
    for (std::uint64_t i = first; i < first + 2; ++i) {
        SampledStep s;
        s.index = i;
        s.steps = 3 + i;
        s.startNs = 1000 * i + 5;
        s.endNs = 1000 * i + 900;
        s.kernels = 7 + i;
        s.kernelNs = 800;
        s.values = {1.5 * static_cast<double>(i + 1), 2e9};
        s.between = {0.25, 3e6};
        s.coveredNs = 790;
        s.estimatedKernels = 2;
        s.kernelRecords = i % 2 == 0; // one step of each batch without records
        b.steps.push_back(s);
    }
    b.signatures.push_back({"gemm<float, 128>(float const*, float*)",
                            "Train step/forward",
                            24 + first,
                            7200000,
                            {5.5, 9.25e9},
                            3,
                            6900000});
    SampledLaunch l;
    l.step = first;
    l.name = "gemm<float, 128>(float const*, float*)";
    l.scope = "Train step/forward";
    l.startNs = 1000 * first + 10;
    l.endNs = 1000 * first + 300;
    l.values = {11.0, 4.5e8};
    l.coveredNs = 280;
    l.estimated = true;
    b.launches.push_back(l);
    return b;
}

std::string tempPath(const char* name) {
    return ::testing::TempDir() + "/" + name + "_" + std::to_string(::getpid()) + ".rfs";
}

std::string fileBytes(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

} // namespace

// Every field of the header, of each step and of each kept launch comes back as written.
TEST(SampledRecording, EveryFieldRoundTrips) {
    const std::string path = tempPath("round_trip");
    {
        SampledRecordingWriter w(path, header());
        w.append(batch(0));
        w.append(batch(2));
        EXPECT_EQ(w.batches(), 2u);
    }
    const SampledRecording r = readSampledRecording(path);
    EXPECT_TRUE(r.cut.empty()) << r.cut;
    const SampledHeader h = header();
    EXPECT_EQ(r.header.libraryVersion, h.libraryVersion);
    test::expectSameDevice(h.device, r.header.device);
    EXPECT_EQ(r.header.counters, h.counters);
    EXPECT_EQ(r.header.periodNs, h.periodNs);
    EXPECT_EQ(r.header.ringSteps, h.ringSteps);
    EXPECT_EQ(r.header.pid, h.pid);
    EXPECT_EQ(r.header.rank, h.rank);
    EXPECT_EQ(r.header.worldSize, h.worldSize);
    EXPECT_EQ(r.header.startedUnixNs, h.startedUnixNs);
    ASSERT_EQ(r.batches.size(), 2u);
    for (std::size_t b = 0; b < 2; ++b) {
        const SampledBatch want = batch(2 * b), &got = r.batches[b];
        EXPECT_EQ(got.writtenUnixNs, want.writtenUnixNs);
        ASSERT_EQ(got.steps.size(), 2u);
        for (std::size_t i = 0; i < 2; ++i) {
            const SampledStep &s = got.steps[i], &e = want.steps[i];
            EXPECT_EQ(s.index, e.index);
            EXPECT_EQ(s.steps, e.steps);
            EXPECT_EQ(s.startNs, e.startNs);
            EXPECT_EQ(s.endNs, e.endNs);
            EXPECT_EQ(s.kernels, e.kernels);
            EXPECT_EQ(s.kernelNs, e.kernelNs);
            EXPECT_EQ(s.values, e.values);
            EXPECT_EQ(s.between, e.between);
            EXPECT_EQ(s.coveredNs, e.coveredNs);
            EXPECT_EQ(s.estimatedKernels, e.estimatedKernels);
            EXPECT_EQ(s.kernelRecords, e.kernelRecords);
        }
        ASSERT_EQ(got.signatures.size(), 1u);
        const SampledSignature &g = got.signatures[0], &w = want.signatures[0];
        EXPECT_EQ(g.name, w.name);
        EXPECT_EQ(g.scope, w.scope);
        EXPECT_EQ(g.launches, w.launches);
        EXPECT_EQ(g.ns, w.ns);
        EXPECT_EQ(g.values, w.values);
        EXPECT_EQ(g.estimated, w.estimated);
        EXPECT_EQ(g.coveredNs, w.coveredNs);
        ASSERT_EQ(got.launches.size(), 1u);
        const SampledLaunch &l = got.launches[0], &e = want.launches[0];
        EXPECT_EQ(l.step, e.step);
        EXPECT_EQ(l.name, e.name);
        EXPECT_EQ(l.scope, e.scope);
        EXPECT_EQ(l.startNs, e.startNs);
        EXPECT_EQ(l.endNs, e.endNs);
        EXPECT_EQ(l.values, e.values);
        EXPECT_EQ(l.coveredNs, e.coveredNs);
        EXPECT_EQ(l.estimated, e.estimated);
    }
    std::remove(path.c_str());
}

// A file cut at any byte of its last batch -- a kill while writing it -- gives every batch before
// it, and says the next one was cut; cut inside the header it is refused, naming the file.
TEST(SampledRecording, AFileCutAnywhereKeepsEveryBatchBeforeTheCut) {
    const std::string path = tempPath("cut");
    std::size_t afterFirst = 0;
    {
        SampledRecordingWriter w(path, header());
        w.append(batch(0));
        afterFirst = fileBytes(path).size();
        w.append(batch(2));
    }
    const std::string whole = fileBytes(path);
    for (std::size_t size = afterFirst; size < whole.size(); ++size) {
        std::istringstream in(whole.substr(0, size));
        const SampledRecording r = readSampledRecording(in, "cut.rfs");
        ASSERT_EQ(r.batches.size(), 1u) << "cut at " << size;
        EXPECT_EQ(r.batches[0].steps.size(), 2u);
        EXPECT_EQ(r.cut.empty(), size == afterFirst) << "cut at " << size;
    }
    for (std::size_t size : {std::size_t{0}, std::size_t{10}, std::size_t{40}}) {
        std::istringstream in(whole.substr(0, size));
        try {
            readSampledRecording(in, "cut.rfs");
            FAIL() << "a header cut at " << size << " was read";
        } catch (const Error& e) {
            EXPECT_EQ(e.code(), ErrorCode::CorruptRecording);
            EXPECT_NE(std::string(e.what()).find("cut.rfs"), std::string::npos);
        }
    }
    std::remove(path.c_str());
}

// A writer killed with SIGKILL while it appends leaves a file the reader takes: every batch the
// writer had reported written, each whole.
TEST(SampledRecording, AWriterKilledWhileAppendingLeavesARecordingThatReads) {
    const std::string path = tempPath("killed");
    int ready[2];
    ASSERT_EQ(::pipe(ready), 0);
    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
        ::close(ready[0]);
        SampledRecordingWriter w(path, header());
        for (std::uint64_t i = 0;; i += 2) {
            w.append(batch(i));
            if (w.batches() == 50) {
                const char c = 'x';
                (void)!::write(ready[1], &c, 1);
            }
        }
    }
    ::close(ready[1]);
    char c = 0;
    ASSERT_EQ(::read(ready[0], &c, 1), 1);
    ::kill(child, SIGKILL);
    int status = 0;
    ::waitpid(child, &status, 0);
    ::close(ready[0]);
    ASSERT_TRUE(WIFSIGNALED(status));
    const SampledRecording r = readSampledRecording(path);
    ASSERT_GE(r.batches.size(), 50u);
    for (std::size_t b = 0; b < r.batches.size(); ++b) {
        ASSERT_EQ(r.batches[b].steps.size(), 2u);
        EXPECT_EQ(r.batches[b].steps[0].index, 2 * b);
        EXPECT_EQ(r.batches[b].launches.size(), 1u);
    }
    std::remove(path.c_str());
}

// A streamed container is not a recording, nor the other way round: each reader says which it
// was handed.
TEST(SampledRecording, TheTwoContainersAreToldApart) {
    const std::string path = tempPath("kinds");
    { SampledRecordingWriter w(path, header()); }
    std::ifstream in(path, std::ios::binary);
    std::uint32_t version = 0;
    const ContainerRules rules{1, [](std::uint32_t) { return 2u; }};
    try {
        readSections(in, "sampled.rfs", rules, version);
        FAIL() << "a streamed container read as a recording";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("streamed"), std::string::npos) << e.what();
    }
    std::ostringstream plain;
    SectionWriter(plain, 1, 1).add("META", reinterpret_cast<const std::uint8_t*>("{}"), 2);
    std::istringstream back(plain.str());
    EXPECT_THROW(readSampledRecording(back, "plain.rfl"), Error);
    std::remove(path.c_str());
}

namespace {

// `b` written, and refused when read with a message that names `what`.
void expectRefused(const SampledBatch& b, const char* name, const std::string& what) {
    const std::string path = tempPath(name);
    {
        SampledRecordingWriter w(path, header());
        w.append(b);
    }
    try {
        readSampledRecording(path);
        ADD_FAILURE() << name << " was read";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
    }
    std::remove(path.c_str());
}

} // namespace

// Values that do not match the header's counters, a row of no step, and a header with absurdly
// many counters, are refused naming what is wrong.
TEST(SampledRecording, ValuesThatDoNotMatchTheCountersAreRefused) {
    SampledBatch b = batch(0);
    b.steps[0].values.push_back(1.0);
    std::ostringstream out;
    {
        const std::string path = tempPath("mismatch");
        SampledRecordingWriter w(path, header());
        w.append(b);
        out << fileBytes(path);
        std::remove(path.c_str());
    }
    std::istringstream in(out.str());
    try {
        readSampledRecording(in, "mismatch.rfs");
        FAIL() << "three values for two counters were read";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("one per counter"), std::string::npos) << e.what();
    }
    // A row of no step.
    SampledBatch none = batch(0);
    none.steps[1].steps = 0;
    expectRefused(none, "nostep", "'steps'");
    SampledHeader many = header();
    many.counters.assign(300, "x");
    const std::string path = tempPath("many");
    { SampledRecordingWriter w(path, many); }
    EXPECT_THROW(readSampledRecording(path), Error);
    std::remove(path.c_str());
}

// Coverage longer than the time it is part of (written where two samples' timestamps overlapped,
// before samples were made to tile time) reads as that time: the recording stays readable.
TEST(SampledRecording, CoverageIsReadAsAtMostTheTimeItIsPartOf) {
    SampledBatch b = batch(0);
    b.steps[0].coveredNs = b.steps[0].kernelNs + 5;
    b.signatures[0].coveredNs = b.signatures[0].ns + 1;
    b.launches[0].coveredNs = 1000;
    const std::string path = tempPath("overcovered");
    {
        SampledRecordingWriter w(path, header());
        w.append(b);
    }
    const SampledRecording r = readSampledRecording(path);
    std::remove(path.c_str());
    ASSERT_EQ(r.batches.size(), 1u);
    EXPECT_EQ(r.batches[0].steps[0].coveredNs, 800u);
    EXPECT_EQ(r.batches[0].steps[1].coveredNs, 790u); // within its time: as written
    EXPECT_EQ(r.batches[0].signatures[0].coveredNs, 7200000u);
    EXPECT_EQ(r.batches[0].launches[0].coveredNs, 290u);
}

// A kernel name longer than any reader takes (Eigen's reach tens of KB; the bound is 64 KiB) is
// cut when written, as a recording's are, so that the file reads back.
TEST(SampledRecording, NamesLongerThanTheBoundAreCutWhenWritten) {
    SampledBatch b = batch(0);
    b.launches[0].name = std::string(100000, 'k');
    b.signatures[0].scope = std::string(70000, 's');
    const std::string path = tempPath("long_names");
    {
        SampledRecordingWriter w(path, header());
        w.append(b);
    }
    const SampledRecording r = readSampledRecording(path);
    ASSERT_EQ(r.batches.size(), 1u);
    EXPECT_LE(r.batches[0].launches[0].name.size(), kMaxTextBytes);
    EXPECT_EQ(r.batches[0].launches[0].name.substr(0, 10), std::string(10, 'k'));
    EXPECT_LE(r.batches[0].signatures[0].scope.size(), kMaxTextBytes);
    std::remove(path.c_str());
}
