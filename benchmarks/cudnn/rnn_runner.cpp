#include "cudnn/rnn_runner.hpp"

#include "cudnn/cuda_util.hpp"
#include "cudnn/reference.hpp"
#include "cudnn/rnn_reference.hpp"

#include <algorithm>
#include <cmath>
#include <memory>

namespace roofline::bench {

using workloads::CaseResult;
using workloads::CaseStatus;
using workloads::Precision;
using workloads::RnnCase;
using workloads::RnnCell;
using workloads::RnnPass;

namespace {

// fp32: no tensor cores; tf32: cuDNN's default math (TF32 tensor cores for fp32 data); half types:
// tensor-core math.
cudnnMathType_t mathType(Precision p) {
    switch (p) {
    case Precision::FP32:
        return CUDNN_FMA_MATH;
    case Precision::TF32:
        return CUDNN_DEFAULT_MATH;
    default:
        return CUDNN_TENSOR_OP_MATH;
    }
}

cudnnRNNMode_t cellMode(RnnCell c) {
    switch (c) {
    case RnnCell::Relu:
        return CUDNN_RNN_RELU;
    case RnnCell::Tanh:
        return CUDNN_RNN_TANH;
    case RnnCell::Lstm:
        return CUDNN_LSTM;
    case RnnCell::Gru:
        return CUDNN_GRU;
    }
    return CUDNN_LSTM;
}

// cuDNN's descriptors for one case, destroyed together.
struct RnnSetup {
    cudnnRNNDescriptor_t rnn = nullptr;
    cudnnDropoutDescriptor_t dropout = nullptr;
    cudnnRNNDataDescriptor_t xDesc = nullptr, yDesc = nullptr;
    cudnnTensorDescriptor_t hDesc = nullptr;
    DeviceBuffer dropoutStates;
    std::size_t weightBytes = 0, workspaceBytes = 0, reserveBytes = 0;
    ~RnnSetup() {
        if (hDesc)
            (void)cudnnDestroyTensorDescriptor(hDesc);
        if (yDesc)
            (void)cudnnDestroyRNNDataDescriptor(yDesc);
        if (xDesc)
            (void)cudnnDestroyRNNDataDescriptor(xDesc);
        if (rnn)
            (void)cudnnDestroyRNNDescriptor(rnn);
        if (dropout)
            (void)cudnnDestroyDropoutDescriptor(dropout);
    }
};

void describe(RnnSetup& s, const RnnCase& c, const RunContext& ctx) {
    const cudnnDataType_t type = cudnnDataTypeOf(c.precision);
    const int N = static_cast<int>(c.batch), T = static_cast<int>(c.seq);
    const int H = static_cast<int>(c.hidden), I = static_cast<int>(c.input);
    const int D = c.directions(), L = static_cast<int>(c.layers);
    BENCH_CUDNN(cudnnCreateDropoutDescriptor(&s.dropout));
    std::size_t stateBytes = 0;
    BENCH_CUDNN(cudnnDropoutGetStatesSize(ctx.handle, &stateBytes));
    s.dropoutStates = DeviceBuffer(stateBytes, "dropout states");
    BENCH_CUDNN(cudnnSetDropoutDescriptor(s.dropout, ctx.handle, 0.0f, s.dropoutStates.get(),
                                          stateBytes, 1));
    BENCH_CUDNN(cudnnCreateRNNDescriptor(&s.rnn));
    BENCH_CUDNN(cudnnSetRNNDescriptor_v8(
        s.rnn, CUDNN_RNN_ALGO_STANDARD, cellMode(c.cell), CUDNN_RNN_DOUBLE_BIAS,
        c.bidirectional ? CUDNN_BIDIRECTIONAL : CUDNN_UNIDIRECTIONAL, CUDNN_LINEAR_INPUT, type,
        CUDNN_DATA_FLOAT, mathType(c.precision), I, H, H, L, s.dropout, 0));
    std::vector<int> lengths(static_cast<std::size_t>(N), T);
    BENCH_CUDNN(cudnnCreateRNNDataDescriptor(&s.xDesc));
    BENCH_CUDNN(cudnnSetRNNDataDescriptor(s.xDesc, type, CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_PACKED, T,
                                          N, I, lengths.data(), nullptr));
    BENCH_CUDNN(cudnnCreateRNNDataDescriptor(&s.yDesc));
    BENCH_CUDNN(cudnnSetRNNDataDescriptor(s.yDesc, type, CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_PACKED, T,
                                          N, D * H, lengths.data(), nullptr));
    BENCH_CUDNN(cudnnCreateTensorDescriptor(&s.hDesc));
    const int dims[3] = {L * D, N, H}, strides[3] = {N * H, H, 1};
    BENCH_CUDNN(cudnnSetTensorNdDescriptor(s.hDesc, type, 3, dims, strides));
    BENCH_CUDNN(cudnnGetRNNWeightSpaceSize(ctx.handle, s.rnn, &s.weightBytes));
    BENCH_CUDNN(cudnnGetRNNTempSpaceSizes(ctx.handle, s.rnn, CUDNN_FWD_MODE_TRAINING, s.xDesc,
                                          &s.workspaceBytes, &s.reserveBytes));
}

// Where cuDNN keeps each matrix and bias inside a weight space, as element offsets.
struct WeightLayout {
    std::vector<long long> offset[4]; ///< W, R, bW, bR per pseudoLayer * gates + gate
    std::vector<long long> count[4];
};

WeightLayout weightLayout(const RnnSetup& s, const RnnCase& c, const RunContext& ctx,
                          void* weights) {
    WeightLayout layout;
    cudnnTensorDescriptor_t mDesc = nullptr, bDesc = nullptr;
    BENCH_CUDNN(cudnnCreateTensorDescriptor(&mDesc));
    BENCH_CUDNN(cudnnCreateTensorDescriptor(&bDesc));
    auto elements = [](cudnnTensorDescriptor_t d) {
        cudnnDataType_t t;
        int nb = 0, dims[8] = {}, strides[8] = {};
        BENCH_CUDNN(cudnnGetTensorNdDescriptor(d, 8, &t, &nb, dims, strides));
        long long e = 1;
        for (int i = 0; i < nb; ++i)
            e *= dims[i];
        return e;
    };
    const long long bytes = workloads::elementBytes(c.precision);
    try {
        const int P = static_cast<int>(c.layers) * c.directions();
        for (int pl = 0; pl < P; ++pl)
            for (int side = 0; side < 2; ++side)
                for (int g = 0; g < c.gates(); ++g) {
                    void* m = nullptr;
                    void* b = nullptr;
                    BENCH_CUDNN(cudnnGetRNNWeightParams(ctx.handle, s.rnn, pl, s.weightBytes,
                                                        weights, side * c.gates() + g, mDesc, &m,
                                                        bDesc, &b));
                    const auto base = reinterpret_cast<std::uintptr_t>(weights);
                    layout.offset[side].push_back(
                        static_cast<long long>(reinterpret_cast<std::uintptr_t>(m) - base) / bytes);
                    layout.count[side].push_back(elements(mDesc));
                    layout.offset[2 + side].push_back(
                        static_cast<long long>(reinterpret_cast<std::uintptr_t>(b) - base) / bytes);
                    layout.count[2 + side].push_back(elements(bDesc));
                }
    } catch (...) {
        (void)cudnnDestroyTensorDescriptor(mDesc);
        (void)cudnnDestroyTensorDescriptor(bDesc);
        throw;
    }
    (void)cudnnDestroyTensorDescriptor(mDesc);
    (void)cudnnDestroyTensorDescriptor(bDesc);
    return layout;
}

struct Accumulated {
    double error = 0.0;
    long long nonFinite = 0;
    void add(const Comparison& c) {
        error = std::max(error, c.error());
        nonFinite += c.nonFinite;
    }
};

} // namespace

CaseResult rnnCaseHeader(const RnnCase& c, int index) {
    CaseResult r;
    r.index = index;
    r.name = c.name.empty() ? "rnn" + std::to_string(index) : c.name;
    r.scope = caseScope('r', index, r.name);
    r.workload = toString(c.cell);
    r.shape = c.shape();
    r.pass = toString(c.pass);
    r.precision = toString(c.precision);
    r.layout = "seq-major";
    r.algorithm = "standard";
    r.source = c.source;
    r.analyticFlops = c.flops();
    r.tolerance = workloads::defaultTolerance(c.precision);
    return r;
}

namespace {

// One RNN case on the device: its descriptors, its buffers with the inputs filled, and the three
// operations a pass times.
class RnnRun {
public:
    RnnRun(const RnnCase& c, int index, RunContext& ctx) : c_(c), ctx_(ctx) {
        describe(s_, c, ctx);
        type_ = elementTypeOf(c.precision);
        eb_ = static_cast<std::size_t>(workloads::elementBytes(c.precision));
        allocate();
        fill(index);
    }

