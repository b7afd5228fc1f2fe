#pragma once
// Aligned iteration replay (docs/design/0006-per-launch-replay-check.md): the metric set is split
// into configurations that each need (ideally) one pass; pass p runs configuration p with its own
// counter-data image, so its ranges are exactly that pass's launches, in order. Each
// configuration's launch sequence is aligned with pass 0's (kernel name, then grid and block), and
// every pass-0 launch takes that configuration's metrics from the launch the alignment matched to
// it. A launch inserted in one pass matches nothing and costs nothing; a launch missing from one
// pass costs only itself; a launch whose grid or block differs keeps its values with a note.
//
// A configuration that needs more than one pass (CUPTI cannot split some single metrics) combines
// its own passes by position, as CUPTI does: there a launch out of step with the configuration's
// first pass loses its values.
// Pure logic: no CUDA, unit-tested in test/unit/aligned_replay_test.cpp.
#include "collect/backend.hpp"
#include "replay/replay_check.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace roofline::collect {

/// For each launch of `reference`, the index of the launch in `pass` that ran it, or -1 when
/// `pass` did not run it. Kernels match by name, in order (grids and blocks may differ between
/// passes: data-dependent launches); at a difference the cheapest explanation within
/// `lookAhead` launches wins -- launches inserted in `pass`, launches left out of it, or one
/// launch replaced by another -- judged by how well the sequences agree after it.
std::vector<std::int64_t> alignLaunches(const std::vector<LaunchKey>& reference,
                                        const std::vector<LaunchKey>& pass,
                                        std::size_t lookAhead = 32);

class AlignedGroup {
public:
    using Verdict = ReplayVerdict;

    /// A new group.
    void reset();
    /// A launch of the open pass (pass 0's launches are the group's reference).
    void launch(LaunchKey key);
    /// The open pass ended; `firstOfConfiguration`: it was its configuration's first pass.
    void endPass(std::size_t pass, bool firstOfConfiguration);
    /// Every pass of the current configuration is in: `ranges` are its evaluated ranges, in the
    /// order of the configuration's first pass, with NaN for metrics it does not collect.
    /// `pass` is that first pass's number (for notes).
    void addConfiguration(std::size_t pass, const std::vector<RangeValues>& ranges);

    std::size_t size() const noexcept { return launches_.size(); }
    Verdict verdict(std::size_t at) const noexcept;
    const std::string& note(std::size_t at) const noexcept;
    std::vector<double> takeValues(std::size_t at);
    bool anyIssue() const noexcept { return tally_.issues() > 0; }
    const std::string& firstIssue() const noexcept { return tally_.first(); }
    const std::vector<LaunchKey>& reference() const noexcept { return reference_; }

private:
    struct Launch {
        std::vector<double> values;
        LaunchVerdict result;
    };
    // Positions within the configuration's passes, against its first pass: LaunchVerdict.

    std::vector<LaunchKey> reference_; // pass 0
    std::vector<Launch> launches_;     // per pass-0 launch
    std::vector<LaunchKey> open_;      // the open pass's launches
    std::vector<LaunchKey> configFirst_;
    std::vector<LaunchVerdict> configPositions_;
    bool referenceDone_ = false;
    VerdictTally tally_;
};

} // namespace roofline::collect
