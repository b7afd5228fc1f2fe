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
// measured yet: no record is ever the mean of different work (replay/reuse/reuse_samples.cpp: the
// samples' checks, splits and reused records; replay/reuse/reuse_cycles.cpp: when a cycle begins,
// its windows, one across the iteration's end). The pure pieces are replay/reuse/reuse_plan,
// replay/reuse/observed_iteration and replay/reuse/repeats.
#include "replay/reuse/observed_iteration.hpp"
#include "replay/reuse/reuse_plan.hpp"
#include "replay/samples.hpp"
#include "replay/window_chooser.hpp"

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace roofline::collect {

class ReuseWindows final : public WindowChooser {
public:
    /// `serials`: numbers scope instances (Frame::serial), shared by every device's chooser;
    /// `slot`: the device whose image sizes the windows.
    ReuseWindows(const CollectorConfig& config, std::uint64_t& serials, const DeviceSlot& slot);

    void iterationBegins() override;
    void observe(Shared& shared, const Launch& l, const Stack& stack,
                 std::size_t position) override;
    void iterationObserved(const CollectorConfig& config, bool groupOpen) override;
    GroupStart nextGroup(Shared& shared, bool restarting) override;
    Admission admit(Shared& shared, const Launch& l, const Stack& stack, std::size_t position,
                    bool inside) override;
    void groupCompleted(Shared& shared, const CompletedGroup& group) override;
    /// The cycle's next window, when it begins at `position` or later in the iteration.
    std::optional<GroupStart> chain(Shared& shared, std::size_t position) override;
    IterationVerdict iterationEnded(Shared& shared, const IterationFacts& facts) override;
    ChooserState state(const Shared& shared) const override;
    void coverage(core::Coverage& c, bool observeFirst) const override;
    void finish(Shared& shared) override;

    /// Signatures split because their samples did different work.
    std::size_t splits() const noexcept { return splits_; }

private:
    /// Ranges a window across the iteration's end keeps for launches between the iterations.
    static constexpr std::size_t kRoomBetween = 2;
    /// Iterations observed for a steady one (launching what the one before did) before the last
    /// one is taken as the reference anyway.
    static constexpr std::size_t kSteadyAttempts = 4;
    /// One iteration as reuse keeps it, per launch position: the last one observed, and the one
    /// a cycle refers to (taking a new reference is one assignment).
    struct Observation {
        std::vector<std::uint32_t> signatures;
        std::vector<std::string> labels;   ///< places in their scope instances
        std::vector<std::string> parents;  ///< their instances' places in their parents
        std::vector<std::uint64_t> shapes; ///< ObservedIteration::shape (the reference's)
        std::vector<std::uint32_t> families;
        std::vector<core::LaunchInfo> launches; ///< admitted ones' records (while no cycle runs)
    };

    /// The signature the current iteration's launch `at` is a sample of (kNotMeasured: none).
    std::uint32_t measuredSignature(std::size_t at);
    void stopObservingIfUnbounded(const CollectorConfig& config, bool groupOpen);
    /// What the last iteration tells the next ones (a cycle may begin).
    void plan(Shared& shared, const IterationFacts& facts, ImageChanges& changes);
    /// A cycle may begin on the iteration just observed; true when other ranks measure all of
    /// it (this rank's share is empty, its reference taken: plan() emits the records).
    bool maybeStart(bool unmeasured, bool limitReached, const IterationFacts& facts,
                    ImageChanges& changes);
    /// A cycle's windows with images of `capacity` launches, as maybeStart weighs them.
    struct CycleLayout {
        std::vector<Window> windows; ///< the first and last measured as one when `wraps`
        bool wraps = false;          ///< a window across the iteration's end
        std::size_t ranges = 0;      ///< what its image holds
        std::size_t iterations = 0;  ///< the cycle takes, passes chained
        /// Ranges measured over every pass, and kRangesPerIteration per iteration it takes.
        std::size_t cost = 0;
        /// A window ends before a run of more launches than this that it need not measure.
        std::size_t gap = 0;
    };
    CycleLayout layoutFor(std::size_t capacity, const IterationFacts& facts,
                          std::size_t gap) const;
    /// The layout with the session's image size, or a larger image's (up to maxRanges_) where
    /// that costs less; windows that take in every launch between the ones they need, or that
    /// end before a run of launches costing more ranges than the window another would cost
    /// (the launches a window need not measure are not spread out then: the samples of a
    /// forward's layers at the step's start, each launch of a backward's kernel whose data
    /// decides its work across it).
    CycleLayout cheapestLayout(const IterationFacts& facts) const;
    /// What an iteration fewer is worth, in ranges measured (one range of one pass ~1 ms; an
    /// iteration with passes costs their Start and Stop, ~20-75 ms, and keeps the profile on).
    static constexpr std::size_t kRangesPerIteration = 64;
    /// The current window, as a group measures it.
    Window window() const noexcept;
    /// The cycle's next window (inside one iteration) becomes the current one.
    void enter(const Window& w);
    /// The window's group completed: the next window, or the cycle's end (reused records
    /// emitted, the profiler released); true when the cycle ended.
    bool advance(Shared& shared, ImageChanges& changes);
    /// The iteration just observed becomes the reference (its launches' records come from it).
    void takeReference();
    void recorded(Shared& shared, const std::vector<std::int64_t>& members);
    void inspect(Shared& shared, const std::vector<std::int64_t>& members);
    /// The group's members' signatures, as they were admitted.
    void signaturesOf(Shared& shared, const std::vector<std::int64_t>& members);
    /// Before a cycle is planned: the signatures of the iteration's launches whose configuration
    /// windows outside the steps saw do different work from the same arguments
    /// (Shared::dataDependentLaunches) are split at once -- each launch measured on its own from
    /// the first window, which the cycle's layout then takes in -- rather than found out from
    /// two samples and measured again in windows of their own. Not where ranks share the profile
    /// (each rank's windows saw its own data).
    void splitDataDependent(Shared& shared);
    /// Splits the signatures among `touched` whose samples -- and `extra` records, when given --
    /// disagree; true when any was.
    bool splitDisagreeing(Shared& shared, const std::vector<std::uint32_t>& touched,
                          const std::vector<std::int64_t>& extra = {});
    /// After a split: the next window over the reference's positions this cycle has not
    /// measured yet, from its start -- as long as an image of the session's size holds (the
    /// cycle's image grows to it when it must: more ranges cost less than another window).
    std::optional<Window> rewound(ImageChanges& changes);
    /// Records for the reference's launches no window measured (the mean of their samples).
    void emitReused(Shared& shared);
    /// A new reference: the records a dropped group kept (provisional_) are measured again.
    void dropProvisional(Shared& shared);
    /// The reference's positions that a live record of this device holds.
    std::vector<bool> positionsHeld(const Shared& shared) const;
    /// The cycle ends (its reused records emitted, or none): no window is measured until another
    /// one starts.
    void dropCycle();
    /// Signature `id` as the reference's launch at `at` has it now: split signatures resolved by
    /// the place of its scope instance in its parent, or by `at`.
    std::uint32_t resolvedAt(std::uint32_t id, std::size_t at) {
        static const std::string none;
        return plan_.resolve(id, at,
                             at < reference_.parents.size() ? reference_.parents[at] : none);
    }
    /// The reference's launch at `position` when the filters admitted it there.
    const core::LaunchInfo* referenceAdmitted(std::size_t position) const noexcept {
        return cycling() && position < reference_.launches.size() &&
                       !reference_.launches[position].mangledName.empty()
                   ? &reference_.launches[position]
                   : nullptr;
    }

    ReusePlan plan_;
    std::uint64_t* serials_;
    const DeviceSlot* slot_;
    std::vector<std::size_t> work_;         // the work counters' positions in the values
    std::uint32_t shareIndex_, shareCount_; // ranks sharing the profile (CollectorConfig)
    bool observing_ = true;                 // iterations are observed (stopObservingIfUnbounded)
    ObservedIteration observed_;            // the current iteration's launches
    Observation iteration_, reference_;
    std::vector<std::uint32_t> prevFamilies_;           // steady: equal for two in a row
    std::map<std::size_t, std::uint32_t> admittedAt_;   // pass 0's signature at each position
    std::map<std::int64_t, std::uint32_t> signatureOf_; // a completing group's records'
    // A group dropped before its last pass, before any cycle completed: its records and their
    // signatures, kept for the stop unless a new reference replaces them (dropProvisional).
    std::vector<std::pair<std::int64_t, std::uint32_t>> provisional_;
    /// Where reuse is. Searching: iterations are observed for a steady one to take as the
    /// reference. Awaiting: the last iteration launched what no cycle measured yet, and the
    /// replay helper waits for it to form a steady iteration. Verifying: a cycle of windows over
    /// the reference runs, the reference taken from the second iteration before it was known to
    /// be steady (the first is the odd one: validation, lazy loading, state created on first
    /// use) -- the next iteration must launch the same families, or the cycle is dropped.
    /// Measuring: a cycle of windows over the reference runs.
    enum class Phase { Searching, Awaiting, Verifying, Measuring };
    Phase phase_ = Phase::Searching;
    bool cycling() const noexcept {
        return phase_ == Phase::Verifying || phase_ == Phase::Measuring;
    }
    /// The cycle of windows over the reference: where its current window lies, and what it
    /// measured. Set when a cycle starts (maybeStart); a dropped cycle clears its window
    /// (dropCycle), while its window count, image size and measured positions stay for the
    /// coverage and the records until the next cycle starts.
    struct Cycle {
        std::size_t offset = 0; ///< the current window: [offset, windowEnd)
        std::size_t windowEnd = 0;
        std::size_t windows = 0; ///< windows of the current cycle so far
        /// The current window goes across the iteration's end: [offset, the end) and the next
        /// iteration's [0, windowEnd) -- the cycle's last window and its first, measured as one.
        bool wraps = false;
        bool wrapped = false; ///< the cycle began with such a window (one iteration more)
        /// Positions from here on were that window's tail: later windows of the cycle end
        /// before it (a launch there whose grid follows the data has another signature in every
        /// iteration).
        std::size_t tailBegin = Window::kOpen;
        bool rewind = false;  ///< a split: the next window is searched from the start again
        bool chained = false; ///< the last completed window's successor was chosen as it completed
        std::vector<bool> measured; ///< the reference's positions a window measured
        std::size_t ranges = 0;     ///< the cycle's longest window: what its image holds
        std::size_t gap = 0;        ///< its windows' gap (CycleLayout::gap)
    };
    Cycle cycle_;
    std::size_t cyclesDone_ = 0;
    std::size_t unsteady_ = 0; // observed iterations that differed from the one before
    /// Where the cycle's next window is searched from.
    std::size_t resumeFrom() const;
    /// The cycle's next window from `from`, before the tail a window across the end measured.
    std::optional<Window> nextWindow(std::size_t from) const;
    std::size_t observedIterations_ = 0;
    std::vector<std::uint32_t> verifyFamilies_; // Phase::Verifying: the families to launch again
    std::size_t maxRanges_ = 0;                 // the most an image may grow to (CollectorConfig)
    std::size_t largestImage_ = 0;              // the largest image a cycle asked for
    std::size_t splits_ = 0;
    std::set<std::uint32_t> splitPositions_; // signatures a split gave the reference's launches
    /// What completed cycles and windows cover.
    struct Covered {
        bool whole = false;            ///< a cycle completed (or nothing was left to measure)
        std::size_t windows = 0;       ///< the last completed cycle's windows
        std::set<std::size_t> offsets; ///< window starts of completed groups
    };
    Covered covered_;
};

} // namespace roofline::collect
