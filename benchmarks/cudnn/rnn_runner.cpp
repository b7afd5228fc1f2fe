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

std::vector<CaseResult> runRnnCase(const RnnCase& c, int index, RunContext& ctx) {
    CaseResult r = rnnCaseHeader(c, index);
    if (ctx.settings.tolerance > 0)
        r.tolerance = ctx.settings.tolerance;
    guardCase(r, [&] {
        RnnSetup s;
        describe(s, c, ctx);
        const ElementType type = elementTypeOf(c.precision);
        const std::size_t eb = static_cast<std::size_t>(workloads::elementBytes(c.precision));
        const long long N = c.batch, T = c.seq, H = c.hidden, I = c.input;
        const long long D = c.directions(), P = c.layers * D;
        const std::size_t xCount = static_cast<std::size_t>(T * N * I);
        const std::size_t yCount = static_cast<std::size_t>(T * N * D * H);
        const std::size_t hCount = static_cast<std::size_t>(P * N * H);
        DeviceBuffer x(xCount * eb, "x"), y(yCount * eb, "y"), dx(xCount * eb, "dx"),
            dy(yCount * eb, "dy");
        DeviceBuffer hx(hCount * eb, "hx"), hy(hCount * eb, "hy"), cx(hCount * eb, "cx"),
            cy(hCount * eb, "cy"), dhx(hCount * eb, "dhx"), dhy(hCount * eb, "dhy"),
            dcx(hCount * eb, "dcx"), dcy(hCount * eb, "dcy");
        DeviceBuffer weights(s.weightBytes, "weights"), dweights(s.weightBytes, "weight grads");
        DeviceBuffer workspace(s.workspaceBytes, "workspace"), reserve(s.reserveBytes, "reserve");
        r.workspaceBytes = static_cast<double>(s.workspaceBytes + s.reserveBytes);
        DeviceBuffer seqLengths(sizeof(int) * static_cast<std::size_t>(N), "sequence lengths");
        {
            std::vector<int> lengths(static_cast<std::size_t>(N), static_cast<int>(T));
            BENCH_CUDA(cudaMemcpyAsync(seqLengths.get(), lengths.data(), seqLengths.bytes(),
                                       cudaMemcpyHostToDevice, ctx.stream));
        }
        const bool lstm = c.cell == RnnCell::Lstm;
        int tensor = 0;
        auto fill = [&](DeviceBuffer& b, std::size_t count, float scale) {
            fillUniform(b.get(), static_cast<long long>(count), type,
                        caseSeed(ctx.settings.seed, index, tensor++), -scale, scale, ctx.stream);
        };
        fill(x, xCount, 1.0f);
        fill(hx, hCount, 1.0f);
        fill(dy, yCount, 1.0f);
        fill(dhy, hCount, 1.0f);
        if (lstm) {
            fill(cx, hCount, 1.0f);
            fill(dcy, hCount, 1.0f);
        }
        fill(weights, s.weightBytes / eb, 1.0f / std::sqrt(static_cast<float>(H)));
        const int* devLengths = seqLengths.as<int>();
        void* cxp = lstm ? cx.get() : nullptr;
        void* cyp = lstm ? cy.get() : nullptr;
        auto forward = [&] {
            BENCH_CUDNN(cudnnRNNForward(
                ctx.handle, s.rnn, CUDNN_FWD_MODE_TRAINING, devLengths, s.xDesc, x.get(), s.yDesc,
                y.get(), s.hDesc, hx.get(), hy.get(), s.hDesc, cxp, cyp, s.weightBytes,
                weights.get(), s.workspaceBytes, workspace.get(), s.reserveBytes, reserve.get()));
        };
        auto backwardData = [&] {
            BENCH_CUDNN(cudnnRNNBackwardData_v8(
                ctx.handle, s.rnn, devLengths, s.yDesc, y.get(), dy.get(), s.xDesc, dx.get(),
                s.hDesc, hx.get(), dhy.get(), dhx.get(), s.hDesc, cxp, lstm ? dcy.get() : nullptr,
                lstm ? dcx.get() : nullptr, s.weightBytes, weights.get(), s.workspaceBytes,
                workspace.get(), s.reserveBytes, reserve.get()));
        };
        auto backwardWeights = [&] {
            BENCH_CUDNN(cudnnRNNBackwardWeights_v8(
                ctx.handle, s.rnn, CUDNN_WGRAD_MODE_ADD, devLengths, s.xDesc, x.get(), s.hDesc,
                hx.get(), s.yDesc, y.get(), s.weightBytes, dweights.get(), s.workspaceBytes,
                workspace.get(), s.reserveBytes, reserve.get()));
        };

        if (ctx.settings.verify) {
            // The reference reads the same (rounded) inputs and weights, in double.
            const WeightLayout layout = weightLayout(s, c, ctx, weights.get());
            std::vector<DeviceBuffer> owned;
            auto toDoubleBuffer = [&](const void* src, long long count, const char* what) {
                owned.emplace_back(sizeof(double) * static_cast<std::size_t>(count), what);
                toDouble(src, type, owned.back().as<double>(), count, ctx.stream);
                return owned.back().as<const double>();
            };
            RnnRefShape shape;
            shape.cell = static_cast<RefCell>(static_cast<int>(c.cell));
            shape.layers = static_cast<int>(c.layers);
            shape.directions = static_cast<int>(D);
            shape.gates = c.gates();
            shape.hidden = H;
            shape.input = I;
            shape.seq = T;
            shape.batch = N;
            RnnRefWeights refWeights;
            std::vector<const double*>* sides[4] = {&refWeights.W, &refWeights.R, &refWeights.bW,
                                                    &refWeights.bR};
            for (int side = 0; side < 4; ++side)
                for (std::size_t k = 0; k < layout.offset[side].size(); ++k) {
                    const int layer = static_cast<int>(k) / c.gates() / static_cast<int>(D);
                    const long long expected =
                        side >= 2 ? H : H * (side == 0 ? shape.layerInput(layer) : H);
                    if (layout.count[side][k] != expected)
                        throw std::runtime_error("cuDNN reports a weight block of " +
                                                 std::to_string(layout.count[side][k]) +
                                                 " elements where " + std::to_string(expected) +
                                                 " were expected");
                    sides[side]->push_back(
                        toDoubleBuffer(static_cast<const char*>(weights.get()) +
                                           static_cast<std::size_t>(layout.offset[side][k]) * eb,
                                       layout.count[side][k], "reference weights"));
                }
            const double* xd = toDoubleBuffer(x.get(), static_cast<long long>(xCount), "ref x");
            const double* hxd = toDoubleBuffer(hx.get(), static_cast<long long>(hCount), "ref hx");
            const double* cxd = nullptr; // the cell state: zeros unless LSTM
            if (lstm) {
                cxd = toDoubleBuffer(cx.get(), static_cast<long long>(hCount), "ref cx");
            } else {
                owned.emplace_back(sizeof(double) * hCount, "ref zero cx");
                BENCH_CUDA(
                    cudaMemsetAsync(owned.back().get(), 0, owned.back().bytes(), ctx.stream));
                cxd = owned.back().as<const double>();
            }
            RnnReference ref(shape, refWeights, ctx.stream);
            ref.forward(xd, hxd, cxd);
            Accumulated acc;
            forward();
            if (c.pass == RnnPass::Forward) {
                acc.add(compareWithReference(y.get(), type, ref.y(), static_cast<long long>(yCount),
                                             ctx.stream));
                acc.add(compareWithReference(hy.get(), type, ref.hy(),
                                             static_cast<long long>(hCount), ctx.stream));
                if (lstm)
                    acc.add(compareWithReference(cy.get(), type, ref.cy(),
                                                 static_cast<long long>(hCount), ctx.stream));
            } else {
                const double* dyd =
                    toDoubleBuffer(dy.get(), static_cast<long long>(yCount), "ref dy");
                const double* dhyd =
                    toDoubleBuffer(dhy.get(), static_cast<long long>(hCount), "ref dhy");
                const double* dcyd =
                    lstm ? toDoubleBuffer(dcy.get(), static_cast<long long>(hCount), "ref dcy")
                         : cxd;
                ref.backwardData(dyd, dhyd, dcyd);
                BENCH_CUDA(cudaMemsetAsync(dx.get(), 0xFF, dx.bytes(), ctx.stream));
                backwardData();
                if (c.pass == RnnPass::BackwardData) {
                    acc.add(compareWithReference(dx.get(), type, ref.dx(),
                                                 static_cast<long long>(xCount), ctx.stream));
                    acc.add(compareWithReference(dhx.get(), type, ref.dhx(),
                                                 static_cast<long long>(hCount), ctx.stream));
                    if (lstm)
                        acc.add(compareWithReference(dcx.get(), type, ref.dcx(),
                                                     static_cast<long long>(hCount), ctx.stream));
                } else {
                    ref.backwardWeights();
                    BENCH_CUDA(cudaMemsetAsync(dweights.get(), 0, dweights.bytes(), ctx.stream));
                    backwardWeights();
                    for (int side = 0; side < 4; ++side)
                        for (std::size_t k = 0; k < layout.offset[side].size(); ++k) {
                            const int pl = static_cast<int>(k) / c.gates();
                            const int g = static_cast<int>(k) % c.gates();
                            acc.add(compareWithReference(
                                static_cast<const char*>(dweights.get()) +
                                    static_cast<std::size_t>(layout.offset[side][k]) * eb,
                                type, ref.weightGrad(side, pl, g), layout.count[side][k],
                                ctx.stream));
                        }
                }
            }
            judge(r, acc.error, acc.nonFinite, r.tolerance);
        } else {
            forward();
            if (c.pass != RnnPass::Forward)
                backwardData();
        }
        const auto& work = c.pass == RnnPass::Forward ? std::function<void()>(forward)
                           : c.pass == RnnPass::BackwardData
                               ? std::function<void()>(backwardData)
                               : std::function<void()>(backwardWeights);
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
