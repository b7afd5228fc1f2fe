#include "core/recording_file.hpp"

#include <roofline/error.hpp>

#include <zstd.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <istream>
#include <ostream>

namespace roofline::core {
namespace {

// Layout (little-endian): "ROOFLINE" u32 version u32 sectionCount, then sections, each
// tag[4] u32 encoding u64 storedSize u64 rawSize u64 fnv1a64(raw) + storedSize bytes.
constexpr char kMagic[8] = {'R', 'O', 'O', 'F', 'L', 'I', 'N', 'E'};
constexpr std::uint32_t kRaw = 0;
constexpr std::uint32_t kZstd = 1;
constexpr int kZstdLevel = 3;

// Bounds on what a file may make the reader allocate (docs/recording-format.md, "Limits"): a
// crafted 44 KB file announced 126 MB of metadata, a 276 KB one four 256 MiB images.
constexpr std::uint64_t kMaxSectionBytes = 16ull << 30; // refuses absurd sizes from damaged headers
constexpr std::uint32_t kMaxSections = 65536;           // 3 + one per kept counter-data image
// META: parsing JSON takes ~25x its size in memory; real metadata compresses 3-110x.
constexpr std::uint64_t kMetaFloorBytes = 16ull << 20;
constexpr std::uint64_t kMetaRatio = 256;
// All sections together: real counter-data images compress up to ~180x.
constexpr std::uint64_t kTotalFloorBytes = 64ull << 20;
constexpr std::uint64_t kTotalRatio = 512;
// FNV-1a 64 with libroofline's offset basis 1469598103934665603 -- the standard basis
// 14695981039346656037 without its last digit, a slip of the first version kept so that older
// readers accept what we write. Readers accept both (docs/recording-format.md).
constexpr std::uint64_t kFnvBasis = 1469598103934665603ull;
constexpr std::uint64_t kFnvStandardBasis = 14695981039346656037ull;

std::uint64_t fnv1a(const std::uint8_t* data, std::size_t size, std::uint64_t basis = kFnvBasis) {
    std::uint64_t h = basis;
    for (std::size_t i = 0; i < size; ++i)
        h = (h ^ data[i]) * 1099511628211ull;
    return h;
}

template <typename T> void put(std::ostream& out, T value) {
    std::array<char, sizeof(T)> bytes{};
    for (std::size_t i = 0; i < sizeof(T); ++i)
        bytes[i] = static_cast<char>((static_cast<std::uint64_t>(value) >> (8 * i)) & 0xff);
    out.write(bytes.data(), bytes.size());
}

class Reader {
public:
    Reader(std::istream& in, std::string what) : in_(in), what_(std::move(what)) {}

    [[noreturn]] void corrupt(const std::string& detail) const { corruptRecording(what_, detail); }

    void read(void* dst, std::size_t n, const char* field) {
        in_.read(static_cast<char*>(dst), static_cast<std::streamsize>(n));
        if (static_cast<std::size_t>(in_.gcount()) != n)
            corrupt(std::string("truncated while reading ") + field + " at byte " +
                    std::to_string(offset_));
        offset_ += n;
    }

    template <typename T> T get(const char* field) {
        std::array<unsigned char, sizeof(T)> b{};
        read(b.data(), b.size(), field);
        std::uint64_t v = 0;
        for (std::size_t i = 0; i < sizeof(T); ++i)
            v |= static_cast<std::uint64_t>(b[i]) << (8 * i);
        return static_cast<T>(v);
    }

