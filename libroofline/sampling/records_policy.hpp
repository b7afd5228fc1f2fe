#pragma once
// Which steps of a sampled job get their kernels' activity records (docs/design/0029, "Kernel
// records on a share of the steps"). On Hopper, CUPTI's kernel activity costs the launching thread
// ~1 us a launch (of the ~3 us the mode adds with its launch callback): nothing where the GPU
// paces a step, a share of the mode's 4-7 % on an eager step the host paces.
// The policy measures that cost in the program itself: once the first steps are past, records go
// on and off in turn for a trial of steps, and the host's step times (one step's begin to the
// next one's) with and without them are compared. Where records cost more than `costMost` of a
// step they stay on for one step in `costlyOneIn`, else for every step; the trial is made again
// every `retrialEvery` steps (a job's phases differ). A fixed choice (every step, one in N)
// makes no trial. Pure logic: no clock of its own, no CUDA.
#include <cstdint>
#include <vector>

namespace roofline::sampling {

struct RecordsPolicyConfig {
    /// 0: measured (the trial decides); 1: every step; N: one step in N (the first of each N).
    std::uint64_t oneIn = 1;
    std::uint64_t costlyOneIn = 10;    ///< where the trial finds records costly
    std::uint64_t settleSteps = 5;     ///< steps before the first trial (records on)
    std::uint64_t trialSteps = 20;     ///< steps of a trial, records on in every other one
    std::uint64_t retrialEvery = 1000; ///< steps from a decision to the next trial
    double costMost = 0.005;           ///< records costing more of a step than this are costly
};

/// What the last trial found.
struct RecordsTrial {
    std::uint64_t atStep = 0;         ///< the step it was decided at (counted from 0)
    double withNs = 0, withoutNs = 0; ///< median host step times with and without records
    double cost = 0;                  ///< (with - without) / without
    std::uint64_t oneIn = 1;          ///< what it decided
};

class RecordsPolicy {
public:
    explicit RecordsPolicy(const RecordsPolicyConfig& config);
    /// A step begins at `hostNs` (any steady clock): whether its kernels' records are on.
    bool stepBegins(std::uint64_t hostNs);
    /// Records are on for one step in this many now (1: every step).
    std::uint64_t oneIn() const noexcept { return oneIn_; }
    /// Trials decided so far, and the last one's finding.
    std::uint64_t trials() const noexcept { return trials_; }
    const RecordsTrial& lastTrial() const noexcept { return last_; }

private:
    bool measured() const noexcept { return config_.oneIn == 0; }
    void decide();

    RecordsPolicyConfig config_;
    std::uint64_t step_ = 0;        ///< steps begun
    std::uint64_t lastBeginNs_ = 0; ///< the last step's begin (0: none yet)
    bool lastOn_ = true, lastInTrial_ = false;
    std::uint64_t trialFrom_ = 0;  ///< the next (or current) trial's first step
    std::uint64_t steadyFrom_ = 0; ///< the step the current choice began at
    std::uint64_t oneIn_ = 1;
    std::vector<double> with_, without_;
    std::uint64_t trials_ = 0;
    RecordsTrial last_;
};

} // namespace roofline::sampling
