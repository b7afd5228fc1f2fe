#pragma once
/// \file rnn_reference.hpp
/// An independent RNN/LSTM/GRU reference in double precision on the GPU: one straightforward kernel
/// per time step for the gates, back-propagation through time written out by hand, and weight
/// gradients summed over time and batch. Same equations as cuDNN's documentation; no cuDNN calls.

#include "cudnn/cuda_util.hpp"

#include <cuda_runtime.h>

#include <vector>

namespace roofline::bench {

/// Cell kinds in the order of workloads::RnnCell.
enum class RefCell { Relu, Tanh, Lstm, Gru };

struct RnnRefShape {
    RefCell cell = RefCell::Lstm;
    int layers = 1, directions = 1, gates = 4;
    long long hidden = 1, input = 1, seq = 1, batch = 1;
    long long layerInput(int layer) const { return layer == 0 ? input : hidden * directions; }
};

/// Per pseudo-layer (layer * directions + direction) and gate: input matrix W (hidden x input,
/// row-major), recurrent matrix R (hidden x hidden), and the two biases; device doubles.
struct RnnRefWeights {
    std::vector<const double*> W, R, bW, bR; ///< index: pseudoLayer * gates + gate
};

class RnnReference {
public:
    RnnReference(const RnnRefShape& shape, const RnnRefWeights& weights, cudaStream_t stream);

    /// x: [seq, batch, input]; hx, cx: [layers*directions, batch, hidden] (cx ignored unless LSTM).
    void forward(const double* x, const double* hx, const double* cx);
    /// After forward(): dy [seq, batch, directions*hidden], dhy, dcy like hx.
    void backwardData(const double* dy, const double* dhy, const double* dcy);
    /// After backwardData(): weight gradients dW/dR/dbW/dbR, same indexing as RnnRefWeights.
    void backwardWeights();

    const double* y() const { return layerOut_.back().as<double>(); }
    const double* hy() const { return hy_.as<double>(); }
    const double* cy() const { return cy_.as<double>(); }
    const double* dx() const { return dx_.as<double>(); }
    const double* dhx() const { return dhx_.as<double>(); }
    const double* dcx() const { return dcx_.as<double>(); }
    /// Gradient of weight `which` (0 W, 1 R, 2 bW, 3 bR) of pseudo-layer p and gate g.
    const double* weightGrad(int which, int pseudoLayer, int gate) const;

private:
    void backwardLayerDirection(int layer, int dir, double* dInput, const double* dOutput,
                                const double* dhy, const double* dcy);

    RnnRefShape s_;
    RnnRefWeights w_;
    cudaStream_t stream_;
    const double* x_ = nullptr;
    const double* hx_ = nullptr;
    const double* cx_ = nullptr;
    std::vector<DeviceBuffer> layerOut_; ///< per layer: [seq, batch, directions*hidden] (h_t)
    std::vector<DeviceBuffer> ai_, ar_;  ///< per pseudo-layer: [seq, gates, batch, hidden]
    std::vector<DeviceBuffer> c_;        ///< per pseudo-layer: [seq, batch, hidden] (LSTM)
    DeviceBuffer hy_, cy_, dx_, dhx_, dcx_;
    std::vector<DeviceBuffer> gi_, gr_; ///< per pseudo-layer: [seq, gates, batch, hidden]
    std::vector<DeviceBuffer> grads_;   ///< per (pseudo-layer, gate, which)
};

} // namespace roofline::bench
