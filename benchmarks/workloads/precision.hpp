#pragma once
/// \file precision.hpp
/// Numeric settings shared by the convolution and RNN workloads.

#include <string>
#include <vector>

namespace roofline::workloads {

/// Data type and math of a case. TF32: fp32 tensors, tensor-core math with 10-bit mantissas.
enum class Precision { FP32, TF32, FP16, BF16 };

std::string toString(Precision p);
std::vector<Precision> parsePrecisionList(const std::string& text, const std::string& what);

/// Largest accepted error of a result against the reference, as max|result - reference| divided by
/// max|reference| (inputs uniform in [-1, 1]). Set from the unit roundoff of the stored type and
/// the math's mantissa; docs/benchmarks.md explains each value.
double defaultTolerance(Precision p);

/// The tolerance of a result each of whose elements sums `terms` products: defaultTolerance, or,
/// where larger, 8 * 2^-24 * sqrt(terms), the probabilistic bound of fp32 accumulation's rounding
/// (Higham and Mary, 2019) with room for the largest of millions of elements. Long reductions
/// (backward filter at batch 128 of 224x224 images: 6.4 million terms) reach 4e-4 with correct
/// engines, beyond the fp32 default.
double accumulationTolerance(Precision p, double terms);

/// Bytes per stored element (TF32 is stored as fp32).
int elementBytes(Precision p);

} // namespace roofline::workloads
