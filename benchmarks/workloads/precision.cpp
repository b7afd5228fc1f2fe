#include "workloads/precision.hpp"

#include "workloads/csv_rows.hpp"

#include <algorithm>
#include <cmath>

namespace roofline::workloads {

std::string toString(Precision p) {
    switch (p) {
    case Precision::FP32:
        return "fp32";
    case Precision::TF32:
        return "tf32";
    case Precision::FP16:
        return "fp16";
    case Precision::BF16:
        return "bf16";
    }
    return "?";
}

std::vector<Precision> parsePrecisionList(const std::string& text, const std::string& what) {
    return parseKeywords<Precision>(text, what,
                                    {{"fp32", {Precision::FP32}},
                                     {"tf32", {Precision::TF32}},
                                     {"fp16", {Precision::FP16}},
                                     {"bf16", {Precision::BF16}}},
                                    "use fp32, tf32, fp16 or bf16");
}

double defaultTolerance(Precision p) {
    switch (p) {
    case Precision::FP32:
        return 1e-4; // direct, FFT and Winograd engines stay near 1e-6..1e-5
    case Precision::TF32:
        return 1e-2; // inputs rounded to 10-bit mantissas (2^-11 each)
    case Precision::FP16:
        return 1e-2; // output rounded to fp16 (2^-11) plus tiled accumulation
    case Precision::BF16:
        return 4e-2; // output rounded to bf16 (2^-8)
    }
    return 0.0;
}

double accumulationTolerance(Precision p, double terms) {
    constexpr double kFp32Roundoff = 0x1p-24;
    return std::max(defaultTolerance(p), 8.0 * kFp32Roundoff * std::sqrt(std::max(terms, 1.0)));
}

int elementBytes(Precision p) {
    return p == Precision::FP16 || p == Precision::BF16 ? 2 : 4;
}

} // namespace roofline::workloads
