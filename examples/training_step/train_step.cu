// The training step of train_step.hpp: kernels, cuBLASLt GEMMs, NVTX ranges, the backward thread.
#include "train_step.hpp"

#include <cublasLt.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>

#include <algorithm>
#include <cmath>
#include <condition_variable>
#include <functional>
#include <limits>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <tuple>

namespace roofline::example {
namespace {

using bf16 = __nv_bfloat16;

void check(cudaError_t e, const char* what) {
    if (e != cudaSuccess)
        throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}
void check(cublasStatus_t s, const char* what) {
    if (s != CUBLAS_STATUS_SUCCESS)
        throw std::runtime_error(std::string(what) + ": cuBLAS status " + std::to_string(s));
}

// NVTX ranges are on unless --no-nvtx (a program written as most are, with none).
bool gRanges = true;

class Range {
public:
    explicit Range(const std::string& name) : on_(gRanges) {
        if (on_)
            nvtxRangePushA(name.c_str());
    }
    ~Range() {
        if (on_)
            nvtxRangePop();
    }
    Range(const Range&) = delete;
    Range& operator=(const Range&) = delete;

private:
    bool on_;
};

// ---- kernels -------------------------------------------------------------------------------

__device__ float warpSum(float v) {
    for (int o = 16; o > 0; o >>= 1)
        v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}

__global__ void embeddingForward(const int* tokens, const float* emb, float* x, int C) {
    const int m = blockIdx.x;
    for (int c = threadIdx.x; c < C; c += blockDim.x)
        x[m * C + c] = emb[tokens[m] * C + c];
}

// One warp per row.
__global__ void layernormForward(const float* x, const float* g, const float* b, bf16* out,
                                 float* mean, float* rstd, int C) {
    const int m = blockIdx.x, lane = threadIdx.x;
    const float* row = x + static_cast<std::size_t>(m) * C;
    float s = 0.0f;
    for (int c = lane; c < C; c += 32)
        s += row[c];
    const float mu = warpSum(s) / C;
    float v = 0.0f;
    for (int c = lane; c < C; c += 32) {
        const float d = row[c] - mu;
        v += d * d;
    }
    const float r = rsqrtf(warpSum(v) / C + 1e-5f);
    for (int c = lane; c < C; c += 32)
        out[m * C + c] = __float2bfloat16((row[c] - mu) * r * g[c] + b[c]);
    if (lane == 0) {
        mean[m] = mu;
        rstd[m] = r;
    }
}

// dx = rstd * (dxhat - mean(dxhat) - xhat * mean(dxhat * xhat)), plus the residual's gradient.
__global__ void layernormBackward(const float* dout, const float* x, const float* mean,
                                  const float* rstd, const float* g, const float* dres, float* dx,
                                  int C) {
    const int m = blockIdx.x, lane = threadIdx.x;
    const std::size_t base = static_cast<std::size_t>(m) * C;
    const float mu = mean[m], r = rstd[m];
    float s1 = 0.0f, s2 = 0.0f;
    for (int c = lane; c < C; c += 32) {
        const float xhat = (x[base + c] - mu) * r;
        const float dxhat = dout[base + c] * g[c];
        s1 += dxhat;
        s2 += dxhat * xhat;
    }
    s1 = warpSum(s1) / C;
    s2 = warpSum(s2) / C;
    for (int c = lane; c < C; c += 32) {
        const float xhat = (x[base + c] - mu) * r;
        const float v = r * (dout[base + c] * g[c] - s1 - xhat * s2);
        dx[base + c] = dres ? dres[base + c] + v : v;
    }
}

// One thread per column, rows summed in order: deterministic.
__global__ void layernormParamGrad(const float* dout, const float* x, const float* mean,
                                   const float* rstd, float* dg, float* db, int M, int C) {
    const int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= C)
        return;
    float sg = 0.0f, sb = 0.0f;
    for (int m = 0; m < M; ++m) {
        const float d = dout[m * C + c];
        sg += d * (x[m * C + c] - mean[m]) * rstd[m];
        sb += d;
    }
    dg[c] = sg;
    db[c] = sb;
}

__device__ float geluInner(float u) {
    return 0.7978845608f * (u + 0.044715f * u * u * u);
}

// The hardware tanh (one MUFU instruction): tanhf's library code branches on |x|, which would
// make the kernel's FP32 instruction count depend on the data.
__device__ float fastTanh(float x) {
    float y;
    asm("tanh.approx.f32 %0, %1;" : "=f"(y) : "f"(x));
    return y;
}

__global__ void geluForward(const float* u, bf16* a, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        a[i] = __float2bfloat16(0.5f * u[i] * (1.0f + fastTanh(geluInner(u[i]))));
}

__global__ void geluBackward(const float* u, const float* da, bf16* du, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    const float x = u[i], t = fastTanh(geluInner(x));
    const float dinner = 0.7978845608f * (1.0f + 3.0f * 0.044715f * x * x);
    du[i] = __float2bfloat16(da[i] * (0.5f * (1.0f + t) + 0.5f * x * (1.0f - t * t) * dinner));
}

__global__ void castToBf16(const float* in, bf16* out, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = __float2bfloat16(in[i]);
}

__device__ float warpMax(float v) {
    for (int o = 16; o > 0; o >>= 1)
        v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
    return v;
}

// The block's 256 values reduced to one, which every thread gets: each warp reduces its 32 with
// shuffles, then every warp reduces the 8 partial results the same way (`identity` in the other
// lanes). A shared-memory tree halves the active threads at every step: with 78% of the threads
// active, the instruction roofline marked it "predicated".
template <class Reduce>
__device__ float blockReduce(float v, float identity, float* partial, Reduce reduce) {
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    v = reduce(v);
    if (lane == 0)
        partial[warp] = v;
    __syncthreads();
    v = reduce(lane < 8 ? partial[lane] : identity);
    __syncthreads(); // `partial` is free for the next reduction
    return v;
}

// Softmax cross-entropy, one block of 256 threads per row; dlogits = (p - onehot) / M.
__global__ void crossEntropy(const float* logits, const int* targets, float* loss, bf16* dlogits,
                             int V, float scale) {
    __shared__ float partial[8];
    const int m = blockIdx.x, t = threadIdx.x;
    const float* row = logits + static_cast<std::size_t>(m) * V;
    float mx = -INFINITY;
    for (int v = t; v < V; v += 256)
        mx = fmaxf(mx, row[v]);
    mx = blockReduce(mx, -INFINITY, partial, [](float x) { return warpMax(x); });
    float sum = 0.0f;
    for (int v = t; v < V; v += 256)
        sum += expf(row[v] - mx);
    sum = blockReduce(sum, 0.0f, partial, [](float x) { return warpSum(x); });
    const int target = targets[m];
    for (int v = t; v < V; v += 256) {
        const float p = expf(row[v] - mx) / sum;
        dlogits[static_cast<std::size_t>(m) * V + v] =
            __float2bfloat16((p - (v == target ? 1.0f : 0.0f)) * scale);
    }
    if (t == 0)
        loss[m] = logf(sum) + mx - row[target];
}

// One block per distinct token of the batch (the grid depends on the data), one thread per
// column: the token's gradient row plus every position that holds the token, in order. Exactly
// one FP32 add per (position, column): tokens * C adds in all.
__global__ void embeddingBackward(const float* dx, const int* distinct, const int* offsets,
                                  const int* positions, float* demb, int C) {
    const int u = blockIdx.x, c = threadIdx.x;
    if (c >= C)
        return;
    float g = demb[distinct[u] * C + c];
    for (int p = offsets[u]; p < offsets[u + 1]; ++p)
        g += dx[positions[p] * C + c];
    demb[distinct[u] * C + c] = g;
}

__global__ void fill(float* p, float value, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        p[i] = value;
}

__global__ void adamw(float* p, const float* g, float* m, float* v, int n, float lr, float b1,
                      float b2, float eps, float wd, float c1, float c2) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    const float mi = b1 * m[i] + (1.0f - b1) * g[i];
    const float vi = b2 * v[i] + (1.0f - b2) * g[i] * g[i];
    m[i] = mi;
    v[i] = vi;
    p[i] -= lr * ((mi / c1) / (sqrtf(vi / c2) + eps) + wd * p[i]);
}