    std::uint64_t offset() const { return offset_; }

private:
    std::istream& in_;
    std::string what_;
    std::uint64_t offset_ = 0;
};

struct ReadTotals {
    std::uint64_t stored = 0, raw = 0;
};

FileSection readSection(Reader& r, std::size_t index, ReadTotals& totals) {
    FileSection s;
    char tag[4];
    const std::string where = "section #" + std::to_string(index);
    r.read(tag, 4, (where + " header").c_str());
    s.tag.assign(tag, 4);
    const auto encoding = r.get<std::uint32_t>("section encoding");
    const auto storedSize = r.get<std::uint64_t>("section size");
    const auto rawSize = r.get<std::uint64_t>("section size");
    const auto checksum = r.get<std::uint64_t>("section checksum");
    const std::string name = where + " ('" + s.tag + "')";
    if (storedSize > kMaxSectionBytes || rawSize > kMaxSectionBytes)
        r.corrupt(name + " claims an impossible size");
    if (encoding != kRaw && encoding != kZstd)
        r.corrupt(name + " has unknown encoding " + std::to_string(encoding));
    totals.stored += storedSize;
    totals.raw += rawSize;
    if (s.tag == "META" && rawSize > kMetaFloorBytes + kMetaRatio * storedSize)
        r.corrupt(name + " announces " + std::to_string(rawSize) + " bytes of metadata from " +
                  std::to_string(storedSize) + " (more than " + std::to_string(kMetaFloorBytes) +
                  " bytes + " + std::to_string(kMetaRatio) + "x what the file holds)");
    if (totals.raw > kTotalFloorBytes + kTotalRatio * totals.stored)
        r.corrupt(name + " brings what the sections decompress to " +
                  std::to_string(totals.raw) + " bytes from " + std::to_string(totals.stored) +
                  " in the file (more than " + std::to_string(kTotalFloorBytes) + " bytes + " +
                  std::to_string(kTotalRatio) + "x)");
    // Read in steps, so that what is allocated never runs ahead of what the file holds (a
    // damaged size field must not make us allocate gigabytes before the truncation shows).
    std::vector<std::uint8_t> stored;
    for (std::uint64_t done = 0; done < storedSize;) {
        const std::size_t step =
            static_cast<std::size_t>(std::min<std::uint64_t>(storedSize - done, 1u << 20));
        stored.resize(static_cast<std::size_t>(done) + step);
        r.read(stored.data() + done, step, name.c_str());
        done += step;
    }
    if (encoding == kZstd) {
        // The frame must announce the raw size (bounded above with the other sections').
        const unsigned long long announced = ZSTD_getFrameContentSize(stored.data(), stored.size());
        if (announced != rawSize)
            r.corrupt(name + " does not decompress (its frame announces another size)");
        s.data.resize(rawSize);
        const std::size_t n =
            ZSTD_decompress(s.data.data(), s.data.size(), stored.data(), stored.size());
        if (ZSTD_isError(n) || n != rawSize)
            r.corrupt(name + " does not decompress (" +
                      (ZSTD_isError(n) ? std::string(ZSTD_getErrorName(n)) : "size mismatch") +
                      ")");
    } else {
        if (storedSize != rawSize)
            r.corrupt(name + " sizes disagree");
        s.data = std::move(stored);
    }
    if (fnv1a(s.data.data(), s.data.size()) != checksum &&
        fnv1a(s.data.data(), s.data.size(), kFnvStandardBasis) != checksum)
        r.corrupt(name + " fails its checksum");
    return s;
}

} // namespace

void corruptRecording(const std::string& what, const std::string& detail) {
    throw Error(ErrorCode::CorruptRecording,
                "'" + what + "' is not a usable libroofline recording: " + detail +
                    ". Re-record it, or check that the file was copied completely.");
}

SectionWriter::SectionWriter(std::ostream& out, std::uint32_t version, std::uint32_t sections)
    : out_(out) {
    out.write(kMagic, sizeof kMagic);
    put<std::uint32_t>(out, version);
    put<std::uint32_t>(out, sections);
}

void SectionWriter::add(const char (&tag)[5], const std::uint8_t* data, std::size_t size) {
    std::ostream& out = out_;
    const bool compress = true;
    std::vector<std::uint8_t> stored;
    std::uint32_t encoding = kRaw;
    if (compress && size > 0) {
        stored.resize(ZSTD_compressBound(size));
        const std::size_t n = ZSTD_compress(stored.data(), stored.size(), data, size, kZstdLevel);
        if (ZSTD_isError(n))
            throw Error(ErrorCode::Io,
                        std::string("zstd compression failed: ") + ZSTD_getErrorName(n));
        stored.resize(n);
        encoding = kZstd;
    }
    const std::uint8_t* payload = encoding == kZstd ? stored.data() : data;
    const std::size_t storedSize = encoding == kZstd ? stored.size() : size;
    out.write(tag, 4);
    put<std::uint32_t>(out, encoding);
    put<std::uint64_t>(out, storedSize);
    put<std::uint64_t>(out, size);
    put<std::uint64_t>(out, fnv1a(data, size));
    out.write(reinterpret_cast<const char*>(payload), static_cast<std::streamsize>(storedSize));
}

namespace {

// The signature and the version, checked; the section count.
std::uint32_t readHeader(Reader& r, std::istream& in, const std::string& what,
                         const ContainerRules& rules, std::uint32_t& version) {
    char magic[8];
    in.read(magic, sizeof magic);
    if (in.gcount() != static_cast<std::streamsize>(sizeof magic) ||
        std::memcmp(magic, kMagic, sizeof magic) != 0)
        r.corrupt("it does not start with the ROOFLINE signature (not a recording?)");
    version = r.get<std::uint32_t>("format version");
    if (version == 0 || version > rules.newestVersion)
        throw Error(ErrorCode::UnsupportedVersion,
                    "'" + what + "' uses recording format v" + std::to_string(version) +
                        "; this build of libroofline reads v1 to v" +
                        std::to_string(rules.newestVersion) + ". Use a newer libroofline.");
    return r.get<std::uint32_t>("section count");
}

} // namespace

bool isStreamedContainer(std::istream& in) {
    char magic[8];
    in.read(magic, sizeof magic);
    if (in.gcount() != static_cast<std::streamsize>(sizeof magic) ||
        std::memcmp(magic, kMagic, sizeof magic) != 0)
        return false;
    try {
        Reader r(in, "");
        r.get<std::uint32_t>("format version");
        return r.get<std::uint32_t>("section count") == kStreamedSections;
    } catch (const Error&) { // cut short
        return false;
    }
}

std::vector<FileSection> readSections(std::istream& in, const std::string& what,
                                      const ContainerRules& rules, std::uint32_t& version) {
    Reader r(in, what);
    const std::uint32_t count = readHeader(r, in, what, rules, version);
    if (count == kStreamedSections)
        r.corrupt("it is a streamed recording, written as a sampled job ran (read it as one)");
    if (count < rules.minSections(version) || count > kMaxSections)
        r.corrupt("section count " + std::to_string(count) + " (a recording has " +
                  std::to_string(rules.minSections(rules.newestVersion)) + " to " +
                  std::to_string(kMaxSections) + ", format v1 from " +
                  std::to_string(rules.minSections(1)) + ")");
    std::vector<FileSection> sections;
    ReadTotals totals;
    for (std::uint32_t i = 0; i < count; ++i)
        sections.push_back(readSection(r, i, totals));
    return sections;
}

StreamedSections readStreamedSections(std::istream& in, const std::string& what,
                                      const ContainerRules& rules) {
    Reader r(in, what);
    StreamedSections out;
    if (readHeader(r, in, what, rules, out.version) != kStreamedSections)
        r.corrupt("it is not a streamed recording (its header gives a section count)");
    ReadTotals totals;
    for (std::size_t i = 0; in.peek() != std::char_traits<char>::eof(); ++i) {
        if (i >= kMaxStreamedSections)
            r.corrupt("more than " + std::to_string(kMaxStreamedSections) + " sections");
        try {
            out.sections.push_back(readSection(r, i, totals));
        } catch (const Error& e) {
            // A job killed while writing leaves its last section short: what came before stands.
            out.cut = e.what();
            break;
        }
    }
    return out;
}

} // namespace roofline::core
