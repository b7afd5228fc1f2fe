#pragma once
// The regression gate of `roofline compare A B --fail-if RULE`: each matched group (kernel, name,
// scope, operator or module, as --by groups them) checked against rules on its time, the share
// of its roof, its bytes or FLOPs, and the total time; a limit widened by the noise seen between
// repeated recordings of A. A CI job fails on the exit status and posts the Markdown summary.
#include "report/compare.hpp"

#include <iosfwd>
#include <string>
#include <vector>

namespace roofline::report {

struct GateRule {
    /// Sectors: global sectors per request (loads and stores); Wavefronts: shared wavefronts per
    /// request -- both from the instruction counters (ROOFLINE_METRICS=+instructions).
    enum class Quantity { Time, Total, Roof, L1, L2, Dram, Flops, Sectors, Wavefronts };
    Quantity quantity = Quantity::Time;
    double limit = 0;      ///< % (relative rules) or percentage points (roof), or seconds
    bool absolute = false; ///< time in seconds ("time:+50us") rather than %
    std::string text;      ///< as given
};
/// "time:+10%", "time:+50us", "total:+5%", "roof:-5", "dram:+20%", "l2:+20%", "l1:+20%",
/// "flops:+10%", "sectors:+10%", "wavefronts:+10%". Throws Error(InvalidArgument) naming the
/// rule and the forms it accepts.
GateRule parseGateRule(const std::string& text);

struct GateOptions {
    std::vector<GateRule> rules;
    /// Groups under this share of A's time are not checked (their timing is mostly noise).
    double minShare = 0.01;
    /// Other recordings of A's configuration: a group's time spread among them (and A) widens
    /// its relative limits to twice that spread.
    std::vector<std::vector<KernelRecord>> repeats;
};

struct GateFinding {
    std::string group; ///< the group as the table names it (name, scope)
    GateRule rule;
    double a = 0, b = 0; ///< the quantity in A and B (seconds, bytes, FLOPs or % of the roof)
    double change = 0;   ///< % (or points for roof, seconds for absolute time rules)
    double limit = 0;    ///< the limit applied (after widening by the noise)
    double noise = 0;    ///< the group's spread among A's repeated recordings, % (0: none)
};

struct GateResult {
    std::vector<GateFinding> failures;
    std::size_t checked = 0; ///< groups checked (matched, measured, above minShare)
    std::size_t skipped = 0; ///< matched groups under minShare
    std::size_t onlyA = 0, onlyB = 0;
    /// Rules no checked group could be judged by (sectors or wavefronts per request without the
    /// instruction counters in both recordings): the gate fails, saying why.
    std::vector<GateRule> unchecked;
    bool passed() const noexcept { return failures.empty() && unchecked.empty(); }
};

GateResult evaluateGate(const Comparison& c, const Ceilings& ceilingsA, const Ceilings& ceilingsB,
                        const GateOptions& options);

/// Exit status of `roofline compare` when the gate fails (0 passes, 1 errors, 2 usage).
inline constexpr int kGateFailedExit = 3;

/// The gate's verdict in a few lines for the terminal.
void printGate(const GateResult& r, const GateOptions& options, std::ostream& out);
/// The verdict as Markdown for a CI job to post: the rules, the failures, the largest changes.
void writeGateMarkdown(const GateResult& r, const GateOptions& options, const Comparison& c,
                       const std::string& nameA, const std::string& nameB, std::ostream& out);

} // namespace roofline::report