int blocks(int n, int per) {
    return (n + per - 1) / per;
}

// ---- cuBLASLt ------------------------------------------------------------------------------

// Row-major C[MxN] (fp32) = op(A) * op(B) (+ C0 when given), A and B bf16, fp32 accumulation.
// cuBLASLt is column-major: C^T = op(B)^T * op(A)^T. One algorithm per output shape (M, N and
// the transposes), chosen once by the heuristic with split-K reductions excluded (every run
// computes the same way) and kept for every depth K it supports: GEMMs of one output shape and
// different K run one kernel at one grid, as a GPT-2 layer's attention and MLP output
// projections do (K = C and 4C). Each call is inside an NVTX range "matmul" of its own, as
// GPT-2's trainer wraps its matmul functions (NVTX_RANGE_FN).
class Gemm {
public:
    explicit Gemm(cudaStream_t stream) : stream_(stream) {
        check(cublasLtCreate(&handle_), "cublasLtCreate");
        check(cudaMalloc(&workspace_, kWorkspace), "cudaMalloc(workspace)");
    }
    ~Gemm() {
        for (auto& [key, plan] : plans_) {
            cublasLtMatmulDescDestroy(plan.desc);
            cublasLtMatrixLayoutDestroy(plan.a);
            cublasLtMatrixLayoutDestroy(plan.b);
            cublasLtMatrixLayoutDestroy(plan.c);
        }
        cudaFree(workspace_);
        cublasLtDestroy(handle_);
    }

