#include "cudnn/rnn_reference.hpp"

namespace roofline::bench {

namespace {

constexpr int kThreads = 256;

struct Cell {
    const double* W[4];
    const double* R[4];
    const double* bW[4];
    const double* bR[4];
    long long hidden, in, batch;
    int gates;
    RefCell cell;
};

unsigned blocksFor(long long count) {
    return static_cast<unsigned>((count + kThreads - 1) / kThreads);
}

__device__ inline double sigmoid(double a) {
    return 1.0 / (1.0 + exp(-a));
}

// One time step of one layer-direction: pre-activations of every gate, then the cell.
// x: [batch, in] (row stride xStride); hprev: row stride hStride; out: h_t, row stride outStride.
__global__ void stepForward(Cell p, const double* x, long long xStride, const double* hprev,
                            long long hStride, const double* cprev, double* ai, double* ar,
                            double* out, long long outStride, double* c) {
    const long long idx = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
    if (idx >= p.batch * p.hidden)
        return;
    const long long n = idx / p.hidden, h = idx % p.hidden;
    double a_i[4], a_r[4];
    for (int g = 0; g < p.gates; ++g) {
        double si = p.bW[g][h], sr = p.bR[g][h];
        for (long long i = 0; i < p.in; ++i)
            si += p.W[g][h * p.in + i] * x[n * xStride + i];
        for (long long j = 0; j < p.hidden; ++j)
            sr += p.R[g][h * p.hidden + j] * hprev[n * hStride + j];
        a_i[g] = si;
        a_r[g] = sr;
        ai[(g * p.batch + n) * p.hidden + h] = si;
        ar[(g * p.batch + n) * p.hidden + h] = sr;
    }
    const double hp = hprev[n * hStride + h];
    double hn = 0.0;
    switch (p.cell) {
    case RefCell::Relu:
        hn = fmax(a_i[0] + a_r[0], 0.0);
        break;
    case RefCell::Tanh:
        hn = tanh(a_i[0] + a_r[0]);
        break;
    case RefCell::Lstm: {
        const double ig = sigmoid(a_i[0] + a_r[0]), fg = sigmoid(a_i[1] + a_r[1]);
        const double gg = tanh(a_i[2] + a_r[2]), og = sigmoid(a_i[3] + a_r[3]);
        const double cn = fg * cprev[n * p.hidden + h] + ig * gg;
        c[n * p.hidden + h] = cn;
        hn = og * tanh(cn);
        break;
    }
    case RefCell::Gru: {
        const double r = sigmoid(a_i[0] + a_r[0]), z = sigmoid(a_i[1] + a_r[1]);
        const double hh = tanh(a_i[2] + r * a_r[2]);
        hn = (1.0 - z) * hh + z * hp;
        break;
    }
    }
    out[n * outStride + h] = hn;
}

// Back-propagation through one step: gradients of the input-side (gi) and recurrent-side (gr)
// pre-activations, the element-wise part of dh_prev, and dc_prev (in place over dc).
__global__ void stepBackward(Cell p, const double* ai, const double* ar, const double* hprev,
                             long long hStride, const double* cprev, const double* c,
                             const double* hcur, long long outStride, const double* dOut,
                             const double* dhNext, double* dc, double* gi, double* gr,
                             double* dhPointwise) {
    const long long idx = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
    if (idx >= p.batch * p.hidden)
        return;
    const long long n = idx / p.hidden, h = idx % p.hidden;
    auto at = [&](const double* a, int g) { return a[(g * p.batch + n) * p.hidden + h]; };
    const double dh = dOut[n * outStride + h] + dhNext[idx];
    double dgi[4] = {0, 0, 0, 0}, dgr[4] = {0, 0, 0, 0}, dhp = 0.0;
    switch (p.cell) {
    case RefCell::Relu: {
        const double a = at(ai, 0) + at(ar, 0);
        dgi[0] = dgr[0] = a > 0.0 ? dh : 0.0;
        break;
    }
    case RefCell::Tanh: {
        const double y = hcur[n * outStride + h];
        dgi[0] = dgr[0] = dh * (1.0 - y * y);
        break;
    }
    case RefCell::Lstm: {
        const double ig = sigmoid(at(ai, 0) + at(ar, 0)), fg = sigmoid(at(ai, 1) + at(ar, 1));
        const double gg = tanh(at(ai, 2) + at(ar, 2)), og = sigmoid(at(ai, 3) + at(ar, 3));
        const double tc = tanh(c[idx]);
        const double dcTotal = dc[idx] + dh * og * (1.0 - tc * tc);
        dgi[0] = dcTotal * gg * ig * (1.0 - ig);
        dgi[1] = dcTotal * cprev[idx] * fg * (1.0 - fg);
        dgi[2] = dcTotal * ig * (1.0 - gg * gg);
        dgi[3] = dh * tc * og * (1.0 - og);
        for (int g = 0; g < 4; ++g)
            dgr[g] = dgi[g];
        dc[idx] = dcTotal * fg;
        break;
    }
    case RefCell::Gru: {
        const double r = sigmoid(at(ai, 0) + at(ar, 0)), z = sigmoid(at(ai, 1) + at(ar, 1));
        const double m = at(ar, 2);
        const double hh = tanh(at(ai, 2) + r * m);
        const double hp = hprev[n * hStride + h];
        const double dah = dh * (1.0 - z) * (1.0 - hh * hh);
        dgi[0] = dgr[0] = dah * m * r * (1.0 - r);
        dgi[1] = dgr[1] = dh * (hp - hh) * z * (1.0 - z);
        dgi[2] = dah;
        dgr[2] = dah * r;
        dhp = dh * z;
        break;
    }
    }
    for (int g = 0; g < p.gates; ++g) {
        gi[(g * p.batch + n) * p.hidden + h] = dgi[g];
        gr[(g * p.batch + n) * p.hidden + h] = dgr[g];
    }
    dhPointwise[idx] = dhp;
}

// dInput[n, i] += sum_g sum_h W_g[h, i] gi_g[n, h]
__global__ void inputGrad(Cell p, const double* gi, double* dIn, long long dStride) {
    const long long idx = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
    if (idx >= p.batch * p.in)
        return;
    const long long n = idx / p.in, i = idx % p.in;
    double s = 0.0;
    for (int g = 0; g < p.gates; ++g)
        for (long long h = 0; h < p.hidden; ++h)
            s += p.W[g][h * p.in + i] * gi[(g * p.batch + n) * p.hidden + h];
    dIn[n * dStride + i] += s;
}

// dhPrev[n, j] = pointwise[n, j] + sum_g sum_h R_g[h, j] gr_g[n, h]
__global__ void hiddenGrad(Cell p, const double* gr, const double* pointwise, double* dhPrev) {
    const long long idx = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
    if (idx >= p.batch * p.hidden)
        return;
    const long long n = idx / p.hidden, j = idx % p.hidden;
    double s = pointwise[idx];
    for (int g = 0; g < p.gates; ++g)
        for (long long h = 0; h < p.hidden; ++h)
            s += p.R[g][h * p.hidden + j] * gr[(g * p.batch + n) * p.hidden + h];
    dhPrev[idx] = s;
}

// dM[h, i] = sum_t sum_n G[t, g, n, h] A_t[n, i] for one gate; A_t is the step's input (x or
// h_prev) given by base pointers per step. Bias: dB[h] = sum_t sum_n G[t, g, n, h] when cols == 0.
__global__ void weightGradKernel(const double* G, int gate, int gates, long long seq,
                                 long long batch, long long hidden, const double* const* inputs,
                                 const long long* inputStrides, long long cols, double* dM) {
    const long long total = hidden * (cols > 0 ? cols : 1);
    const long long idx = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
    if (idx >= total)
        return;
    const long long h = cols > 0 ? idx / cols : idx, i = cols > 0 ? idx % cols : 0;
    double s = 0.0;
    for (long long t = 0; t < seq; ++t) {
        const double* g = G + (t * gates + gate) * batch * hidden;
        for (long long n = 0; n < batch; ++n)
            s += g[n * hidden + h] * (cols > 0 ? inputs[t][n * inputStrides[t] + i] : 1.0);
    }
    dM[idx] = s;
}

} // namespace

RnnReference::RnnReference(const RnnRefShape& shape, const RnnRefWeights& weights,
                           cudaStream_t stream)
    : s_(shape), w_(weights), stream_(stream) {}

namespace {
Cell cellParams(const RnnRefShape& s, const RnnRefWeights& w, int layer, int dir) {
    Cell p{};
    const int pl = layer * s.directions + dir;
    for (int g = 0; g < s.gates; ++g) {
        const auto k = static_cast<std::size_t>(pl * s.gates + g);
        p.W[g] = w.W[k];
        p.R[g] = w.R[k];
        p.bW[g] = w.bW[k];
        p.bR[g] = w.bR[k];
    }
    p.hidden = s.hidden;
    p.in = s.layerInput(layer);
    p.batch = s.batch;
    p.gates = s.gates;
    p.cell = s.cell;
    return p;
}
} // namespace

void RnnReference::forward(const double* x, const double* hx, const double* cx) {
    x_ = x;
    hx_ = hx;
    cx_ = cx;
    const long long N = s_.batch, H = s_.hidden, T = s_.seq, D = s_.directions;
    const int P = s_.layers * s_.directions;
    layerOut_.clear();
    ai_.clear();
    ar_.clear();
    c_.clear();
    const std::size_t stepGates = static_cast<std::size_t>(s_.gates * N * H);
    hy_ = DeviceBuffer(sizeof(double) * static_cast<std::size_t>(P * N * H), "reference hy");
    cy_ = DeviceBuffer(sizeof(double) * static_cast<std::size_t>(P * N * H), "reference cy");
    BENCH_CUDA(cudaMemsetAsync(cy_.get(), 0, cy_.bytes(), stream_));
    for (int l = 0; l < s_.layers; ++l) {
        layerOut_.emplace_back(sizeof(double) * static_cast<std::size_t>(T * N * D * H),
                               "reference layer output");
        const double* in = l == 0 ? x : layerOut_[static_cast<std::size_t>(l - 1)].as<double>();
        const long long inStride = s_.layerInput(l);
        for (int d = 0; d < D; ++d) {
            const int pl = l * static_cast<int>(D) + d;
            ai_.emplace_back(sizeof(double) * stepGates * static_cast<std::size_t>(T), "ref ai");
            ar_.emplace_back(sizeof(double) * stepGates * static_cast<std::size_t>(T), "ref ar");
            c_.emplace_back(sizeof(double) * static_cast<std::size_t>(T * N * H), "ref c");
            const Cell p = cellParams(s_, w_, l, d);
            double* out = layerOut_.back().as<double>() + d * H;
            for (long long k = 0; k < T; ++k) {
                const long long t = d == 0 ? k : T - 1 - k;
                const long long tp = d == 0 ? t - 1 : t + 1;
                const double* hprev = k == 0 ? hx + pl * N * H : out + tp * N * D * H;
                const long long hStride = k == 0 ? H : D * H;
                const double* cprev =
                    k == 0 ? cx + pl * N * H : c_.back().as<double>() + tp * N * H;
                stepForward<<<blocksFor(N * H), kThreads, 0, stream_>>>(
                    p, in + t * N * inStride, inStride, hprev, hStride, cprev,
                    ai_.back().as<double>() + t * static_cast<long long>(stepGates),
                    ar_.back().as<double>() + t * static_cast<long long>(stepGates),
                    out + t * N * D * H, D * H, c_.back().as<double>() + t * N * H);
                BENCH_CUDA(cudaGetLastError());
            }
            const long long tl = d == 0 ? T - 1 : 0; // last step processed
            BENCH_CUDA(cudaMemcpy2DAsync(hy_.as<double>() + pl * N * H, H * sizeof(double),
                                         out + tl * N * D * H, D * H * sizeof(double),
                                         H * sizeof(double), N, cudaMemcpyDeviceToDevice, stream_));
            if (s_.cell == RefCell::Lstm)
                BENCH_CUDA(cudaMemcpyAsync(cy_.as<double>() + pl * N * H,
                                           c_.back().as<double>() + tl * N * H,
                                           sizeof(double) * static_cast<std::size_t>(N * H),
                                           cudaMemcpyDeviceToDevice, stream_));
        }
    }
}

void RnnReference::backwardLayerDirection(int layer, int dir, double* dInput, const double* dOutput,
                                          const double* dhy, const double* dcy) {
    const long long N = s_.batch, H = s_.hidden, T = s_.seq, D = s_.directions;
    const int pl = layer * static_cast<int>(D) + dir;
    const Cell p = cellParams(s_, w_, layer, dir);
    const std::size_t stepGates = static_cast<std::size_t>(s_.gates * N * H);
    DeviceBuffer dhNext(sizeof(double) * static_cast<std::size_t>(N * H), "ref dh");
    DeviceBuffer dc(sizeof(double) * static_cast<std::size_t>(N * H), "ref dc");
    DeviceBuffer pointwise(sizeof(double) * static_cast<std::size_t>(N * H), "ref dh pointwise");
    BENCH_CUDA(cudaMemcpyAsync(dhNext.get(), dhy + pl * N * H, dhNext.bytes(),
                               cudaMemcpyDeviceToDevice, stream_));
    if (s_.cell == RefCell::Lstm)
        BENCH_CUDA(cudaMemcpyAsync(dc.get(), dcy + pl * N * H, dc.bytes(), cudaMemcpyDeviceToDevice,
                                   stream_));
    else
        BENCH_CUDA(cudaMemsetAsync(dc.get(), 0, dc.bytes(), stream_));
    const auto u = static_cast<std::size_t>(pl);
    const double* out = layerOut_[static_cast<std::size_t>(layer)].as<double>() + dir * H;
    const double* cs = c_[u].as<double>();
    const long long inStride = s_.layerInput(layer);
    const long long dInStride = layer == 0 ? s_.input : D * H;
    for (long long k = T - 1; k >= 0; --k) {
        const long long t = dir == 0 ? k : T - 1 - k;
        const long long tp = dir == 0 ? t - 1 : t + 1;
        const double* hprev = k == 0 ? hx_ + pl * N * H : out + tp * N * D * H;
        const long long hStride = k == 0 ? H : D * H;
        const double* cprev = k == 0 ? cx_ + pl * N * H : cs + tp * N * H;
        double* gi = gi_[u].as<double>() + t * static_cast<long long>(stepGates);
        double* gr = gr_[u].as<double>() + t * static_cast<long long>(stepGates);
        stepBackward<<<blocksFor(N * H), kThreads, 0, stream_>>>(
            p, ai_[u].as<double>() + t * static_cast<long long>(stepGates),
            ar_[u].as<double>() + t * static_cast<long long>(stepGates), hprev, hStride, cprev,
            cs + t * N * H, out + t * N * D * H, D * H, dOutput + t * N * D * H + dir * H,
            dhNext.as<double>(), dc.as<double>(), gi, gr, pointwise.as<double>());
        BENCH_CUDA(cudaGetLastError());
        inputGrad<<<blocksFor(N * inStride), kThreads, 0, stream_>>>(
            p, gi, dInput + t * N * dInStride, dInStride);
        hiddenGrad<<<blocksFor(N * H), kThreads, 0, stream_>>>(p, gr, pointwise.as<double>(),
                                                               dhNext.as<double>());
        BENCH_CUDA(cudaGetLastError());
    }
    BENCH_CUDA(cudaMemcpyAsync(dhx_.as<double>() + pl * N * H, dhNext.get(), dhNext.bytes(),
                               cudaMemcpyDeviceToDevice, stream_));
    BENCH_CUDA(cudaMemcpyAsync(dcx_.as<double>() + pl * N * H, dc.get(), dc.bytes(),
                               cudaMemcpyDeviceToDevice, stream_));
}

void RnnReference::backwardData(const double* dy, const double* dhy, const double* dcy) {
    const long long N = s_.batch, H = s_.hidden, T = s_.seq, D = s_.directions;
    const int P = s_.layers * s_.directions;
    const std::size_t stepGates = static_cast<std::size_t>(s_.gates * N * H);
    gi_.clear();
    gr_.clear();
    for (int pl = 0; pl < P; ++pl) {
        gi_.emplace_back(sizeof(double) * stepGates * static_cast<std::size_t>(T), "ref gi");
        gr_.emplace_back(sizeof(double) * stepGates * static_cast<std::size_t>(T), "ref gr");
    }
    dx_ = DeviceBuffer(sizeof(double) * static_cast<std::size_t>(T * N * s_.input), "ref dx");
    dhx_ = DeviceBuffer(sizeof(double) * static_cast<std::size_t>(P * N * H), "ref dhx");
    dcx_ = DeviceBuffer(sizeof(double) * static_cast<std::size_t>(P * N * H), "ref dcx");
    BENCH_CUDA(cudaMemsetAsync(dcx_.get(), 0, dcx_.bytes(), stream_));
    DeviceBuffer upper; // gradient w.r.t. the current layer's output
    const double* dOut = dy;
    for (int l = s_.layers - 1; l >= 0; --l) {
        DeviceBuffer lower;
        double* dIn = nullptr;
        if (l == 0) {
            dIn = dx_.as<double>();
            BENCH_CUDA(cudaMemsetAsync(dx_.get(), 0, dx_.bytes(), stream_));
        } else {
            lower = DeviceBuffer(sizeof(double) * static_cast<std::size_t>(T * N * D * H),
                                 "ref layer grad");
            BENCH_CUDA(cudaMemsetAsync(lower.get(), 0, lower.bytes(), stream_));
            dIn = lower.as<double>();
        }
        for (int d = 0; d < D; ++d)
            backwardLayerDirection(l, d, dIn, dOut, dhy, dcy);
        upper = std::move(lower);
        dOut = upper.as<double>();
    }
    BENCH_CUDA(cudaStreamSynchronize(stream_));
}

void RnnReference::backwardWeights() {
    const long long N = s_.batch, H = s_.hidden, T = s_.seq, D = s_.directions;
    const int P = s_.layers * s_.directions;
    grads_.clear();
    std::vector<const double*> inputs(static_cast<std::size_t>(T)),
        hprevs(static_cast<std::size_t>(T));
    std::vector<long long> inStrides(static_cast<std::size_t>(T)),
        hStrides(static_cast<std::size_t>(T));
    DeviceBuffer dInputs(sizeof(double*) * static_cast<std::size_t>(2 * T), "ref pointers");
    DeviceBuffer dStrides(sizeof(long long) * static_cast<std::size_t>(2 * T), "ref strides");
    for (int pl = 0; pl < P; ++pl) {
        const int l = pl / static_cast<int>(D), d = pl % static_cast<int>(D);
        const long long in = s_.layerInput(l);
        const double* x = l == 0 ? x_ : layerOut_[static_cast<std::size_t>(l - 1)].as<double>();
        const double* out = layerOut_[static_cast<std::size_t>(l)].as<double>() + d * H;
        for (long long t = 0; t < T; ++t) {
            const auto u = static_cast<std::size_t>(t);
            const bool first = d == 0 ? t == 0 : t == T - 1;
            const long long tp = d == 0 ? t - 1 : t + 1;
            inputs[u] = x + t * N * in;
            inStrides[u] = in;
            hprevs[u] = first ? hx_ + pl * N * H : out + tp * N * D * H;
            hStrides[u] = first ? H : D * H;
        }
        std::vector<const double*> ptrs(inputs);
        ptrs.insert(ptrs.end(), hprevs.begin(), hprevs.end());
        std::vector<long long> strides(inStrides);
        strides.insert(strides.end(), hStrides.begin(), hStrides.end());
        BENCH_CUDA(cudaMemcpyAsync(dInputs.get(), ptrs.data(), dInputs.bytes(),
                                   cudaMemcpyHostToDevice, stream_));
        BENCH_CUDA(cudaMemcpyAsync(dStrides.get(), strides.data(), dStrides.bytes(),
                                   cudaMemcpyHostToDevice, stream_));
        const auto** xs = dInputs.as<const double*>();
        const long long* xStr = dStrides.as<long long>();
        for (int g = 0; g < s_.gates; ++g) {
            const auto u = static_cast<std::size_t>(pl);
            struct Part {
                const double* G;
                const double* const* inputs;
                const long long* strides;
                long long cols;
            } parts[4] = {{gi_[u].as<double>(), xs, xStr, in},
                          {gr_[u].as<double>(), xs + T, xStr + T, H},
                          {gi_[u].as<double>(), xs, xStr, 0},
                          {gr_[u].as<double>(), xs, xStr, 0}};
            for (const Part& part : parts) {
                grads_.emplace_back(sizeof(double) *
                                        static_cast<std::size_t>(H * (part.cols ? part.cols : 1)),
                                    "ref weight grad");
                weightGradKernel<<<blocksFor(H * (part.cols ? part.cols : 1)), kThreads, 0,
                                   stream_>>>(part.G, g, s_.gates, T, N, H, part.inputs,
                                              part.strides, part.cols, grads_.back().as<double>());
                BENCH_CUDA(cudaGetLastError());
            }
        }
        BENCH_CUDA(cudaStreamSynchronize(stream_)); // the pointer tables are reused
    }
}

const double* RnnReference::weightGrad(int which, int pseudoLayer, int gate) const {
    return grads_[static_cast<std::size_t>((pseudoLayer * s_.gates + gate) * 4 + which)]
        .as<double>();
}

} // namespace roofline::bench
