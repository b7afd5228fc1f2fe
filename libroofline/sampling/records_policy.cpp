#include "sampling/records_policy.hpp"

#include "core/sampled_figures.hpp"

#include <algorithm>

namespace roofline::sampling {

RecordsPolicy::RecordsPolicy(const RecordsPolicyConfig& config) : config_(config) {
    config_.costlyOneIn = std::max<std::uint64_t>(config_.costlyOneIn, 1);
    config_.trialSteps = std::max<std::uint64_t>(config_.trialSteps, 2);
    oneIn_ = measured() ? 1 : config_.oneIn;
    trialFrom_ = config_.settleSteps;
}

// The trial's medians compared: records costing more than costMost of a step are kept on one
// step in costlyOneIn until the next trial.
void RecordsPolicy::decide() {
    const double with = core::medianOf(with_), without = core::medianOf(without_);
    last_.atStep = step_;
    last_.withNs = with;
    last_.withoutNs = without;
    last_.cost = without > 0 ? (with - without) / without : 0;
    last_.oneIn = last_.cost > config_.costMost ? config_.costlyOneIn : 1;
    oneIn_ = last_.oneIn;
    ++trials_;
    with_.clear();
    without_.clear();
    steadyFrom_ = step_;
    trialFrom_ = step_ + std::max<std::uint64_t>(config_.retrialEvery, 1);
}

bool RecordsPolicy::stepBegins(std::uint64_t hostNs) {
    const std::uint64_t n = step_;
    if (lastInTrial_ && lastBeginNs_ > 0 && hostNs > lastBeginNs_) {
        try {
            (lastOn_ ? with_ : without_).push_back(static_cast<double>(hostNs - lastBeginNs_));
        } catch (...) {
            // out of memory: this step's time is left out of the trial
        }
    }
    lastBeginNs_ = hostNs;
    bool on = true, inTrial = false;
    if (!measured()) {
        on = (n % oneIn_) == 0;
    } else {
        if (n == trialFrom_ + config_.trialSteps)
            decide();
        if (n >= trialFrom_ && n < trialFrom_ + config_.trialSteps) {
            inTrial = true;
            on = (n - trialFrom_) % 2 == 0;
        } else if (n >= steadyFrom_) {
            on = ((n - steadyFrom_) % oneIn_) == 0;
        }
    }
    lastOn_ = on;
    lastInTrial_ = inTrial;
    ++step_;
    return on;
}

} // namespace roofline::sampling
