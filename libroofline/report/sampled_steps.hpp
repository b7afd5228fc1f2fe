#pragma once
// A sampled job's steps for people (docs/design/0029): a table of each step's time, clock, FLOP
// estimates, DRAM bandwidth, the roof it is nearest and its distance from the median step, the
// strays flagged; the same as CSV; and an SVG chart with one point per step over the run (step
// time, FLOP/s, DRAM bandwidth), strays marked. Every value says it was sampled.
#include "core/sampled_figures.hpp"

#include <cstddef>
#include <iosfwd>

namespace roofline::report {

/// The header and the table; with more than `rows` steps, the first and last few and every stray
/// (up to `rows`), and how many were left out.
void printSampledSteps(const core::SampledRecording& rec, const core::SampledFigures& figures,
                       std::ostream& out, std::size_t rows = 40);
/// One line per step, every figure (full precision).
void writeSampledCsv(const core::SampledFigures& figures, std::ostream& out);
/// A standalone SVG: three panels over the step index (time, FLOP/s, DRAM GB/s), strays in red.
void writeSampledChart(const core::SampledRecording& rec, const core::SampledFigures& figures,
                       std::ostream& out);

} // namespace roofline::report
