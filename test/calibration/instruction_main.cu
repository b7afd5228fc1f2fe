// The instruction roofline's calibration kernels once each, for `roofline run` and ncu to measure
// the same launches (test/gpu/instruction_vs_ncu.sh; the fixture h100_instructions.rfl).
#include "calibration/instruction_kernels.cuh"

#include <cstdio>

int main() {
    calibration::InstructionBuffers buffers;
    const cudaError_t e = calibration::runInstructionSuite(buffers);
    if (e != cudaSuccess) {
        std::fprintf(stderr, "instruction calibration: %s\n", cudaGetErrorString(e));
        return 1;
    }
    std::printf("instruction calibration: 10 kernels ran\n");
    return 0;
}
