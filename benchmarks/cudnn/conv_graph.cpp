#include "cudnn/conv_graph.hpp"

#include "cudnn/cuda_util.hpp"

#include <array>

namespace roofline::bench {

using workloads::ConvCase;
using workloads::ConvLayout;
using workloads::ConvPass;
using workloads::Precision;

BackendDescriptor::BackendDescriptor(cudnnBackendDescriptorType_t type) {
    BENCH_CUDNN(cudnnBackendCreateDescriptor(type, &desc_));
}

BackendDescriptor::~BackendDescriptor() {
    if (desc_)
        (void)cudnnBackendDestroyDescriptor(desc_);
}

BackendDescriptor::BackendDescriptor(BackendDescriptor&& other) noexcept : desc_(other.desc_) {
    other.desc_ = nullptr;
}

BackendDescriptor& BackendDescriptor::operator=(BackendDescriptor&& other) noexcept {
    if (this != &other) {
        if (desc_)
            (void)cudnnBackendDestroyDescriptor(desc_);
        desc_ = other.desc_;
        other.desc_ = nullptr;
    }
    return *this;
}

void BackendDescriptor::set(cudnnBackendAttributeName_t name, cudnnBackendAttributeType_t type,
                            std::int64_t count, const void* values) {
    BENCH_CUDNN(cudnnBackendSetAttribute(desc_, name, type, count, values));
}

void BackendDescriptor::finalize() {
    BENCH_CUDNN(cudnnBackendFinalize(desc_));
}

namespace {

// Strides of a packed 5-d tensor (a, b, d, h, w) with b outermost-but-one (channels first) or
// innermost (channels last).
void packedStrides(ConvLayout layout, std::int64_t b, std::int64_t d, std::int64_t h,
                   std::int64_t w, std::int64_t out[5]) {
    if (layout == ConvLayout::ChannelsFirst) {
        out[4] = 1;
        out[3] = w;
        out[2] = h * w;
        out[1] = d * h * w;
        out[0] = b * d * h * w;
    } else {
        out[1] = 1;
        out[4] = b;
        out[3] = w * b;
        out[2] = h * w * b;
        out[0] = d * h * w * b;
    }
}

std::string noteName(cudnnBackendNumericalNote_t note) {
    switch (note) {
    case CUDNN_NUMERICAL_NOTE_TENSOR_CORE:
        return "tensor_core";
    case CUDNN_NUMERICAL_NOTE_DOWN_CONVERT_INPUTS:
        return "down_convert";
    case CUDNN_NUMERICAL_NOTE_REDUCED_PRECISION_REDUCTION:
        return "reduced_precision_reduction";
    case CUDNN_NUMERICAL_NOTE_FFT:
        return "fft";
    case CUDNN_NUMERICAL_NOTE_NONDETERMINISTIC:
        return "nondeterministic";
    case CUDNN_NUMERICAL_NOTE_WINOGRAD:
        return "winograd";
    case CUDNN_NUMERICAL_NOTE_WINOGRAD_TILE_4x4:
        return "winograd_4x4";
    case CUDNN_NUMERICAL_NOTE_WINOGRAD_TILE_6x6:
        return "winograd_6x6";
    case CUDNN_NUMERICAL_NOTE_WINOGRAD_TILE_13x13:
        return "winograd_13x13";
    case CUDNN_NUMERICAL_NOTE_STRICT_NAN_PROP:
        return "strict_nan_prop";
    default:
        return "note" + std::to_string(static_cast<int>(note));
    }
}

void makeTensor(BackendDescriptor& t, std::int64_t uid, cudnnDataType_t type, int nbDims,
                const std::int64_t dims5[5], const std::int64_t strides5[5]) {
    // 2D drops the depth dimension (index 2).
    std::int64_t dims[5], strides[5];
    int n = 0;
    for (int i = 0; i < 5; ++i) {
        if (nbDims == 4 && i == 2)
            continue;
        dims[n] = dims5[i];
        strides[n] = strides5[i];
        ++n;
    }
    const std::int64_t alignment = 16;
    t = BackendDescriptor(CUDNN_BACKEND_TENSOR_DESCRIPTOR);
    t.set(CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &type);
    t.set(CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, n, dims);
    t.set(CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, n, strides);
    t.set(CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 1, &uid);
    t.set(CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, CUDNN_TYPE_INT64, 1, &alignment);
    t.finalize();
}

} // namespace

ConvStrides convStrides(const ConvCase& c) {
    ConvStrides s{};
    const auto out = c.output();
    packedStrides(c.layout, c.c, c.input[0], c.input[1], c.input[2], s.x);
    packedStrides(c.layout, c.c / c.groups, c.filter[0], c.filter[1], c.filter[2], s.w);
    packedStrides(c.layout, c.k, out[0], out[1], out[2], s.y);
    return s;
}

std::string ConvPlan::name() const {
    std::string n = "eng" + std::to_string(engine);
    std::string list;
    for (const auto& note : notes)
        if (note != "strict_nan_prop")
            list += (list.empty() ? "" : ",") + note;
    return list.empty() ? n : n + " (" + list + ")";
}

namespace {

// The convolution of the case: its spatial dimensions, paddings, strides and dilations.
BackendDescriptor convolutionDescriptor(const ConvCase& c) {
    const cudnnDataType_t compute = CUDNN_DATA_FLOAT;
    const std::int64_t spatial = c.spatialDims;
    const int first = 3 - c.spatialDims;
    std::int64_t pre[3], post[3], stride[3], dilation[3];
    for (int i = 0; i < c.spatialDims; ++i) {
        pre[i] = c.padPre[static_cast<std::size_t>(first + i)];
        post[i] = c.padPost[static_cast<std::size_t>(first + i)];
        stride[i] = c.stride[static_cast<std::size_t>(first + i)];
        dilation[i] = c.dilation[static_cast<std::size_t>(first + i)];
    }
    const cudnnConvolutionMode_t mode = CUDNN_CROSS_CORRELATION;
    BackendDescriptor d(CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR);
    d.set(CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS, CUDNN_TYPE_INT64, 1, &spatial);
    d.set(CUDNN_ATTR_CONVOLUTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &compute);
    d.set(CUDNN_ATTR_CONVOLUTION_CONV_MODE, CUDNN_TYPE_CONVOLUTION_MODE, 1, &mode);
    d.set(CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS, CUDNN_TYPE_INT64, spatial, pre);
    d.set(CUDNN_ATTR_CONVOLUTION_POST_PADDINGS, CUDNN_TYPE_INT64, spatial, post);
    d.set(CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES, CUDNN_TYPE_INT64, spatial, stride);
    d.set(CUDNN_ATTR_CONVOLUTION_DILATIONS, CUDNN_TYPE_INT64, spatial, dilation);
    d.finalize();
    return d;
}

// A pass's operation descriptor and the attributes that name its x, w and y (each pass names
// its own: X/W/Y forward, DX/W/DY backward data, X/DW/DY backward filter).
struct OperationAttributes {
    cudnnBackendDescriptorType_t type;
    cudnnBackendAttributeName_t x, w, y, conv, alpha, beta;
};

OperationAttributes operationAttributes(ConvPass pass) {
    switch (pass) {
    case ConvPass::BackwardData:
        return {CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_DATA_DESCRIPTOR,
                CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DX,
                CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_W,
                CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DY,
                CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_CONV_DESC,
                CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_ALPHA,
                CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_BETA};
    case ConvPass::BackwardFilter:
        return {CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_FILTER_DESCRIPTOR,
                CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_X,
                CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DW,
                CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DY,
                CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_CONV_DESC,
                CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_ALPHA,
                CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_BETA};
    case ConvPass::Forward:
    default:
        return {CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR,
                CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X,
                CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W,
                CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y,
                CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC,
                CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_ALPHA,
                CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_BETA};
    }
}

// The pass over tensors x, w, y and the convolution: alpha 1, beta 0.
BackendDescriptor operationDescriptor(ConvPass pass, cudnnBackendDescriptor_t x,
                                      cudnnBackendDescriptor_t w, cudnnBackendDescriptor_t y,
                                      cudnnBackendDescriptor_t conv) {
    const OperationAttributes a = operationAttributes(pass);
    const float alpha = 1.0f, beta = 0.0f;
    BackendDescriptor d(a.type);
    d.set(a.x, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &x);
    d.set(a.w, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &w);
    d.set(a.y, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &y);
    d.set(a.conv, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &conv);
    d.set(a.alpha, CUDNN_TYPE_FLOAT, 1, &alpha);
    d.set(a.beta, CUDNN_TYPE_FLOAT, 1, &beta);
    d.finalize();
    return d;
}

} // namespace

ConvGraph::ConvGraph(cudnnHandle_t handle, const ConvCase& c) : handle_(handle), case_(c) {
    const cudnnDataType_t type = cudnnDataTypeOf(c.precision);
    const int nbDims = c.spatialDims + 2;
    const auto out = c.output();
    const ConvStrides strides = convStrides(c);
    const std::int64_t xDims[5] = {c.n, c.c, c.input[0], c.input[1], c.input[2]};
    const std::int64_t wDims[5] = {c.k, c.c / c.groups, c.filter[0], c.filter[1], c.filter[2]};
    const std::int64_t yDims[5] = {c.n, c.k, out[0], out[1], out[2]};
    makeTensor(tensors_[0], 1, type, nbDims, xDims, strides.x);
    makeTensor(tensors_[1], 2, type, nbDims, wDims, strides.w);
    makeTensor(tensors_[2], 3, type, nbDims, yDims, strides.y);
    convolution_ = convolutionDescriptor(c);
    operation_ = operationDescriptor(c.pass, tensors_[0].get(), tensors_[1].get(),
                                     tensors_[2].get(), convolution_.get());
    cudnnBackendDescriptor_t op = operation_.get();
    graph_ = BackendDescriptor(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR);
    graph_.set(CUDNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &op);
    graph_.set(CUDNN_ATTR_OPERATIONGRAPH_HANDLE, CUDNN_TYPE_HANDLE, 1, &handle_);
    graph_.finalize();
    std::int64_t got = 0;
    BENCH_CUDNN(cudnnBackendGetAttribute(graph_.get(),
                                         CUDNN_ATTR_OPERATIONGRAPH_ENGINE_GLOBAL_COUNT,
                                         CUDNN_TYPE_INT64, 1, &got, &engineCount_));
}

bool ConvGraph::finishPlan(BackendDescriptor& config, ConvPlan& plan, std::string& whyNot) const {
    try {
        // The engine behind the configuration: its index and numerical notes.
        BackendDescriptor engine(CUDNN_BACKEND_ENGINE_DESCRIPTOR);
        cudnnBackendDescriptor_t e = engine.get();
        std::int64_t got = 0;
        BENCH_CUDNN(cudnnBackendGetAttribute(config.get(), CUDNN_ATTR_ENGINECFG_ENGINE,
                                             CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &got, &e));
        BENCH_CUDNN(cudnnBackendGetAttribute(e, CUDNN_ATTR_ENGINE_GLOBAL_INDEX, CUDNN_TYPE_INT64, 1,
                                             &got, &plan.engine));
        std::array<cudnnBackendNumericalNote_t, CUDNN_NUMERICAL_NOTE_TYPE_COUNT> notes{};
        std::int64_t noteCount = 0;
        BENCH_CUDNN(cudnnBackendGetAttribute(
            e, CUDNN_ATTR_ENGINE_NUMERICAL_NOTE, CUDNN_TYPE_NUMERICAL_NOTE,
            static_cast<std::int64_t>(notes.size()), &noteCount, notes.data()));
        for (std::int64_t i = 0; i < noteCount; ++i) {
            const auto note = notes[static_cast<std::size_t>(i)];
            plan.notes.push_back(noteName(note));
            plan.tensorCore = plan.tensorCore || note == CUDNN_NUMERICAL_NOTE_TENSOR_CORE;
            plan.downConvert = plan.downConvert || note == CUDNN_NUMERICAL_NOTE_DOWN_CONVERT_INPUTS;
        }
        cudnnBackendDescriptor_t cfg = config.get();
        plan.plan = BackendDescriptor(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR);
        plan.plan.set(CUDNN_ATTR_EXECUTION_PLAN_HANDLE, CUDNN_TYPE_HANDLE, 1, &handle_);
        plan.plan.set(CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1,
                      &cfg);
        plan.plan.finalize();
        BENCH_CUDNN(cudnnBackendGetAttribute(plan.plan.get(),
                                             CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE,
                                             CUDNN_TYPE_INT64, 1, &got, &plan.workspaceBytes));
        return true;
    } catch (const CudnnError& e) {
        whyNot = e.what();
        return false;
    }
}

ConvPlan ConvGraph::planForEngine(std::int64_t engineIndex, std::string& whyNot) const {
    ConvPlan plan;
    plan.engine = engineIndex;
    try {
        BackendDescriptor engine(CUDNN_BACKEND_ENGINE_DESCRIPTOR);
        cudnnBackendDescriptor_t g = graph_.get();
        engine.set(CUDNN_ATTR_ENGINE_OPERATION_GRAPH, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &g);
        engine.set(CUDNN_ATTR_ENGINE_GLOBAL_INDEX, CUDNN_TYPE_INT64, 1, &engineIndex);
        engine.finalize();
        BackendDescriptor config(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR);
        cudnnBackendDescriptor_t e = engine.get();
        config.set(CUDNN_ATTR_ENGINECFG_ENGINE, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &e);
        config.finalize();
        if (!finishPlan(config, plan, whyNot))
            plan.plan = BackendDescriptor();
    } catch (const CudnnError& e) {
        whyNot = e.what();
        plan.plan = BackendDescriptor();
    }
    return plan;
}

std::vector<ConvPlan> ConvGraph::heuristicPlans(std::size_t limit) const {
    BackendDescriptor heuristic(CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR);
    cudnnBackendDescriptor_t g = graph_.get();
    const cudnnBackendHeurMode_t mode = CUDNN_HEUR_MODE_A;
    heuristic.set(CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &g);
    heuristic.set(CUDNN_ATTR_ENGINEHEUR_MODE, CUDNN_TYPE_HEUR_MODE, 1, &mode);
    heuristic.finalize();
    std::int64_t count = 0;
    BENCH_CUDNN(cudnnBackendGetAttribute(heuristic.get(), CUDNN_ATTR_ENGINEHEUR_RESULTS,
                                         CUDNN_TYPE_BACKEND_DESCRIPTOR, 0, &count, nullptr));
    std::vector<BackendDescriptor> configs;
    std::vector<cudnnBackendDescriptor_t> raw;
    for (std::int64_t i = 0; i < count; ++i) {
        configs.emplace_back(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR);
        raw.push_back(configs.back().get());
    }
    std::int64_t got = 0;
    if (count > 0)
        BENCH_CUDNN(cudnnBackendGetAttribute(heuristic.get(), CUDNN_ATTR_ENGINEHEUR_RESULTS,
                                             CUDNN_TYPE_BACKEND_DESCRIPTOR, count, &got,
                                             raw.data()));
    std::vector<ConvPlan> plans;
    for (std::int64_t i = 0; i < got && plans.size() < limit; ++i) {
        ConvPlan plan;
        std::string whyNot;
        if (finishPlan(configs[static_cast<std::size_t>(i)], plan, whyNot) &&
            precisionMismatch(plan).empty())
            plans.push_back(std::move(plan));
    }
    return plans;
}

std::string ConvGraph::precisionMismatch(const ConvPlan& plan) const {
    if (case_.precision == Precision::FP32 && (plan.tensorCore || plan.downConvert))
        return "uses tensor cores (TF32) or down-converts inputs: not an fp32 engine";
    if (case_.precision == Precision::TF32 && !plan.tensorCore)
        return "does not use tensor cores: not a tf32 engine";
    return {};
}

BackendDescriptor makeVariantPack(void* x, void* w, void* y, void* workspace) {
    BackendDescriptor pack(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR);
    const std::int64_t uids[3] = {1, 2, 3};
    void* pointers[3] = {x, w, y};
    pack.set(CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64, 3, uids);
    pack.set(CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR, 3, pointers);
    pack.set(CUDNN_ATTR_VARIANT_PACK_WORKSPACE, CUDNN_TYPE_VOID_PTR, 1, &workspace);
    pack.finalize();
    return pack;
}

void ConvGraph::execute(const ConvPlan& plan, const BackendDescriptor& pack) const {
    BENCH_CUDNN(cudnnBackendExecute(handle_, plan.plan.get(), pack.get()));
}

} // namespace roofline::bench
