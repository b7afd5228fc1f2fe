// Kernels whose code is JIT-compiled while a Session collects counters are measured exactly. CUPTI
// 2025.3 (driver 580, H100) crashes, intermittently, collecting the SASS FLOP counters of cuDNN's
// kernels compiled so, unless the range profiler is re-created after the compilation
// (docs/design/0005-code-loaded-while-profiling.md; the reproducer is BenchmarkTest with its fresh
// JIT cache). Each module here is new PTX, compiled by the driver while the session runs into a
// fresh JIT cache (useFreshJitCache), with an FFMA chain of hand-counted FLOPs. Label: gpu.
#include "gpu/gpu_test_support.hpp"

#include <roofline/roofline.hpp>

#include <cuda_runtime.h>
#include <nvrtc.h>

#include <memory>
#include <string>
#include <vector>

namespace {

constexpr int kModules = 16;
constexpr int kBlocks = 66, kThreads = 128, kIterations = 512;

// FFMA chain: exactly kIterations FFMAs per thread, no other FP32 instruction.
std::string source(int seed) {
    return "extern \"C\" __global__ void chain(float* out, int iterations) {\n"
           "    float a = __int2float_rn(threadIdx.x);\n"
           "    const float b = 1.0001f, c = " +
           std::to_string(seed) +
           ".5f;\n"
           "    for (int i = 0; i < iterations; ++i)\n"
           "        a = __fmaf_rn(a, b, c);\n"
           "    out[blockIdx.x * blockDim.x + threadIdx.x] = a;\n"
           "}\n";
}

std::string ptxFor(int seed, int major, int minor) {
    nvrtcProgram program = nullptr;
    const std::string text = source(seed);
    EXPECT_EQ(nvrtcCreateProgram(&program, text.c_str(), "chain.cu", 0, nullptr, nullptr),
              NVRTC_SUCCESS);
    const std::string arch =
        "--gpu-architecture=compute_" + std::to_string(major) + std::to_string(minor);
    const char* options[] = {arch.c_str()};
    const nvrtcResult built = nvrtcCompileProgram(program, 1, options);
    std::string ptx;
    if (built == NVRTC_SUCCESS) {
        std::size_t size = 0;
        nvrtcGetPTXSize(program, &size);
        ptx.resize(size);
        nvrtcGetPTX(program, ptx.data());
    } else {
        std::size_t size = 0;
        nvrtcGetProgramLogSize(program, &size);
        std::string log(size, '\0');
        nvrtcGetProgramLog(program, log.data());
        ADD_FAILURE() << "NVRTC: " << log;
    }
    nvrtcDestroyProgram(&program);
    return ptx;
}

struct JitKernels {
    std::vector<std::string> ptx;
    std::vector<cudaLibrary_t> libraries;
    std::vector<cudaKernel_t> kernels;
    float* out = nullptr;

    JitKernels() {
        int major = 0, minor = 0;
        cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0);
        cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, 0);
        for (int m = 0; m < kModules; ++m)
            ptx.push_back(ptxFor(m, major, minor)); // compiled to PTX only: the driver JITs it
        EXPECT_EQ(cudaMalloc(&out, sizeof(float) * kBlocks * kThreads), cudaSuccess);
    }
    ~JitKernels() {
        for (cudaLibrary_t l : libraries)
            cudaLibraryUnload(l);
        cudaFree(out);
    }
    void load() { // the driver compiles each module now (the JIT cache is new and empty)
        for (const auto& text : ptx) {
            cudaLibrary_t library = nullptr;
            cudaKernel_t kernel = nullptr;
            ASSERT_EQ(cudaLibraryLoadData(&library, text.c_str(), nullptr, nullptr, 0, nullptr,
                                          nullptr, 0),
                      cudaSuccess);
            ASSERT_EQ(cudaLibraryGetKernel(&kernel, library, "chain"), cudaSuccess);
            libraries.push_back(library);
            kernels.push_back(kernel);
        }
    }
    void launchAll() {
        int iterations = kIterations;
        for (cudaKernel_t k : kernels) {
            void* args[] = {&out, &iterations};
            ASSERT_EQ(cudaLaunchKernel(reinterpret_cast<const void*>(k), dim3(kBlocks),
                                       dim3(kThreads), args, 0, nullptr),
                      cudaSuccess);
        }
    }
};

void expectEveryKernelMeasuredExactly(const std::vector<roofline::KernelRecord>& records) {
    ASSERT_EQ(records.size(), static_cast<std::size_t>(kModules));
    const double flops = 2.0 * kBlocks * kThreads * kIterations;
    for (const auto& r : records) {
        EXPECT_TRUE(r.measured) << r.name << ": " << r.note;
        EXPECT_EQ(r.flops[static_cast<std::size_t>(roofline::FlopKind::FP32)], flops) << r.note;
        EXPECT_EQ(r.name, "chain");
        EXPECT_EQ(r.scopePath, "step");
        EXPECT_TRUE(r.note.empty()) << r.note;
    }
}

// A fresh JIT cache (before the first CUDA call), the PTX of every module, and a session.
class GpuCodeLoad : public ::testing::Test {
protected:
    void SetUp() override {
        useFreshJitCache();
        ROOFLINE_REQUIRE_GPU();
        ASSERT_EQ(cudaFree(nullptr), cudaSuccess);
        jit = std::make_unique<JitKernels>();
        roofline::Options options;
        options.reuseSamples = 0; // the tests count iterations against passes
        session = std::make_unique<roofline::Session>(options);
        ASSERT_TRUE(session->countersAvailable()) << session->status();
    }
    std::unique_ptr<JitKernels> jit;
    std::unique_ptr<roofline::Session> session;
};

} // namespace

TEST_F(GpuCodeLoad, KernelsCompiledWhileProfilingAreMeasuredSafely) {
    jit->load();      // compiled while the profiler is enabled, as cuDNN's PTX kernels are
    jit->launchAll(); // first use, outside every scope (a verification run)
    int iterations = 0;
    while (session->needsPass()) {
        roofline::ProfileScope step{"step"};
        jit->launchAll();
        ++iterations;
    }
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    // The first iteration is observed only (Options::firstIteration), then one per pass.
    EXPECT_EQ(iterations, static_cast<int>(session->passes()) + 1);
    expectEveryKernelMeasuredExactly(session->stop());
}

TEST_F(GpuCodeLoad, CodeLoadedInsideTheFirstIterationIsMeasuredExactly) {
    int iterations = 0;
    while (session->needsPass()) {
        roofline::ProfileScope step{"step"};
        if (iterations == 0)
            jit->load(); // lazy initialization inside the first iteration
        jit->launchAll();
        ++iterations;
    }
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    // The first iteration, which compiles, is observed only with no profiler: nothing restarts.
    EXPECT_EQ(iterations, static_cast<int>(session->passes()) + 1);
    expectEveryKernelMeasuredExactly(session->stop());
}
