#include "replay/window_placement.hpp"

#include <functional>
#include <string>
#include <string_view>

namespace roofline::collect {

void IterationSequence::iterationBegins() {
    last_.swap(current_);
    current_.clear();
    value_ = kSeed;
}

void IterationSequence::launch(const core::Launch& l, const Stack& stack,
                               std::size_t iterationIndex) {
    if (current_.size() >= kMaxLaunches)
        return;
    current_.push_back(value_);
    const auto mix = [this](std::uint64_t h) {
        value_ = (value_ ^ h) * 1099511628211ull;
        value_ ^= value_ >> 29;
    };
    mix(std::hash<std::string_view>{}(l.mangledName ? l.mangledName : ""));
    for (std::size_t i = iterationIndex + 1; i < stack.size(); ++i)
        mix(std::hash<std::string>{}(stack[i].name));
    mix(0x9e3779b97f4a7c15ull); // the launch's end
}

std::uint64_t IterationSequence::before(std::size_t at) const noexcept {
    return at < current_.size() ? current_[at] : value_;
}

bool IterationSequence::sameAsLast(std::size_t at) const noexcept {
    return at < current_.size() && at < last_.size() && current_[at] == last_[at];
}

void WindowPlacement::groupBegins() noexcept {
    reference_.reset();
    waits_ = 0;
}

WindowPlacement::Verdict WindowPlacement::place(std::size_t offset, std::size_t pass,
                                                bool positionsDecide) {
    const std::uint64_t before = sequence_.before(offset);
    if (restarts_ >= kRestarts || positionsDecide)
        return Verdict::Start;
    if (pass == 0 || !reference_) {
        if (!sequence_.sameAsLast(offset) && ++waits_ <= kWaits)
            return Verdict::Wait;
        waits_ = 0;
        reference_ = before;
        return Verdict::Start;
    }
    if (*reference_ == before) {
        waits_ = 0;
        return Verdict::Start;
    }
    if (++waits_ <= kWaits)
        return Verdict::Wait;
    ++restarts_;
    waited_ = waits_ - 1;
    waits_ = 0;
    return Verdict::Restart;
}

} // namespace roofline::collect
