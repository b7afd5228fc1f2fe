// Records are not lost when the application never calls stop(): run as
//   roofline_exit_flush exit|signal OUTPUT.rfl
// "exit" returns from main with the Session still active (leaked); "signal" raises SIGTERM with
// no handler installed. Either way the recording must appear at OUTPUT.rfl (checked by CTest).
#include <roofline/roofline.hpp>

#include <cuda_runtime.h>

#include <csignal>
#include <cstdio>
#include <string>

__global__ void work(float* out) {
    out[threadIdx.x] = threadIdx.x * 2.0f;
}

int main(int argc, char** argv) {
    if (argc != 3)
        return 2;
    int devices = 0;
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
        std::printf("SKIPPED no CUDA device\n");
        return 0;
    }
    float* buffer = nullptr;
    cudaMalloc(&buffer, 1024);
    roofline::Options options;
    options.mode = roofline::CollectionMode::KernelReplay;
    options.outputPath = argv[2];
    auto* session = new roofline::Session(options); // never stopped by the application
    {
        roofline::ProfileScope s{"before_exit"};
        work<<<1, 32>>>(buffer);
    }
    cudaDeviceSynchronize();
    std::printf("launched; ending by %s\n", argv[1]);
    std::fflush(stdout);
    if (std::string(argv[1]) == "signal")
        std::raise(SIGTERM);
    (void)session;
    return 0;
}
