#pragma once
// Every launch measured (no reuse): an iteration is covered window by window, each window what
// one counter-data image holds ([offset, offset + capacity)), or whole iterations in one pass
// when they are short; the profile is complete once every launch of the steady iteration has its
// record (docs/design/0018).
#include "collect/window_chooser.hpp"

#include <set>

namespace roofline::collect {

class PlainWindows final : public WindowChooser {
public:
    explicit PlainWindows(const DeviceSlot& slot) : slot_(&slot) {}
    bool complete(Shared& shared, DeviceSlot& slot, bool restartPending) override;
    Window window() const override { return Window{offset_, Window::kOpen}; }
    std::int64_t admit(Shared& shared, const Launch& l, const Stack& stack, std::size_t position,
                       bool inside) override;
    void covered(const PassSchedule& schedule) override;
    IterationVerdict iterationEnded(Shared& shared, DeviceSlot& slot,
                                    const IterationFacts& facts) override;
    bool done(const Shared& shared) const override;
    std::uint64_t launchesCovered(std::uint64_t launches, std::size_t capacity) const override;
    std::uint64_t iterationsNeeded(std::uint64_t launches, std::size_t capacity, std::size_t passes,
                                   std::size_t iterationsPerPass, bool observeFirst) const override;
    std::uint64_t completedAt() const noexcept override { return completedAt_; }

private:
    /// Completed groups cover every launch of the steady iteration.
    bool covers(const Shared& shared) const;

    const DeviceSlot* slot_;
    std::size_t offset_ = 0;        // the current (or next) window's start
    std::set<std::size_t> offsets_; // window starts of completed groups
    bool whole_ = false;            // a group of passes spanning whole iterations completed
    std::uint64_t completedAt_ = 0; // iterations seen when the profile was complete
};

} // namespace roofline::collect