    void operator()(bool transA, bool transB, int M, int N, int K, const bf16* A, const bf16* B,
                    float* C, const float* C0 = nullptr) {
        Range range("matmul");
        const Plan& p = plan(transA, transB, M, N, K);
        const float alpha = 1.0f, beta = C0 ? 1.0f : 0.0f;
        check(cublasLtMatmul(handle_, p.desc, &alpha, B, p.a, A, p.b, &beta, C0 ? C0 : C, p.c, C,
                             p.c, &p.algo, workspace_, kWorkspace, stream_),
              "cublasLtMatmul");
    }

private:
    static constexpr std::size_t kWorkspace = 32u << 20;
    struct Plan {
        cublasLtMatmulDesc_t desc = nullptr;
        cublasLtMatrixLayout_t a = nullptr, b = nullptr, c = nullptr;
        cublasLtMatmulAlgo_t algo{};
    };

    const Plan& plan(bool transA, bool transB, int M, int N, int K) {
        const auto key = std::make_tuple(transA, transB, M, N, K);
        if (auto it = plans_.find(key); it != plans_.end())
            return it->second;
        Plan p;
        check(cublasLtMatmulDescCreate(&p.desc, CUBLAS_COMPUTE_32F, CUDA_R_32F),
              "cublasLtMatmulDescCreate");
        const cublasOperation_t opA = transB ? CUBLAS_OP_T : CUBLAS_OP_N; // first operand: B
        const cublasOperation_t opB = transA ? CUBLAS_OP_T : CUBLAS_OP_N; // second: A
        check(cublasLtMatmulDescSetAttribute(p.desc, CUBLASLT_MATMUL_DESC_TRANSA, &opA, sizeof opA),
              "TRANSA");
        check(cublasLtMatmulDescSetAttribute(p.desc, CUBLASLT_MATMUL_DESC_TRANSB, &opB, sizeof opB),
              "TRANSB");
        // Stored (column-major) shapes: B row-major KxN is column-major NxK, and so on.
        check(transB ? cublasLtMatrixLayoutCreate(&p.a, CUDA_R_16BF, K, N, K)
                     : cublasLtMatrixLayoutCreate(&p.a, CUDA_R_16BF, N, K, N),
              "layout B");
        check(transA ? cublasLtMatrixLayoutCreate(&p.b, CUDA_R_16BF, M, K, M)
                     : cublasLtMatrixLayoutCreate(&p.b, CUDA_R_16BF, K, M, K),
              "layout A");
        check(cublasLtMatrixLayoutCreate(&p.c, CUDA_R_32F, N, M, N), "layout C");
        cublasLtMatmulPreference_t pref = nullptr;
        check(cublasLtMatmulPreferenceCreate(&pref), "preference");
        std::size_t ws = kWorkspace;
        check(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                                   &ws, sizeof ws),
              "workspace preference");
        const std::uint32_t noSplitK = CUBLASLT_REDUCTION_SCHEME_NONE;
        check(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_REDUCTION_SCHEME_MASK,
                                                   &noSplitK, sizeof noSplitK),
              "reduction preference");
        cublasLtMatmulHeuristicResult_t heuristic{};
        int found = 0;
        check(cublasLtMatmulAlgoGetHeuristic(handle_, p.desc, p.a, p.b, p.c, p.c, pref, 1,
                                             &heuristic, &found),
              "cublasLtMatmulAlgoGetHeuristic");
        cublasLtMatmulPreferenceDestroy(pref);
        cublasLtMatmulHeuristicResult_t result{};
        if (const Plan* same = sameOutput(transA, transB, M, N);
            same &&
            cublasLtMatmulAlgoCheck(handle_, p.desc, p.a, p.b, p.c, p.c, &same->algo, &result) ==
                CUBLAS_STATUS_SUCCESS &&
            result.workspaceSize <= kWorkspace) {
            p.algo = same->algo; // the output shape's algorithm at this depth too
            return plans_.emplace(key, p).first->second;
        }
        if (found == 0)
            throw std::runtime_error("cuBLASLt has no algorithm for a " + std::to_string(M) + "x" +
                                     std::to_string(N) + "x" + std::to_string(K) + " GEMM");
        p.algo = heuristic.algo;
        return plans_.emplace(key, p).first->second;
    }

    // A plan for the same output shape at another depth, if any.
    const Plan* sameOutput(bool transA, bool transB, int M, int N) const {
        for (const auto& [key, plan] : plans_)
            if (std::get<0>(key) == transA && std::get<1>(key) == transB && std::get<2>(key) == M &&
                std::get<3>(key) == N)
                return &plan;
        return nullptr;
    }

    cudaStream_t stream_;
    cublasLtHandle_t handle_ = nullptr;
    void* workspace_ = nullptr;
    std::map<std::tuple<bool, bool, int, int, int>, Plan> plans_;
};

