// The recording format: round trip, and a clear error (never a crash) for every kind of damage.
#include "core/recording.hpp"
#include "report/recording_text.hpp"

#include <roofline/error.hpp>

#include <gtest/gtest.h>

#include <sstream>

#include <zstd.h>

using namespace roofline;

namespace {

core::Recording sample() {
    core::Recording r;
    r.libraryVersion = "0.1.0";
    r.createdUtc = "2026-11-22T00:00:00Z";
    r.mode = "kernel-replay";
    r.chip = "GH100";
    r.device.name = "NVIDIA H100 80GB HBM3";
    r.device.chip = "GH100";
    r.device.computeMajor = 9;
    r.device.smCount = 132;
    r.device.smClockHz = 1.98e9;
    r.device.l2Bytes = 50u << 20;
    r.metrics = {"sm__cycles_elapsed.avg", "dram__bytes.sum"};
    r.passes = 7;
    r.droppedRanges = 1;
    r.configImage.assign(1000, 7);
    r.counterData.push_back(std::vector<std::uint8_t>(100000, 0));
    r.counterData[0][500] = 42;
    core::LaunchInfo l;
    l.launchIndex = 0;
    l.name = "void k<float>(int, float*)";
    l.mangledName = "_Z1kIfEviPf";
    l.scopePath = "a/b";
    l.grid = {2, 3, 4};
    l.block = {128, 1, 1};
    l.stream = 77;
    l.chunk = 0;
    l.range = 0;
    r.launches = {l};
    l.launchIndex = 1;
    l.chunk = -1;
    r.launches.push_back(l);
    return r;
}

std::string bytesOf(const core::Recording& r) {
    std::ostringstream out;
    core::writeRecording(r, out);
    return out.str();
}

core::Recording parse(const std::string& bytes) {
    std::istringstream in(bytes);
    return core::readRecording(in, "test.rfl");
}

ErrorCode codeOf(const std::string& bytes) {
    try {
        parse(bytes);
    } catch (const Error& e) {
        return e.code();
    }
    return ErrorCode::InvalidState; // "no error"
}

} // namespace

TEST(Recording, RoundTrip) {
    const auto original = sample();
    const std::string bytes = bytesOf(original);
    EXPECT_LT(bytes.size(), 10000u) << "counter data should be compressed";
    const auto r = parse(bytes);
    EXPECT_EQ(r.version, core::kRecordingVersion);
    EXPECT_EQ(r.chip, "GH100");
    EXPECT_EQ(r.device.name, original.device.name);
    EXPECT_EQ(r.device.computeMajor, 9);
    EXPECT_EQ(r.device.l2Bytes, original.device.l2Bytes);
    EXPECT_EQ(r.metrics, original.metrics);
    EXPECT_EQ(r.passes, 7u);
    EXPECT_EQ(r.droppedRanges, 1u);
    EXPECT_EQ(r.configImage, original.configImage);
    EXPECT_EQ(r.counterData, original.counterData);
    ASSERT_EQ(r.launches.size(), 2u);
    EXPECT_EQ(r.launches[0].name, original.launches[0].name);
    EXPECT_EQ(r.launches[0].scopePath, "a/b");
    EXPECT_EQ(r.launches[0].grid.z, 4u);
    EXPECT_EQ(r.launches[0].stream, 77u);
    EXPECT_EQ(r.launches[1].chunk, -1);
    EXPECT_FALSE(r.coverage.known); // none in the sample
}

