// Does restoring a CUPTI checkpoint (cupti_checkpoint.h) give back host memory the CPU wrote after
// the save? Window replay restores a checkpoint between its passes and after them; a store into
// pinned host memory that another thread of the program makes meanwhile would be lost if the
// restore covers host memory. Each kind of host memory CUDA knows is written with A, saved, written
// with B by the CPU, restored, and read:
//   cudaMallocHost / cudaHostAlloc (pinned), cudaHostAlloc mapped, cudaHostRegister'ed malloc
//   memory, cudaMallocManaged -- and device memory for comparison (written by a kernel).
//   nvcc -O2 -arch=sm_90 pinned_restore_probe.cu -I$CUPTI/include -L$CUPTI/lib64 -lcupti -lcheckpoint
#include <cuda.h>
#include <cuda_runtime.h>
#include <cupti.h>
#include <cupti_checkpoint.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

using NV::Cupti::Checkpoint::CUpti_Checkpoint;
using NV::Cupti::Checkpoint::cuptiCheckpointFree;
using NV::Cupti::Checkpoint::cuptiCheckpointRestore;
using NV::Cupti::Checkpoint::cuptiCheckpointSave;

#define CHECK(x)                                                                                   \
    do {                                                                                           \
        if (!(x)) {                                                                                \
            std::printf("failed: %s (line %d)\n", #x, __LINE__);                                  \
            std::exit(1);                                                                          \
        }                                                                                          \
    } while (0)

__global__ void fill(int* p, int n, int v) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        p[i] = v;
}

int main() {
    constexpr int n = 1 << 20;
    constexpr std::size_t bytes = n * sizeof(int);
    CHECK(cudaSetDevice(0) == cudaSuccess);
    CHECK(cudaFree(nullptr) == cudaSuccess);
    int *pinned = nullptr, *mapped = nullptr, *managed = nullptr, *device = nullptr;
    CHECK(cudaMallocHost(&pinned, bytes) == cudaSuccess);
    CHECK(cudaHostAlloc(&mapped, bytes, cudaHostAllocMapped) == cudaSuccess);
    int* registered = static_cast<int*>(std::aligned_alloc(4096, bytes));
    CHECK(cudaHostRegister(registered, bytes, cudaHostRegisterDefault) == cudaSuccess);
    CHECK(cudaMallocManaged(&managed, bytes) == cudaSuccess);
    CHECK(cudaMalloc(&device, bytes) == cudaSuccess);
    int* host[] = {pinned, mapped, registered, managed};
    const char* names[] = {"cudaMallocHost", "cudaHostAlloc mapped", "cudaHostRegister",
                           "cudaMallocManaged"};
    for (int* p : host)
        for (int i = 0; i < n; ++i)
            p[i] = 1; // A
    fill<<<n / 256, 256>>>(device, n, 1);
    CHECK(cudaDeviceSynchronize() == cudaSuccess);
    CUcontext ctx = nullptr;
    CHECK(cuCtxGetCurrent(&ctx) == CUDA_SUCCESS);
    CUpti_Checkpoint cp{CUpti_Checkpoint_STRUCT_SIZE};
    cp.ctx = ctx;
    cp.allowOverwrite = 1;
    CHECK(cuptiCheckpointSave(&cp) == CUPTI_SUCCESS);
    for (int* p : host)
        for (int i = 0; i < n; ++i)
            p[i] = 2; // B, by the CPU after the save
    fill<<<n / 256, 256>>>(device, n, 2);
    CHECK(cudaDeviceSynchronize() == cudaSuccess);
    CHECK(cuptiCheckpointRestore(&cp) == CUPTI_SUCCESS);
    CHECK(cudaDeviceSynchronize() == cudaSuccess);
    for (int k = 0; k < 4; ++k) {
        int restored = 0;
        for (int i = 0; i < n; ++i)
            restored += host[k][i] == 1;
        std::printf("%-22s %s (%d of %d words back to the saved value)\n", names[k],
                    restored == n ? "RESTORED" : restored == 0 ? "untouched" : "PARTLY restored",
                    restored, n);
    }
    int first = 0;
    CHECK(cudaMemcpy(&first, device, sizeof first, cudaMemcpyDeviceToHost) == cudaSuccess);
    std::printf("%-22s %s\n", "cudaMalloc", first == 1 ? "RESTORED" : "untouched");
    cuptiCheckpointFree(&cp);
    return 0;
}
