// Records test/fixtures/h100_calibration.rfl: the calibration kernels under one Session, saved.
// Usage: record_fixture OUT.rfl   (run on the GPU machine; see test/fixtures/README.md)
#include "calibration/kernels.cuh"

#include <roofline/roofline.hpp>

#include <cstdio>
#include <iostream>

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: %s OUT.rfl\n", argv[0]);
        return 2;
    }
    try {
        calibration::Buffers buffers;
        roofline::Options options;
        options.maxKernels = 5; // exactly the five kernels: keeps the fixture small
        roofline::Session session{options};
        {
            roofline::ProfileScope outer{"calibration"};
            {
                roofline::ProfileScope s{"ffma"};
                calibration::launchFfma(buffers);
            }
            {
                roofline::ProfileScope s{"dfma"};
                calibration::launchDfma(buffers);
            }
            {
                roofline::ProfileScope s{"hfma2"};
                calibration::launchHfma2(buffers);
            }
            {
                roofline::ProfileScope s{"mma_fp16"};
                calibration::launchMmaFp16(buffers);
            }
            {
                roofline::ProfileScope s{"copy"};
                calibration::launchCopy(buffers);
            }
        }
        roofline::printTable(session.stop(), std::cout);
        session.save(argv[1]);
        std::cout << "wrote " << argv[1] << '\n';
        return 0;
    } catch (const roofline::Error& e) {
        std::cerr << "record_fixture: " << e.what() << '\n';
        return 1;
    }
}
