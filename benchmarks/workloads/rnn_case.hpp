#pragma once
/// \file rnn_case.hpp
/// One recurrent workload (RNN relu/tanh, LSTM, GRU): its sizes, analytic FLOPs and the reason it
/// cannot run, if any. Pure C++: tested on the CPU.

#include "workloads/precision.hpp"

#include <string>
#include <vector>

namespace roofline::workloads {

enum class RnnCell { Relu, Tanh, Lstm, Gru };
enum class RnnPass { Forward, BackwardData, BackwardWeights };

std::string toString(RnnCell c); ///< "rnn-relu", "rnn-tanh", "lstm", "gru"
std::string toString(RnnPass p); ///< "fwd", "bwd-data", "bwd-weights"
std::vector<RnnCell> parseRnnCells(const std::string& text, const std::string& what);
std::vector<RnnPass> parseRnnPasses(const std::string& text, const std::string& what);

struct RnnCase {
    std::string name;
    std::string source;
    RnnCell cell = RnnCell::Lstm;
    long long layers = 1, hidden = 1, input = 1, seq = 1, batch = 1;
    bool bidirectional = false;
    Precision precision = Precision::FP32;
    RnnPass pass = RnnPass::Forward;

    int gates() const;      ///< weight matrices per side: 1 (RNN), 4 (LSTM), 3 (GRU)
    int directions() const; ///< 1 or 2
    /// Matrix-product FLOPs of the pass: sum over layers and directions of
    /// 2 T N G H (I_l + H), with I_l = input for layer 0 and directions x hidden above. The same
    /// count for forward (W x + R h), backward data (W^T dg, R^T dg) and backward weights
    /// (dg x^T, dg h^T); element-wise gate math is not counted.
    double flops() const;
    std::string invalidReason() const;
    std::string shape() const; ///< "lstm L2 H512 I512 T50 N64 bi"
};

const std::vector<std::string>& rnnColumns();

struct RnnDefaults {
    std::vector<Precision> precisions{Precision::FP32};
    std::vector<RnnPass> passes{RnnPass::Forward, RnnPass::BackwardData, RnnPass::BackwardWeights};
};

std::vector<RnnCase> parseRnnWorkload(const std::string& text, const std::string& sourceName,
                                      const RnnDefaults& defaults);
std::vector<RnnCase> parseRnnSpec(const std::string& spec, const RnnDefaults& defaults);

} // namespace roofline::workloads