// ---- the backward thread ---------------------------------------------------------------------

// Runs one task at a time on its own host thread; run() waits for it (PyTorch's autograd engine
// runs backward on a thread of its own while the caller waits).
class Worker {
public:
    Worker() : thread_([this] { loop(); }) {}
    ~Worker() {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            quit_ = true;
        }
        cv_.notify_all();
        thread_.join();
    }
    void run(std::function<void()> task) {
        std::unique_lock<std::mutex> lock(mutex_);
        task_ = std::move(task);
        error_ = nullptr;
        done_ = false;
        cv_.notify_all();
        cv_.wait(lock, [this] { return done_; });
        if (error_)
            std::rethrow_exception(error_);
    }

private:
    void loop() {
        std::unique_lock<std::mutex> lock(mutex_);
        for (;;) {
            cv_.wait(lock, [this] { return quit_ || task_; });
            if (quit_)
                return;
            auto task = std::move(task_);
            task_ = nullptr;
            lock.unlock();
            std::exception_ptr error;
            try {
                task();
            } catch (...) {
                error = std::current_exception();
            }
            lock.lock();
            error_ = error;
            done_ = true;
            cv_.notify_all();
        }
    }
    std::mutex mutex_;
    std::condition_variable cv_;
    std::function<void()> task_;
    std::exception_ptr error_;
    bool done_ = false, quit_ = false;
    std::thread thread_;
};

std::uint64_t mix(std::uint64_t x) { // splitmix64
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

struct Batch {
    std::vector<int> tokens, targets;
    std::vector<int> distinct, offsets, positions; // positions grouped by token, for the backward
};

} // namespace

// ---- the model -------------------------------------------------------------------------------

struct Trainer::Impl {
    TrainConfig c;
    int M, C, H, V, L;
    cudaStream_t stream = nullptr;
    std::unique_ptr<Gemm> gemm;
    std::unique_ptr<Worker> worker;

