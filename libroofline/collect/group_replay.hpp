#pragma once
// What iteration replay and scope replay share: per device a group of replay passes, pass i on
// the i-th iteration (or on several short iterations) that the group spans; a group restarts on a
// later iteration when its passes are lost (code loaded while profiling, design 0005; a graph
// launch inside a pass, design 0011; a first iteration that differs from the next). The
// strategies add what they measure in a pass (launch windows, scopes) through the hooks below.
#include "collect/strategy.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace roofline::collect {

/// One device's replay group.
struct PassGroup {
    DeviceSlot* slot = nullptr;
    bool group = false; ///< a group is in progress
    bool passOpen = false;
    bool passStartedThisIteration = false;
    bool completedThisIteration = false;
    bool restart = false; ///< a group was abandoned: the next iteration redoes it
    bool redo = false;    ///< the completed group needs counters it lacked: measured again
    std::size_t pass = 0;
    std::size_t offset = 0;       ///< window start within the iteration
    std::size_t k = 0;            ///< launch position in the current iteration
    std::size_t passCount = 0;    ///< launches (auto ranges) in this pass so far
    std::size_t passIters = 0;    ///< iterations completed in this pass
    std::size_t itersPerPass = 0; ///< iterations a pass spans (0: not decided yet)
    std::size_t scopeCount = 0;   ///< scope ranges pushed this pass
    std::uint64_t groupStart = 0; ///< the iteration the group began on (1: the first)
    bool mismatch = false;        ///< the group's passes did different work (noteMismatch)
    std::string mismatchNote;
};

class GroupReplay : public Strategy {
public:
    GroupReplay(Shared& shared, std::vector<DeviceSlot*> slots);

    void iterationBegins() final;
    void iterationEnds() final;
    void graphLaunch(DeviceSlot& slot) final;
    void renewStaleProfiler(DeviceSlot& slot) final;
    bool profiling(const DeviceSlot& slot) const final;
    bool pending() const override;
    void finish() override;

protected:
    PassGroup& groupOf(const DeviceSlot& slot) { return groups_[slot.index]; }
    const PassGroup& groupOf(const DeviceSlot& slot) const { return groups_[slot.index]; }

    void newGroup(PassGroup& g);
    /// The group's passes are lost: the launches its pass 0 recorded are measured again by the
    /// group that replaces it, so their records go.
    void abandonGroup(PassGroup& g);
    void startPass(PassGroup& g);
    void endPass(PassGroup& g);
    /// Stops an open pass without ending it (its group is abandoned or noted incomplete).
    void stopPass(PassGroup& g);
    /// A completed group's records have their values: inferred tensor metrics, then the strategy's
    /// own use of them (groupRecorded).
    void recorded(PassGroup& g);
    void quiesce(DeviceSlot& slot) override;
    /// The group's passes did different work: every record of it says so (once per group).
    void noteMismatch(PassGroup& g, const std::string& what);

    // ---- hooks ----
    /// At an iteration's start, before anything else (reuse: a new observation).
    virtual void startIteration(PassGroup&) {}
    /// At an iteration's end, before its passes are handled (reuse: the observation is complete).
    virtual void iterationObserved(PassGroup&) {}
    /// A pass starts (its per-pass counts begin again).
    virtual void passStarts(PassGroup&) {}
    /// No new group on this iteration (reuse: no cycle to measure).
    virtual bool holdsBack(const PassGroup&) const { return false; }
    /// The profile is complete: no new group (positional replay with idle after completion).
    virtual bool complete(PassGroup&) { return false; }
    virtual void groupBegins(PassGroup&) {}
    /// The open pass starts when the iteration begins (iteration replay: its window is at 0).
    virtual bool passAtIterationStart(const PassGroup&) const { return true; }
    /// The launches (or scopes) one iteration put into the pass: iterations a pass may span.
    virtual std::size_t perIteration(const PassGroup& g) const = 0;
    /// A pass ended (`all`: the backend's configuration has every pass in): whether that ends the
    /// group.
    virtual bool groupEnds(const PassGroup&, bool all) const { return all; }
    /// The pass's checks; false: the group was given up.
    virtual bool passChecked(PassGroup&, bool groupDone) = 0;
    /// Pass 1 ran other work than pass 0, and why.
    virtual bool differs(const PassGroup&) const = 0;
    virtual const std::string& difference(const PassGroup&) const = 0;
    /// Moves to the next pass; false: the group was handed over (aligned replay).
    virtual bool advance(PassGroup& g, bool all) = 0;
    /// Every pass is in: the values into the records.
    virtual void completeGroup(PassGroup&) = 0;
    /// The completed group's records are final (reuse: samples).
    virtual void groupRecorded(PassGroup&) {}
    /// The group completed without redo (coverage).
    virtual void groupCovered(PassGroup&) {}
    /// At an iteration's end, passes handled (reuse cycles, the next window).
    virtual void endIteration(PassGroup&) {}
    /// The replay helper: this slot has more to measure.
    virtual bool morePending(const PassGroup&) const { return false; }
    /// The stop: what a strategy does with unfinished work.
    virtual void finishGroup(PassGroup&) {}

    std::vector<PassGroup> groups_;

private:
    bool firstIterationDiffers(PassGroup& g);
    void noteIncomplete(PassGroup& g);
};

} // namespace roofline::collect
