#pragma once
// The recording of a sampled job (docs/design/0029, "The recording"): written while the job runs,
// one batch at a time, each batch appended to a streamed container (core/recording_file.hpp) and
// flushed, so that a job killed with SIGKILL or by the out-of-memory killer leaves every batch
// written before it. The values are the counters as sampled and attributed (raw, re-evaluable);
// time, FLOP estimates and bytes come from them and the family's SamplingSet when read.
#include "core/device_info.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

namespace roofline::core {

/// What the sampler was: written once, first.
struct SampledHeader {
    std::string libraryVersion;
    DeviceInfo device;                 ///< as a recording's (its chip: CUPTI's name, "GH100")
    std::vector<std::string> counters; ///< in the order of every values vector
    std::uint64_t periodNs = 0;        ///< the sampling period
    std::uint64_t ringSteps = 0;       ///< steps of per-kernel values held in memory
    std::int64_t pid = 0;
    int rank = -1, worldSize = 0; ///< -1: not a rank of a distributed job
    std::uint64_t startedUnixNs = 0;
};

/// One step as the samples saw it.
struct SampledStep {
    std::uint64_t index = 0; ///< the program's step (the first of them where `steps` > 1)
    /// The program's steps this row holds: consecutive steps shorter than three sampling periods
    /// are merged into one row of at least that length (a loop of one short kernel), their
    /// values added up.
    std::uint64_t steps = 1;
    std::uint64_t startNs = 0, endNs = 0; ///< GPU time: its first kernel's start, last one's end
    std::uint64_t kernels = 0;
    std::uint64_t kernelNs = 0;         ///< the kernels' durations added up (activity records)
    std::vector<double> values;         ///< its kernels' shares of each counter
    std::vector<double> between;        ///< what grew inside it while no kernel ran
    std::uint64_t coveredNs = 0;        ///< of kernelNs, what some sample covered
    std::uint64_t estimatedKernels = 0; ///< kernels shorter than three periods
    /// false: its kernels' activity records were off (records on a share of the steps). Then
    /// [startNs, endNs) is estimated from its launch calls, `kernels` counts its launches' kernels,
    /// kernelNs is 0, `values` are the samples over the span (kernels and gaps together) and
    /// coveredNs is the part of the span some sample covered.
    bool kernelRecords = true;
    /// What coveredNs is of: kernelNs, or the span where the kernels were not recorded.
    std::uint64_t coverableNs() const noexcept {
        return kernelRecords ? kernelNs : endNs - std::min(startNs, endNs);
    }
};

/// One kernel launch's sampled values.
struct SampledLaunch {
    std::uint64_t step = 0;
    std::string name;  ///< demangled
    std::string scope; ///< its scope path, "" outside every scope
    std::uint64_t startNs = 0, endNs = 0;
    std::vector<double> values;
    std::uint64_t coveredNs = 0;
    bool estimated = false;
};

/// One kernel signature (name and scope path) over the steps of a write: every launch of it added
/// up, so that no launch goes unaccounted however few are kept one by one.
struct SampledSignature {
    std::string name, scope;
    std::uint64_t launches = 0;
    std::uint64_t ns = 0;        ///< their durations added up
    std::vector<double> values;  ///< their shares of each counter added up
    std::uint64_t estimated = 0; ///< launches shorter than three periods
    /// Of `ns`, what some sample covered (0 in recordings of libraries before it was kept).
    std::uint64_t coveredNs = 0;
};

/// `part` added into `sum` under `name` and `scope` (a fresh sum takes them, and `counters`
/// zeros): launches, time, each counter, the estimated ones, the time covered.
void addTo(SampledSignature& sum, const std::string& name, const std::string& scope,
           std::size_t counters, std::uint64_t launches, std::uint64_t ns,
           const std::vector<double>& values, std::uint64_t estimated, std::uint64_t coveredNs);

/// What one write appends: the steps completed since the last write, every kernel signature's
/// sums over them, and the launches kept one by one (the ring's last step, and each step that
/// strayed from the running median).
struct SampledBatch {
    std::uint64_t writtenUnixNs = 0;
    std::vector<SampledStep> steps;
    std::vector<SampledSignature> signatures;
    std::vector<SampledLaunch> launches;
};

/// Appends a sampled job's recording to `path`: the header on opening, then one batch per
/// append(), each flushed to the file before append() returns. Throws Error(Io) naming the path.
class SampledRecordingWriter {
public:
    SampledRecordingWriter(const std::string& path, const SampledHeader& header);
    ~SampledRecordingWriter();
    SampledRecordingWriter(const SampledRecordingWriter&) = delete;
    SampledRecordingWriter& operator=(const SampledRecordingWriter&) = delete;
    void append(const SampledBatch& batch);
    std::uint64_t batches() const noexcept { return batches_; }

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
    std::uint64_t batches_ = 0;
};

struct SampledRecording {
    SampledHeader header;
    std::vector<SampledBatch> batches;
    /// Empty when the file ends after a complete batch; else why the next could not be read (a
    /// job killed while writing it): everything before it is here.
    std::string cut;
};

/// Throws Error(CorruptRecording) naming `what` for a file that is not a sampled recording or
/// whose header is unreadable; a batch cut short ends the reading (`cut`).
SampledRecording readSampledRecording(std::istream& in, const std::string& what);
SampledRecording readSampledRecording(const std::string& path);
/// Whether the file at `path` starts as a streamed container does (a sampled job's recording):
/// what `roofline report` reads it as. False for anything else, unreadable files included.
bool isSampledRecording(const std::string& path);
/// The format's version, written in the container's header.
inline constexpr std::uint32_t kSampledFormatVersion = 1;

} // namespace roofline::core
