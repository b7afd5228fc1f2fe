#include "sampling/sampled_strategy.hpp"

#include "collect/step_sink.hpp"

namespace roofline::sampling {

SampledStrategy::SampledStrategy(collect::Shared& shared, std::vector<collect::DeviceSlot*> slots)
    : Strategy(shared, std::move(slots)) {}

void SampledStrategy::iterationBegins() {
    inside_ = true;
    step_ = -1; // numbered by its first launch's scope
}

void SampledStrategy::iterationEnds() {
    if (inside_ && step_ >= 0 && shared_.config.steps)
        shared_.config.steps->stepEnded(step_);
    inside_ = false;
}

void SampledStrategy::launch(collect::DeviceSlot&, const collect::Launch& l,
                             const collect::Stack& stack) {
    if (!shared_.config.steps)
        return;
    std::int64_t step = -1;
    const std::uint32_t scope = scopeOf(stack, step);
    if (inside_ && step >= 0) {
        if (step != begun_) { // numbers that start again (an epoch's steps) begin again too
            shared_.config.steps->stepBegins(step);
            begun_ = step;
        }
        step_ = step;
    }
    shared_.config.steps->launched(l.correlationId, inside_ ? step : -1, scope, 1);
}

// The launch's scope number and the instance of its iteration scope (-1: none), found once per
// innermost scope instance (kept in its frame) -- a launch costs a lookup, not a path built.
std::uint32_t SampledStrategy::scopeOf(const collect::Stack& stack, std::int64_t& step) {
    if (!stack.empty() && stack.back().sampledScope != 0) {
        step = stack.back().sampledStep;
        return stack.back().sampledScope - 1;
    }
    const std::size_t at = shared_.model.iterationIndex(stack);
    step = at < stack.size() ? stack[at].instance : -1;
    std::string path = shared_.model.path(stack);
    if (!lastKnown_ || path != lastPath_) {
        lastScope_ = shared_.config.steps->scope(path);
        lastPath_ = std::move(path);
        lastKnown_ = true;
    }
    if (!stack.empty()) {
        stack.back().sampledScope = lastScope_ + 1;
        stack.back().sampledStep = step;
    }
    return lastScope_;
}

void SampledStrategy::finish() {
    iterationEnds(); // a step the stop cut short ends here
}

std::unique_ptr<collect::Strategy> makeSampledStrategy(collect::Shared& shared,
                                                       std::vector<collect::DeviceSlot*> slots) {
    return std::make_unique<SampledStrategy>(shared, std::move(slots));
}

} // namespace roofline::sampling