    void forward() {
        BENCH_CUDNN(cudnnRNNForward(ctx_.handle, s_.rnn, CUDNN_FWD_MODE_TRAINING, lengths(),
                                    s_.xDesc, x_.get(), s_.yDesc, y_.get(), s_.hDesc, hx_.get(),
                                    hy_.get(), s_.hDesc, cell(cx_), cell(cy_), s_.weightBytes,
                                    weights_.get(), s_.workspaceBytes, workspace_.get(),
                                    s_.reserveBytes, reserve_.get()));
    }
    void backwardData() {
        BENCH_CUDNN(cudnnRNNBackwardData_v8(
            ctx_.handle, s_.rnn, lengths(), s_.yDesc, y_.get(), dy_.get(), s_.xDesc, dx_.get(),
            s_.hDesc, hx_.get(), dhy_.get(), dhx_.get(), s_.hDesc, cell(cx_), cell(dcy_),
            cell(dcx_), s_.weightBytes, weights_.get(), s_.workspaceBytes, workspace_.get(),
            s_.reserveBytes, reserve_.get()));
    }
    void backwardWeights() {
        BENCH_CUDNN(cudnnRNNBackwardWeights_v8(
            ctx_.handle, s_.rnn, CUDNN_WGRAD_MODE_ADD, lengths(), s_.xDesc, x_.get(), s_.hDesc,
            hx_.get(), s_.yDesc, y_.get(), s_.weightBytes, dweights_.get(), s_.workspaceBytes,
            workspace_.get(), s_.reserveBytes, reserve_.get()));
    }
    /// The case's pass.
    std::function<void()> work() {
        if (c_.pass == RnnPass::Forward)
            return [this] { forward(); };
        if (c_.pass == RnnPass::BackwardData)
            return [this] { backwardData(); };
        return [this] { backwardWeights(); };
    }
    /// Runs the pass (and those it needs) once, against a double-precision reference that reads
    /// the same (rounded) inputs and weights.
    Accumulated verify();
    /// Runs what the pass needs before it is timed (the forward pass, and backward data before
    /// the weights' gradients).
    void prepare() {
        forward();
        if (c_.pass != RnnPass::Forward)
            backwardData();
    }
    double workspaceBytes() const {
        return static_cast<double>(s_.workspaceBytes + s_.reserveBytes);
    }

private:
    bool lstm() const { return c_.cell == RnnCell::Lstm; }
    void* cell(const DeviceBuffer& b) const { return lstm() ? b.get() : nullptr; }
    const int* lengths() const { return seqLengths_.as<int>(); }
    void allocate();
    void fill(int index);
    /// The reference's weights: cuDNN's weight blocks as doubles.
    RnnRefWeights referenceWeights(const WeightLayout& layout, const RnnRefShape& shape);
    /// `count` elements of `src` as doubles, in a buffer the run owns.
    const double* asDoubles(const void* src, long long count, const char* what) {
        owned_.emplace_back(sizeof(double) * static_cast<std::size_t>(count), what);
        toDouble(src, type_, owned_.back().as<double>(), count, ctx_.stream);
        return owned_.back().as<const double>();
    }
    void compareBackward(RnnReference& ref, const WeightLayout& layout, const double* cxd,
                         Accumulated& acc);

