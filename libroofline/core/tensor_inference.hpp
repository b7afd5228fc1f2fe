#pragma once
// Tensor counters by detection (docs/design/0008-fewer-passes.md): which metrics a session
// collects from the start, and how a launch's tensor metrics follow from its detection counters.
// Pure logic over the catalog's TensorDetection data; unit-tested in
// test/unit/tensor_inference_test.cpp.
#include "core/metric_catalog.hpp"

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

} // namespace roofline::core
