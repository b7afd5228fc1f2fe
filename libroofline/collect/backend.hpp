#pragma once
// What the collector needs from a device's counter hardware. The real implementation wraps
// cupti::RangeProfiler and cupti::Host (session/cupti_backend.cpp); tests use a fake to drive the
// collector's state machines on the CPU. Every call may throw roofline::Error; the collector turns
// a throw into "profiling failed mid-run" and never lets it reach the application.
#include "core/launch.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace roofline::collect {

/// Where a backend's time went (for the session's cost summary; docs/methodology.md, "What a
/// profile costs").
struct BackendCost {
    std::size_t creations = 0; ///< profiler objects created after the first
    double creationMs = 0;     ///< in re-creations (code loads, configuration switches)
    double evaluationMs = 0;   ///< decode and host evaluation
    std::size_t ranges = 0;    ///< ranges evaluated (one per measured launch and image)
    /// Ranges evaluated, each times the passes its image took (what the passes measured).
    std::size_t rangePasses = 0;
    /// Pass starts. The first Start of each profiler object sets CUPTI's object up (H100:
    /// ~200 ms of CPU with a 96-range image, more with larger ones: roofline-bench-pass-cost);
    /// a later Start costs a few ms on an idle GPU and otherwise waits for the program's work
    /// queued before the window.
    std::size_t starts = 0;
    double startMs = 0;
    std::size_t objectStarts = 0; ///< first Starts of a profiler object
    std::size_t objectRanges = 0; ///< the ranges those objects' images hold, together
    double objectStartMs = 0;     ///< in them (part of startMs)
    /// Inside passes, from Start to Stop: the window's launches, serialized, each a range.
    double passMs = 0;
    double stopMs = 0; ///< in Stop, with its wait
    /// Window replay: device memory saved and restored (CUPTI's checkpoint), with the wait for
    /// each restore.
    std::size_t memoryCopies = 0;
    double memoryMs = 0;
    /// Window replay: waits for the device before a window and before its replay (mostly the
    /// program's own work queued before them).
    double waitMs = 0;
    /// Window replay: launches recorded to be launched again, and their arguments read for
    /// their signatures (on the program's launching thread).
    double recordMs = 0;
    /// Adds `other`'s.
    void add(const BackendCost& other) noexcept {
        creations += other.creations;
        creationMs += other.creationMs;
        evaluationMs += other.evaluationMs;
        ranges += other.ranges;
        rangePasses += other.rangePasses;
        starts += other.starts;
        startMs += other.startMs;
        objectStarts += other.objectStarts;
        objectRanges += other.objectRanges;
        objectStartMs += other.objectStartMs;
        passMs += other.passMs;
        stopMs += other.stopMs;
        memoryCopies += other.memoryCopies;
        memoryMs += other.memoryMs;
        waitMs += other.waitMs;
        recordMs += other.recordMs;
    }
};

struct RangeValues {
    std::string name;           ///< CUPTI's range name ("0", "1", ... or "step/conv1")
    std::vector<double> values; ///< in the session's metric order
};

