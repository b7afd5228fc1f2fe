// The instruction roofline's counters on calibration kernels whose counts are worked out by hand
// (calibration/instruction_kernels.cuh): requests, sectors, wavefronts and bytes exact, the
// verdicts each kernel should get, and no floating-point work where there is none. Label: gpu.
#include "calibration/instruction_expected.hpp"
#include "gpu/gpu_test_support.hpp"

#include <roofline/roofline.hpp>

namespace cal = calibration;

TEST(GpuInstructions, CountsAndVerdictsOfTheCalibrationKernels) {
    ROOFLINE_REQUIRE_GPU();
    cal::InstructionBuffers buffers;
    roofline::Options options;
    options.mode = roofline::CollectionMode::KernelReplay;
    options.instructionMetrics = true;
    roofline::Session session{options};
    if (session.chip() != "GH100")
        GTEST_SKIP() << "these counts were worked out for GH100's sectors and banks, this GPU is "
                     << session.chip();
    ASSERT_EQ(cal::runInstructionSuite(buffers), cudaSuccess);
    const auto& records = session.stop();
    cal::expectInstructionCalibration(records);
}
