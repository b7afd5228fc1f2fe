#pragma once
#include <map>
#include <string>

namespace roofline::core {
/// Counter values of one range, keyed by full metric name (never by position).
using MetricValues = std::map<std::string, double>;
} // namespace roofline::core
