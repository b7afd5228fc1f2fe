#include "calibration/instruction_kernels.cuh"

#include <roofline/profile_scope.hpp>

#include <string>

namespace calibration {
namespace {

constexpr int kThreads = kInstructionBlocks * kInstructionThreadsPerBlock;
constexpr int kSharedWords = 1088; // lane x 32 + 63 < 1088

__global__ void strided(const float* in, float* out, int stride) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = in[static_cast<long long>(i) * stride];
}

__global__ void sharedConflicts(float* out, int way) {
    __shared__ float words[kSharedWords];
    const int lane = threadIdx.x;
    for (int w = lane; w < kSharedWords; w += 32)
        words[w] = static_cast<float>(w);
    __syncwarp();
    // volatile: every load is issued, none kept in registers
    const volatile float* v = words;
    float sum = 0.0f;
#pragma unroll
    for (int r = 0; r < kSharedLoads; ++r)
        sum += v[lane * way + r];
    out[blockIdx.x * 32 + lane] = sum;
}

__global__ void divergent(const float* in, float* out) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    float x = in[i];
    if ((threadIdx.x & 31) < kDivergentLanes) {
        const float a = 0.999f, c = 1e-3f;
#pragma unroll 16
        for (int k = 0; k < kDivergentFmas; ++k)
            x = fmaf(x, a, c);
    }
    out[i] = x;
}

__global__ void integerOnly(unsigned* out, unsigned seed) {
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned h = i ^ seed;
#pragma unroll 8
    for (int r = 0; r < 64; ++r) {
        h ^= h << 13;
        h ^= h >> 17;
        h ^= h << 5;
    }
    out[i] = h;
}

} // namespace

InstructionBuffers::InstructionBuffers() {
    cudaMalloc(&in, sizeof(float) * kThreads * 32);
    cudaMemset(in, 0, sizeof(float) * kThreads * 32);
    cudaMalloc(&out, sizeof(float) * kThreads);
}

InstructionBuffers::~InstructionBuffers() {
    cudaFree(in);
    cudaFree(out);
}

cudaError_t launchStrided(const InstructionBuffers& b, int stride) {
    const std::string name = "instructions/stride" + std::to_string(stride);
    roofline::ProfileScope scope(name.c_str());
    strided<<<kInstructionBlocks, kInstructionThreadsPerBlock>>>(b.in, b.out, stride);
    return cudaGetLastError();
}

cudaError_t launchSharedConflicts(const InstructionBuffers& b, int way) {
    const std::string name = "instructions/shared" + std::to_string(way) + "way";
    roofline::ProfileScope scope(name.c_str());
    sharedConflicts<<<kThreads / 32, 32>>>(b.out, way);
    return cudaGetLastError();
}

cudaError_t launchDivergent(const InstructionBuffers& b) {
    roofline::ProfileScope scope("instructions/divergent");
    divergent<<<kInstructionBlocks, kInstructionThreadsPerBlock>>>(b.in, b.out);
    return cudaGetLastError();
}

cudaError_t launchIntegerOnly(const InstructionBuffers& b) {
    roofline::ProfileScope scope("instructions/integer");
    integerOnly<<<kInstructionBlocks, kInstructionThreadsPerBlock>>>(
        reinterpret_cast<unsigned*>(b.out), 0x9E3779B9u);
    return cudaGetLastError();
}

cudaError_t runInstructionSuite(const InstructionBuffers& b) {
    cudaError_t first = cudaSuccess;
    const auto keep = [&](cudaError_t e) {
        if (first == cudaSuccess)
            first = e;
    };
    for (int stride : {1, 2, 8, 32})
        keep(launchStrided(b, stride));
    for (int way : {1, 2, 8, 32})
        keep(launchSharedConflicts(b, way));
    keep(launchDivergent(b));
    keep(launchIntegerOnly(b));
    keep(cudaDeviceSynchronize());
    return first;
}

} // namespace calibration
