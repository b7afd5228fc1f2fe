#pragma once
// What a profile costs, predicted from its counts and the machine's parts (docs/methodology.md,
// "What a profile costs"): the session's set-up, the first Start of each profiler object, each
// pass's Start and Stop, and each range in each pass. `roofline-bench-pass-cost --parts FILE`
// measures the parts on the machine; the session's cost line gives a run's counts;
// `roofline-bench-predict` puts both beside the cost it measures. Pure logic: no CUDA, no CUPTI.
#include <cstddef>
#include <string>

namespace roofline::core {

/// The machine's parts, ms (one metric set: the one the runs collect).
struct CostParts {
    double setupMs = 0; ///< the session's set-up: CUPTI's initialization, config images
    /// The first Start of a profiler object: objectMs + objectRangeMs per range its image holds,
    /// and firstObjectMs more for the process's first.
    double objectMs = 0, objectRangeMs = 0, firstObjectMs = 0;
    double passMs = 0;  ///< a pass's Start and Stop with its wait, the GPU idle
    double rangeMs = 0; ///< a range in a pass: the launch serialized, the range's counters
    std::string chip;         ///< where they were measured ("GH100")
    std::string metrics;      ///< what the passes collected ("full")
};

/// What a run did, from its cost line.
struct CostCounts {
    std::size_t objects = 0;      ///< profiler objects started (each a first Start)
    std::size_t objectRanges = 0; ///< the ranges their images hold, together
    std::size_t passes = 0;      ///< pass Starts (each with its Stop)
    std::size_t rangePasses = 0; ///< ranges decoded, each times its image's passes
};

/// The prediction, part by part, ms.
struct CostPrediction {
    double setupMs = 0, objectsMs = 0, passesMs = 0, rangesMs = 0;
    double total() const noexcept { return setupMs + objectsMs + passesMs + rangesMs; }
};

/// set-up + (the process's first object's extra + objects x object + their image ranges x
/// object range) + passes x pass + range-passes x range.
CostPrediction predictCost(const CostParts& parts, const CostCounts& counts) noexcept;

/// The parts as a JSON document ("format": "libroofline-cost-parts").
std::string toJson(const CostParts& parts);
/// Reads what toJson wrote; throws roofline::Error naming `what` and how to make the file again.
CostParts costPartsFromJson(const std::string& text, const std::string& what);

/// The counts of a session's cost line (`ROOFLINE_LOG_LEVEL=info`, "libroofline: cost: ..."),
/// the last one in `log`; false when `log` holds none.
bool countsFromCostLine(const std::string& log, CostCounts& counts);

} // namespace roofline::core
