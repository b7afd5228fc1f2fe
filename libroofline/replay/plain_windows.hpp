#pragma once
// Every launch measured (no reuse): an iteration is covered window by window, each window what
// one counter-data image holds ([offset, offset + capacity)), or whole iterations in one pass
// when they are short; the profile is complete once every launch of the steady iteration has its
// record (docs/design/0018).
#include "replay/window_chooser.hpp"

#include <set>

namespace roofline::collect {

class PlainWindows final : public WindowChooser {
public:
    /// `slot`: the device whose image sizes the windows.
    explicit PlainWindows(const DeviceSlot& slot) : slot_(&slot) {}
    void iterationBegins() override {}
    void observe(Shared&, const Launch&, const Stack&, std::size_t) override {}
    void iterationObserved(const CollectorConfig&, bool) override {}
    GroupStart nextGroup(Shared& shared, bool restarting) override;
    Admission admit(Shared& shared, const Launch& l, const Stack& stack, std::size_t position,
                    bool inside) override;
    void groupCompleted(Shared& shared, const CompletedGroup& group) override;
    /// The image filled at `position`: the next window begins there, in this iteration.
    std::optional<GroupStart> chain(Shared& shared, std::size_t position) override;
    IterationVerdict iterationEnded(Shared& shared, const IterationFacts& facts) override;
    ChooserState state(const Shared& shared) const override;
    void coverage(core::Coverage& c, bool observeFirst) const override;
    void finish(Shared&) override {}

private:
    /// Completed groups cover every launch of the steady iteration.
    bool covers(const Shared& shared) const;
    std::uint64_t launchesCovered(std::uint64_t launches, std::size_t capacity) const;

    const DeviceSlot* slot_;
    std::size_t offset_ = 0;        // the current (or next) window's start
    std::set<std::size_t> offsets_; // window starts of completed groups
    bool whole_ = false;            // a group of passes spanning whole iterations completed
    bool chained_ = false; // the last completed group's successor was chosen as it completed
    std::uint64_t completedAt_ = 0; // iterations seen when the profile was complete
};

} // namespace roofline::collect