    // Flat fp32 parameters and gradients, bf16 mirror of the parameters; offsets per tensor.
    std::size_t nParams = 0, oEmb = 0, oLnFinalG = 0, oLnFinalB = 0, oOut = 0;
    std::vector<std::size_t> oLnG, oLnB, oWp, oW1, oW2;
    float *params = nullptr, *grads = nullptr, *adamM = nullptr, *adamV = nullptr;
    bf16* paramsBf = nullptr;
    int optimizerSteps = 0;

    // Activations kept for the backward.
    std::vector<float*> X, mean, rstd, U;
    std::vector<bf16*> Hn, P, A;
    float *meanF = nullptr, *rstdF = nullptr, *logits = nullptr, *losses = nullptr;
    float* Pf = nullptr; // the projection's fp32 output, cast to P
    float *dXa = nullptr, *dXb = nullptr, *dA = nullptr, *dH = nullptr;
    bf16 *Hf = nullptr, *dlogits = nullptr, *dYb = nullptr, *dUb = nullptr, *dPb = nullptr;
    int *tokens = nullptr, *targets = nullptr, *csr = nullptr; // csr: distinct|offsets|positions
    int distinctCount = 0;

    std::vector<void*> allocations;
    template <class T> T* alloc(std::size_t n) {
        void* p = nullptr;
        check(cudaMalloc(&p, n * sizeof(T)), "cudaMalloc");
        allocations.push_back(p);
        return static_cast<T*>(p);
    }

    explicit Impl(const TrainConfig& cfg)
        : c(cfg), M(cfg.batch * cfg.seq), C(cfg.dim), H(4 * cfg.dim), V(cfg.vocab), L(cfg.layers) {
        if (M % 128 || C % 128 || V % 128 || C > 1024 || L < 1)
            throw std::invalid_argument("TrainConfig: batch*seq, dim and vocab must be multiples "
                                        "of 128 (dim at most 1024), layers at least 1");
        check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
        gemm = std::make_unique<Gemm>(stream);
        if (c.backwardThread)
            worker = std::make_unique<Worker>();
        auto take = [&](std::size_t n) {
            const std::size_t o = nParams;
            nParams += n;
            return o;
        };
        oEmb = take(static_cast<std::size_t>(V) * C);
        for (int l = 0; l < L; ++l) {
            oLnG.push_back(take(C));
            oLnB.push_back(take(C));
            oWp.push_back(take(static_cast<std::size_t>(C) * C));
            oW1.push_back(take(static_cast<std::size_t>(C) * H));
            oW2.push_back(take(static_cast<std::size_t>(H) * C));
        }
        oLnFinalG = take(C);
        oLnFinalB = take(C);
        oOut = take(static_cast<std::size_t>(C) * V);
        params = alloc<float>(nParams);
        grads = alloc<float>(nParams);
        paramsBf = alloc<bf16>(nParams);
        std::vector<float> init(nParams);
        for (std::size_t i = 0; i < nParams; ++i) // uniform in [-0.05, 0.05)
            init[i] = static_cast<float>((mix(c.seed * 1000003u + i) >> 40) * 0x1p-24 - 0.5) * 0.1f;
        auto set = [&](std::size_t o, float v) { std::fill_n(init.begin() + o, C, v); };
        for (int l = 0; l < L; ++l) {
            set(oLnG[l], 1.0f);
            set(oLnB[l], 0.0f);
        }
        set(oLnFinalG, 1.0f);
        set(oLnFinalB, 0.0f);
        check(cudaMemcpy(params, init.data(), nParams * sizeof(float), cudaMemcpyHostToDevice),
              "upload parameters");
        castToBf16<<<blocks(static_cast<int>(nParams), 256), 256, 0, stream>>>(
            params, paramsBf, static_cast<int>(nParams));
        for (int l = 0; l <= L; ++l)
            X.push_back(alloc<float>(static_cast<std::size_t>(M) * C));
        for (int l = 0; l < L; ++l) {
            mean.push_back(alloc<float>(M));
            rstd.push_back(alloc<float>(M));
            U.push_back(alloc<float>(static_cast<std::size_t>(M) * H));
            Hn.push_back(alloc<bf16>(static_cast<std::size_t>(M) * C));
            P.push_back(alloc<bf16>(static_cast<std::size_t>(M) * C));
            A.push_back(alloc<bf16>(static_cast<std::size_t>(M) * H));
        }
        meanF = alloc<float>(M);
        rstdF = alloc<float>(M);
        Hf = alloc<bf16>(static_cast<std::size_t>(M) * C);
        Pf = alloc<float>(static_cast<std::size_t>(M) * C);
        dPb = alloc<bf16>(static_cast<std::size_t>(M) * C);
        logits = alloc<float>(static_cast<std::size_t>(M) * V);
        dlogits = alloc<bf16>(static_cast<std::size_t>(M) * V);
        losses = alloc<float>(M);
        dXa = alloc<float>(static_cast<std::size_t>(M) * C);
        dXb = alloc<float>(static_cast<std::size_t>(M) * C);
        dH = alloc<float>(static_cast<std::size_t>(M) * C);
        dA = alloc<float>(static_cast<std::size_t>(M) * H);
        dYb = alloc<bf16>(static_cast<std::size_t>(M) * C);
        dUb = alloc<bf16>(static_cast<std::size_t>(M) * H);
        tokens = alloc<int>(M);
        targets = alloc<int>(M);
        csr = alloc<int>(static_cast<std::size_t>(2) * M + V + 1);
        check(cudaStreamSynchronize(stream), "initialization");
    }

