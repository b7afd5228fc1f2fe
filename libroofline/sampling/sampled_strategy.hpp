#pragma once
// The collector's strategy at the sampling level (docs/design/0029): nothing is measured here and
// nothing recorded -- each launch's correlation id, step and scope path, and each step's end, go to
// the configuration's StepSink (the session's series of sampled steps); the kernels run as the
// program launches them, never serialized. A step is the iteration the collector follows (an NVTX
// range, a framework's step, the cycle found in the launch stream), numbered as its scope is
// ("Train step 7": 7), else by count. Pure logic: no CUDA, no CUPTI.
#include "collect/strategy.hpp"

#include <string>

namespace roofline::sampling {

class SampledStrategy final : public collect::Strategy {
public:
    SampledStrategy(collect::Shared& shared, std::vector<collect::DeviceSlot*> slots);

    void iterationBegins() override;
    void iterationEnds() override;
    void launch(collect::DeviceSlot& slot, const collect::Launch& l,
                const collect::Stack& stack) override;
    void graphLaunch(collect::DeviceSlot&) override {}
    void renewStaleProfiler(collect::DeviceSlot&) override {}
    bool profiling(const collect::DeviceSlot&) const override { return false; }
    void finish() override;

private:
    std::uint32_t scopeOf(const collect::Stack& stack, std::int64_t& step);

    std::int64_t step_ = -1;  ///< the step the launches of the open iteration belong to
    std::int64_t begun_ = -1; ///< the last step the sink was told begins
    bool inside_ = false;     ///< an iteration is open
    /// The last scope path looked up (a launch outside every scope looks up its path again:
    /// start/end ranges may name it), and its number.
    std::string lastPath_;
    std::uint32_t lastScope_ = 0;
    bool lastKnown_ = false;
};

/// The strategy for a collector at the sampling level (Collector's MakeStrategy).
std::unique_ptr<collect::Strategy> makeSampledStrategy(collect::Shared& shared,
                                                       std::vector<collect::DeviceSlot*> slots);

} // namespace roofline::sampling