    const RnnCase& c_;
    RunContext& ctx_;
    RnnSetup s_;
    ElementType type_{};
    std::size_t eb_ = 0;
    std::size_t xCount_ = 0, yCount_ = 0, hCount_ = 0;
    DeviceBuffer x_, y_, dx_, dy_, hx_, hy_, cx_, cy_, dhx_, dhy_, dcx_, dcy_;
    DeviceBuffer weights_, dweights_, workspace_, reserve_, seqLengths_;
    std::vector<DeviceBuffer> owned_; // the reference's inputs
};

void RnnRun::allocate() {
    const long long N = c_.batch, T = c_.seq, H = c_.hidden, I = c_.input;
    const long long D = c_.directions(), P = c_.layers * D;
    xCount_ = static_cast<std::size_t>(T * N * I);
    yCount_ = static_cast<std::size_t>(T * N * D * H);
    hCount_ = static_cast<std::size_t>(P * N * H);
    x_ = DeviceBuffer(xCount_ * eb_, "x");
    y_ = DeviceBuffer(yCount_ * eb_, "y");
    dx_ = DeviceBuffer(xCount_ * eb_, "dx");
    dy_ = DeviceBuffer(yCount_ * eb_, "dy");
    hx_ = DeviceBuffer(hCount_ * eb_, "hx");
    hy_ = DeviceBuffer(hCount_ * eb_, "hy");
    cx_ = DeviceBuffer(hCount_ * eb_, "cx");
    cy_ = DeviceBuffer(hCount_ * eb_, "cy");
    dhx_ = DeviceBuffer(hCount_ * eb_, "dhx");
    dhy_ = DeviceBuffer(hCount_ * eb_, "dhy");
    dcx_ = DeviceBuffer(hCount_ * eb_, "dcx");
    dcy_ = DeviceBuffer(hCount_ * eb_, "dcy");
    weights_ = DeviceBuffer(s_.weightBytes, "weights");
    dweights_ = DeviceBuffer(s_.weightBytes, "weight grads");
    workspace_ = DeviceBuffer(s_.workspaceBytes, "workspace");
    reserve_ = DeviceBuffer(s_.reserveBytes, "reserve");
    seqLengths_ = DeviceBuffer(sizeof(int) * static_cast<std::size_t>(N), "sequence lengths");
    std::vector<int> lengths(static_cast<std::size_t>(N), static_cast<int>(T));
    BENCH_CUDA(cudaMemcpyAsync(seqLengths_.get(), lengths.data(), seqLengths_.bytes(),
                               cudaMemcpyHostToDevice, ctx_.stream));
}

void RnnRun::fill(int index) {
    int tensor = 0;
    auto fill = [&](DeviceBuffer& b, std::size_t count, float scale) {
        fillUniform(b.get(), static_cast<long long>(count), type_,
                    caseSeed(ctx_.settings.seed, index, tensor++), -scale, scale, ctx_.stream);
    };
    fill(x_, xCount_, 1.0f);
    fill(hx_, hCount_, 1.0f);
    fill(dy_, yCount_, 1.0f);
    fill(dhy_, hCount_, 1.0f);
    if (lstm()) {
        fill(cx_, hCount_, 1.0f);
        fill(dcy_, hCount_, 1.0f);
    }
    fill(weights_, s_.weightBytes / eb_, 1.0f / std::sqrt(static_cast<float>(c_.hidden)));
}

RnnRefWeights RnnRun::referenceWeights(const WeightLayout& layout, const RnnRefShape& shape) {
    const long long H = c_.hidden;
    const int D = static_cast<int>(c_.directions());
    RnnRefWeights refWeights;
    std::vector<const double*>* sides[4] = {&refWeights.W, &refWeights.R, &refWeights.bW,
                                            &refWeights.bR};
    for (int side = 0; side < 4; ++side)
        for (std::size_t k = 0; k < layout.offset[side].size(); ++k) {
            const int layer = static_cast<int>(k) / c_.gates() / D;
            const long long expected =
                side >= 2 ? H : H * (side == 0 ? shape.layerInput(layer) : H);
            if (layout.count[side][k] != expected)
                throw std::runtime_error(
                    "cuDNN reports a weight block of " + std::to_string(layout.count[side][k]) +
                    " elements where " + std::to_string(expected) + " were expected");
            sides[side]->push_back(
                asDoubles(static_cast<const char*>(weights_.get()) +
                              static_cast<std::size_t>(layout.offset[side][k]) * eb_,
                          layout.count[side][k], "reference weights"));
        }
    return refWeights;
}

Accumulated RnnRun::verify() {
    struct Release { // the reference's buffers go once it is done, before the pass is timed
        std::vector<DeviceBuffer>& buffers;
        ~Release() { buffers.clear(); }
    } release{owned_};
    const WeightLayout layout = weightLayout(s_, c_, ctx_, weights_.get());
    RnnRefShape shape;
    shape.cell = static_cast<RefCell>(static_cast<int>(c_.cell));
    shape.layers = static_cast<int>(c_.layers);
    shape.directions = static_cast<int>(c_.directions());
    shape.gates = c_.gates();
    shape.hidden = c_.hidden;
    shape.input = c_.input;
    shape.seq = c_.seq;
    shape.batch = c_.batch;
    const RnnRefWeights refWeights = referenceWeights(layout, shape);
    const long long xs = static_cast<long long>(xCount_), ys = static_cast<long long>(yCount_),
                    hs = static_cast<long long>(hCount_);
    const double* xd = asDoubles(x_.get(), xs, "ref x");
    const double* hxd = asDoubles(hx_.get(), hs, "ref hx");
    const double* cxd = nullptr; // the cell state: zeros unless LSTM
    if (lstm()) {
        cxd = asDoubles(cx_.get(), hs, "ref cx");
    } else {
        owned_.emplace_back(sizeof(double) * hCount_, "ref zero cx");
        BENCH_CUDA(cudaMemsetAsync(owned_.back().get(), 0, owned_.back().bytes(), ctx_.stream));
        cxd = owned_.back().as<const double>();
    }
    RnnReference ref(shape, refWeights, ctx_.stream);
    ref.forward(xd, hxd, cxd);
    Accumulated acc;
    forward();
    if (c_.pass != RnnPass::Forward) {
        compareBackward(ref, layout, cxd, acc);
        return acc;
    }
    acc.add(compareWithReference(y_.get(), type_, ref.y(), ys, ctx_.stream));
    acc.add(compareWithReference(hy_.get(), type_, ref.hy(), hs, ctx_.stream));
    if (lstm())
        acc.add(compareWithReference(cy_.get(), type_, ref.cy(), hs, ctx_.stream));
    return acc;
}

// Backward data against the reference's, and -- for the weights' pass -- the weights' gradients.
void RnnRun::compareBackward(RnnReference& ref, const WeightLayout& layout, const double* cxd,
                             Accumulated& acc) {
    const long long xs = static_cast<long long>(xCount_), ys = static_cast<long long>(yCount_),
                    hs = static_cast<long long>(hCount_);
    const double* dyd = asDoubles(dy_.get(), ys, "ref dy");
    const double* dhyd = asDoubles(dhy_.get(), hs, "ref dhy");
    const double* dcyd = lstm() ? asDoubles(dcy_.get(), hs, "ref dcy") : cxd;
    ref.backwardData(dyd, dhyd, dcyd);
    BENCH_CUDA(cudaMemsetAsync(dx_.get(), 0xFF, dx_.bytes(), ctx_.stream));
    backwardData();
    if (c_.pass == RnnPass::BackwardData) {
        acc.add(compareWithReference(dx_.get(), type_, ref.dx(), xs, ctx_.stream));
        acc.add(compareWithReference(dhx_.get(), type_, ref.dhx(), hs, ctx_.stream));
        if (lstm())
            acc.add(compareWithReference(dcx_.get(), type_, ref.dcx(), hs, ctx_.stream));
        return;
    }
    ref.backwardWeights();
    BENCH_CUDA(cudaMemsetAsync(dweights_.get(), 0, dweights_.bytes(), ctx_.stream));
    backwardWeights();
    for (int side = 0; side < 4; ++side)
        for (std::size_t k = 0; k < layout.offset[side].size(); ++k) {
            const int pl = static_cast<int>(k) / c_.gates();
            const int g = static_cast<int>(k) % c_.gates();
            acc.add(compareWithReference(static_cast<const char*>(dweights_.get()) +
                                             static_cast<std::size_t>(layout.offset[side][k]) * eb_,
                                         type_, ref.weightGrad(side, pl, g), layout.count[side][k],
                                         ctx_.stream));
        }
}

} // namespace

std::vector<CaseResult> runRnnCase(const RnnCase& c, int index, RunContext& ctx) {
    CaseResult r = rnnCaseHeader(c, index);
    if (ctx.settings.tolerance > 0)
        r.tolerance = ctx.settings.tolerance;
    guardCase(r, [&] {
        RnnRun run(c, index, ctx);
        r.workspaceBytes = run.workspaceBytes();
        if (ctx.settings.verify) {
            const Accumulated acc = run.verify();
            judge(r, acc.error, acc.nonFinite, r.tolerance);
        } else {
            run.prepare();
        }
        const std::function<void()> work = run.work();
        const auto times = timeRuns(work, ctx.stream, ctx.settings.warmup, ctx.settings.repeats);
        r.repeats = static_cast<int>(times.size());
        r.eventMedianSeconds = median(times);
        r.eventMinSeconds = times.empty() ? 0.0 : times.front();
        r.eventSeconds = times;
        profileCase(ctx, r.scope, r.pass, work);
    });
    return {r};
}

} // namespace roofline::bench
