// Recordings crafted against the reader: each is refused with CorruptRecording and a message
// that names the limit, in bounded time and memory -- never a crash, a hang or gigabytes.
#include "core/pattern.hpp"
#include "core/recording.hpp"

#include "minimal_recording.hpp"

#include <roofline/error.hpp>
#include <roofline/report.hpp>

#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include <zstd.h>

using namespace roofline;

namespace {

void put32(std::string& out, std::uint32_t v) {
    for (int i = 0; i < 4; ++i)
        out += static_cast<char>((v >> (8 * i)) & 0xff);
}
void put64(std::string& out, std::uint64_t v) {
    for (int i = 0; i < 8; ++i)
        out += static_cast<char>((v >> (8 * i)) & 0xff);
}

std::uint64_t fnv(const std::string& data) {
    std::uint64_t h = 14695981039346656037ull;
    for (unsigned char c : data)
        h = (h ^ c) * 1099511628211ull;
    return h;
}

std::string zstd(const std::string& raw) {
    std::string out(ZSTD_compressBound(raw.size()), '\0');
    out.resize(ZSTD_compress(out.data(), out.size(), raw.data(), raw.size(), 19));
    return out;
}

// A zstd frame of `size` zero bytes, compressed a MiB at a time (never held whole).
std::string zeroFrame(std::uint64_t size) {
    ZSTD_CCtx* cctx = ZSTD_createCCtx();
    ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, 19);
    ZSTD_CCtx_setPledgedSrcSize(cctx, size);
    const std::string zeros(1u << 20, '\0');
    std::string out, buffer(ZSTD_CStreamOutSize(), '\0');
    for (std::uint64_t done = 0; done < size; done += zeros.size()) {
        ZSTD_inBuffer in{zeros.data(), zeros.size(), 0};
        const bool last = done + zeros.size() >= size;
        for (;;) {
            ZSTD_outBuffer o{buffer.data(), buffer.size(), 0};
            const std::size_t left =
                ZSTD_compressStream2(cctx, &o, &in, last ? ZSTD_e_end : ZSTD_e_continue);
            out.append(buffer.data(), o.pos);
            if (last ? left == 0 : in.pos == in.size)
                break;
        }
    }
    ZSTD_freeCCtx(cctx);
    return out;
}

struct RawSection {
    std::string tag, stored;
    std::uint64_t raw = 0, checksum = 0;
    bool zstd = true;
};

RawSection section(const std::string& tag, const std::string& raw) {
    return {tag, zstd(raw), raw.size(), fnv(raw), true};
}

std::string file(const std::vector<RawSection>& sections, std::uint32_t count = 0) {
    std::string out = "ROOFLINE";
    put32(out, 2);
    put32(out, count != 0 ? count : static_cast<std::uint32_t>(sections.size()));
    for (const auto& s : sections) {
        out += s.tag;
        put32(out, s.zstd ? 1 : 0);
        put64(out, s.stored.size());
        put64(out, s.raw);
        put64(out, s.checksum);
        out += s.stored;
    }
    return out;
}

// The metadata of a readable recording with one launch named `name`, as JSON text.
std::string metadata(const std::string& name = "k", const std::string& passes = "1",
                     const std::string& platform = "null") {
    return R"({"format_version":2,"library_version":"t","created_utc":"2026-11-26T00:00:00Z",)"
           R"("mode":"kernel-replay","chip":"GH100","device":{"ordinal":0,"name":"H100",)"
           R"("chip":"GH100","compute_capability":"9.0","sm_count":132,"sm_clock_hz":1.98e9,)"
           R"("memory_clock_hz":2.6e9,"memory_bus_width_bits":5120,"l2_bytes":52428800,)"
           R"("memory_bytes":85899345920,"driver_version":13000},"metrics":["m"],"passes":)" +
           passes + R"(,"dropped_ranges":0,"platform":)" + platform +
           R"(,"counter_data_chunks":0,"launches":[{"index":0,"name":")" + name +
           R"(","mangled":"_Z1kv","scope":"","grid":[1,1,1],"block":[1,1,1],"stream":0,)"
           R"("chunk":-1,"range":0}]})";
}

std::string readable(const std::string& meta) {
    return file({section("META", meta), section("CONF", "c"), section("VALS", "")});
}

// One launch named `name` in `scope`, written by libroofline and read back.
core::LaunchInfo writtenAndRead(const std::string& name, const std::string& scope) {
    auto rec = test::minimalRecording();
    core::LaunchInfo l;
    l.name = name;
    l.scopePath = scope;
    l.chunk = -1;
    rec.launches = {l};
    std::stringstream io;
    core::writeRecording(rec, io);
    const auto back = core::readRecording(io, "written.rfl");
    EXPECT_EQ(back.launches.size(), 1u);
    return back.launches.empty() ? core::LaunchInfo{} : back.launches[0];
}

