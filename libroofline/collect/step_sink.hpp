#pragma once
// Where a sampled session's launches and steps go (docs/design/0029): the collector's sampling
// strategy tells it each launch's correlation id, step and scope, and each step's end; the
// session's series of sampled steps (sampling/step_series) listens. Called under the collector's
// lock, from the program's threads, once per launch: an implementation does little more than
// note the call (the program's launch waits on it), never blocks on I/O and never throws.
#include <cstdint>
#include <string>

namespace roofline::collect {

class StepSink {
public:
    virtual ~StepSink() = default;
    /// The number launched() takes for the scope path `path` (instance numbers made uniform):
    /// the same path, the same number. Asked once per scope instance, not per launch.
    virtual std::uint32_t scope(const std::string& path) noexcept = 0;
    /// A launch: `step` is its step's number (-1: outside every step), `scope` its scope's number
    /// (scope()), `kernels` the kernels it runs (1; a graph's kernel nodes are announced one by
    /// one, sharing the graph launch's correlation id).
    virtual void launched(std::uint64_t correlationId, std::int64_t step, std::uint32_t scope,
                          std::uint32_t kernels) noexcept = 0;
    /// The program left step `step`: no launch of it comes after this.
    virtual void stepEnded(std::int64_t step) noexcept = 0;
    /// Step `step` begins: called inside its first launch call, before launched() for it.
    virtual void stepBegins(std::int64_t /*step*/) noexcept {}
};

} // namespace roofline::collect
