#pragma once
// A sampled session's device side (docs/design/0029): the sources of one device -- its PM
// sampler, whose buffer a drain thread of the sources decodes (session/sample_drain), and the
// kernels' activity records -- read by one thread of its own every read period into the series
// of sampled steps (sampling/step_series), which hands each batch due to the
// recording's writer from that thread: the program's threads only tell the series their launches
// and step ends, and never wait on the device's buffer or the file. Stopped and drained once, at
// the session's stop: the sampler stopped, what it and the activity buffers still hold read, every
// ended step turned into values and the last batch written.
// No CUDA or CUPTI call of its own: the sources are the seam (real ones in
// session/sampled_sources.cpp, fakes in test/unit/sampled_run_test.cpp).
#include "core/sampled_recording.hpp"
#include "sampling/step_series.hpp"

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace roofline::collect {

/// What one read of a device's sources gives.
struct SourceRead {
    std::vector<core::CounterSample> samples;
    std::vector<sampling::KernelActivity> kernels;
    bool overflow = false;     ///< the device's sample buffer overflowed: samples were lost
    std::uint64_t missing = 0; ///< periods whose samples the device's buffer lost
    std::uint32_t fullImages = 0, restarts = 0; ///< decodes that filled the image; restarts
    std::uint64_t longSamples = 0;              ///< samples over several periods mid-run, left out
    std::string failure; ///< why the samples could not be read ("" when they were)
    /// Since the last read: the device's buffer decoded; the samples' values evaluated and the
    /// image reset.
    double decodeMs = 0, evaluateMs = 0;
    double recordsMs = 0;         ///< of the read: the kernels' activity records flushed and read
    std::uint64_t incomplete = 0; ///< kernel records without a start or an end (left out)
};

/// A device's samples and kernel records (PM sampler and activity API on a GPU).
class SampleSources {
public:
    virtual ~SampleSources() = default;
    /// Sampling begins (throws roofline::Error).
    virtual void start() = 0;
    /// Sampling ends; what it sampled until now is still read by read().
    virtual void stop() noexcept = 0;
    /// What came in since the last read. Never throws: a failure is in the read. `last`: the
    /// read after stop(), which takes every kernel record CUPTI holds.
    virtual SourceRead read(bool last) noexcept = 0;
    /// Kernel activity records CUPTI dropped (buffers full).
    virtual std::uint64_t droppedKernels() const noexcept { return 0; }
    /// Whether kernelRecords() turns the kernels' records on and off (else they stay on).
    virtual bool switchesRecords() const noexcept { return false; }
    /// The kernels' activity records on or off: on the program's thread, inside the launch call
    /// a step begins with. Never throws.
    virtual void kernelRecords(bool /*on*/) noexcept {}
    /// The clock of the kernel records' timestamps, read on the program's thread.
    virtual std::uint64_t now() const noexcept { return 0; }
};

struct SampledRunConfig {
    sampling::StepSeriesConfig series;
    std::chrono::milliseconds readEvery{100};
    std::string path;           ///< the recording (.rfs)
    core::SampledHeader header; ///< written first
};

/// What a sampled run did, for the exit line.
struct SampledRunSummary {
    sampling::StepSeriesTally series;
    std::uint64_t samples = 0, reads = 0;
    std::uint64_t overflows = 0;      ///< reads that found the sample buffer overflowed
    std::uint64_t missingSamples = 0; ///< periods with no sample (lost by the device's buffer)
    std::uint64_t fullImages = 0, restarts = 0; ///< decodes that filled the image; restarts
    std::uint64_t longSamples = 0;              ///< samples over several periods mid-run, left out
    std::uint64_t readFailures = 0;             ///< reads whose samples could not be decoded
    std::string firstFailure;
    std::uint64_t droppedKernels = 0;
    std::uint64_t batchesWritten = 0;
    double readMs = 0;    ///< the reading thread's time spent reading, dividing and writing
    double recordsMs = 0; ///< of which: the kernels' activity records
    /// The drain's thread (and the last decode, on the thread that stops): the buffer decoded,
    /// the samples evaluated and the image reset.
    double decodeMs = 0, evaluateMs = 0;
    std::uint64_t incompleteKernels = 0; ///< records left out for want of a start or an end
    double wallSeconds = 0;              ///< from start() to the end of finish()
};

class SampledRun {
public:
    /// Opens the recording at config.path and writes its header (throws Error(Io) naming it).
    SampledRun(const SampledRunConfig& config, std::unique_ptr<SampleSources> sources);
    ~SampledRun();
    SampledRun(const SampledRun&) = delete;
    SampledRun& operator=(const SampledRun&) = delete;

    /// Where the collector's sampling strategy sends launches and step ends.
    sampling::StepSeries& series() noexcept { return *series_; }
    /// Sampling begins and the reading thread starts (throws what the sources throw).
    void start();
    /// Idempotent, never throws: the thread stopped, the sources stopped and read a last time,
    /// every ended step turned into values, the last batch written.
    SampledRunSummary finish() noexcept;
    const std::string& path() const noexcept { return path_; }

private:
    void loop() noexcept;
    void readOnce(bool finishing) noexcept;

    std::string path_;
    std::chrono::milliseconds every_;
    std::unique_ptr<core::SampledRecordingWriter> writer_;
    std::unique_ptr<sampling::StepSeries> series_;
    std::unique_ptr<SampleSources> sources_;
    std::thread thread_;
    std::mutex mutex_; // the thread's wake-up, and finish()
    std::condition_variable wake_;
    bool stopping_ = false, started_ = false, finished_ = false;
    SampledRunSummary summary_; // written by the reading thread, then by finish()
    std::chrono::steady_clock::time_point began_{};
};

} // namespace roofline::collect