std::string refusal(const std::string& bytes) {
    std::istringstream in(bytes);
    try {
        core::readRecording(in, "crafted.rfl");
    } catch (const Error& e) {
        EXPECT_EQ(e.code(), ErrorCode::CorruptRecording) << e.what();
        return e.what();
    }
    ADD_FAILURE() << "the crafted recording was accepted";
    return {};
}

} // namespace

TEST(HostileRecording, TheCraftedMetadataItselfIsReadable) {
    std::istringstream in(readable(metadata()));
    const auto rec = core::readRecording(in, "crafted.rfl");
    ASSERT_EQ(rec.launches.size(), 1u);
    EXPECT_EQ(rec.launches[0].name, "k");
}

TEST(HostileRecording, DeepNestingIsRefusedBeforeParsing) {
    // 100,000 levels overflowed the stack in the integer field's error message and in the
    // platform object's re-parse.
    const std::string deep = std::string(100000, '[') + std::string(100000, ']');
    EXPECT_NE(refusal(readable(metadata("k", deep))).find("nests deeper than 64"),
              std::string::npos);
    const std::string platform =
        R"({"cpu":)" + std::string(100000, '[') + std::string(100000, ']') + "}";
    EXPECT_NE(refusal(readable(metadata("k", "1", platform))).find("nests deeper"),
              std::string::npos);
}

TEST(HostileRecording, HugeNumbersInIntegerFieldsAreRefusedByName) {
    EXPECT_NE(refusal(readable(metadata("k", "1e300"))).find("'passes' is not an integer"),
              std::string::npos);
    EXPECT_NE(refusal(readable(metadata("k", "-1"))).find("'passes'"), std::string::npos);
    const std::string platform = R"({"cpu":{"sockets":1e300,"threads":4}})";
    EXPECT_NE(refusal(readable(metadata("k", "1", platform))).find("'sockets'"), std::string::npos);
}

TEST(HostileRecording, MetadataFarLargerThanTheFileIsRefused) {
    // 40 MB of blanks in 4 KB: parsing would take ~25x that in memory.
    RawSection meta = section("META", metadata() + std::string(40u << 20, ' '));
    ASSERT_LT(meta.stored.size(), 64u << 10);
    const std::string why = refusal(file({meta, section("CONF", "c"), section("VALS", "")}));
    EXPECT_NE(why.find("bytes of metadata"), std::string::npos) << why;
}

TEST(HostileRecording, ImagesFarLargerThanTheFileAreRefusedBeforeDecompressing) {
    // Four 256 MiB counter-data images in ~40 KB took 1 GB when decompressed eagerly.
    const std::string frame = zeroFrame(256ull << 20);
    ASSERT_LT(frame.size(), 64u << 10);
    std::vector<RawSection> sections = {section("META", metadata()), section("CONF", "c"),
                                        section("VALS", "")};
    for (int i = 0; i < 4; ++i)
        sections.push_back({"CDAT", frame, 256ull << 20, 0, true});
    const std::string why = refusal(file(sections));
    EXPECT_NE(why.find("decompress to"), std::string::npos)
        << why << " (frame " << frame.size() << " bytes)";
}

TEST(HostileRecording, SectionCountsBeyondTheLimitAreRefused) {
    const std::string why =
        refusal(file({section("META", metadata()), section("CONF", "c")}, 1u << 20));
    EXPECT_NE(why.find("section count 1048576"), std::string::npos) << why;
}

TEST(HostileRecording, OverlongNamesAreRefusedAndNeverWritten) {
    EXPECT_NE(refusal(readable(metadata(std::string(100000, 'x')))).find("'name' is 100000 bytes"),
              std::string::npos);
    // What libroofline writes, it reads back: longer names are cut at a character boundary.
    const auto back = writtenAndRead(
        std::string(70000, 'n'), std::string(65533, 's') + "\xc3\xa9\xc3\xa9"); // é at the limit
    EXPECT_EQ(back.name.size(), 65536u);
    EXPECT_EQ(back.name.substr(65533), "...");
    EXPECT_EQ(back.scopePath, std::string(65533, 's') + "...");
}

TEST(HostileRecording, NamesThatAreNotUtf8AreKeptNotLost) {
    // an NVTX range named in Latin-1
    EXPECT_EQ(writtenAndRead("k", "step \xff\xfe/layer").scopePath,
              "step \xef\xbf\xbd\xef\xbf\xbd/layer");
}

TEST(HostileRecording, ALongKernelNameIsSearchedWithoutRecursion) {
    // std::regex overflowed the stack on a 50 KB name with --name 'regex:...'.
    KernelRecord r;
    r.name = std::string(50000, 'a') + "gemm";
    const auto kept = filterRecords({r}, "regex:a.*gemm$", "");
    EXPECT_EQ(kept.size(), 1u);
    EXPECT_TRUE(core::Pattern("(a|b)*gemm").search(r.name));
}
