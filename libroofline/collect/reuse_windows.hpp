#pragma once
// Repeated-launch reuse for one device (docs/design/0009-repeated-launches.md): iterations are
// observed (each launch's signature: kernel, grid, block, shared memory, uniform scope path and
// place in its scope instance); once a steady iteration shows signatures without their samples, a
// cycle of windows over it -- launches of such signatures, with short gaps -- is measured through
// the iteration replay's passes, and every other launch of the reference iteration gets a record
// with the mean of its signature's samples. The pure pieces are collect/reuse_plan,
// collect/observed_iteration and collect/repeats.
#include "collect/group_replay.hpp"
#include "collect/observed_iteration.hpp"
#include "collect/reuse_plan.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace roofline::collect {

class ReuseCycle {
public:
    explicit ReuseCycle(const CollectorConfig& config)
        : plan_(config.reuseSamples, config.reuseMaxGap),
          shareIndex_(config.shares() ? config.shareIndex : 0),
          shareCount_(config.shares() ? config.shareCount : 1) {}

    /// A new iteration: a new observation.
    void startIteration();
    /// Launch `idx` of the iteration (`serials` numbers scope instances, shared by the devices).
    void observe(Shared& shared, const Launch& l, const Stack& stack, std::size_t idx,
                 std::uint64_t& serials);
    /// The signature the current iteration's launch `at` is a sample of (kNotMeasured: none).
    std::uint32_t measuredSignature(std::size_t at);
    /// The iteration's end: its places, so its signatures. A program that keeps showing new
    /// signatures once a profile is complete stops being observed.
    void endObservation(const CollectorConfig& config, bool groupOpen);
    /// After the iteration's passes: a steady iteration with signatures lacking samples starts a
    /// cycle (its first window in `g`'s offset).
    /// `steadyShape`: the iteration launched as many kernels as the steady one (an iteration
    /// that also validated did not).
    void afterIteration(DeviceSlot& slot, PassGroup& g, bool limitReached, bool steadyShape);
    /// The window's group completed: the next window, or the cycle's end (reused records
    /// emitted, the profiler released); true when the cycle ended.
    bool advance(Shared& shared, DeviceSlot& slot, PassGroup& g,
                 std::vector<std::uint32_t>& signatures);
    /// The cycle ends without reused records (an iteration ended before the window).
    void drop(PassGroup& g);
    /// The completed group's records with values are samples of their signatures.
    void recordSamples(const RecordStore& records, const std::vector<std::int64_t>& members,
                       const std::vector<std::uint32_t>& signatures);
    /// Records for the reference's launches no window measured (the mean of their samples).
    void emitReused(Shared& shared, std::vector<std::uint32_t>& signatures);

    /// In a cycle: the reference's launch at `position` when the filters admitted it there (the
    /// windows measure its place in later iterations, whatever those iterations' own scopes:
    /// `--nvtx-include 'Train step 5/'` picks step 5, its windows run on steps 6, 7, ...).
    const core::LaunchInfo* referenceAdmitted(std::size_t position) const noexcept {
        return cycle_ && position < refInfo_.size() && !refInfo_[position].mangledName.empty()
                   ? &refInfo_[position]
                   : nullptr;
    }
    bool observing() const noexcept { return observing_; }
    bool inCycle() const noexcept { return cycle_; }
    std::size_t cyclesDone() const noexcept { return cyclesDone_; }
    bool awaiting() const noexcept { return awaiting_; }
    std::size_t windowEnd() const noexcept { return windowEnd_; }
    std::size_t windows() const noexcept { return windows_; }
    std::size_t signatures() const noexcept { return plan_.signatures(); }
    void endCycle() noexcept { cycle_ = false; }

private:
    void stopObservingIfUnbounded(const CollectorConfig& config, bool groupOpen);
    void maybeStart(DeviceSlot& slot, PassGroup& g, bool unmeasured, bool limitReached);

    ReusePlan plan_;
    std::uint32_t shareIndex_, shareCount_; // ranks sharing the profile (CollectorConfig)
    bool observing_ = true;                // iterations are observed (stopObservingIfUnbounded)
    ObservedIteration observed_;           // the current iteration's launches
    std::vector<std::uint64_t> refShapes_; // the reference's launches (ObservedIteration::shape)
    std::vector<std::string> iterLabels_, refLabels_; // places in their scope instances
    std::vector<std::uint32_t> iterSigs_, refSigs_;
    std::vector<std::uint32_t> iterFamilies_, prevFamilies_; // steady: equal for two in a row
    std::vector<core::LaunchInfo> iterInfo_, refInfo_;
    bool cycle_ = false;        // a cycle of windows over refSigs_ is in progress
    std::size_t windowEnd_ = 0; // the current window: [g.offset, windowEnd_)
    std::size_t windows_ = 0;   // windows of the current cycle so far
    std::size_t cyclesDone_ = 0;
    std::size_t unsteady_ = 0; // observed iterations that differed from the one before
    bool awaiting_ = false;    // the last iteration launched what no cycle measured yet
    std::vector<bool> measuredPos_;
    std::size_t cycleRanges_ = 0; // the cycle's longest window: what its image holds
};

} // namespace roofline::collect
