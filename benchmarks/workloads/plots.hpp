#pragma once
// Seed plots of a benchmark run (SVG through libroofline's chart API):
//  - layers: one bar per layer (workload row), stacked by pass, height = median event time;
//  - timings: one violin per case (layer, pass, algorithm) of its repeated timed runs.
#include "workloads/case_result.hpp"

#include <string>
#include <vector>

namespace roofline::workloads {

/// Bars per layer (row name, plus precision and batch when the run has several), stacked by
/// pass; with several algorithms per layer and pass, the fastest one's median. Only cases that
/// passed (or ran unverified) with timings count.
std::string layerTimeSvg(const std::vector<CaseResult>& cases, const std::string& title);

/// A violin per timed case, labelled "layer/pass algorithm"; at most `limit` (the rest are
/// counted in the subtitle).
std::string timingViolinSvg(const std::vector<CaseResult>& cases, const std::string& title,
                            std::size_t limit = 48);

/// Writes `<prefix>-layers.svg` and `<prefix>-timings.svg`; returns their paths. Throws Error(Io).
std::vector<std::string> writePlots(const std::vector<CaseResult>& cases, const std::string& tool,
                                    const std::string& prefix);

} // namespace roofline::workloads
