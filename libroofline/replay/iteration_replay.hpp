#pragma once
// Iteration replay: one record per admitted launch (docs/design/0018). Per device it wires
//   a PassSchedule    (replay/pass_schedule)    which iteration runs which pass, over which
//                                                window, and which range each launch occupies;
//   a PassChecker     (replay/pass_checker)     positional or aligned passes, each launch checked
//                                                against pass 0's, the values of a completed group;
//   a WindowPlacement (replay/window_placement) whether a window inside the iteration may start
//                                                its pass on this iteration;
//   a WindowChooser   (replay/window_chooser)   which windows to measure and which launches get
//                                                records: plain (every launch) or reuse.
// What it keeps itself is what joins them: a group completed into its records (tensor counters
// by detection, design 0008), a window measured again when a later pass lost its launches, the
// switch from positional to aligned passes (design 0006), completion and coverage. Launches no
// step covers are measured in recorded windows (replay/windows) until the first step begins,
// where CollectorConfig::windowsOutsideSteps (design 0026).
#include "replay/outside_records.hpp"
#include "replay/pass_checker.hpp"
#include "replay/replay_device.hpp"
#include "replay/window_chooser.hpp"
#include "replay/window_placement.hpp"
#include "replay/windows.hpp"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace roofline::collect {

class IterationReplay final : public Strategy {
public:
    IterationReplay(Shared& shared, std::vector<DeviceSlot*> slots, MakeReuseChooser makeReuse);
    ~IterationReplay() override;

    void iterationBegins() override;
    void iterationEnds() override;
    void launch(DeviceSlot& slot, const Launch& l, const Stack& stack) override;
    void graphLaunch(DeviceSlot& slot) override;
    void memoryOperation(DeviceSlot& slot) override;
    void renewStaleProfiler(DeviceSlot& slot) override;
    bool profiling(const DeviceSlot& slot) const override;
    bool pending() const override;
    bool done() const override;
    void completed() override;
    void finish() override;
    void coverage(core::Coverage& c) const override;
    bool aligned() const noexcept override { return aligned_; }
    std::size_t firstConfig() const noexcept override { return aligned_ ? 1 : 0; }

    /// Device slot 0's chooser: the iterations it took to measure every launch of one
    /// iteration, the signatures its reuse plan holds.
    Progress progress() const noexcept override;

private:
    /// One device: its schedule and group (ReplayDevice), passes, placement and windows; the
    /// listener its schedule emits to.
    struct Device final : PassSchedule::Listener {
        Device(IterationReplay& owner, DeviceSlot& slot);
        bool mayStartWindow(std::size_t begin, std::size_t pass) override;
        void startPass() override { owner->startPass(*this); }
        void endPass() override { owner->endPass(*this); }
        void measure(std::size_t range, std::size_t position, bool inside) override;

        IterationReplay* owner;
        ReplayDevice replay;
        std::unique_ptr<PassChecker> checker;
        WindowPlacement placement;
        std::unique_ptr<WindowChooser> windows;
        const Launch* launch = nullptr; // the launch the schedule is placing
        const Stack* stack = nullptr;
        bool placing = false;               // the schedule is placing a launch inside the iteration
        std::size_t between = 0;            // launches since the last iteration ended
        std::size_t lastBetween = 0;        // launches between the last iteration and this one
        bool redo = false;                  // the completed group is measured again
        std::size_t retries = 0;            // the window measured again in a row (measureAgain)
        std::vector<std::int64_t> previous; // the attempt being measured again: its records
        bool previousLost = false;          // it lost launches (else: it lacks tensor counters)
        bool stepsBegun = false;   // a step began: windows outside the steps are over
        bool windowsReady = false; // the backend is at configuration 0, the windows'
    };
    static constexpr std::size_t kLostRetries = 3;

    Device& device(const DeviceSlot& slot) { return *devices_[slot.index]; }
    const Device& device(const DeviceSlot& slot) const { return *devices_[slot.index]; }
    /// `chained`: it follows a group that completed at the launch being placed.
    void beginGroup(Device& d, const GroupStart& g, bool chained = false);
    /// A group completed at the launch being placed: the chooser's next one begins at once when
    /// its window lies later in this iteration (WindowChooser::chain).
    void chainGroup(Device& d);
    /// Pass 0's launch at `position`: its record when the chooser admits it, or -1.
    std::int64_t record(Device& d, std::size_t position, bool inside);
    CompletedGroup completed(const Device& d, CompletedGroup::Outcome outcome) const;
    void changeImage(DeviceSlot& slot, const ImageChanges& changes);
    void startPass(Device& d);
    void endPass(Device& d);
    void endIteration(Device& d);
    void completeGroup(Device& d);
    /// The group's members' `values` into their records, with the verdicts of their passes;
    /// `note` goes to each record that keeps its counters.
    void recordValues(Device& d, std::vector<MemberValues>& values, Tally& tally,
                      const std::string& note = {});
    bool measureAgain(Device& d);
    void keepPreviousAttempt(Device& d);
    /// The stop (`atStop`), or an iteration that drops the group: a group past its first launch
    /// keeps in its records the counters of the passes that ran (the others NaN:
    /// KernelRecord::lacks). False: it has none to keep.
    bool keepCutShort(Device& d, bool atStop);
    bool switchToAligned(Device& d);
    void quiesce(DeviceSlot& slot) override;
    void metricsAdded(DeviceSlot& slot) override;
    // ---- launches no step covers (iteration_replay_outside.cpp) ----
    /// Whether a launch outside every iteration on `d` goes to a window now: not once a step
    /// began, nor once the process holds host-visible memory (what stops it goes to
    /// Shared::outsideWhy, and in brief to `why`). The backend is taken to configuration 0 and
    /// the windows' image.
    bool outsideWindowed(Device& d, const char*& why);
    /// A launch outside every iteration that no window measures: a record while there is room
    /// (its signature's counters lent by the step at the stop), else counted.
    void keepOutside(const Launch& l, const Stack& stack, const char* why);
    /// At the stop: those records take their signature's counters from the step.
    void lendOutside();
    /// The first step begins: windows are over, and the backend goes back to where iteration
    /// replay holds it before its first group (released -- so that code the first step loads
    /// re-creates nothing -- with the session's image, at its first configuration).
    void stepsBegin(Device& d);
    /// Open windows close (an iteration begins, a graph launch, a memory operation).
    void closeOutside(DeviceSlot& s);
    /// A window's ranges into its records (Strategy::recordLaunchRanges); where the window is to
    /// be measured again with a grown metric set, the backend is taken back to configuration 0.
    bool recordOutside(DeviceSlot& s, bool last);

    std::vector<std::unique_ptr<Device>> devices_;
    bool aligned_ =
        false;           // aligned passes in use (from the start, or since a pass went out of step)
    bool reuse_ = false; // repeated-launch reuse (CollectorConfig::reuses(), with counters)
    std::uint64_t serials_ = 0; // Frame::serial given so far (reuse)
    MakeReuseChooser makeReuse_;
    std::unique_ptr<Windows> outside_; // launches no step covers (windowsOutsideSteps), or null
    OutsideRecords outsideRecords_;    // those no window measured, with outside_
};

} // namespace roofline::collect
