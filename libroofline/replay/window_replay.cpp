#include "replay/window_replay.hpp"

namespace roofline::collect {

WindowReplay::WindowReplay(Shared& shared, std::vector<DeviceSlot*> slots)
    : Strategy(shared, std::move(slots)),
      windows_(shared, slots_.size(), "window replay",
               [this](DeviceSlot& s, bool last) { return recordLaunchRanges(s, last); }) {}

void WindowReplay::launch(DeviceSlot& s, const Launch& l, const Stack& stack) {
    windows_.launch(s, l, stack);
}

// The graph's kernels get names and scopes, no duration: an activity timer beside the windows'
// replay would zero their instruction counters from then on (design 0011).
void WindowReplay::graphLaunch(DeviceSlot& s) {
    windows_.close(s);
}

} // namespace roofline::collect
