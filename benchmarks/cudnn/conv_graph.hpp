#pragma once
/// \file conv_graph.hpp
/// A convolution through cuDNN 9's graph (backend) API: the operation graph of one pass, its
/// engines (by global index, by heuristic, or all of them), execution plans and execution.
/// docs/design/0003-benchmarks.md says why this API and not the legacy cudnnConvolution* calls.

#include "workloads/conv_case.hpp"

#include <cudnn.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace roofline::bench {

/// Owns one cudnnBackendDescriptor_t.
class BackendDescriptor {
public:
    BackendDescriptor() = default;
    explicit BackendDescriptor(cudnnBackendDescriptorType_t type);
    ~BackendDescriptor();
    BackendDescriptor(BackendDescriptor&& other) noexcept;
    BackendDescriptor& operator=(BackendDescriptor&& other) noexcept;
    BackendDescriptor(const BackendDescriptor&) = delete;
    BackendDescriptor& operator=(const BackendDescriptor&) = delete;

    cudnnBackendDescriptor_t get() const noexcept { return desc_; }
    void set(cudnnBackendAttributeName_t name, cudnnBackendAttributeType_t type, std::int64_t count,
             const void* values);
    void finalize();

private:
    cudnnBackendDescriptor_t desc_ = nullptr;
};

/// An execution plan for one engine configuration, with what a reader needs to know about it.
struct ConvPlan {
    BackendDescriptor plan;
    std::int64_t engine = -1; ///< global engine index
    std::int64_t workspaceBytes = 0;
    std::vector<std::string> notes; ///< "tensor_core", "winograd", "fft", "nondeterministic", ...
    bool tensorCore = false;
    bool downConvert = false;
    std::string name() const; ///< "eng12 (tensor_core)"
};

/// One pass of one convolution case as a finalized operation graph (tensor uids: 1 = x or dx,
/// 2 = w or dw, 3 = y or dy).
class ConvGraph {
public:
    /// Throws CudnnError (notSupported() for combinations cuDNN refuses).
    ConvGraph(cudnnHandle_t handle, const workloads::ConvCase& c);

    std::int64_t engineCount() const noexcept { return engineCount_; }
    /// Plans from cuDNN's heuristic (mode A), best first, keeping those that finalize and suit
    /// the precision (fp32: no tensor cores; tf32: tensor cores). At most `limit` plans.
    std::vector<ConvPlan> heuristicPlans(std::size_t limit) const;
    /// A plan for one engine by global index, or why not (empty plan + reason).
    ConvPlan planForEngine(std::int64_t engine, std::string& whyNot) const;
    /// Runs the plan on the tensors of a variant pack (makeVariantPack). Asynchronous.
    void execute(const ConvPlan& plan, const BackendDescriptor& pack) const;
    /// Whether the engine's numerics match the case's precision; the reason when not.
    std::string precisionMismatch(const ConvPlan& plan) const;

private:
    bool finishPlan(BackendDescriptor& config, ConvPlan& plan, std::string& whyNot) const;

    cudnnHandle_t handle_;
    workloads::ConvCase case_;
    BackendDescriptor tensors_[3];
    BackendDescriptor convolution_;
    BackendDescriptor operation_;
    BackendDescriptor graph_;
    std::int64_t engineCount_ = 0;
};

/// The pass's tensors in uid order (x or dx, w or dw, y or dy) and the workspace.
BackendDescriptor makeVariantPack(void* x, void* w, void* y, void* workspace);

/// The element strides of x (n, c, d, h, w), w (k, c/g, t, r, s) and y (n, k, o, p, q) in the
/// case's layout; used for the cuDNN descriptors and the reference kernels alike.
struct ConvStrides {
    std::int64_t x[5], w[5], y[5];
};
ConvStrides convStrides(const workloads::ConvCase& c);

} // namespace roofline::bench