    ~Impl() {
        worker.reset();
        if (stream)
            cudaStreamSynchronize(stream);
        gemm.reset();
        for (void* p : allocations)
            cudaFree(p);
        if (stream)
            cudaStreamDestroy(stream);
    }

    // Step n's batch (validation batches use another seed): tokens drawn unevenly, so the number
    // of distinct tokens, the embedding backward's grid, changes from step to step.
    Batch batch(std::uint64_t key) const {
        Batch b;
        b.tokens.resize(M);
        b.targets.resize(M);
        const std::uint64_t spread = 64 + mix(key) % (V - 64); // tokens come from [0, spread)
        for (int m = 0; m < M; ++m)
            b.tokens[m] = static_cast<int>(mix(key * 7919u + m) % spread);
        for (int m = 0; m < M; ++m) // next token of the sequence; 0 after its end
            b.targets[m] = (m + 1) % c.seq == 0 ? 0 : b.tokens[m + 1];
        std::map<int, std::vector<int>> at;
        for (int m = 0; m < M; ++m)
            at[b.tokens[m]].push_back(m);
        b.offsets.push_back(0);
        for (const auto& [token, ps] : at) {
            b.distinct.push_back(token);
            b.positions.insert(b.positions.end(), ps.begin(), ps.end());
            b.offsets.push_back(static_cast<int>(b.positions.size()));
        }
        return b;
    }

    void upload(const Batch& b) {
        check(cudaMemcpyAsync(tokens, b.tokens.data(), M * sizeof(int), cudaMemcpyHostToDevice,
                              stream),
              "upload tokens");
        check(cudaMemcpyAsync(targets, b.targets.data(), M * sizeof(int), cudaMemcpyHostToDevice,
                              stream),
              "upload targets");
        std::vector<int> packed(b.distinct);
        packed.insert(packed.end(), b.offsets.begin(), b.offsets.end());
        packed.insert(packed.end(), b.positions.begin(), b.positions.end());
        check(cudaMemcpyAsync(csr, packed.data(), packed.size() * sizeof(int),
                              cudaMemcpyHostToDevice, stream),
              "upload token positions");
        distinctCount = static_cast<int>(b.distinct.size());
        check(cudaStreamSynchronize(stream), "upload"); // the host vectors go out of scope
    }

    const bf16* w(std::size_t offset) const { return paramsBf + offset; }

