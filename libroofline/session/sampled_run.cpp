#include "session/sampled_run.hpp"

#include "core/log.hpp"
#include "core/stopwatch.hpp"

namespace roofline::collect {

SampledRun::SampledRun(const SampledRunConfig& config, std::unique_ptr<SampleSources> sources)
    : path_(config.path), every_(config.readEvery), sources_(std::move(sources)) {
    writer_ = std::make_unique<core::SampledRecordingWriter>(path_, config.header);
    core::SampledRecordingWriter* writer = writer_.get();
    std::uint64_t* written = &summary_.batchesWritten;
    series_ = std::make_unique<sampling::StepSeries>(
        config.series, [writer, written](const core::SampledBatch& batch) {
            writer->append(batch); // throws on failure: the series counts it
            ++*written;
        });
    // Records on a share of the steps where the sources can turn them off; the sources outlive
    // every step's begin (the collector is finished before the run).
    if (sources_->switchesRecords()) {
        SampleSources* own = sources_.get();
        series_->recordsSwitch([own](bool on) { own->kernelRecords(on); },
                               [own] { return own->now(); });
    }
}

SampledRun::~SampledRun() {
    finish();
}

void SampledRun::start() {
    began_ = core::SteadyClock::now();
    sources_->start();
    std::lock_guard<std::mutex> lock(mutex_);
    started_ = true;
    try {
        thread_ = std::thread([this] { loop(); });
    } catch (...) {
        // no thread: the stop reads everything once (the device's buffer may overflow first)
        core::log().warn("libroofline: sampling: no reading thread could be started; samples are "
                         "read at the stop only");
    }
}

void SampledRun::loop() noexcept {
    std::unique_lock<std::mutex> lock(mutex_);
    while (!stopping_) {
        wake_.wait_for(lock, every_, [this] { return stopping_; });
        if (stopping_)
            break;
        lock.unlock();
        readOnce(false);
        lock.lock();
    }
}

// One round: the samples and kernel records since the last one into the series, which turns the
// steps that are complete into values and writes the batch due.
void SampledRun::readOnce(bool finishing) noexcept {
    const auto began = core::SteadyClock::now();
    SourceRead r = sources_->read(finishing);
    ++summary_.reads;
    summary_.samples += r.samples.size();
    summary_.overflows += r.overflow ? 1 : 0;
    if (r.missing > 0 && summary_.missingSamples == 0)
        core::log().warn("libroofline: sampling: {} sampling periods have no sample: the "
                         "device's buffer was not decoded in time (its decode costs the "
                         "process a core at the shortest periods; a longer "
                         "--sample-period-us keeps up). The kernels they covered show it in "
                         "their coverage; the exit line counts them all",
                         r.missing);
    summary_.missingSamples += r.missing;
    summary_.fullImages += r.fullImages;
    summary_.restarts += r.restarts;
    summary_.longSamples += r.longSamples;
    summary_.decodeMs += r.decodeMs;
    summary_.evaluateMs += r.evaluateMs;
    summary_.recordsMs += r.recordsMs;
    summary_.incompleteKernels += r.incomplete;
    if (!r.failure.empty()) {
        if (summary_.readFailures++ == 0) {
            summary_.firstFailure = r.failure;
            core::log().warn("libroofline: sampling: the samples could not be read ({}): the "
                             "kernels they covered show it in their coverage",
                             r.failure);
        }
    }
    try {
        if (!r.kernels.empty())
            series_->kernels(std::move(r.kernels));
        if (!r.samples.empty())
            series_->samples(r.samples);
        if (finishing)
            series_->finish(core::unixNowNs());
        else
            series_->advance(core::unixNowNs());
    } catch (...) {
        // out of memory: this round's records are lost; the series' tally shows the gaps
    }
    summary_.readMs += core::msSince(began);
}

SampledRunSummary SampledRun::finish() noexcept {
    std::unique_lock<std::mutex> lock(mutex_);
    if (finished_)
        return summary_;
    finished_ = true;
    stopping_ = true;
    lock.unlock();
    wake_.notify_all();
    if (thread_.joinable())
        thread_.join();
    if (started_) {
        sources_->stop();
        readOnce(true);
    }
    summary_.series = series_->tally();
    summary_.droppedKernels = sources_->droppedKernels();
    if (started_)
        summary_.wallSeconds = core::msSince(began_) / 1000.0;
    return summary_;
}

} // namespace roofline::collect
