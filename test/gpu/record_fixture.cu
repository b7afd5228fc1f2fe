// Records the test fixtures: the calibration kernels under one Session, saved, and prints what
// each phase cost (see test/fixtures/README.md).
//   record_fixture OUT.rfl              kernel replay (h100_calibration.rfl, format v1 originally)
//   record_fixture OUT.rfl iteration    iteration replay via Session::needsPass() (format v2)
#include "calibration/kernels.cuh"

#include <roofline/roofline.hpp>

#include <chrono>
#include <cstdio>
#include <iostream>
#include <string>

int main(int argc, char** argv) {
    if (argc != 2 && argc != 3) {
        std::fprintf(stderr, "usage: %s OUT.rfl [iteration]\n", argv[0]);
        return 2;
    }
    const bool iteration = argc == 3 && std::string(argv[2]) == "iteration";
    using Clock = std::chrono::steady_clock;
    const auto ms = [](Clock::time_point a, Clock::time_point b) {
        return std::chrono::duration<double, std::milli>(b - a).count();
    };
    try {
        calibration::Buffers buffers;
        roofline::Options options;
        options.mode = iteration ? roofline::CollectionMode::IterationReplay
                                 : roofline::CollectionMode::KernelReplay;
        options.rangesPerImage = 5; // exactly the five kernels: keeps the fixture small
        options.keepImagesMiB = 64; // the fixtures test re-evaluation of raw images too
        options.reuseSamples = 0;   // as the committed fixtures were recorded
        const auto t0 = Clock::now();
        roofline::Session session{options};
        const auto t1 = Clock::now();
        while (iteration ? session.needsPass() : false) {
            roofline::ProfileScope step{"step"};
            if (const cudaError_t e = calibration::runSuite(buffers); e != cudaSuccess) {
                std::cerr << "record_fixture: " << cudaGetErrorString(e) << '\n';
                return 1;
            }
        }
        if (!iteration)
            if (const cudaError_t e = calibration::runSuite(buffers); e != cudaSuccess) {
                std::cerr << "record_fixture: " << cudaGetErrorString(e) << '\n';
                return 1;
            }
        const auto t2 = Clock::now();
        const auto& records = session.stop();
        const auto t3 = Clock::now();
        roofline::printTable(records, std::cout);
        std::printf("session setup %.1f ms; 5 kernels profiled in %.1f ms (%zu passes each); "
                    "stop + evaluation %.1f ms\n",
                    ms(t0, t1), ms(t1, t2), session.passes(), ms(t2, t3));
        session.save(argv[1]);
        std::cout << "wrote " << argv[1] << '\n';
        return 0;
    } catch (const roofline::Error& e) {
        std::cerr << "record_fixture: " << e.what() << '\n';
        return 1;
    }
}