    // Forward over the uploaded batch; per-row losses in `losses`, dlogits ready for backward.
    void forward() {
        embeddingForward<<<M, std::min(C, 256), 0, stream>>>(tokens, params + oEmb, X[0], C);
        for (int l = 0; l < L; ++l) {
            Range layer("Layer " + std::to_string(l));
            layernormForward<<<M, 32, 0, stream>>>(X[l], params + oLnG[l], params + oLnB[l], Hn[l],
                                                   mean[l], rstd[l], C);
            (*gemm)(false, false, M, C, C, Hn[l], w(oWp[l]), Pf); // the projection, K = C
            castToBf16<<<blocks(M * C, 256), 256, 0, stream>>>(Pf, P[l], M * C);
            (*gemm)(false, false, M, H, C, P[l], w(oW1[l]), U[l]);
            geluForward<<<blocks(M * H, 256), 256, 0, stream>>>(U[l], A[l], M * H);
            (*gemm)(false, false, M, C, H, A[l], w(oW2[l]), X[l + 1], X[l]); // K = 4C, + residual
        }
        layernormForward<<<M, 32, 0, stream>>>(X[L], params + oLnFinalG, params + oLnFinalB, Hf,
                                               meanF, rstdF, C);
        (*gemm)(false, false, M, V, C, Hf, w(oOut), logits);
        crossEntropy<<<M, 256, 0, stream>>>(logits, targets, losses, dlogits, V, 1.0f / M);
    }

    void backward() {
        check(cudaMemsetAsync(grads, 0, nParams * sizeof(float), stream), "zero gradients");
        (*gemm)(false, true, M, C, V, dlogits, w(oOut), dH);      // dHf = dlogits Wout^T
        (*gemm)(true, false, C, V, M, Hf, dlogits, grads + oOut); // dWout = Hf^T dlogits
        float* dX = dXa;
        float* dXnext = dXb;
        layernormBackward<<<M, 32, 0, stream>>>(dH, X[L], meanF, rstdF, params + oLnFinalG, nullptr,
                                                dX, C);
        layernormParamGrad<<<blocks(C, 256), 256, 0, stream>>>(
            dH, X[L], meanF, rstdF, grads + oLnFinalG, grads + oLnFinalB, M, C);
        for (int l = L - 1; l >= 0; --l) {
            castToBf16<<<blocks(M * C, 256), 256, 0, stream>>>(dX, dYb, M * C);
            (*gemm)(true, false, H, C, M, A[l], dYb, grads + oW2[l]); // dW2 = A^T dY
            (*gemm)(false, true, M, H, C, dYb, w(oW2[l]), dA);        // dA = dY W2^T
            geluBackward<<<blocks(M * H, 256), 256, 0, stream>>>(U[l], dA, dUb, M * H);
            (*gemm)(true, false, C, H, M, P[l], dUb, grads + oW1[l]); // dW1 = P^T dU
            (*gemm)(false, true, M, C, H, dUb, w(oW1[l]), dH);        // dP = dU W1^T, K = 4C
            castToBf16<<<blocks(M * C, 256), 256, 0, stream>>>(dH, dPb, M * C);
            (*gemm)(true, false, C, C, M, Hn[l], dPb, grads + oWp[l]); // dWp = Hn^T dP
            (*gemm)(false, true, M, C, C, dPb, w(oWp[l]), dH);         // dHn = dP Wp^T, K = C
            layernormParamGrad<<<blocks(C, 256), 256, 0, stream>>>(
                dH, X[l], mean[l], rstd[l], grads + oLnG[l], grads + oLnB[l], M, C);
            layernormBackward<<<M, 32, 0, stream>>>(dH, X[l], mean[l], rstd[l], params + oLnG[l],
                                                    dX, dXnext, C); // + the residual's gradient
            std::swap(dX, dXnext);
        }
        embeddingBackward<<<distinctCount, C, 0, stream>>>(
            dX, csr, csr + distinctCount, csr + 2 * distinctCount + 1, grads + oEmb, C);
        check(cudaGetLastError(), "backward kernels");
    }

    void optimizer() {
        const int n = static_cast<int>(nParams);
        if (!adamM) { // optimizer state, created on first use
            adamM = alloc<float>(nParams);
            adamV = alloc<float>(nParams);
            fill<<<blocks(n, 256), 256, 0, stream>>>(adamM, 0.0f, n);
            fill<<<blocks(n, 256), 256, 0, stream>>>(adamV, 0.0f, n);
        }
        ++optimizerSteps;
        const float b1 = 0.9f, b2 = 0.999f;
        const float c1 = 1.0f - std::pow(b1, static_cast<float>(optimizerSteps));
        const float c2 = 1.0f - std::pow(b2, static_cast<float>(optimizerSteps));
        adamw<<<blocks(n, 256), 256, 0, stream>>>(params, grads, adamM, adamV, n, 1e-3f, b1, b2,
                                                  1e-8f, 0.01f, c1, c2);
        castToBf16<<<blocks(n, 256), 256, 0, stream>>>(params, paramsBf, n);
        check(cudaGetLastError(), "optimizer kernels");
    }

