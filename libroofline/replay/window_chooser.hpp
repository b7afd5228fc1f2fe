#pragma once
// Which windows of an iteration the replay groups of one device measure, and which launches get
// records (docs/design/0018), behind one interface with two implementations:
//   PlainWindows  (replay/plain_windows)  every launch, window after window of an image each,
//                 until every launch of the steady iteration has its record;
//   ReuseWindows  (replay/reuse/reuse_windows)  repeated launches measured a few times (design 0009):
//                 iterations observed, then a cycle of windows over the launches whose signature
//                 lacks samples; the others reuse samples that agree.
// A chooser only chooses: the iteration replay strategy asks it at each iteration, group and
// pass-0 launch, makes the records, and carries out what it returns -- the window, and the
// changes of the device's image (ImageChange), which the chooser never makes itself.
#include "replay/pass_schedule.hpp"
#include "collect/strategy.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace roofline::collect {

/// What a device's iteration did, as the window chooser needs it at the iteration's end.
struct IterationFacts {
    std::size_t launches = 0;    ///< launches of the iteration
    bool groupCompleted = false; ///< a group completed in it
    bool inGroup = false;        ///< a group is in progress after it
    bool passStarted = false;    ///< a pass started in it
    bool restartPending = false; ///< a group was abandoned and is to be measured again
    std::size_t iterationsPerPass = 0;
    bool steadyShape = false;       ///< it launched as many kernels as the steady iteration
    std::size_t launchesBefore = 0; ///< launches between the iteration before it and it
    std::size_t passes = 0;         ///< a group's passes now
    bool firstPassIn = false;       ///< a group's pass 0 measured launches of it
    /// Heard when a cycle is about to begin on this iteration, before it is laid out, with the
    /// kernels (mangled names, each once) the filters admitted in it: the strategy may grow what
    /// is collected while no profiler exists yet. Returns a group's passes from then on.
    std::function<std::size_t(const std::vector<std::string>& kernels)> cycleBegins;
};

/// Launches of an iteration of `launches` that windows starting at `offsets` cover, an image of
/// `capacity` launches each.
inline std::uint64_t launchesCoveredBy(const std::set<std::size_t>& offsets, std::uint64_t launches,
                                       std::size_t capacity) {
    const std::uint64_t cap = std::max<std::uint64_t>(1, capacity);
    std::uint64_t n = 0;
    for (std::size_t offset : offsets)
        if (offset < launches)
            n += std::min<std::uint64_t>(cap, launches - offset);
    return n;
}

/// A change of the device's image the chooser asks for: the profiler released now, and created
/// again -- at the next pass -- holding `launches` launches (0: as many as before; a release of
/// a profiler already released is no change).
struct ImageChange {
    std::size_t launches = 0;
};
using ImageChanges = std::vector<ImageChange>;

/// The group the next iterations measure, or none.
struct GroupStart {
    /// The profile is complete: no group begins any more.
    bool complete = false;
    Window window;                     ///< the window the group measures
    std::size_t iterationsPerPass = 0; ///< 0: as the schedule decides
    ImageChanges changes;              ///< made before the group begins (or at completion)
};

/// What pass 0's launch at a position becomes.
struct Admission {
    bool admitted = false; ///< it gets a record
    /// The reference iteration's launch at its place, whose scope and iteration -- and, where the
    /// framework named nothing, its operator and module -- the record takes (reuse); null: its
    /// own.
    const core::LaunchInfo* reference = nullptr;
};

/// A group whose passes are all in (or the stop cut short).
struct CompletedGroup {
    enum class Outcome {
        Recorded,         ///< its records hold their values
        AgainForCounters, ///< measured again with the tensor counters its MMA work needs
        CutShort, ///< the stop came before its last pass: its records hold what the passes gave
        /// Dropped before its last pass (an iteration of another shape): its records hold what
        /// the passes gave until a later cycle measures those launches again
        Provisional
    };
    Outcome outcome = Outcome::Recorded;
    const std::vector<std::int64_t>* members = nullptr; ///< record per range, -1: none
    Window window;                                      ///< what it covered
    std::size_t iterationsPerPass = 1;
};

/// What the strategy must do after an iteration's end.
struct IterationVerdict {
    bool dropGroup = false; ///< the window's group is abandoned (not the reference's shape)
    /// The dropped group's records keep what its passes collected (CompletedGroup::Outcome::
    /// Provisional): its passes ran on steady iterations only.
    bool keepDropped = false;
    std::string mismatch; ///< the group's passes did different work: this says what
    ImageChanges changes; ///< after the group is dropped and the mismatch noted
};

/// Where the chooser stands.
struct ChooserState {
    bool holdsBack = false;        ///< no group begins now: nothing to measure yet (reuse)
    bool pending = false;          ///< the replay helper: more to measure on this device
    bool done = false;             ///< nothing is left to measure on this device
    std::size_t windowAt = 0;      ///< where the next window begins
    std::uint64_t completedAt = 0; ///< iterations it took to measure one (0: not complete)
    std::size_t signatures = 0;    ///< launch signatures held (reuse; 0 once not observing)
};

class WindowChooser {
public:
    virtual ~WindowChooser() = default;

    /// An iteration begins; its launch `position` is seen; it ended (before its passes are
    /// handled; `groupOpen`: a group is running).
    virtual void iterationBegins() = 0;
    virtual void observe(Shared& shared, const Launch& l, const Stack& stack,
                         std::size_t position) = 0;
    virtual void iterationObserved(const CollectorConfig& config, bool groupOpen) = 0;
    /// No group is open and one may begin: which. `restarting`: a group is to be measured again
    /// (the profile is not complete then).
    virtual GroupStart nextGroup(Shared& shared, bool restarting) = 0;
    /// Pass 0's launch at `position` (`inside` the iteration, else between two).
    virtual Admission admit(Shared& shared, const Launch& l, const Stack& stack,
                            std::size_t position, bool inside) = 0;
    /// A group completed, and is not measured again for lost launches.
    virtual void groupCompleted(Shared& shared, const CompletedGroup& group) = 0;
    /// The group that just completed (groupCompleted(), Recorded) ended at launch `position` of
    /// the iteration: the next group, when its window begins there or later in this iteration
    /// and the chooser can tell it now -- its passes then start this iteration, not the next one.
    /// None: the next group is chosen as the next iteration begins (nextGroup).
    virtual std::optional<GroupStart> chain(Shared& shared, std::size_t position) = 0;
    /// The iteration's passes are handled: the next window, or the current one given up.
    virtual IterationVerdict iterationEnded(Shared& shared, const IterationFacts& facts) = 0;
    virtual ChooserState state(const Shared& shared) const = 0;
    /// Launches of an iteration of `launches` that completed groups cover, and the iterations a
    /// complete profile needs, `passes` per group and an image of `launchesPerImage`.
    virtual void coverage(core::Coverage& c, bool observeFirst) const = 0;
    /// The stop: what an unfinished cycle still gives.
    virtual void finish(Shared& shared) = 0;
};

/// Iteration replay's chooser when it reuses samples (the session's: replay/reuse).
using MakeReuseChooser = std::function<std::unique_ptr<WindowChooser>(
    const CollectorConfig& config, std::uint64_t& serials, const DeviceSlot& slot)>;

} // namespace roofline::collect