TEST(Recording, CoverageScopeRawAndIterationRoundTrip) {
    auto original = sample();
    original.coverage.known = true;
    original.coverage.launchesPerIteration = 500;
    original.coverage.launchesPerImage = 96;
    original.coverage.passes = 7;
    original.coverage.iterationsPerPass = 1;
    original.coverage.iterationsNeeded = 42;
    original.coverage.iterationsRun = 50;
    original.coverage.launchesCovered = 480;
    original.launches[0].scopePathRaw = "Train step 7/Layer 3";
    original.launches[0].iteration = 7;
    const auto r = parse(bytesOf(original));
    ASSERT_TRUE(r.coverage.known);
    EXPECT_EQ(r.coverage.iterationsNeeded, 42u);
    EXPECT_EQ(r.coverage.launchesCovered, 480u);
    EXPECT_FALSE(r.coverage.complete());
    EXPECT_EQ(report::describe(r.coverage),
              "one iteration = 500 launches: 42 iterations needed (6 windows of 96 ranges x 7 "
              "passes), 50 run, 480 of 500 launches covered (incomplete: run more iterations)");
    EXPECT_EQ(r.launches[0].scopePathRaw, "Train step 7/Layer 3");
    EXPECT_EQ(r.launches[0].iteration, 7);
    EXPECT_EQ(r.launches[1].iteration, -1);
    // With reuse's signatures and the ranges the profile measured (absent above: not known).
    original.coverage.signatures = 46;
    original.coverage.rangesMeasured = 1204;
    original.coverage.launchesCovered = 500;
    EXPECT_EQ(report::describe(parse(bytesOf(original)).coverage),
              "one iteration = 500 launches of 46 signatures: 42 iterations needed (6 windows of "
              "96 ranges x 7 passes), 50 run, 500 of 500 launches covered (complete); 1204 "
              "ranges measured");
}

// Per-rank recordings of one job: the process that recorded survives a recording.
TEST(Recording, ProcessRoundTrip) {
    auto original = sample();
    EXPECT_EQ(parse(bytesOf(original)).process.pid, 0); // not recorded: no "process" object
    original.process.host = "node7";
    original.process.pid = 4242;
    original.process.rank = 3;
    original.process.localRank = 1;
    original.process.worldSize = 8;
    original.process.rankVariable = "RANK";
    const auto r = parse(bytesOf(original));
    EXPECT_EQ(r.process.host, "node7");
    EXPECT_EQ(r.process.pid, 4242);
    EXPECT_EQ(r.process.rank, 3);
    EXPECT_EQ(r.process.localRank, 1);
    EXPECT_EQ(r.process.worldSize, 8);
    EXPECT_EQ(r.process.rankVariable, "RANK");
}

// Repeated launches (design 0009): a record's position in its iteration and its reuse survive a
// recording, and reach the evaluated record.
TEST(Recording, PositionAndReuseRoundTrip) {
    auto original = sample();
    original.launches[0].position = 12;
    original.launches[0].reusedSamples = 2;
    const auto r = parse(bytesOf(original));
    ASSERT_EQ(r.launches.size(), 2u);
    EXPECT_EQ(r.launches[0].position, 12);
    EXPECT_EQ(r.launches[0].reusedSamples, 2u);
    EXPECT_EQ(r.launches[1].position, -1); // unknown
    EXPECT_EQ(r.launches[1].reusedSamples, 0u);
    const KernelRecord k = core::unmeasuredRecord(r.launches[0], "test");
    EXPECT_EQ(k.position, 12);
    EXPECT_EQ(k.reusedSamples, 2u);
}

// Occupancy: the device's per-SM limits and each launch's registers and shared memory
// survive a recording, and give the evaluated record its resident blocks and waves.
TEST(Recording, OccupancyRoundTrip) {
    auto original = sample();
    original.device.occupancy = {2048, 32, 65536, 233472, 1024};
    original.launches[0].registersPerThread = 128;
    original.launches[0].sharedMemBytes = 0;
    const auto r = parse(bytesOf(original));
    EXPECT_EQ(r.device.occupancy.registersPerSm, 65536);
    EXPECT_EQ(r.device.occupancy.reservedSharedPerBlock, 1024);
    EXPECT_EQ(r.launches[0].registersPerThread, 128);
    EXPECT_EQ(r.launches[1].registersPerThread, -1); // unknown
    std::vector<KernelRecord> records = {core::unmeasuredRecord(r.launches[0], "test"),
                                         core::unmeasuredRecord(r.launches[1], "test")};
    core::addOccupancy(records, r.device);
    // 128-thread blocks of 128 registers per thread: 16384 registers each, 4 per SM; the grid's
    // 24 blocks fit in one wave on 132 SMs.
    EXPECT_EQ(records[0].residentBlocksPerSm, 4);
    EXPECT_EQ(records[0].waves, 1.0);
    EXPECT_EQ(records[1].residentBlocksPerSm, 0);
    EXPECT_EQ(records[1].waves, 0.0);
}

