#pragma once
// Repeated-launch reuse for one device (docs/design/0009, 0018): iterations are observed (each
// launch's signature: kernel, grid, block, shared memory, uniform scope path and place in its
// scope instance); once a steady iteration shows signatures without their samples, a cycle of
// windows over it -- launches of such signatures, with short gaps -- is measured through the
// iteration replay's groups, and every other launch of the reference iteration gets a record with
// the mean of its signature's samples. Samples must agree: when two samples of one signature
// differ in a work counter (FLOPs of any kind, tensor operations, L1 bytes), launches that look
// alike did different work (cuBLASLt keeps one grid across depths), so the signature is split --
// each of its launches a signature of its own, by position -- and the cycle measures the ones not
// measured yet: no record is ever the mean of different work. The pure pieces are
// collect/reuse_plan, collect/observed_iteration and collect/repeats.
#include "collect/observed_iteration.hpp"
#include "collect/reuse_plan.hpp"
#include "collect/window_chooser.hpp"

#include <cstddef>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace roofline::collect {

/// Whether two launches' values agree in every work counter of `metrics` (instruction and
/// operation counts, L1 bytes: equal for the same work), within one part in a thousand (some
/// kernels' counts vary that much from run to run). Counters missing (NaN) in either are not
/// compared.
bool sameWork(const std::vector<double>& a, const std::vector<double>& b,
              const std::vector<std::size_t>& workMetrics);
/// The positions in `metricNames` of the work counters.
std::vector<std::size_t> workCounters(const std::vector<std::string>& metricNames);

class ReuseWindows final : public WindowChooser {
public:
    /// `serials`: numbers scope instances (Frame::serial), shared by every device's chooser.
    ReuseWindows(const CollectorConfig& config, std::uint64_t& serials);

    void iterationBegins() override;
    void observe(Shared& shared, const Launch& l, const Stack& stack,
                 std::size_t position) override;
    void iterationObserved(const CollectorConfig& config, bool groupOpen) override;
    bool holdsBack() const override { return !cycle_; }
    Window window() const override { return Window{offset_, windowEnd_}; }
    Window windowForGroup(DeviceSlot& slot) override;
    std::size_t iterationsPerPass() const override { return 1; }
    std::int64_t admit(Shared& shared, const Launch& l, const Stack& stack, std::size_t position,
                       bool inside) override;
    void recorded(Shared& shared, const std::vector<std::int64_t>& members) override;
    void inspect(Shared& shared, const std::vector<std::int64_t>& members) override;
    void covered(const PassSchedule& schedule) override;
    IterationVerdict iterationEnded(Shared& shared, DeviceSlot& slot,
                                    const IterationFacts& facts) override;
    void plan(Shared& shared, DeviceSlot& slot, const IterationFacts& facts) override;
    bool pending(const Shared& shared) const override;
    bool done(const Shared& shared) const override;
    std::uint64_t launchesCovered(std::uint64_t launches, std::size_t capacity) const override;
    std::uint64_t iterationsNeeded(std::uint64_t launches, std::size_t capacity, std::size_t passes,
                                   std::size_t iterationsPerPass, bool observeFirst) const override;
    void finish(Shared& shared) override;

    std::size_t signatures() const noexcept override { return plan_.signatures(); }
    /// Signatures split because their samples did different work.
    std::size_t splits() const noexcept { return splits_; }

private:
    /// The signature the current iteration's launch `at` is a sample of (kNotMeasured: none).
    std::uint32_t measuredSignature(std::size_t at);
    void stopObservingIfUnbounded(const CollectorConfig& config, bool groupOpen);
    void maybeStart(DeviceSlot& slot, bool unmeasured, bool limitReached);
    /// The window's group completed: the next window, or the cycle's end (reused records
    /// emitted, the profiler released); true when the cycle ended.
    bool advance(Shared& shared, DeviceSlot& slot);
    /// Splits the signatures among `touched` whose samples -- and `extra` records, when given --
    /// disagree; true when any was.
    bool splitDisagreeing(Shared& shared, const std::vector<std::uint32_t>& touched,
                          const std::vector<std::int64_t>& extra = {});
    /// After a split: the next window over the reference's positions this cycle has not
    /// measured yet, from its start -- as long as an image of the session's size holds (the
    /// cycle's image grows to it when it must: more ranges cost less than another window).
    std::optional<Window> rewound(DeviceSlot& slot);
    /// Records for the reference's launches no window measured (the mean of their samples).
    void emitReused(Shared& shared);
    /// The cycle ends (its reused records emitted, or none): no window is measured until another
    /// one starts.
    void dropCycle();
    /// Signature `id` as the reference's launch at `at` has it now: split signatures resolved by
    /// the place of its scope instance in its parent, or by `at`.
    std::uint32_t resolvedAt(std::uint32_t id, std::size_t at) {
        static const std::string none;
        return plan_.resolve(id, at, at < refParents_.size() ? refParents_[at] : none);
    }
    /// The reference's launch at `position` when the filters admitted it there.
    const core::LaunchInfo* referenceAdmitted(std::size_t position) const noexcept {
        return cycle_ && position < refInfo_.size() && !refInfo_[position].mangledName.empty()
                   ? &refInfo_[position]
                   : nullptr;
    }

    ReusePlan plan_;
    std::uint64_t* serials_;
    std::vector<std::size_t> work_;         // the work counters' positions in the values
    std::uint32_t shareIndex_, shareCount_; // ranks sharing the profile (CollectorConfig)
    bool observing_ = true;                 // iterations are observed (stopObservingIfUnbounded)
    ObservedIteration observed_;            // the current iteration's launches
    std::vector<std::uint64_t> refShapes_;  // the reference's launches (ObservedIteration::shape)
    std::vector<std::string> iterLabels_, refLabels_;   // places in their scope instances
    std::vector<std::string> iterParents_, refParents_; // their instances' places in parents
    std::vector<std::uint32_t> iterSigs_, refSigs_;
    std::vector<std::uint32_t> iterFamilies_, prevFamilies_; // steady: equal for two in a row
    std::vector<core::LaunchInfo> iterInfo_, refInfo_;
    std::map<std::int64_t, std::uint32_t> signatureOf_; // a measured record's signature
    bool cycle_ = false;     // a cycle of windows over refSigs_ is in progress
    std::size_t offset_ = 0; // the current window: [offset_, windowEnd_)
    std::size_t windowEnd_ = 0;
    std::size_t windows_ = 0; // windows of the current cycle so far
    std::size_t cyclesDone_ = 0;
    std::size_t unsteady_ = 0; // observed iterations that differed from the one before
    bool awaiting_ = false;    // the last iteration launched what no cycle measured yet
    bool rewind_ = false;      // a split: the next window is searched from the start again
    std::size_t observedIterations_ = 0;
    // The first cycle refers to the second iteration before it is known to be steady (the first
    // is the odd one: validation, lazy loading, state created on first use); the next iteration
    // must launch the same families, or the cycle is dropped.
    bool verifying_ = false;
    std::vector<std::uint32_t> refFamilies_;
    std::vector<bool> measuredPos_;
    std::size_t cycleRanges_ = 0; // the cycle's longest window: what its image holds
    std::size_t splits_ = 0;
    std::set<std::uint32_t> splitPositions_; // signatures a split gave the reference's launches
    // Coverage (what completed cycles and windows cover).
    bool coveredWhole_ = false;
    std::size_t cycleWindows_ = 0;
    std::set<std::size_t> coveredOffsets_; // window starts of completed groups
};

} // namespace roofline::collect
