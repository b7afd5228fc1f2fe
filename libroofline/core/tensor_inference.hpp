#pragma once
// Tensor counters by detection (docs/design/0008-fewer-passes.md): which metrics a session
// collects from the start, and how a launch's tensor metrics follow from its detection counters.
// Pure logic over the catalog's TensorDetection data; unit-tested in
// test/unit/tensor_inference_test.cpp.
#include "core/metric_catalog.hpp"

#include <set>
#include <string>
#include <vector>

namespace roofline::core {

/// Every metric a session reports values for, in its order: `set`'s metrics, then (with
/// detection, for the full set of a family that has rules) the detection counters.
std::vector<std::string> sessionMetrics(const ChipProfile& profile, MetricSet set, bool detect);

/// What a session collects from the start: `sessionMetrics` without the tensor metrics an
/// inference can stand in for. Without detection (or rules): `set`'s metrics.
std::vector<std::string> initialMetrics(const ChipProfile& profile, MetricSet set, bool detect);

/// For one launch's values (in `metrics` order, NaN where not collected): each inferred metric
/// that was not collected and whose detection counters are zero gets its value (the substitute
/// counter, or 0). Returns the inferred metrics that stay unknown: the launch ran that kind of
/// MMA (or its detection counters are missing), so they have to be collected.
std::vector<std::string> inferTensorMetrics(const ChipProfile& profile,
                                            const std::vector<std::string>& metrics,
                                            std::vector<double>& values);

/// The warp MMA type that accounts for every warp MMA instruction of a launch (its collected
/// counter's warp-level ops are the type's largest shape times the instructions), or null: no
/// warp MMA, a type not collected, or a mix.
const WarpMmaType* soleWarpMmaType(const ChipProfile& profile,
                                   const std::vector<std::string>& metrics,
                                   const std::vector<double>& values);

/// The warp MMA type whose counter to collect from the first pass, before anything is measured:
/// the type most of `kernelNames` (mangled or not) suggest -- a name with a warp-MMA marker, no
/// warpgroup marker and the type's name hint, or one of the type's `impliedBy` patterns -- or
/// null: no name suggests warp MMA. A guess that costs a pass where it is wrong, and saves the
/// window measured again where it is right (design 0022); the inference checks it either way.
/// `example`, when given, gets the first name that suggested the type.
const WarpMmaType* anticipatedWarpMmaType(const ChipProfile& profile,
                                          const std::vector<std::string>& kernelNames,
                                          std::string* example = nullptr);

/// A launch whose tensor metrics stayed unknown, as `tensorMetricsToCollect` weighs it.
struct TensorEvidence {
    const std::vector<double>* values = nullptr; ///< in `metrics` order
    std::string kernel;                          ///< its kernel's name
};

/// Which of the `unknown` metrics to collect from now on. Where warp MMA of a type not known yet
/// made them unknown, and no warp MMA type's counter is `collected` yet: one type's counter --
/// the type the launches' kernel names suggest, else the program's warpgroup GEMMs' type, else
/// the catalog's first -- and what is unknown for another reason. Otherwise every unknown metric.
std::vector<std::string> tensorMetricsToCollect(const ChipProfile& profile,
                                                const std::vector<std::string>& metrics,
                                                const std::set<std::string>& unknown,
                                                const std::vector<TensorEvidence>& launches,
                                                const std::set<std::string>& collected);

} // namespace roofline::core
