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
    // The step: its iteration scope's instance (a record's `iteration`); no raw path is built.
    const std::size_t at = shared_.model.iterationIndex(stack);
    std::int64_t step = -1;
    if (inside_ && at < stack.size() && stack[at].instance >= 0) {
        step = stack[at].instance;
        step_ = step;
    }
    shared_.config.steps->launched(l.correlationId, step, shared_.model.path(stack), 1);
}

void SampledStrategy::finish() {
    iterationEnds(); // a step the stop cut short ends here
}

std::unique_ptr<collect::Strategy> makeSampledStrategy(collect::Shared& shared,
                                                       std::vector<collect::DeviceSlot*> slots) {
    return std::make_unique<SampledStrategy>(shared, std::move(slots));
}

} // namespace roofline::sampling