TEST(Recording, EveryTruncationIsReportedAsCorrupt) {
    const std::string bytes = bytesOf(sample());
    for (std::size_t n = 0; n < bytes.size(); n += (n < 64 ? 1 : 97)) {
        const ErrorCode code = codeOf(bytes.substr(0, n));
        EXPECT_EQ(code, ErrorCode::CorruptRecording) << "truncated at " << n;
    }
}

TEST(Recording, DamageIsDetected) {
    const std::string good = bytesOf(sample());
    for (std::size_t at : {std::size_t{20}, std::size_t{60}, good.size() / 2, good.size() - 3}) {
        std::string bad = good;
        bad[at] = static_cast<char>(bad[at] ^ 0x5a);
        EXPECT_EQ(codeOf(bad), ErrorCode::CorruptRecording) << "flipped byte " << at;
    }
    EXPECT_EQ(codeOf("not a recording at all"), ErrorCode::CorruptRecording);
    EXPECT_EQ(codeOf(""), ErrorCode::CorruptRecording);
}

TEST(Recording, NewerVersionsAreRefusedByName) {
    std::string bytes = bytesOf(sample());
    bytes[8] = 9; // format version field
    try {
        parse(bytes);
        FAIL();
    } catch (const Error& e) {
        EXPECT_EQ(e.code(), ErrorCode::UnsupportedVersion);
        EXPECT_NE(std::string(e.what()).find("v9"), std::string::npos) << e.what();
    }
}

TEST(Recording, InconsistentMetadataIsRefused) {
    auto r = sample();
    r.launches[0].chunk = 3; // no such chunk
    EXPECT_EQ(codeOf(bytesOf(r)), ErrorCode::CorruptRecording);
    r = sample();
    r.metrics.clear();
    EXPECT_EQ(codeOf(bytesOf(r)), ErrorCode::CorruptRecording);
}

TEST(Recording, MissingFileIsAnIoError) {
    try {
        core::loadRecording("/nonexistent/x.rfl");
        FAIL();
    } catch (const Error& e) {
        EXPECT_EQ(e.code(), ErrorCode::Io);
        EXPECT_NE(std::string(e.what()).find("/nonexistent/x.rfl"), std::string::npos);
    }
}

// A writer that follows docs/recording-format.md with the standard FNV-1a 64 offset basis is
// accepted (libroofline itself writes the documented legacy basis).
TEST(Recording, StandardFnvChecksumsAreAccepted) {
    std::string bytes = bytesOf(sample());
    const auto get64 = [&](std::size_t at) {
        std::uint64_t v = 0;
        for (int i = 7; i >= 0; --i)
            v = (v << 8) | static_cast<unsigned char>(bytes[at + static_cast<std::size_t>(i)]);
        return v;
    };
    std::uint32_t sections = 0;
    for (int i = 3; i >= 0; --i)
        sections =
            (sections << 8) | static_cast<unsigned char>(bytes[12 + static_cast<std::size_t>(i)]);
    std::size_t at = 16;
    for (std::uint32_t s = 0; s < sections; ++s) {
        const std::uint32_t encoding = static_cast<unsigned char>(bytes[at + 4]);
        const std::uint64_t stored = get64(at + 8), raw = get64(at + 16);
        std::string payload = bytes.substr(at + 32, stored);
        if (encoding == 1) {
            std::string decoded(raw, '\0');
            ASSERT_EQ(ZSTD_decompress(decoded.data(), raw, payload.data(), stored), raw);
            payload = decoded;
        }
        std::uint64_t h = 14695981039346656037ull; // the standard basis
        for (unsigned char c : payload)
            h = (h ^ c) * 1099511628211ull;
        for (int i = 0; i < 8; ++i)
            bytes[at + 24 + static_cast<std::size_t>(i)] = static_cast<char>(h >> (8 * i));
        at += 32 + stored;
    }
    EXPECT_EQ(parse(bytes).launches.size(), 2u);
}