class CounterBackend {
public:
    virtual ~CounterBackend() = default;
    /// Ranges one counter-data image holds.
    virtual std::size_t capacity() const noexcept = 0;
    /// Fresh image, pass 0. Called before the first group and again after each evaluate().
    virtual void configure() = 0;
    virtual void start() = 0;
    /// End of a window (kernel replay) or pass (user replay); true once all passes are in.
    virtual bool stop() = 0;
    virtual void pushRange(const std::string& name) = 0;
    virtual void popRange() = 0;
    /// Returns the ranges dropped.
    virtual std::size_t decode() = 0;
    /// Every range of the decoded image, in image order; values in the session's metric order,
    /// NaN for metrics the current configuration does not collect.
    virtual std::vector<RangeValues> evaluate() = 0;
    /// Configurations the metric set is split into (aligned replay: one pass each, as far as
    /// CUPTI can split it); 1: one configuration holds every metric.
    virtual std::size_t configurations() const noexcept { return 1; }
    /// Makes configuration `index` current, with a fresh image at pass 0 (as configure()).
    /// Another configuration than the current one re-creates the profiler (as reenable():
    /// CUPTI applies a new config image only to a fresh profiler object).
    virtual void selectConfiguration(std::size_t index) {
        (void)index;
        configure();
    }
    /// Adds `metrics` (of the session's metrics) to what is collected from now on: configuration
    /// 0 becomes the larger set, aligned configurations are dropped (prepareAligned() builds them
    /// again), and the profiler is re-created at pass 0 -- or, while released, created with them
    /// at acquire(). Returns configuration 0's passes.
    virtual std::size_t addMetrics(const std::vector<std::string>& metrics) {
        (void)metrics;
        return 0;
    }
    /// Builds aligned replay's single-pass configurations (1..n) of what is collected, unless
    /// built already; returns the passes they need together (0: not available).
    virtual std::size_t prepareAligned() { return configurations() > 1 ? configurations() - 1 : 0; }
    /// Bytes of one counter-data image (what imageBytes() would copy).
    virtual std::size_t imageSize() const noexcept = 0;
    /// The raw image after decode(), for recordings; empty when not available.
    virtual std::vector<std::uint8_t> imageBytes() const = 0;
    /// Evicts the L2 cache (writes a buffer twice its size). Never throws.
    virtual void flushCaches() noexcept = 0;
    /// Enqueues the L2 flush on the launch's `stream`, from its launch callback, before the
    /// kernel (a kernel: it takes a range of the pass before the kernel's own). Never throws;
    /// nothing where the backend was created without a flush kernel (Settings decides).
    virtual void flushBeforeLaunch(std::uint64_t stream) noexcept { (void)stream; }
    /// Releases and re-creates the device's profiler at `configuration` (fresh image, pass 0;
    /// what the passes of the current group collected is lost). The collector calls it before
    /// measuring again once code was loaded while the profiler was enabled, and to take CUPTI's
    /// user replay back to pass 0 in the middle of a group
    /// (docs/design/0005-code-loaded-while-profiling.md).
    virtual void reenable(std::size_t configuration) = 0;
    /// Releases the device's profiler and its counter-data image (CUPTI's host memory per range
    /// with them) while nothing is measured, between groups; `ranges` > 0: what the next image
    /// holds (capacity() from then on). configure(), selectConfiguration() and reenable() only
    /// choose the configuration until acquire() creates a fresh profiler at pass 0.
    virtual void release(std::size_t ranges) { (void)ranges; }
    virtual bool released() const noexcept { return false; }
    virtual void acquire() {}
    /// Ends profiling on the device for good (the session's teardown). Never throws.
    virtual void disable() noexcept {}
    virtual BackendCost cost() const noexcept { return {}; }

    // Window replay (replay/window_replay, docs/design/0026-launches-no-step-covers.md): the
    // device's memory saved and restored around a window of launches libroofline launches again.
    /// The launch `l` (its driver call and parameters, during its callback) recorded, in window
    /// order; false, with why, when it cannot be launched again.
    virtual bool recordLaunch(const core::Launch& l, std::string& why) {
        (void)l;
        why = "this backend cannot launch kernels again";
        return false;
    }
    /// The bytes of the arguments launch `l` passes (during its callback), appended to `bytes`;
    /// false when they cannot be read. Launches of one kernel, grid and block with the same
    /// argument bytes do the same work unless the data they read decides it.
    virtual bool launchArguments(const core::Launch& l, std::string& bytes) {
        (void)l;
        (void)bytes;
        return false;
    }
    /// Whether the device has room for the two saves of its memory a window takes (before it and
    /// after it), so that neither spills to host memory; false, with why, when not.
    virtual bool checkpointsFit(std::string& why) {
        (void)why;
        return true;
    }
    /// The device's memory saved: as it is before the window (`after` false), or after it (the
    /// program's own results, given back at the end).
    virtual void saveMemory(bool after) { (void)after; }
    /// The memory as saved (before or after the window); waits for it.
    virtual void restoreMemory(bool after) { (void)after; }
    /// The recorded launches launched again, in order; waits for them.
    virtual void relaunchRecorded() {}
    /// The device's work so far done (before memory is saved).
    virtual void synchronize() {}
    /// The saved memory and the recorded launches let go. Never throws.
    virtual void forgetWindow() noexcept {}
    /// The device's peak rates per cycle (core/device_peaks.hpp: peakMetrics order), evaluated on
    /// the first image that held a range; empty until then or where the device has none.
    virtual std::vector<double> peakValues() const { return {}; }
};

} // namespace roofline::collect
