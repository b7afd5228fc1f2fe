#pragma once
// A small transformer-style training step, written the way real training programs are, so that
// libroofline is tested where real programs differ from calibration loops:
//  - cuBLASLt GEMMs in bf16 (fp32 accumulation and output), 9 per layer (a projection and a
//    4x-wide MLP: 3 forward, 6 backward) plus the head's 3, each in an NVTX range "matmul" of its
//    own (as GPT-2's trainer wraps its matmul functions); GEMMs of one output shape and different
//    depth (the projection's K = C and the MLP output's K = 4C) run one kernel at one grid;
//  - its own layernorm, gelu, softmax/cross-entropy, embedding and AdamW kernels;
//  - NVTX ranges whose names carry the step and layer number: "Train step <n>" around a step,
//    "Layer <l>" around each layer's forward, "forward", "backward" and "optimizer" inside;
//  - a validation pass (forward only, another batch, "Layer <l>" ranges inside) in step 0, and
//    a last step that only validates (finalValidation): under `roofline run` the session starts
//    at the first kernel launch, three ranges deep ("Train step 0/Validation/..."), as it does
//    in GPT-2's trainer;
//  - optimizer state (AdamW moments) created on the first optimizer call, with a fill kernel;
//  - an embedding-backward kernel whose grid is the number of distinct tokens in the batch;
//  - the backward pass launched from a second host thread (as PyTorch's autograd thread does)
//    while the main thread waits inside its "backward" range.
// Deterministic: the same seed gives bitwise identical losses and parameters run after run.
// Compiled with --use_fast_math and a hardware tanh, so that no kernel of its own branches on its
// data around floating-point instructions: each kernel's FP32 instruction count is the same in
// every step (what lets a test compare them exactly across steps and collection modes).
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace roofline::example {

struct TrainConfig {
    int layers = 4;
    int batch = 4;
    int seq = 256; ///< tokens per sequence; batch * seq tokens per step
    int dim = 768; ///< model width C (GPT-2 small's; the MLP is 4C wide)
    /// All GEMM dimensions are multiples of 128. At these sizes every cuBLASLt kernel the H100
    /// picks computes exactly 2*M*N*K; at dim 256 one (a 64x24-tile nvjet kernel for the
    /// weight gradients) computes 12.5% more, padded tiles the tensor cores really execute.
    int vocab = 1024;
    std::uint64_t seed = 1234;
    bool validation = true; ///< a validation forward inside step 0
    /// Also validate inside step n for n > 0 and n % validateEvery == 0 (0: step 0 only), as
    /// trainers that validate every N steps do.
    int validateEvery = 0;
    bool backwardThread = true; ///< backward launched from a second host thread
    bool nvtxRanges = true;     ///< the NVTX ranges above; false: none, as most programs have
};

/// Floating-point work the program asks for, counted from its shapes.
struct AnalyticWork {
    double gemmFlops = 0;     ///< 2*M*N*K summed over one training step's GEMMs (tensor cores)
    double gemmLaunches = 0;  ///< GEMM launches per training step
    double embeddingAdds = 0; ///< FP32 adds of the embedding backward: tokens * C
    double validationGemmFlops = 0; ///< the extra GEMM work of step 0's validation forward
};

class Trainer {
public:
    explicit Trainer(TrainConfig config = {});
    ~Trainer();
    Trainer(const Trainer&) = delete;
    Trainer& operator=(const Trainer&) = delete;

    /// One training step, inside an NVTX range "Train step <n>"; returns the training loss
    /// (synchronizes). Step 0 also runs the validation pass when configured.
    float step(int n);
    /// The step after the last one, as GPT-2's trainer runs it: "Train step n" holding only a
    /// validation forward (its layers numbered as in every forward). Returns the loss.
    float finalValidation(int n);
    /// The last validation loss (NaN before step 0).
    float validationLoss() const noexcept { return validationLoss_; }
    /// Master (fp32) parameters, copied to the host.
    std::vector<float> parameters() const;
    AnalyticWork analytic() const;
    const TrainConfig& config() const noexcept { return config_; }
    /// Distinct tokens of step n's batch: the grid of its embedding backward.
    int distinctTokens(int n) const;
    /// Kernel launches of one steady-state step (after step 0), counted by the program itself.
    std::size_t launchesPerStep() const noexcept { return launchesPerStep_; }

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
    TrainConfig config_;
    float validationLoss_;
    std::size_t launchesPerStep_ = 0;
};

/// FNV-1a of the bytes: a compact fingerprint to compare runs bitwise.
std::uint64_t fingerprint(const std::vector<float>& v);

} // namespace roofline::example