    float meanLoss() {
        std::vector<float> host(M);
        check(
            cudaMemcpyAsync(host.data(), losses, M * sizeof(float), cudaMemcpyDeviceToHost, stream),
            "download losses");
        check(cudaStreamSynchronize(stream), "step");
        double sum = 0;
        for (float v : host)
            sum += v;
        return static_cast<float>(sum / M);
    }
};

Trainer::Trainer(TrainConfig config)
    : impl_(std::make_unique<Impl>(config)), config_(config),
      validationLoss_(std::numeric_limits<float>::quiet_NaN()) {
    gRanges = config.nvtxRanges;
    // Forward: ln, projection, cast, gemm, gelu, gemm; backward: 11 launches.
    const std::size_t perLayer = 6 + 11;
    launchesPerStep_ = 1 + perLayer * config.layers + 3 + 4 + 1 + 2;
}

Trainer::~Trainer() = default;

float Trainer::step(int n) {
    Impl& m = *impl_;
    Range step("Train step " + std::to_string(n));
    const bool validates = n == 0 || (config_.validateEvery > 0 && n % config_.validateEvery == 0);
    if (validates && config_.validation) {
        Range validation("Validation");
        m.upload(m.batch(mix(config_.seed) ^ 0x5eed));
        m.forward();
        validationLoss_ = m.meanLoss();
    }
    m.upload(m.batch(config_.seed + static_cast<std::uint64_t>(n)));
    {
        Range forward("forward");
        m.forward();
    }
    {
        Range backward("backward");
        if (m.worker)
            m.worker->run([&m] { m.backward(); });
        else
            m.backward();
    }
    {
        Range optimizer("optimizer");
        m.optimizer();
    }
    return m.meanLoss();
}

float Trainer::finalValidation(int n) {
    Impl& m = *impl_;
    Range step("Train step " + std::to_string(n));
    Range validation("Validation");
    m.upload(m.batch(mix(config_.seed) ^ 0x5eed));
    m.forward();
    validationLoss_ = m.meanLoss();
    return validationLoss_;
}

std::vector<float> Trainer::parameters() const {
    std::vector<float> host(impl_->nParams);
    check(cudaStreamSynchronize(impl_->stream), "parameters");
    check(
        cudaMemcpy(host.data(), impl_->params, host.size() * sizeof(float), cudaMemcpyDeviceToHost),
        "download parameters");
    return host;
}

int Trainer::distinctTokens(int n) const {
    return static_cast<int>(
        impl_->batch(config_.seed + static_cast<std::uint64_t>(n)).distinct.size());
}

AnalyticWork Trainer::analytic() const {
    const double M = impl_->M, C = impl_->C, H = impl_->H, V = impl_->V, L = impl_->L;
    AnalyticWork w;
    // Per layer: 2 forward GEMMs and 4 backward of 2*M*C*H, the projection forward and its 2
    // backward of 2*M*C*C; the head: 3 GEMMs of 2*M*C*V.
    w.gemmFlops = L * (6 * 2 * M * C * H + 3 * 2 * M * C * C) + 3 * 2 * M * C * V;
    w.gemmLaunches = L * 9 + 3;
    w.embeddingAdds = M * C;
    w.validationGemmFlops = L * (2 * 2 * M * C * H + 2 * M * C * C) + 2 * M * C * V;
    return w;
}

std::uint64_t fingerprint(const std::vector<float>& v) {
    std::uint64_t h = 1469598103934665603ull;
    const auto* bytes = reinterpret_cast<const unsigned char*>(v.data());
    for (std::size_t i = 0; i < v.size() * sizeof(float); ++i)
        h = (h ^ bytes[i]) * 1099511628211ull;
    return h;
}

} // namespace roofline::example
