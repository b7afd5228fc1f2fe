#pragma once
// The file container of a recording (docs/recording-format.md, "Layout" and "Limits"): the
// ROOFLINE signature, the format version, then sections -- a tag, zstd-compressed bytes and a
// checksum of the raw bytes each -- read within bounds on what a file may make the reader
// allocate. What the sections hold is the schema's (core/recording.cpp).
#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

namespace roofline::core {

/// Error(CorruptRecording) naming the source `what` and what is wrong with it.
[[noreturn]] void corruptRecording(const std::string& what, const std::string& detail);

/// The section count of a streamed container: sections until the end of the file, appended as a
/// job runs (docs/design/0029). A reader takes every complete one.
inline constexpr std::uint32_t kStreamedSections = 0xFFFFFFFFu;
/// The most sections a streamed container may hold (a write every 10 s for two years).
inline constexpr std::size_t kMaxStreamedSections = std::size_t{1} << 23;

/// Writes a container of `sections` sections (or kStreamedSections), one at a time.
class SectionWriter {
public:
    SectionWriter(std::ostream& out, std::uint32_t version, std::uint32_t sections);
    /// Appends to a container whose header is written already (a streamed one).
    explicit SectionWriter(std::ostream& out) : out_(out) {}
    /// A section of `size` bytes, compressed (Error(Io) when zstd fails).
    void add(const char (&tag)[5], const std::uint8_t* data, std::size_t size);

private:
    std::ostream& out_;
};

struct FileSection {
    std::string tag; ///< four characters
    std::vector<std::uint8_t> data;
};

/// What a reader accepts: versions 1 to `newestVersion`, with at least minSections(version)
/// sections (and at most 65536).
struct ContainerRules {
    std::uint32_t newestVersion = 1;
    std::uint32_t (*minSections)(std::uint32_t version) = nullptr;
};

/// The container's sections, decompressed and checked, and its version. Throws
/// Error(UnsupportedVersion) for a newer version, Error(CorruptRecording) for anything truncated,
/// damaged or out of bounds.
std::vector<FileSection> readSections(std::istream& in, const std::string& what,
                                      const ContainerRules& rules, std::uint32_t& version);

/// Whether `in` starts as a streamed container does (the signature, a version, kStreamedSections);
/// false for anything else, a header cut short included. Reads the 16 header bytes.
bool isStreamedContainer(std::istream& in);

/// A streamed container's complete sections, in the order written.
struct StreamedSections {
    std::vector<FileSection> sections;
    std::uint32_t version = 0;
    /// Empty when the file ends after a complete section. Otherwise why the next one could not be
    /// read -- cut short by a kill, or damaged -- and nothing after it is read.
    std::string cut;
};

/// Reads a streamed container. Throws as readSections does for the signature, the version and a
/// container that is not streamed; a section cut short or damaged ends the reading (`cut`).
StreamedSections readStreamedSections(std::istream& in, const std::string& what,
                                      const ContainerRules& rules);

} // namespace roofline::core
